import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// `app` streaming: a connection's calls leave the builder when it ends, and together with
/// what the end of the capture keeps they are the story the whole capture tells.
@Suite struct AppStreamTests {
  typealias T = TimelineBuilderTests

  /// `cycles` connections one after the other, each with a read, a write and a
  /// notification; the last one still up at the end.
  static func connections(_ cycles: Int) -> [Packet] {
    (0..<Int64(cycles)).flatMap { n -> [Packet] in
      let t = n * 10_000
      var packets: [Packet] = [
        .command("0d20 19 6000 3000 00 00 61a2673936d4 00 1800 1800 0000 4800 0000 0000", at: t),
        T.complete(at: t + 10),
        .att("0a 0300", sent: true, at: t + 100), .att("0b 64", sent: false, at: t + 130),
        .att("12 0500 0100", sent: true, at: t + 200), .att("13", sent: false, at: t + 230),
        .att("1b 0900 01", sent: false, at: t + 300),
      ]
      if n < cycles - 1 { packets.append(T.disconnected("13", at: t + 5000)) }
      return packets
    }
  }

  /// Runs `packets` through the analysis with a streaming builder; `each` sees how many
  /// calls it holds after every record.
  static func stream(_ packets: [Packet], each: (Int, Int) -> Void = { _, _ in }) -> (
    groups: [AppCallGroup], rest: AppStory
  ) {
    var analyzer = Analyzer()
    var timeline = TimelineBuilder()
    timeline.connectionsOnly = true
    var app = AppBuilder(streaming: true)
    var groups: [AppCallGroup] = []
    for (index, packet) in packets.enumerated() {
      packet.withRecord(frame: index + 1) { record in
        let analyzed = analyzer.analyze(record)
        timeline.add(record, analyzed)
        app.add(record, analyzed)
      }
      groups += app.finished(timeline, gatt: analyzer.gatt, advertisedName: analyzer.advertisedName(of:))
      each(index, app.heldCalls)
    }
    let unanswered = analyzer.finish()
    return (groups, app.finish(unanswered, timeline: timeline.finish(unanswered), gatt: analyzer.gatt))
  }

  @Test func endedConnectionsLeaveNothingBehind() {
    let packets = Self.connections(50)
    var largest = 0
    let streamed = Self.stream(packets) { index, held in
      largest = max(largest, held)
      // Right after a Disconnection Complete the builder holds nothing.
      if packets[index].type == 0x04, packets[index].bytes.first == 0x05 { #expect(held == 0) }
    }
    #expect(streamed.groups.count == 49)
    // One connection's calls at most: a read, a write and a notification stream.
    #expect(largest <= 3)
    #expect(streamed.rest.calls.count == 5)
  }

  @Test func streamedCallsAreTheWholeStory() {
    let packets = Self.connections(4)
    let whole = buildApp(packets).calls
    let streamed = Self.stream(packets)
    let calls = (streamed.groups.flatMap(\.calls) + streamed.rest.calls).sorted { $0.startKey < $1.startKey }
    #expect(calls.count == whole.count)
    #expect(calls.map(\.kind) == whole.map(\.kind))
    #expect(calls.map(\.start) == whole.map(\.start))
    #expect(calls.map(\.end) == whole.map(\.end))
    #expect(calls.map(\.outcome) == whole.map(\.outcome))
    #expect(calls.map { $0.conn?.id } == whole.map { $0.conn?.id })
    #expect(streamed.groups.allSatisfy { group in group.calls.allSatisfy { $0.conn?.id == group.calls[0].conn?.id } })
  }
}
