/// Writes btsnoop version 1: datalink 2001 for monitor sources, 1002 (H4) otherwise.
final class BtsnoopWriter: CaptureWriter {
  let framing: OutputFraming
  private let file: OutputFile
  private var packet: [UInt8] = []
  private var recordBytes: [UInt8] = []
  private(set) var skipped = 0
  /// Records the source lost so far, written in each record's cumulative drops field.
  private var cumulativeDrops = 0

  init(path: String, framing: OutputFraming) throws(CaptureError) {
    self.framing = framing
    file = try OutputFile(path: path)
    var header = BtsnoopReader.magic
    appendBigEndian(UInt32(1), to: &header)
    appendBigEndian(datalink, to: &header)
    try file.append(header)
    packet.reserveCapacity(65_536)
    recordBytes.reserveCapacity(65_600)
  }

  var datalink: UInt32 { framing.family == .monitor ? 2001 : 1002 }
  var formatDescription: String { "btsnoop, datalink \(datalink)" }

  func write(_ record: Record) throws(CaptureError) {
    guard let flags = framing.btsnoopPacket(record, into: &packet) else {
      skipped += 1
      return
    }
    recordBytes.removeAll(keepingCapacity: true)
    appendBigEndian(UInt32(packet.count + record.originalLength - record.bytes.count), to: &recordBytes)
    appendBigEndian(UInt32(packet.count), to: &recordBytes)
    appendBigEndian(flags, to: &recordBytes)
    cumulativeDrops += record.droppedBefore
    appendBigEndian(UInt32(clamping: cumulativeDrops), to: &recordBytes)
    appendBigEndian(record.timestamp.unixMicroseconds &+ Timestamp.btsnoopEpochOffset, to: &recordBytes)
    recordBytes.append(contentsOf: packet)
    try file.append(recordBytes)
  }

  func flush() throws(CaptureError) { try file.flush() }

  func close() throws(CaptureError) { try file.close() }
}
