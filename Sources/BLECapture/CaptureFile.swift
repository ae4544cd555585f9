/// Opens captures, recognising the format by content, never by file name.
public enum CaptureFile {
  static let pcapMagics: [UInt32] = [0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1]
  static let pcapngMagic: UInt32 = 0x0A0D_0D0A

  /// A record source for the file at `path`: a capture file, or what a phone saved (an
  /// Android bugreport zip or its folder, an iOS sysdiagnose `.tar.gz` or its folder),
  /// whose HCI logs are merged (`PhoneArchive`).
  public static func open(_ path: String) throws(CaptureError) -> any RecordSource {
    if PhoneArchive.isDirectory(path) { return try PhoneArchive(path: path).recordSource() }
    let file = try MappedFile(path: path)
    let bytes = file.bytes
    guard bytes.count > 0 else { throw CaptureError(.empty, path: path) }
    // A file cut inside the btsnoop magic is a damaged btsnoop, not some other text.
    if bytes.count >= 4, bytes.starts(with: Array(BtsnoopReader.magic.prefix(bytes.count))) {
      return try BtsnoopReader(file: file)
    }
    if bytes.count >= 4 {
      let magic = bytes.bigEndian32(at: 0)
      if pcapMagics.contains(magic) || magic == pcapngMagic {
        return try PcapReader(path: path, size: bytes.count, isNextGeneration: magic == pcapngMagic)
      }
    }
    if bytes.starts(with: ZipArchive.magic) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06])
      || bytes.starts(with: [0x1F, 0x8B])
      || bytes.starts(at: 257, with: Array("ustar".utf8))
    {
      return try PhoneArchive(path: path).recordSource()
    }
    if let bigEndian = PacketLoggerReader.detectBigEndian(bytes) {
      return PacketLoggerReader(file: file, bigEndian: bigEndian)
    }
    if BtsnoozReader.contains(bytes) {
      return try BtsnoozReader(text: bytes, path: path, origin: "bugreport text")
    }
    throw CaptureError(.notACapture, path: path)
  }
}
