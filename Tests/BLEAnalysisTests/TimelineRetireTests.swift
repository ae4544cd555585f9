import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// `TimelineBuilder.retires`: a connection leaves the builder once it has ended, so that
/// a long capture's memory holds only the connections still open.
@Suite struct TimelineRetireTests {
  /// Two connections to one peer, one after the other: Create Connection, Connection
  /// Complete (handle 0x0040), a Read Request (handle 0x0003) and its Read Response,
  /// Disconnect, Disconnection Complete; the second is still up when the capture ends.
  static let packets: [Packet] = [
    TimelineBuilderTests.create, TimelineBuilderTests.complete(at: 20),
    .att("0a 0300", sent: true, at: 100), .att("0b 01", sent: false, at: 130),
    TimelineBuilderTests.disconnect, TimelineBuilderTests.disconnected("16", at: 925),
    TimelineBuilderTests.create, TimelineBuilderTests.complete(at: 5000),
    .att("0a 0300", sent: true, at: 5100), .att("0b 02", sent: false, at: 5140),
  ]

  /// Reads `packets` with a retiring builder; `afterEach` sees the builder after each record.
  static func retiring(
    _ packets: [Packet], afterEach: (Int, inout TimelineBuilder) -> Void = { _, _ in }
  ) -> (timeline: Timeline, retired: [ConnectionTimeline]) {
    var analyzer = Analyzer()
    var builder = TimelineBuilder()
    builder.retires = true
    var retired: [ConnectionTimeline] = []
    for (index, packet) in packets.enumerated() {
      packet.withRecord(frame: index + 1) { builder.add($0, analyzer.analyze($0)) }
      afterEach(index + 1, &builder)
      retired += builder.takeRetired()
    }
    let timeline = builder.finish(analyzer.finish())
    return (timeline, retired + builder.takeRetired())
  }

  @Test func endedConnectionLeavesTheBuilder() throws {
    var heldAfterEnd: [Int] = []
    _ = Self.retiring(Self.packets) { frame, builder in
      guard frame == 6 else { return }
      // The Disconnection Complete: the connection is handed over, nothing of it stays.
      #expect(builder.retired.map(\.ref.handle) == [0x0040])
      #expect(builder.retired.first?.transactions.count == 1)
      heldAfterEnd = builder.timeline.connections.map(\.ref.id)
    }
    #expect(heldAfterEnd.isEmpty)
  }

  @Test func finishRetiresTheRestAndKeepsNone() throws {
    let (timeline, retired) = Self.retiring(Self.packets)
    #expect(timeline.connections.isEmpty)
    #expect(retired.count == 2)
    #expect(retired.map { $0.transactions.count } == [1, 1])
    // The first connection retired before its peer came back: its gap is kept apart.
    let first = try #require(retired.first)
    let gap = try #require(timeline.retiredReconnects[first.ref.id])
    #expect(gap.next == retired[1].ref.id)
    #expect(gap.gapMicroseconds == (5000 - 925) * 1000)
    #expect(timeline.attempts.map(\.connection) == retired.map(\.ref.id))
  }

  @Test func retiredConnectionsAreTheTimelinesConnections() throws {
    let whole = buildTimeline(Self.packets)
    let (_, retired) = Self.retiring(Self.packets)
    #expect(retired.map(\.ref.id) == whole.connections.map(\.ref.id))
    #expect(retired.map(\.transactions.count) == whole.connections.map(\.transactions.count))
    #expect(retired.map { $0.transactions.map(\.request) } == whole.connections.map { $0.transactions.map(\.request) })
    #expect(retired.map(\.disconnect) == whole.connections.map(\.disconnect))
    #expect(retired.map(\.first) == whole.connections.map(\.first))
    #expect(whole.connections.first?.reconnectedAs == retired.last?.ref.id)
  }

  @Test func statisticsOfRetiredConnectionsMatchTheWholeTimeline() throws {
    var whole = Statistics()
    var streamed = Statistics()
    let timeline = buildTimeline(Self.packets)
    whole.finish(timeline)
    let (rest, retired) = Self.retiring(Self.packets)
    for connection in retired { streamed.add(connection: connection) }
    streamed.finish(rest)
    #expect(streamed.transactions == whole.transactions)
    #expect(streamed.transactions.outcomes.ok == 2)
    #expect(streamed.connections.map(\.transactions) == whole.connections.map(\.transactions))
    #expect(streamed.connections.map(\.ref.id) == whole.connections.map(\.ref.id))
    #expect(streamed.opcodes.map(\.transactions) == whole.opcodes.map(\.transactions))
    #expect(streamed.attempts.map(\.count) == whole.attempts.map(\.count))
    #expect(streamed.security.connections == 2)
  }

  @Test func transactionMergeIsRequestOrder() throws {
    let timeline = buildTimeline(Self.packets)
    #expect(Array(timeline.transactionsInOrder).map(\.request) == timeline.transactions.map(\.request))
    #expect(Array(Timeline().transactionsInOrder).isEmpty)
  }
}
