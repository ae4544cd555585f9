/// The zip format, as far as an Android bugreport needs it (APPNOTE.TXT 6.3).
///
/// The End Of Central Directory record (last 22+ bytes; zip64's locator and record
/// before it) gives the central directory; each of its entries gives a name, a method
/// (0 stored, 8 deflate), sizes and the offset of a local header, after which the data
/// starts. When the central directory is missing or damaged, the local headers are
/// walked from the start instead, so that what the archive still holds is read.
///
///     local header  0x04034b50 | ver | flags | method | time | date | crc | csize | size | nlen | xlen | name | extra
///     central entry 0x02014b50 | made | ver | flags | method | … | csize @20 | size @24 | nlen @28 | xlen @30
///                   | clen @32 | … | local header offset @42 | name @46 | extra | comment
struct ZipArchive {
  struct Entry {
    var name: String
    var method: UInt16
    var flags: UInt16
    var compressedSize: Int
    var size: Int
    var localHeaderOffset: Int
  }

  let bytes: UnsafeBufferPointer<UInt8>
  let entries: [Entry]
  /// Damage found while listing (a central directory that had to be replaced by a walk of
  /// the local headers); the entries listed are still usable.
  let damage: CaptureDamage?

  static let magic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
  /// More entries than this is not a bugreport (real ones hold a few thousand).
  static let maxEntries = 1 << 20

  struct Failure: Error {
    var message: String
    /// Where in the archive the problem is.
    var offset: Int
    /// What was inflated before the failure.
    var partial: [UInt8] = []
  }

  init(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
    self.bytes = bytes
    do {
      entries = try Self.centralDirectory(bytes)
      damage = nil
    } catch {
      // Walk the local headers: a zip cut short (no directory at its end) still holds
      // the entries written before the cut.
      let walked = Self.walkLocalHeaders(bytes)
      guard !walked.isEmpty else { throw error }
      entries = walked
      damage = CaptureDamage(
        offset: error.offset, "\(error.message); \(walked.count) entries found by their local headers instead")
    }
  }

  private static func centralDirectory(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> [Entry] {
    guard bytes.count >= 22 else { throw Failure(message: "zip end of central directory not found", offset: 0) }
    let lowest = max(0, bytes.count - 22 - 65535)
    guard
      let eocd = stride(from: bytes.count - 22, through: lowest, by: -1).first(where: {
        bytes.littleEndian32(at: $0) == 0x0605_4B50
      })
    else { throw Failure(message: "zip end of central directory not found", offset: bytes.count) }
    var count = Int(bytes.littleEndian16(at: eocd + 10))
    var offset = Int(bytes.littleEndian32(at: eocd + 16))
    // zip64: a locator right before the record points at the zip64 end of central directory.
    if eocd >= 20, bytes.littleEndian32(at: eocd - 20) == 0x0706_4B50 {
      let record = Int(clamping: bytes.littleEndian64(at: eocd - 12))
      guard record >= 0, record <= bytes.count - 56, bytes.littleEndian32(at: record) == 0x0606_4B50 else {
        throw Failure(message: "zip64 end of central directory damaged", offset: eocd - 20)
      }
      count = Int(clamping: bytes.littleEndian64(at: record + 32))
      offset = Int(clamping: bytes.littleEndian64(at: record + 48))
    }
    guard count <= maxEntries else {
      throw Failure(message: "zip central directory lists \(count) entries, more than \(maxEntries)", offset: eocd)
    }
    var entries: [Entry] = []
    for _ in 0..<count {
      guard offset >= 0, offset <= bytes.count - 46, bytes.littleEndian32(at: offset) == 0x0201_4B50 else {
        throw Failure(message: "zip central directory damaged at byte offset \(offset)", offset: offset)
      }
      let nameLength = Int(bytes.littleEndian16(at: offset + 28))
      let extraLength = Int(bytes.littleEndian16(at: offset + 30))
      let commentLength = Int(bytes.littleEndian16(at: offset + 32))
      guard nameLength + extraLength <= bytes.count - offset - 46 else {
        throw Failure(message: "zip central directory damaged at byte offset \(offset)", offset: offset)
      }
      var entry = Entry(
        name: String(decoding: bytes.view(offset + 46, nameLength), as: UTF8.self),
        method: bytes.littleEndian16(at: offset + 10),
        flags: bytes.littleEndian16(at: offset + 8),
        compressedSize: Int(bytes.littleEndian32(at: offset + 20)),
        size: Int(bytes.littleEndian32(at: offset + 24)),
        localHeaderOffset: Int(bytes.littleEndian32(at: offset + 42)))
      readZip64Extra(bytes.view(offset + 46 + nameLength, extraLength), into: &entry)
      entries.append(entry)
      offset += 46 + nameLength + extraLength + commentLength
    }
    return entries
  }

  /// The zip64 extended information extra field (id 0x0001): 8-byte values for the
  /// fields the entry set to 0xFFFFFFFF, in the order size, compressed size, offset.
  private static func readZip64Extra(_ extra: UnsafeBufferPointer<UInt8>, into entry: inout Entry) {
    var at = 0
    while at + 4 <= extra.count {
      let id = extra.littleEndian16(at: at)
      let length = Int(extra.littleEndian16(at: at + 2))
      guard at + 4 + length <= extra.count else { return }
      if id == 0x0001 {
        var field = at + 4
        func next(_ value: inout Int) {
          guard value == 0xFFFF_FFFF, field + 8 <= at + 4 + length else { return }
          value = Int(clamping: extra.littleEndian64(at: field))
          field += 8
        }
        next(&entry.size)
        next(&entry.compressedSize)
        next(&entry.localHeaderOffset)
        return
      }
      at += 4 + length
    }
  }

  /// The entries whose local headers follow one another from the start of the file.
  /// An entry whose sizes come after its data (flag bit 3) ends where its deflate
  /// stream ends, or a stored one where the next header starts.
  private static func walkLocalHeaders(_ bytes: UnsafeBufferPointer<UInt8>) -> [Entry] {
    var entries: [Entry] = []
    var offset = 0
    while offset <= bytes.count - 30, bytes.littleEndian32(at: offset) == 0x0403_4B50, entries.count < maxEntries {
      let nameLength = Int(bytes.littleEndian16(at: offset + 26))
      let extraLength = Int(bytes.littleEndian16(at: offset + 28))
      let dataStart = offset + 30 + nameLength + extraLength
      guard dataStart <= bytes.count else { break }
      var entry = Entry(
        name: String(decoding: bytes.view(offset + 30, nameLength), as: UTF8.self),
        method: bytes.littleEndian16(at: offset + 8), flags: bytes.littleEndian16(at: offset + 6),
        compressedSize: Int(bytes.littleEndian32(at: offset + 18)), size: Int(bytes.littleEndian32(at: offset + 22)),
        localHeaderOffset: offset)
      readZip64Extra(bytes.view(offset + 30 + nameLength, extraLength), into: &entry)
      if entry.flags & 0x08 != 0 && entry.compressedSize == 0 {
        entry.compressedSize = dataLength(bytes, from: dataStart, method: entry.method)
        entry.size = 0
      }
      entry.compressedSize = min(entry.compressedSize, bytes.count - dataStart)
      entries.append(entry)
      var next = dataStart + entry.compressedSize
      // A data descriptor: optional signature, CRC, then 4- or 8-byte sizes; the next
      // local header is found by its signature within the few bytes it takes.
      if entry.flags & 0x08 != 0 {
        next =
          (next...min(next + 24, bytes.count)).first { $0 <= bytes.count - 4 && bytes.starts(at: $0, with: magic) }
          ?? bytes.count
      }
      offset = next
    }
    return entries
  }

  /// How many bytes the data of an entry without sizes takes.
  private static func dataLength(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, method: UInt16) -> Int {
    let rest = bytes.view(start, bytes.count - start)
    if method == 8, let stream = try? InflateStream(rest, wrapper: .raw) {
      let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
      defer { scratch.deallocate() }
      while stream.read(into: scratch) > 0 {}
      return stream.consumed
    }
    var at = start
    while at <= bytes.count - 4 {
      if bytes.starts(at: at, with: magic) || bytes.starts(at: at, with: [0x50, 0x4B, 0x01, 0x02]) { break }
      at += 1
    }
    return (at <= bytes.count - 4 ? at : bytes.count) - start
  }

  /// The uncompressed content of `entry`, at most `limit` bytes: more is a failure that
  /// keeps the first `limit` bytes, and so is data cut off or damaged.
  func content(of entry: Entry, limit: Int = .max) throws(Failure) -> [UInt8] {
    let local = entry.localHeaderOffset
    guard local >= 0, local <= bytes.count - 30, bytes.littleEndian32(at: local) == 0x0403_4B50 else {
      throw Failure(message: "local header damaged", offset: max(0, min(local, bytes.count)))
    }
    let dataStart = local + 30 + Int(bytes.littleEndian16(at: local + 26)) + Int(bytes.littleEndian16(at: local + 28))
    guard dataStart <= bytes.count else { throw Failure(message: "local header cut off", offset: local) }
    let available = bytes.count - dataStart
    let data = bytes.view(dataStart, min(entry.compressedSize, available))
    switch entry.method {
    case 0:
      guard data.count <= limit else {
        throw Failure(
          message: "size exceeds the limit of \(limit) bytes", offset: dataStart, partial: Array(data.prefix(limit)))
      }
      guard entry.compressedSize <= available else {
        throw Failure(message: "cut off", offset: bytes.count, partial: Array(data))
      }
      return Array(data)
    case 8:
      do {
        return try Inflate.inflate(data, wrapper: .raw, expectedSize: entry.size, limit: limit)
      } catch {
        let cut = entry.compressedSize > available ? "entry cut off at the end of the file: " : ""
        throw Failure(message: cut + error.message, offset: dataStart, partial: error.partial)
      }
    default:
      throw Failure(message: "compression method \(entry.method) is not supported", offset: local)
    }
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether the bytes at `offset` are `prefix` (false when they run past the end).
  func starts(at offset: Int, with prefix: [UInt8]) -> Bool {
    offset >= 0 && offset <= count - prefix.count && prefix.indices.allSatisfy { self[offset + $0] == prefix[$0] }
  }
}
