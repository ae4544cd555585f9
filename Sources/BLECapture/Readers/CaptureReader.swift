/// The file readers `CaptureFile.open` chooses between, for callers that already know
/// the format and want that reader alone (the fuzz targets: each drives one reader with
/// whatever bytes it is given, past the recognition that would send them elsewhere).
public enum CaptureReader: String, CaseIterable, Sendable {
  /// btsnoop, memory-mapped (datalinks 1001, 1002, 2001).
  case btsnoop
  /// pcap or pcapng through libpcap, chosen by the first four bytes.
  case pcap
  /// Apple PacketLogger, in the byte order its first records suggest (big-endian when neither fits).
  case packetLogger
  /// The btsnooz section of an Android bugreport's text.
  case bugreportText
  /// An Android bugreport zip: its HCI logs merged, or the btsnooz section of its text.
  case bugreportZip
  /// An iOS sysdiagnose `.tar.gz`: its PacketLogger logs merged.
  case sysdiagnose
}

extension CaptureFile {
  /// A record source for the file at `path`, read by `reader` whatever the content.
  public static func open(_ path: String, reader: CaptureReader) throws(CaptureError) -> any RecordSource {
    let file = try MappedFile(path: path)
    let bytes = file.bytes
    guard bytes.count > 0 else { throw CaptureError(.empty, path: path) }
    switch reader {
    case .btsnoop:
      return try BtsnoopReader(file: file)
    case .pcap:
      let magic = bytes.count >= 4 ? bytes.bigEndian32(at: 0) : 0
      return try PcapReader(path: path, size: bytes.count, isNextGeneration: magic == pcapngMagic)
    case .packetLogger:
      return PacketLoggerReader(file: file, bigEndian: PacketLoggerReader.detectBigEndian(bytes) ?? true)
    case .bugreportText:
      return try BtsnoozReader(text: bytes, path: path, origin: "bugreport text")
    case .bugreportZip, .sysdiagnose:
      return try PhoneArchive(path: path).recordSource()
    }
  }
}
