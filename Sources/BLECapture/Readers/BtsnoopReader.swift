/// Reads btsnoop version 1 files: datalinks 1001 (H1), 1002 (H4) and 2001 (Linux monitor).
///
/// File header (16 bytes, big-endian), then records:
///
///     0          4          8       12      16               24
///     +----------+----------+-------+-------+----------------+----------------+
///     | orig len | incl len | flags | drops | timestamp (µs) | incl len bytes |
///     +----------+----------+-------+-------+----------------+----------------+
///
/// The timestamp counts µs from 0000-01-01. Flags are direction (bit 0) and
/// command/event (bit 1) for 1001/1002, `(index << 16) | opcode` for 2001.
final class BtsnoopReader: RecordSource {
  static let magic: [UInt8] = Array("btsnoop\0".utf8)
  static let headerLength = 16
  static let recordHeaderLength = 24

  enum Datalink: UInt32 {
    case h1 = 1001
    case h4 = 1002
    case monitor = 2001

    /// "datalink 1002 (H4)", for format descriptions.
    var name: String {
      switch self {
      case .h1: "datalink 1001 (H1)"
      case .h4: "datalink 1002 (H4)"
      case .monitor: "datalink 2001 (Linux monitor)"
      }
    }
  }

  let file: MappedFile
  let datalink: Datalink
  private var offset = headerLength
  private var frame = 0
  private(set) var damage: CaptureDamage?

  init(file: MappedFile) throws(CaptureError) {
    self.datalink = try Self.datalink(ofHeader: file.bytes, path: file.path)
    self.file = file
  }

  /// The datalink of the btsnoop file header at the start of `bytes` (the magic already
  /// recognised), or why it cannot be read.
  static func datalink(ofHeader bytes: UnsafeBufferPointer<UInt8>, path: String) throws(CaptureError) -> Datalink {
    guard bytes.count >= headerLength else {
      throw CaptureError(
        .damagedHeader("btsnoop header cut off: \(bytes.count) of 16 bytes at byte offset 0"), path: path)
    }
    let version = bytes.bigEndian32(at: 8)
    guard version == 1 else {
      throw CaptureError(.unsupported("btsnoop version \(version) is not supported; expected version 1"), path: path)
    }
    let rawDatalink = bytes.bigEndian32(at: 12)
    guard let datalink = Datalink(rawValue: rawDatalink) else {
      throw CaptureError(
        .unsupported(
          "btsnoop datalink \(rawDatalink) is not supported; expected 1001 (H1), 1002 (H4) or 2001 (Linux monitor)"),
        path: path)
    }
    return datalink
  }

  var formatDescription: String { "btsnoop, \(datalink.name)" }

  var family: LinkFamily { datalink == .monitor ? .monitor : .h4 }
  var resolution: TimestampResolution { .microseconds }
  var progress: (done: Int, total: Int) { (offset, file.bytes.count) }

  /// Walks the record headers from the first record: the distinct controller indices
  /// of a monitor file (not 0xFFFF, "no controller"), up to `limit`; 0 for H1 and H4.
  func adapterCount(upTo limit: Int) -> Int? {
    guard datalink == .monitor else { return 0 }
    let bytes = file.bytes
    var seen: [UInt16] = []
    var at = Self.headerLength
    var walked = at
    while at + Self.recordHeaderLength <= bytes.count, seen.count < limit {
      let index = UInt16(truncatingIfNeeded: bytes.bigEndian32(at: at + 8) >> 16)
      if index != 0xFFFF, !seen.contains(index) { seen.append(index) }
      at += Self.recordHeaderLength + Int(bytes.bigEndian32(at: at + 4))
      if at - walked >= MappedFile.releaseStep {
        file.release(walked: walked..<at)
        walked = at
      }
    }
    file.release(walked: walked..<min(at, bytes.count))
    return seen.count
  }

  /// The last cumulative drop count read.
  private var cumulativeDrops = 0

  func next() -> Record? {
    let bytes = file.bytes
    let start = offset
    file.release(before: start)
    let available = bytes.count - start
    guard available > 0, damage == nil else { return nil }
    guard available >= Self.recordHeaderLength else {
      damage = CaptureDamage(
        offset: start, "record \(frame + 1) header cut off: \(available) of \(Self.recordHeaderLength) bytes")
      return nil
    }
    let includedLength = Int(bytes.bigEndian32(at: start + 4))
    let bodyStart = start + Self.recordHeaderLength
    guard includedLength <= bytes.count - bodyStart else {
      damage = CaptureDamage(
        offset: start,
        "record \(frame + 1) cut off: \(includedLength) bytes announced, \(bytes.count - bodyStart) in the file")
      return nil
    }
    offset = bodyStart + includedLength
    frame += 1
    var record = Self.record(in: bytes, at: start, frame: frame, datalink: datalink, fileOffset: start)
    // Cumulative drops: what the writer lost before this record, counted from its start.
    let drops = Int(bytes.bigEndian32(at: start + 12))
    if drops > cumulativeDrops {
      record.droppedBefore = drops - cumulativeDrops
      cumulativeDrops = drops
    }
    return record
  }

  /// The record whose header starts at `start` in `bytes`, which hold its whole body.
  static func record(
    in bytes: UnsafeBufferPointer<UInt8>, at start: Int, frame: Int, datalink: Datalink, fileOffset: Int
  ) -> Record {
    let originalLength = Int(bytes.bigEndian32(at: start))
    let includedLength = Int(bytes.bigEndian32(at: start + 4))
    let flags = bytes.bigEndian32(at: start + 8)
    let stamp = Int64(bitPattern: bytes.bigEndian64(at: start + 16))
    let body = bytes.view(start + recordHeaderLength, includedLength)
    var record = Record(
      frame: frame, timestamp: Timestamp(unixMicroseconds: stamp &- Timestamp.btsnoopEpochOffset),
      direction: nil, adapter: nil, kind: .unframed, bytes: body,
      originalLength: max(originalLength, includedLength), fileOffset: fileOffset)
    switch datalink {
    case .h4:
      record.direction = flags & 1 == 0 ? .sent : .received
      stripH4(&record)
    case .h1:
      // H1 has no type byte: bit 1 marks command/event, bit 0 the direction; data is
      // taken as ACL since H1 cannot tell ACL from SCO.
      let received = flags & 1 != 0
      record.direction = received ? .received : .sent
      record.kind = .hci(flags & 2 == 0 ? H4.acl : (received ? H4.event : H4.command))
    case .monitor:
      frameMonitor(
        &record, opcode: MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: flags)),
        index: UInt16(truncatingIfNeeded: flags >> 16))
    }
    return record
  }

  /// Moves the leading H4 type byte of `record.bytes` into its kind.
  static func stripH4(_ record: inout Record) {
    guard let type = record.bytes.first else { return }
    record.kind = .hci(type)
    record.bytes = UnsafeBufferPointer(rebasing: record.bytes.dropFirst())
    record.originalLength -= 1
  }

  /// Sets kind, direction and adapter from a monitor opcode and controller index.
  static func frameMonitor(_ record: inout Record, opcode: MonitorOpcode, index: UInt16) {
    record.adapter = index == 0xFFFF ? nil : index
    if let packet = H4.packet(for: opcode) {
      record.kind = .hci(packet.type)
      record.direction = packet.direction
    } else {
      record.kind = .monitor(opcode)
    }
  }
}
