import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// The analysis keeps bounded state whatever a capture holds: connections followed at
/// once, prepared write queues.
@Suite struct BoundsTests {
  /// Decodes and analyzes H4-less ACL records (bytes from the ACL header on) in order.
  static func analyze(_ packets: [[UInt8]], tracker: inout LinkTracker) -> [AnalyzedRecord] {
    var decoder = RecordDecoder()
    return packets.enumerated().map { index, bytes in
      bytes.withUnsafeBufferPointer { buffer in
        let record = Record(
          frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 1000), direction: .sent,
          adapter: nil, kind: .hci(0x02), bytes: buffer, originalLength: buffer.count, fileOffset: 0)
        return tracker.analyze(record, decoder.decode(record))
      }
    }
  }

  @Test func connectionsFollowedAtOnce() {
    // < ACL Data TX: Handle 1, 2, 3 flags 0x02 dlen 7
    //     ATT: Read Request (0x0a) len 2: Handle 0x0003
    let packets = (1...3).map { handle -> [UInt8] in
      [UInt8(handle), 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
    }
    var tracker = LinkTracker(maxLinks: 2)
    let analyzed = Self.analyze(packets, tracker: &tracker)
    #expect(analyzed.map { $0.conn?.handle } == [1, 2, nil])
    #expect(analyzed.map { $0.decoded.diagnostics.map(\.id) } == [[], [], ["conn.limit"]])
    #expect(
      analyzed[2].decoded.diagnostics.first?.message
        == "2 connections are followed, the limit: handle 0x0003 is not followed")
    #expect(analyzed[2].decoded.att?.opcode == .readRequest, "still decoded")
    #expect(analyzed[2].awaitsAnswer == false, "not followed")
    #expect(tracker.untrackedRecords == 1)
  }

  @Test func preparedWriteQueue() {
    // < ACL Data TX: Handle 64 flags 0x02 dlen 10
    //     ATT: Prepare Write Request (0x16) len 5: Handle 0x0010, Offset n, Value 0xab
    var analyzer = Analyzer()
    var limited: [Int] = []
    let count = GATTTracker.maxQueuedWrites + 2
    for index in 0..<count {
      let offset = UInt16(truncatingIfNeeded: index)
      let bytes: [UInt8] = [
        0x40, 0x20, 0x0A, 0x00, 0x06, 0x00, 0x04, 0x00, 0x16, 0x10, 0x00, UInt8(offset & 0xFF), UInt8(offset >> 8),
        0xAB,
      ]
      bytes.withUnsafeBufferPointer { buffer in
        let record = Record(
          frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 1000), direction: .sent,
          adapter: nil, kind: .hci(0x02), bytes: buffer, originalLength: buffer.count, fileOffset: 0)
        let analyzed = analyzer.analyze(record)
        if analyzed.decoded.diagnostics.contains(where: { $0.id == "gatt.queue.limit" }) { limited.append(index) }
      }
    }
    #expect(limited == [count - 2, count - 1])
  }
}

/// Found by fuzzing: a Read By Group Type Response can give a service an End Group
/// Handle below its handle, and the tree of that database trapped building a range.
@Suite struct DamagedDatabaseTests {
  @Test func serviceEndingBeforeItStarts() {
    var database = GATTDatabase()
    database.add(GATTService(start: 0x0010, end: 0x0005, uuid: BluetoothUUID(uuid16: 0x180D), primary: true))
    database.add(GATTService(start: 0x0020, end: 0x0030, uuid: BluetoothUUID(uuid16: 0x180F), primary: true))
    database.add(
      GATTCharacteristic(declaration: 0x0011, properties: 0x10, value: 0x0012, uuid: BluetoothUUID(uuid16: 0x2A37)))
    database.add(
      GATTCharacteristic(declaration: 0x0021, properties: 0x02, value: 0x0022, uuid: BluetoothUUID(uuid16: 0x2A19)))
    database.addInformation(handle: 0x0013, uuid: BluetoothUUID(uuid16: 0x2902))
    let tree = database.tree
    // The inverted service holds nothing; its characteristic is an orphan.
    #expect(tree.map { $0.service?.start } == [0x0010, 0x0020, nil])
    #expect(tree[0].characteristics.isEmpty)
    #expect(tree[1].characteristics.map(\.characteristic.declaration) == [0x0021])
    #expect(tree[2].characteristics.map(\.characteristic.declaration) == [0x0011])
    #expect(tree[2].characteristics.first?.descriptors.map(\.handle) == [0x0013])
  }
}
