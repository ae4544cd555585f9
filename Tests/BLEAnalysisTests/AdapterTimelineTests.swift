import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// Linux monitor Index Added, Open Index and Index Removed in the timeline.
@Suite struct AdapterTimelineTests {
  /// A record of the monitor capture: an HCI packet, or a monitor record without one.
  enum Item {
    case packet(Packet)
    case monitor(MonitorOpcode, at: Int64)
  }

  func build(_ items: [Item]) -> Timeline {
    var analyzer = Analyzer()
    var builder = TimelineBuilder()
    for (index, item) in items.enumerated() {
      let (bytes, kind, direction, ms): ([UInt8], RecordKind, Direction?, Int64) =
        switch item {
        case .packet(let packet): (packet.bytes, .hci(packet.type), packet.sent ? .sent : .received, packet.ms)
        case .monitor(let opcode, let ms): ([], .monitor(opcode), nil, ms)
        }
      bytes.withUnsafeBufferPointer { bytes in
        let record = Record(
          frame: index + 1, timestamp: Timestamp(unixMicroseconds: ms * 1000), direction: direction, adapter: 1,
          kind: kind, bytes: bytes, originalLength: bytes.count, fileOffset: 0)
        builder.add(record, analyzer.analyze(record))
      }
    }
    return builder.finish(analyzer.finish())
  }

  /// The adapter goes away with a connection up and a Read Request waiting: the connection
  /// ends there (adapter_gone), the request is unanswered, and the events are listed.
  @Test func indexRemovedEndsTheAdapterConnections() throws {
    let timeline = build([
      .monitor(.newIndex, at: 0), .monitor(.openIndex, at: 1),
      .packet(TimelineBuilderTests.create), .packet(TimelineBuilderTests.complete(at: 20)),
      // ATT Read Request, handle 0x0003
      .packet(.att("0a 0300", sent: true, at: 30)),
      .monitor(.closeIndex, at: 40), .monitor(.deleteIndex, at: 41),
    ])
    let connection = try #require(timeline.connections.first)
    let disconnect = try #require(connection.disconnect)
    #expect(disconnect.initiator == .adapterGone)
    #expect(disconnect.complete.frame == 7)
    #expect(connection.transactions.map(\.outcome) == [.unanswered])
    #expect(timeline.adapterEvents.map(\.kind) == [.added, .opened, .closed, .removed])
    #expect(timeline.adapterEvents.map(\.adapter) == [1, 1, 1, 1])
    #expect(timeline.adapterEvents.last?.endedConnections == [connection.ref.id])
  }

  /// A connection that ended before the adapter went away keeps its own end.
  @Test func disconnectedConnectionKeepsItsReason() throws {
    let timeline = build([
      .packet(TimelineBuilderTests.create), .packet(TimelineBuilderTests.complete(at: 20)),
      .packet(TimelineBuilderTests.disconnected("13", at: 50)), .monitor(.deleteIndex, at: 60),
    ])
    #expect(timeline.connections.first?.disconnect?.initiator == .remote)
    #expect(timeline.adapterEvents.last?.endedConnections == [])
  }
}
