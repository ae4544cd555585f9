/// Writes pcapng (libpcap 1.10 reads pcapng but cannot write it): one Section
/// Header Block, one Interface Description Block, one Enhanced Packet Block per
/// record, little-endian.
///
/// EPB: type 6 | length | interface 0 | timestamp high | low | captured | original
/// | packet padded to 4 | epb_flags (direction) | epb_dropcount (records lost before
/// this one) | end of options | length.
final class PcapngWriter: CaptureWriter {
  let framing: OutputFraming
  private let file: OutputFile
  private let nanoseconds: Bool
  private var packet: [UInt8] = []
  private var block: [UInt8] = []
  private(set) var skipped = 0

  init(path: String, framing: OutputFraming, resolution: TimestampResolution) throws(CaptureError) {
    self.framing = framing
    nanoseconds = resolution == .nanoseconds
    file = try OutputFile(path: path)
    var header: [UInt8] = []
    // Section Header Block: byte-order magic, version 1.0, section length unknown.
    Self.appendBlock(type: 0x0A0D_0D0A, to: &header) { body in
      appendLittleEndian(UInt32(0x1A2B_3C4D), to: &body)
      appendLittleEndian(UInt16(1), to: &body)
      appendLittleEndian(UInt16(0), to: &body)
      appendLittleEndian(UInt64.max, to: &body)
      Self.appendOption(code: 4, Array("bleanalyze".utf8), to: &body)  // shb_userappl
      appendLittleEndian(UInt32(0), to: &body)
    }
    // Interface Description Block: link type, snaplen 0 (no limit), if_tsresol.
    Self.appendBlock(type: 1, to: &header) { body in
      appendLittleEndian(UInt16(framing.linkType.rawValue), to: &body)
      appendLittleEndian(UInt16(0), to: &body)
      appendLittleEndian(UInt32(0), to: &body)
      Self.appendOption(code: 9, [nanoseconds ? 9 : 6], to: &body)  // if_tsresol
      appendLittleEndian(UInt32(0), to: &body)
    }
    try file.append(header)
    packet.reserveCapacity(65_536)
    block.reserveCapacity(65_600)
  }

  var formatDescription: String { "pcapng, link type \(framing.linkType)" }

  func write(_ record: Record) throws(CaptureError) {
    guard framing.pcapPacket(record, into: &packet) else {
      skipped += 1
      return
    }
    let units =
      nanoseconds
      ? UInt64(bitPattern: record.timestamp.unixMicroseconds &* 1000 &+ Int64(record.timestamp.nanoseconds))
      : UInt64(bitPattern: record.timestamp.unixMicroseconds)
    block.removeAll(keepingCapacity: true)
    Self.appendBlock(type: 6, to: &block) { body in
      appendLittleEndian(UInt32(0), to: &body)
      appendLittleEndian(UInt32(truncatingIfNeeded: units >> 32), to: &body)
      appendLittleEndian(UInt32(truncatingIfNeeded: units), to: &body)
      appendLittleEndian(UInt32(packet.count), to: &body)
      appendLittleEndian(UInt32(packet.count + record.originalLength - record.bytes.count), to: &body)
      body.append(contentsOf: packet)
      body.append(contentsOf: repeatElement(0, count: (4 - packet.count % 4) % 4))
      if let direction = record.direction {
        // epb_flags bits 0-1: 01 inbound (controller to host), 10 outbound.
        var flags: [UInt8] = []
        appendLittleEndian(UInt32(direction == .received ? 1 : 2), to: &flags)
        Self.appendOption(code: 2, flags, to: &body)
      }
      if record.droppedBefore > 0 {
        var count: [UInt8] = []
        appendLittleEndian(UInt64(record.droppedBefore), to: &count)
        Self.appendOption(code: 4, count, to: &body)  // epb_dropcount
      }
      if record.direction != nil || record.droppedBefore > 0 {
        appendLittleEndian(UInt32(0), to: &body)  // opt_endofopt
      }
    }
    try file.append(block)
  }

  func flush() throws(CaptureError) { try file.flush() }

  func close() throws(CaptureError) { try file.close() }

  /// Appends a block: type, total length, body, total length again.
  private static func appendBlock(type: UInt32, to bytes: inout [UInt8], body: (inout [UInt8]) -> Void) {
    let start = bytes.count
    appendLittleEndian(type, to: &bytes)
    appendLittleEndian(UInt32(0), to: &bytes)
    body(&bytes)
    let length = UInt32(bytes.count - start + 4)
    appendLittleEndian(length, to: &bytes)
    withUnsafeBytes(of: length.littleEndian) { bytes.replaceSubrange(start + 4..<start + 8, with: $0) }
  }

  /// Appends one option: code, length, value padded to 4 bytes.
  private static func appendOption(code: UInt16, _ value: [UInt8], to bytes: inout [UInt8]) {
    appendLittleEndian(code, to: &bytes)
    appendLittleEndian(UInt16(value.count), to: &bytes)
    bytes.append(contentsOf: value)
    bytes.append(contentsOf: repeatElement(0, count: (4 - value.count % 4) % 4))
  }
}
