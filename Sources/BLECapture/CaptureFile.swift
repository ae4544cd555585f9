/// Opens captures, recognising the format by content, never by file name.
public enum CaptureFile {
  static let pcapMagics: [UInt32] = [0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1]
  static let pcapngMagic: UInt32 = 0x0A0D_0D0A

  /// A record source for the file at `path`.
  public static func open(_ path: String) throws(CaptureError) -> any RecordSource {
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
    if bytes.starts(with: ZipArchive.magic) { return try openBugreportZip(file) }
    if let bigEndian = PacketLoggerReader.detectBigEndian(bytes) {
      return PacketLoggerReader(file: file, bigEndian: bigEndian)
    }
    if BtsnoozReader.contains(bytes) {
      return try BtsnoozReader(text: bytes, path: path, origin: "bugreport text")
    }
    throw CaptureError(.notACapture, path: path)
  }

  /// The btsnooz section of the bugreport text inside an Android bugreport zip: the
  /// `bugreport*.txt` entry first, then any other text entry that holds one.
  static func openBugreportZip(_ file: MappedFile) throws(CaptureError) -> any RecordSource {
    let archive: ZipArchive
    do {
      archive = try ZipArchive(file.bytes)
    } catch {
      throw CaptureError(.damagedHeader(error.message), path: file.path)
    }
    let candidates = archive.entries.filter { $0.name.hasSuffix(".txt") }.sorted {
      ($0.name.hasPrefix("bugreport") ? 0 : 1, $0.name) < ($1.name.hasPrefix("bugreport") ? 0 : 1, $1.name)
    }
    for entry in candidates {
      let content: [UInt8]
      do {
        content = try archive.content(of: entry)
      } catch {
        throw CaptureError(.damagedHeader(error.message), path: file.path)
      }
      let text = OwnedBytes(content)
      if BtsnoozReader.contains(text.bytes) {
        return try BtsnoozReader(text: text.bytes, path: file.path, origin: "bugreport zip entry \(entry.name)")
      }
    }
    throw CaptureError(
      .unsupported(
        "zip archive holds no Android bugreport text with a btsnooz section; expected \(CaptureError.acceptedFormats)"),
      path: file.path)
  }
}
