/// Bytes read front to back once: an archive's decompressed stream, or a file in memory.
protocol SequentialBytes: AnyObject {
  /// Fills `buffer` with the next bytes and says how many; 0 at the end or at a failure.
  func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int
  /// Why the bytes stopped early, if they did.
  var failure: String? { get }
}

/// A file in memory, as `SequentialBytes`.
final class BufferBytes: SequentialBytes {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var position = 0
  var failure: String? { nil }

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
    let count = min(buffer.count, bytes.count - position)
    guard count > 0 else { return 0 }
    _ = buffer.initialize(from: bytes[position..<position + count])
    position += count
    return count
  }
}

/// A gzip file inflated as it is read, within limits on what it may expand to: a
/// total, and a ratio of inflated to compressed bytes once past a floor (deflate reaches
/// 1032:1, real archives of logs stay far below 100:1).
final class GzipBytes: SequentialBytes {
  private let stream: InflateStream
  private let total: Int
  private let ratio: Int
  private let ratioFloor: Int
  private(set) var failure: String?

  init(_ bytes: UnsafeBufferPointer<UInt8>, total: Int, ratio: Int, ratioFloor: Int) throws(Inflate.Failure) {
    stream = try InflateStream(bytes, wrapper: .gzip)
    self.total = total
    self.ratio = ratio
    self.ratioFloor = ratioFloor
  }

  func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
    guard failure == nil else { return 0 }
    let produced = stream.produced
    if produced >= total {
      failure = "gzip stream inflates to more than \(total) bytes (limit)"
      return 0
    }
    if produced > ratioFloor, produced / max(1, stream.consumed) > ratio {
      failure =
        "gzip stream inflates more than \(ratio) times its compressed size (\(produced) bytes from "
        + "\(stream.consumed)): a decompression bomb"
      return 0
    }
    let count = stream.read(into: UnsafeMutableBufferPointer(rebasing: buffer[..<min(buffer.count, total - produced)]))
    if let failure = stream.failure { self.failure = "gzip: \(failure)" }
    return count
  }
}

/// Walks a tar stream (POSIX ustar, GNU long names, pax path records), 512-byte blocks:
///
///     0      100    124        136     148       156   157        257      345       500
///     +------+------+----------+-------+---------+-----+----------+--------+---------+
///     | name | mode | size (8) | mtime | chksum  | type| linkname | ustar  | prefix  |
///     +------+------+----------+-------+---------+-----+----------+--------+---------+
///
/// then the content padded to 512 bytes. Type `L` (GNU) holds the next entry's long name,
/// `x` (pax) records such as `path=`; two zero blocks end the archive.
enum TarArchive {
  struct Entry {
    var name: String
    var size: Int
    /// Offset of the entry's header in the uncompressed stream.
    var offset: Int
  }

  struct Walk {
    /// The entries whose content was kept, with it.
    var kept: [(entry: Entry, content: [UInt8])] = []
    /// Every regular file's name, in order.
    var names: [String] = []
    /// Why the walk stopped early, if it did: the entries before it were read.
    var damage: CaptureDamage?
    /// Entries kept only in part (over their limit), by name.
    var notes: [String] = []
  }

  static let maxEntries = 1 << 20
  /// A GNU long name or a pax header larger than this is not one.
  static let maxMetadata = 1 << 20

  /// Reads every header of `stream`; `keep` says, for each regular file, how many bytes
  /// of it to hold (nil: skip it). A kept entry larger than its limit is cut there, with
  /// a note.
  static func walk(_ stream: SequentialBytes, keep: (Entry) -> Int?) -> Walk {
    var walk = Walk()
    /// Stops the walk: why the stream stopped when it did, else `message`.
    func stop(_ offset: Int, _ message: String) -> Walk {
      walk.damage = CaptureDamage(offset: offset, stream.failure.map { "tar: \($0)" } ?? message)
      return walk
    }
    let reader = BlockReader(stream)
    var longName: String?
    var zeroBlocks = 0
    var entries = 0
    while entries < maxEntries {
      let headerOffset = reader.position
      guard let header = reader.take(512) else {
        if reader.position > headerOffset || stream.failure != nil || zeroBlocks == 0 {
          walk.damage = CaptureDamage(
            offset: headerOffset,
            stream.failure.map { "tar: \($0)" } ?? "tar archive cut off at byte \(reader.position) of its stream")
        }
        return walk
      }
      if header.allSatisfy({ $0 == 0 }) {
        zeroBlocks += 1
        if zeroBlocks == 2 { return walk }
        continue
      }
      zeroBlocks = 0
      entries += 1
      guard checksumMatches(header) else {
        walk.damage = CaptureDamage(
          offset: headerOffset, "tar header checksum wrong at byte \(headerOffset) of its stream")
        return walk
      }
      guard let size = number(header[124..<136]), size >= 0 else {
        walk.damage = CaptureDamage(
          offset: headerOffset, "tar header size unreadable at byte \(headerOffset) of its stream")
        return walk
      }
      let padded = size + (512 - size % 512) % 512
      let type = header[156]
      switch type {
      case UInt8(ascii: "L"), UInt8(ascii: "x"):
        guard size <= maxMetadata, let content = reader.take(padded) else {
          return stop(headerOffset, "tar extended header damaged at byte \(headerOffset)")
        }
        let text = Array(content.prefix(size))
        longName = type == UInt8(ascii: "L") ? cString(text[...]) : paxPath(text) ?? longName
        continue
      case 0, UInt8(ascii: "0"), UInt8(ascii: "7"):
        let entry = Entry(name: longName ?? headerName(header), size: size, offset: headerOffset)
        longName = nil
        walk.names.append(entry.name)
        if let limit = keep(entry) {
          let kept = min(size, max(0, limit))
          guard let content = reader.take(kept) else {
            return stop(headerOffset, "tar entry \(entry.name) cut off")
          }
          if kept < size { walk.notes.append("\(entry.name): \(size) bytes, only the first \(kept) read (limit)") }
          walk.kept.append((entry, content))
          guard reader.skip(padded - kept) else {
            return stop(headerOffset, "tar entry \(entry.name) cut off")
          }
        } else if !reader.skip(padded) {
          return stop(headerOffset, "tar entry \(entry.name) cut off")
        }
      default:
        // Directories, links, devices, global pax headers: nothing to read.
        longName = nil
        guard reader.skip(padded) else {
          return stop(headerOffset, "tar archive cut off at byte \(reader.position) of its stream")
        }
      }
    }
    walk.notes.append("tar archive lists more than \(maxEntries) entries; the rest is not read")
    return walk
  }

  /// The unsigned sum of the header with its checksum field taken as spaces (old tars
  /// summed signed bytes, accepted too).
  static func checksumMatches(_ header: [UInt8]) -> Bool {
    guard let stored = number(header[148..<156]) else { return false }
    var unsigned = 0
    var signed = 0
    for (index, byte) in header.enumerated() {
      let value = (148..<156).contains(index) ? 0x20 : byte
      unsigned += Int(value)
      signed += Int(Int8(bitPattern: value))
    }
    return stored == unsigned || stored == signed
  }

  /// An octal number field (NUL or space terminated), or GNU base-256 when the first
  /// byte has its high bit set.
  static func number(_ field: ArraySlice<UInt8>) -> Int? {
    guard let first = field.first else { return nil }
    if first & 0x80 != 0 {
      var value = Int(first & 0x3F)
      for byte in field.dropFirst() {
        guard value < Int.max >> 9 else { return nil }
        value = value << 8 | Int(byte)
      }
      return value
    }
    var value = 0
    var digits = 0
    for byte in field {
      if byte == 0 || byte == 0x20 {
        if digits > 0 { break } else { continue }
      }
      guard (0x30...0x37).contains(byte), value < Int.max >> 4 else { return nil }
      value = value * 8 + Int(byte - 0x30)
      digits += 1
    }
    return value
  }

  private static func headerName(_ header: [UInt8]) -> String {
    let name = cString(header[0..<100])
    // ustar: a prefix joins the name with a slash.
    if header[257..<262].elementsEqual("ustar".utf8), header[345] != 0 {
      return cString(header[345..<500]) + "/" + name
    }
    return name
  }

  private static func cString(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// The `path` record of a pax extended header: `LEN path=VALUE\n` lines.
  private static func paxPath(_ text: [UInt8]) -> String? {
    for line in text.split(separator: 0x0A) {
      guard let space = line.firstIndex(of: 0x20) else { continue }
      let record = line[(space + 1)...]
      if record.starts(with: "path=".utf8) { return String(decoding: record.dropFirst(5), as: UTF8.self) }
    }
    return nil
  }
}

/// Whole reads and skips over `SequentialBytes`.
private final class BlockReader {
  let stream: SequentialBytes
  private(set) var position = 0
  private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)

  init(_ stream: SequentialBytes) { self.stream = stream }

  deinit { scratch.deallocate() }

  /// The next `count` bytes, or nil when the stream ends first. Memory grows with what
  /// arrives, not with what a header announces.
  func take(_ count: Int) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(min(count, scratch.count))
    while out.count < count {
      let got = stream.read(
        into: UnsafeMutableBufferPointer(rebasing: scratch[..<min(count - out.count, scratch.count)]))
      guard got > 0 else {
        position += out.count
        return nil
      }
      out.append(contentsOf: scratch[..<got])
    }
    position += count
    return out
  }

  /// Skips `count` bytes; false when the stream ends first.
  func skip(_ count: Int) -> Bool {
    var left = count
    while left > 0 {
      let got = stream.read(into: UnsafeMutableBufferPointer(rebasing: scratch[..<min(left, scratch.count)]))
      guard got > 0 else { return false }
      left -= got
      position += got
    }
    return true
  }
}
