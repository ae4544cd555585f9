import BLECapture
import BLEDissect
import Foundation
import Testing

@testable import BLEAnalysis

@Suite struct LogClockTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/captures/bugreport").path

  static let bugreports = [
    "bugreport-oriole-TQ3A.230901.001-2024-05-14-11-42-15.zip",
    "bugreport-oriole-TQ3A.230901.001-2024-05-14-12-20-20.zip",
    "bugreport-panther-AP1A.240505.004-2024-05-14-03-04-34.zip",
  ]

  /// A bugreport's log marks, wire anchors, truth app_log lines and capture start.
  struct Case {
    var log: PhoneLog
    var marks: [LogClock.Mark]
    var anchors: [LogClock.Anchor]
    var truth: [[String: Any]]
    var captureStart: Int64
    /// The capture's first and last record.
    var coverage: ClosedRange<Int64>
    /// Connects the app made that never reached the wire (`app_only_calls`).
    var appOnlyConnects: Int
  }

  static func load(_ name: String) throws -> Case? {
    guard FileManager.default.fileExists(atPath: folder) else {
      print("skipped: \(folder) is absent (the shared test assets)")
      return nil
    }
    let (archive, read) = try PhoneLog.open(folder + "/" + name)
    let log = try #require(read)
    var collector = LogClock.AnchorCollector()
    let source = try archive.recordSource()
    var first: Int64?
    var last: Int64 = 0
    while let record = source.next() {
      collector.add(record)
      first = first ?? record.timestamp.unixMicroseconds
      last = record.timestamp.unixMicroseconds
    }
    let marks = log.events.compactMap { event in
      log.unixMicroseconds(event.line.time).flatMap { LogClock.Mark(event, time: $0) }
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name + ".truth.json"))
    let truth = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    let start = try #require((truth["generator"] as? [String: Any])?["capture_start_unix"] as? Double)
    let appOnly = (truth["app_only_calls"] as? [[String: Any]] ?? []).filter { $0["call"] as? String == "connect" }
    return Case(
      log: log, marks: marks, anchors: collector.anchors, truth: try #require(truth["app_log"] as? [[String: Any]]),
      captureStart: Int64(start * 1_000_000), coverage: try #require(first)...last, appOnlyConnects: appOnly.count)
  }

  /// Every truth line's time on the capture clock, after conversion and refinement,
  /// within 2 ms of the truth's.
  @discardableResult
  static func expectWithin2ms(_ c: Case, offset: Int64, shift: Int64 = 0) throws -> Int64 {
    var worst: Int64 = 0
    let byLine = Dictionary(c.log.events.map { ($0.line.lineNumber, $0) }, uniquingKeysWith: { a, _ in a })
    for entry in c.truth {
      let number = try #require(entry["line"] as? Int)
      let event = try #require(byLine[number])
      let logTime = try #require(c.log.unixMicroseconds(event.line.time)) + shift
      let onCapture = logTime + offset - c.captureStart
      let expected = Int64(try #require(entry["utc_us"] as? Int))
      #expect(abs(onCapture - expected) <= 2000, "line \(number): \(onCapture) µs vs \(expected) µs")
      worst = max(worst, abs(onCapture - expected))
    }
    return worst
  }

  @Test(arguments: bugreports)
  func truthLinesLineUpWithinTwoMilliseconds(_ name: String) throws {
    guard let c = try Self.load(name) else { return }
    let estimate = LogClock.refine(c.marks, anchors: c.anchors, coverage: c.coverage)
    // Only a connect that never reached the controller can pair against the clock.
    #expect(estimate.conflicts <= c.appOnlyConnects)
    #expect(estimate.pairs >= 4)
    #expect(abs(estimate.offset) <= 1000)
    let worst = try Self.expectWithin2ms(c, offset: estimate.offset)
    print("\(name): offset \(estimate.offset) µs from \(estimate.pairs) pairs, worst line \(worst) µs")
  }

  /// A log an hour and a quarter second off (a wrong zone, a clock that drifted): the
  /// pairs bring it back.
  @Test func wrongZoneIsFoundFromThePairs() throws {
    guard let c = try Self.load(Self.bugreports[0]) else { return }
    let shift: Int64 = 3_600_250_000
    let shifted = c.marks.map { mark -> LogClock.Mark in
      var mark = mark
      mark.time += shift
      return mark
    }
    let estimate = LogClock.refine(shifted, anchors: c.anchors, coverage: c.coverage, zoneUnknown: true)
    #expect(estimate.conflicts == 0)
    #expect(estimate.pairs >= 10)
    let worst = try Self.expectWithin2ms(c, offset: estimate.offset, shift: shift)
    print("shifted by \(shift) µs: offset \(estimate.offset) µs from \(estimate.pairs) pairs, worst line \(worst) µs")
  }

  // MARK: - Rules

  static let peer = DeviceAddress("D4:36:39:67:A2:61")!
  static let other = DeviceAddress("D4:36:39:1C:E5:11")!

  /// A connect() logged after its Create Connection: the log clock is late, the offset
  /// moves back to the bound; an onClientConnectionState logged before its Complete
  /// moves it forward to 1 ms after it; both: that, under the connect's bound.
  @Test func offsetMovesOnlyAsFarAsThePairsDemand() {
    let anchors = [
      LogClock.Anchor(kind: .createConnection, time: 10_000_000, peer: Self.peer),
      LogClock.Anchor(kind: .connectionComplete(status: 0), time: 10_100_000, peer: Self.peer),
    ]
    let late = [
      LogClock.Mark(kind: .beforeCreateConnection, time: 10_003_000, device: LoggedAddress(Self.peer), line: 1)
    ]
    #expect(LogClock.refine(late, anchors: anchors).offset == -3000)
    let early = [
      LogClock.Mark(kind: .afterConnectionChange, time: 10_098_000, device: LoggedAddress(Self.peer), line: 2)
    ]
    #expect(LogClock.refine(early, anchors: anchors).offset == 3000)
    let both = LogClock.refine(
      [
        LogClock.Mark(kind: .beforeCreateConnection, time: 10_001_000, device: nil, line: 1),
        LogClock.Mark(kind: .afterConnectionChange, time: 10_102_000, device: nil, line: 2),
      ], anchors: anchors)
    #expect(both.lower == -2000 && both.upper == -1000 && both.offset == -1000)
    let fine = [LogClock.Mark(kind: .beforeCreateConnection, time: 9_990_000, device: nil, line: 3)]
    let estimate = LogClock.refine(fine, anchors: anchors)
    #expect(estimate.offset == 0 && estimate.pairs == 1 && estimate.upper == 10_000)
  }

  /// A hidden address pairs only with a packet of a peer that has the bytes it shows.
  @Test func partialAddressPairsWithItsPeerOnly() throws {
    let anchors = [
      LogClock.Anchor(kind: .createConnection, time: 10_000_000, peer: Self.other),
      LogClock.Anchor(kind: .createConnection, time: 10_500_000, peer: Self.peer),
    ]
    let hidden = try #require(LoggedAddress("XX:XX:XX:XX:A2:61"))
    let marks = [LogClock.Mark(kind: .beforeCreateConnection, time: 10_600_000, device: hidden, line: 1)]
    // Paired with the Create Connection of ...A2:61 (10.5 s), not the earlier one.
    #expect(LogClock.refine(marks, anchors: anchors).offset == -100_000)
  }

  /// Pairs no one offset satisfies together: the most are kept, the rest counted.
  @Test func conflictsAreCounted() {
    let anchors = [
      LogClock.Anchor(kind: .createConnection, time: 10_000_000, peer: nil),
      LogClock.Anchor(kind: .createConnection, time: 20_000_000, peer: nil),
      LogClock.Anchor(kind: .createConnection, time: 30_000_000, peer: nil),
    ]
    let marks = [
      LogClock.Mark(kind: .beforeCreateConnection, time: 9_999_000, device: nil, line: 1),
      LogClock.Mark(kind: .beforeCreateConnection, time: 19_999_000, device: nil, line: 2),
      LogClock.Mark(kind: .beforeCreateConnection, time: 30_000_500, device: nil, line: 3),
    ]
    let estimate = LogClock.refine(marks, anchors: anchors, window: 100_000)
    #expect(estimate.pairs + estimate.conflicts == 3)
    #expect(estimate.pairs == 3 && estimate.offset == -500)
  }

  @Test func anchorsFollowHandles() throws {
    // LE Create Connection: scan 0x0060/0x0030, filter policy 0, public D4:36:39:67:A2:61, …
    let create: [UInt8] = [
      0x0D, 0x20, 0x19, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x00, 0x18, 0x00,
      0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00,
    ]
    // LE Connection Complete: status 0, handle 0x0040, central, public D4:36:39:67:A2:61
    let complete: [UInt8] = [
      0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x18, 0x00, 0x00, 0x00,
      0xF4, 0x01, 0x00,
    ]
    // Disconnection Complete: status 0, handle 0x0040, reason 0x13
    let disconnect: [UInt8] = [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]
    var collector = LogClock.AnchorCollector()
    for (index, (type, bytes)) in [(H4.command, create), (H4.event, complete), (H4.event, disconnect)].enumerated() {
      bytes.withUnsafeBufferPointer { buffer in
        collector.add(
          Record(
            frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 1000), direction: nil, adapter: nil,
            kind: .hci(type), bytes: buffer, originalLength: buffer.count, fileOffset: 0))
      }
    }
    #expect(
      collector.anchors == [
        .init(kind: .createConnection, time: 0, peer: Self.peer),
        .init(kind: .connectionComplete(status: 0), time: 1000, peer: Self.peer),
        .init(kind: .disconnectionComplete(reason: 0x13), time: 2000, peer: Self.peer),
      ])
  }
}
