/// Just enough of the zip format to take one entry out of an Android bugreport.
///
/// The End Of Central Directory record (last 22+ bytes) gives the central
/// directory; each of its entries gives a name, a method (0 stored, 8 deflate),
/// sizes and the offset of a local header, after which the data starts.
struct ZipArchive {
  struct Entry {
    var name: String
    var method: UInt16
    var compressedSize: Int
    var size: Int
    var localHeaderOffset: Int
  }

  let bytes: UnsafeBufferPointer<UInt8>
  let entries: [Entry]

  static let magic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

  struct Failure: Error {
    var message: String
  }

  init(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
    self.bytes = bytes
    let lowest = max(0, bytes.count - 22 - 65535)
    guard
      let eocd = stride(from: bytes.count - 22, through: lowest, by: -1).first(where: {
        bytes.littleEndian32(at: $0) == 0x0605_4B50
      })
    else { throw Failure(message: "zip end of central directory not found") }
    let count = Int(bytes.littleEndian16(at: eocd + 10))
    var offset = Int(bytes.littleEndian32(at: eocd + 16))
    var entries: [Entry] = []
    for _ in 0..<count {
      guard offset + 46 <= bytes.count, bytes.littleEndian32(at: offset) == 0x0201_4B50 else {
        throw Failure(message: "zip central directory damaged at byte offset \(offset)")
      }
      let nameLength = Int(bytes.littleEndian16(at: offset + 28))
      let extraLength = Int(bytes.littleEndian16(at: offset + 30))
      let commentLength = Int(bytes.littleEndian16(at: offset + 32))
      guard offset + 46 + nameLength <= bytes.count else {
        throw Failure(message: "zip central directory damaged at byte offset \(offset)")
      }
      entries.append(
        Entry(
          name: String(decoding: bytes.view(offset + 46, nameLength), as: UTF8.self),
          method: bytes.littleEndian16(at: offset + 10),
          compressedSize: Int(bytes.littleEndian32(at: offset + 20)),
          size: Int(bytes.littleEndian32(at: offset + 24)),
          localHeaderOffset: Int(bytes.littleEndian32(at: offset + 42))))
      offset += 46 + nameLength + extraLength + commentLength
    }
    self.entries = entries
  }

  /// The uncompressed content of `entry`.
  func content(of entry: Entry) throws(Failure) -> [UInt8] {
    let local = entry.localHeaderOffset
    guard local + 30 <= bytes.count, bytes.littleEndian32(at: local) == 0x0403_4B50 else {
      throw Failure(message: "zip entry \(entry.name): local header damaged at byte offset \(local)")
    }
    let dataStart = local + 30 + Int(bytes.littleEndian16(at: local + 26)) + Int(bytes.littleEndian16(at: local + 28))
    guard dataStart + entry.compressedSize <= bytes.count else {
      throw Failure(message: "zip entry \(entry.name) cut off at byte offset \(dataStart)")
    }
    let data = bytes.view(dataStart, entry.compressedSize)
    switch entry.method {
    case 0: return Array(data)
    case 8:
      do {
        return try Inflate.inflate(data, wrapper: .raw, expectedSize: entry.size)
      } catch {
        throw Failure(message: "zip entry \(entry.name): \(error.message)")
      }
    default: throw Failure(message: "zip entry \(entry.name): compression method \(entry.method) is not supported")
    }
  }
}
