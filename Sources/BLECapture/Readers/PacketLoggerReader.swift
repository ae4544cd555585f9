/// Reads Apple PacketLogger (.pklg) files, v1 (big-endian) and v2 (little-endian).
///
/// No file header; each record:
///
///     0       4         8              12     13
///     +-------+---------+--------------+------+--------------------+
///     | len   | seconds | microseconds | type | payload (len − 9)  |
///     +-------+---------+--------------+------+--------------------+
///
/// `len` counts the bytes after itself. The payload is raw HCI without an H4 byte.
final class PacketLoggerReader: RecordSource {
  /// PacketLogger record types that carry HCI packets, with H4 type and direction.
  static let hciTypes: [UInt8: (type: UInt8, direction: Direction)] = [
    0x00: (H4.command, .sent), 0x01: (H4.event, .received),
    0x02: (H4.acl, .sent), 0x03: (H4.acl, .received),
    0x08: (H4.sco, .sent), 0x09: (H4.sco, .received),
    0x12: (H4.iso, .sent), 0x13: (H4.iso, .received),
  ]
  /// Types that carry no HCI packet but are known (LMP, syslog, kernel, error,
  /// power, note, config, new controller).
  static let otherTypes: Set<UInt8> = [0x0A, 0x0B, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE]

  let file: MappedFile
  let bigEndian: Bool
  private var offset = 0
  private var frame = 0
  private(set) var damage: CaptureDamage?

  init(file: MappedFile, bigEndian: Bool) {
    self.file = file
    self.bigEndian = bigEndian
  }

  /// Whether the bytes look like PacketLogger, and in which byte order: the first
  /// records must have a plausible length, microseconds below one million and a
  /// known type (Wireshark checks the first five records the same way).
  /// Returns whether the file is big-endian, nil when it is not PacketLogger.
  static func detectBigEndian(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
    [true, false].first { plausible(bytes, bigEndian: $0) }
  }

  private static func plausible(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) -> Bool {
    var offset = 0
    var checked = 0
    while checked < 5, offset + 13 <= bytes.count {
      let length = Int(bigEndian ? bytes.bigEndian32(at: offset) : bytes.littleEndian32(at: offset))
      let micros = bigEndian ? bytes.bigEndian32(at: offset + 8) : bytes.littleEndian32(at: offset + 8)
      let type = bytes[offset + 12]
      guard length >= 9, length < 65536 + 9, micros < 1_000_000,
        hciTypes[type] != nil || otherTypes.contains(type)
      else { return false }
      offset += 4 + length
      checked += 1
    }
    return checked > 0
  }

  var formatDescription: String { "Apple PacketLogger \(bigEndian ? "v1 (big-endian)" : "v2 (little-endian)")" }
  var family: LinkFamily { .h4 }
  var resolution: TimestampResolution { .microseconds }
  var progress: (done: Int, total: Int) { (offset, file.bytes.count) }

  func next() -> Record? {
    let bytes = file.bytes
    let start = offset
    file.release(before: start)
    let available = bytes.count - start
    guard available > 0, damage == nil else { return nil }
    guard available >= 13 else {
      damage = CaptureDamage(offset: start, "record \(frame + 1) header cut off: \(available) of 13 bytes")
      return nil
    }
    func u32(_ at: Int) -> UInt32 { bigEndian ? bytes.bigEndian32(at: at) : bytes.littleEndian32(at: at) }
    let length = Int(u32(start))
    guard length >= 9 else {
      damage = CaptureDamage(offset: start, "record \(frame + 1) length \(length) is below the 9-byte minimum")
      return nil
    }
    guard length <= available - 4 else {
      damage = CaptureDamage(
        offset: start, "record \(frame + 1) cut off: \(length + 4) bytes announced, \(available) in the file")
      return nil
    }
    offset = start + 4 + length
    frame += 1
    let type = bytes[start + 12]
    var record = Record(
      frame: frame,
      timestamp: Timestamp(seconds: Int64(u32(start + 4)), fraction: Int64(u32(start + 8)), unitsPerSecond: 1_000_000),
      direction: nil, adapter: nil, kind: .packetLogger(type), bytes: bytes.view(start + 13, length - 9),
      originalLength: length - 9, fileOffset: start)
    if let hci = Self.hciTypes[type] {
      record.kind = .hci(hci.type)
      record.direction = hci.direction
    }
    return record
  }
}
