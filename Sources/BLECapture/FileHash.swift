import CZlib

#if canImport(Glibc)
  import Glibc
#endif

/// A file's content checksum, to tell copies of one capture apart from different ones
/// in a fleet's tables: `crc32:1a2b3c4d`, zlib's CRC-32 of every byte, read in blocks so
/// that a large file costs no memory. Not a cryptographic hash.
public enum FileHash {
  /// The checksum of the file at `path`; nil when it cannot be read (or is a directory).
  public static func crc32(path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { block.deallocate() }
    var crc = CZlib.crc32(0, nil, 0)
    while true {
      let count = read(fd, block.baseAddress, block.count)
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { break }
      crc = crc32_z(crc, block.baseAddress!.assumingMemoryBound(to: Bytef.self), count)
    }
    let digits = String(crc, radix: 16)
    return "crc32:" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
  }
}
