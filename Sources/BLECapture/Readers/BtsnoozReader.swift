/// Reads the btsnooz section of an Android bugreport (AOSP `btsnooz.py`).
///
/// Between `--- BEGIN:BTSNOOP_LOG_SUMMARY` and `--- END:BTSNOOP_LOG_SUMMARY` lines
/// is base64 of a 9-byte preamble (version u8, last timestamp u64 LE in Unix µs,
/// from gettimeofday) and a zlib stream of records, all little-endian:
///
///     v1: length u16 | delta u32 | type u8 | length − 1 bytes
///     v2: length u16 | original length u16 | delta u32 | type u8 | length − 1 bytes
///
/// Lengths count the type byte. Timestamps run backwards from the last one: the
/// first record is at last − Σ deltas, and each record adds its own delta.
final class BtsnoozReader: RecordSource {
  static let beginMarker: [UInt8] = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
  static let endMarker: [UInt8] = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)

  /// btsnooz record types: H4 type and direction.
  static let types: [UInt8: (type: UInt8, direction: Direction)] = [
    0x10: (H4.event, .received), 0x11: (H4.acl, .received), 0x12: (H4.sco, .received),
    0x20: (H4.command, .sent), 0x21: (H4.acl, .sent), 0x22: (H4.sco, .sent),
  ]

  private struct Entry {
    var start: Int
    var length: Int
    var originalLength: Int
    var timestamp: Int64
    var type: UInt8
  }

  /// A summary is a ring buffer of 128 to 256 KiB: far more than this is a bomb.
  static let inflatedLimit = 64 << 20

  let version: UInt8
  let origin: String
  private let storage: OwnedBytes
  private let entries: [Entry]
  private let sectionOffset: Int
  private var index = 0
  private(set) var damage: CaptureDamage?
  private var pendingDamage: CaptureDamage?

  /// Whether `text` holds a btsnooz section.
  static func contains(_ text: UnsafeBufferPointer<UInt8>) -> Bool { find(beginMarker, in: text, from: 0) != nil }

  /// Reads the first btsnooz section of `text`. `origin` names where the text came
  /// from (the file, or the zip entry) for messages.
  init(text: UnsafeBufferPointer<UInt8>, path: String, origin: String) throws(CaptureError) {
    guard let begin = Self.find(Self.beginMarker, in: text, from: 0) else {
      throw CaptureError(.notACapture, path: path)
    }
    let bodyStart = (Self.find([0x0A], in: text, from: begin) ?? text.count - 1) + 1
    let end = Self.find(Self.endMarker, in: text, from: bodyStart)
    let bodyEnd = end ?? text.count
    guard let decoded = Base64.decode(text.view(bodyStart, bodyEnd - bodyStart)) else {
      throw CaptureError(.damagedHeader("btsnooz section at byte offset \(begin) is not valid base64"), path: path)
    }
    guard decoded.count >= 9, decoded[0] == 1 || decoded[0] == 2 else {
      throw CaptureError(
        .unsupported(
          "btsnooz section at byte offset \(begin): version \(decoded.first.map(String.init) ?? "none") "
            + "is not supported; expected 1 or 2"),
        path: path)
    }
    version = decoded[0]
    self.origin = origin
    sectionOffset = begin
    var inflated: [UInt8]
    var damage: CaptureDamage?
    if end == nil { damage = CaptureDamage(offset: begin, "btsnooz section has no END line") }
    do {
      inflated = try decoded.withUnsafeBufferPointer { all throws(Inflate.Failure) in
        try Inflate.inflate(all.view(9, all.count - 9), wrapper: .zlib, limit: Self.inflatedLimit)
      }
    } catch {
      inflated = error.partial
      damage = CaptureDamage(offset: begin, "btsnooz section: \(error.message)")
    }
    let lastTimestamp = decoded.withUnsafeBufferPointer { Int64(bitPattern: $0.littleEndian64(at: 1)) }
    let version = decoded[0]
    let parsed = inflated.withUnsafeBufferPointer { Self.parse($0, version: version, lastTimestamp: lastTimestamp) }
    storage = OwnedBytes(inflated)
    entries = parsed.entries
    pendingDamage =
      damage
      ?? parsed.cutAt.map {
        CaptureDamage(offset: begin, "btsnooz record \(parsed.entries.count + 1) cut off at stream offset \($0)")
      }
  }

  private static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, version: UInt8, lastTimestamp: Int64
  ) -> (entries: [Entry], cutAt: Int?) {
    let headerLength = version == 1 ? 7 : 9
    var entries: [Entry] = []
    var offset = 0
    var deltas: Int64 = 0
    var cutAt: Int?
    while offset < bytes.count {
      guard bytes.count - offset >= headerLength else {
        cutAt = offset
        break
      }
      let length = Int(bytes.littleEndian16(at: offset))
      let original = version == 1 ? length : Int(bytes.littleEndian16(at: offset + 2))
      let delta = Int64(bytes.littleEndian32(at: offset + (version == 1 ? 2 : 4)))
      let type = bytes[offset + headerLength - 1]
      let payload = offset + headerLength
      guard length >= 1, payload + length - 1 <= bytes.count else {
        cutAt = offset
        break
      }
      deltas &+= delta
      entries.append(
        Entry(
          start: payload, length: length - 1, originalLength: max(original, length) - 1, timestamp: deltas, type: type))
      offset = payload + length - 1
    }
    // Wrapping: a damaged preamble's timestamp may be anything, and must not trap.
    let first = lastTimestamp &- deltas
    for i in entries.indices { entries[i].timestamp &+= first }
    return (entries, cutAt)
  }

  var formatDescription: String { "Android btsnooz v\(version) (\(origin))" }
  var family: LinkFamily { .h4 }
  var resolution: TimestampResolution { .microseconds }
  var progress: (done: Int, total: Int) { (index, entries.count) }
  var notes: [String] {
    ["btsnooz holds only a summary ring buffer: data packets are usually cut, SCO and ISO are left out"]
  }

  /// The section, as the one source of the records: a summary.
  var sources: [CaptureSourceFile] {
    [
      CaptureSourceFile(
        path: origin, format: formatDescription, isSummary: true, records: entries.count,
        first: entries.first.map { Timestamp(unixMicroseconds: $0.timestamp) },
        last: entries.last.map { Timestamp(unixMicroseconds: $0.timestamp) }, damage: pendingDamage)
    ]
  }

  func next() -> Record? {
    guard index < entries.count else {
      if damage == nil { damage = pendingDamage }
      return nil
    }
    let entry = entries[index]
    index += 1
    let bytes = storage.bytes.view(entry.start, entry.length)
    let known = Self.types[entry.type]
    return Record(
      frame: index, timestamp: Timestamp(unixMicroseconds: entry.timestamp),
      direction: known?.direction, adapter: nil, kind: known.map { .hci($0.type) } ?? .unframed, bytes: bytes,
      originalLength: entry.originalLength, fileOffset: sectionOffset)
  }

  static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    guard let first = needle.first, needle.count <= haystack.count else { return nil }
    var index = from
    while index <= haystack.count - needle.count {
      if haystack[index] == first && haystack.view(index, needle.count).elementsEqual(needle) { return index }
      index += 1
    }
    return nil
  }
}
