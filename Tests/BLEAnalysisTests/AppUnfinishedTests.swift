import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// The app's story of `packets`: every record through the analysis, the timeline and the app builder.
func buildApp(_ packets: [Packet]) -> AppStory {
  var analyzer = Analyzer()
  var timeline = TimelineBuilder()
  var app = AppBuilder()
  for (index, packet) in packets.enumerated() {
    packet.bytes.withUnsafeBufferPointer { bytes in
      let record = Record(
        frame: index + 1, timestamp: Timestamp(unixMicroseconds: packet.ms * 1000),
        direction: packet.sent ? .sent : .received, adapter: nil, kind: .hci(packet.type), bytes: bytes,
        originalLength: bytes.count, fileOffset: 0)
      let analyzed = analyzer.analyze(record)
      timeline.add(record, analyzed)
      app.add(record, analyzed)
    }
  }
  let unanswered = analyzer.finish()
  return app.finish(unanswered, timeline: timeline.finish(unanswered), gatt: analyzer.gatt)
}

/// A call the app never heard the end of has no end and no duration; one the link's end or
/// the ATT timeout cut short ends there.
@Suite struct AppUnfinishedTests {
  typealias T = TimelineBuilderTests

  func reads(_ story: AppStory) -> [AppCall] { story.calls.filter { $0.kind == .read } }

  @Test func disconnectionEndsTheRequest() throws {
    let story = buildApp([
      T.create, T.complete(at: 10), .att("0a 0300", sent: true, at: 100), T.disconnected("08", at: 5100),
    ])
    let read = try #require(reads(story).first)
    #expect(read.error.unanswered == "disconnected")
    #expect(read.finished && read.duration == 5_000_000 && read.end.frame == 4)
  }

  @Test func attTimeoutEndsTheRequestThirtySecondsLater() throws {
    let story = buildApp([
      T.create, T.complete(at: 10), .att("0a 0300", sent: true, at: 100), .att("1b 0900 01", sent: false, at: 40_000),
    ])
    let read = try #require(reads(story).first)
    #expect(read.error.unanswered == "timeout")
    #expect(read.finished && read.duration == 30_000_000)
  }

  @Test(arguments: [
    // The capture ends first.
    ([T.create, T.complete(at: 10), Packet.att("0a 0300", sent: true, at: 100)], "end_of_capture"),
    // Another request on the same bearer replaces it.
    (
      [
        T.create, T.complete(at: 10), Packet.att("0a 0300", sent: true, at: 100),
        Packet.att("0a 0500", sent: true, at: 200), Packet.att("0b 64", sent: false, at: 230),
      ], "superseded"
    ),
  ])
  func unfinishedHasNoDuration(_ packets: [Packet], _ reason: String) throws {
    let read = try #require(reads(buildApp(packets)).first)
    #expect(read.error.unanswered == reason)
    #expect(!read.finished && read.duration == nil)
  }

  @Test func answeredReadFinishes() throws {
    let story = buildApp([
      T.create, T.complete(at: 10), .att("0a 0300", sent: true, at: 100), .att("0b 64", sent: false, at: 130),
    ])
    let read = try #require(reads(story).first)
    #expect(read.ok && read.finished && read.duration == 30_000)
    #expect(story.end?.frame == 4)
  }
}
