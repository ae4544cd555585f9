import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// What came out of the lookahead: the frame, its bytes as they were when it came out,
/// and what it says about its transaction.
private struct Emitted {
  var frame: Int
  var bytes: [UInt8]
  var analyzed: AnalyzedRecord
  /// Whether the record's bytes were the caller's own memory (not a copy).
  var sameMemory: Bool
}

/// Feeds hand-made records to a lookahead. Every record's bytes live in one buffer that
/// the next record overwrites, the way libpcap reuses its buffer.
private final class Feeder {
  var lookahead: ResponseLookahead
  var emitted: [Emitted] = []
  let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)

  init(recordLimit: Int = ResponseLookahead.defaultRecordLimit, byteLimit: Int = ResponseLookahead.defaultByteLimit) {
    lookahead = ResponseLookahead(recordLimit: recordLimit, byteLimit: byteLimit)
  }

  deinit { buffer.deallocate() }

  /// A record of `size` bytes, each `frame & 0xff`, at `frame` ms.
  func push(_ frame: Int, size: Int = 8, _ configure: (inout AnalyzedRecord) -> Void = { _ in }) {
    var analyzed = AnalyzedRecord(decoded: DecodedRecord())
    configure(&analyzed)
    push(frame, bytes: [UInt8](repeating: UInt8(frame & 0xFF), count: size), analyzed)
  }

  func push(_ frame: Int, bytes: [UInt8], _ analyzed: AnalyzedRecord) {
    _ = buffer.initialize(from: bytes)
    let record = Self.record(frame, UnsafeBufferPointer(rebasing: buffer[0..<bytes.count]))
    let base = buffer.baseAddress
    lookahead.push(record, analyzed) { record, analyzed in
      emitted.append(
        Emitted(
          frame: record.frame, bytes: Array(record.bytes), analyzed: analyzed,
          sameMemory: record.bytes.baseAddress == UnsafePointer(base)))
    }
    // The source reads the next record into the same memory.
    buffer.update(repeating: 0xEE)
  }

  func finish(_ unanswered: [UnansweredRequest] = []) {
    lookahead.finish(unanswered) { record, analyzed in
      emitted.append(Emitted(frame: record.frame, bytes: Array(record.bytes), analyzed: analyzed, sameMemory: false))
    }
  }

  func releaseAll() {
    lookahead.releaseAll { record, analyzed in
      emitted.append(Emitted(frame: record.frame, bytes: Array(record.bytes), analyzed: analyzed, sameMemory: false))
    }
  }

  var frames: [Int] { emitted.map(\.frame) }

  func record(_ frame: Int) -> AnalyzedRecord? { emitted.first { $0.frame == frame }?.analyzed }

  static func record(_ frame: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Record {
    Record(
      frame: frame, timestamp: Timestamp(unixMicroseconds: Int64(frame) * 1000), direction: .sent, adapter: nil,
      kind: .hci(0x02), bytes: bytes, originalLength: bytes.count, fileOffset: 0)
  }
}

private let conn = ConnectionRef(id: 1, adapter: nil, handle: 0x40, generation: 0, isLE: true)

/// The answer to `request` as LinkTracker sets it, `latency` µs later.
private func answers(_ request: Int, opcode: UInt8 = 0x0B, latency: Int64 = 1000) -> (inout AnalyzedRecord) -> Void {
  { analyzed in
    analyzed.exchange = ATTExchange(requestFrame: request, requestOpcode: 0x0A, latencyMicroseconds: latency)
    analyzed.decoded.att = ATTPDU(opcode: ATTOpcode(rawValue: opcode), parameters: .none)
  }
}

private func awaits(_ analyzed: inout AnalyzedRecord) { analyzed.awaitsAnswer = true }

private func settles(_ frame: Int, _ reason: UnansweredRequest.Reason) -> (inout AnalyzedRecord) -> Void {
  { analyzed in
    analyzed.unanswered.append(
      UnansweredRequest(conn: conn, frame: frame, opcode: 0x0A, handle: nil, timestamp: 0, reason: reason))
  }
}

@Suite("response lookahead")
struct ResponseLookaheadTests {
  @Test func recordsPassStraightThroughWhileNothingWaits() {
    let feeder = Feeder()
    for frame in 1...3 {
      feeder.push(frame)
      #expect(feeder.frames == Array(1...frame), "frame \(frame) came out at once")
    }
    #expect(feeder.emitted.map(\.sameMemory) == [true, true, true], "no copy on the way through")
    #expect(feeder.lookahead.heldCount == 0)
  }

  @Test func aRequestAndWhatFollowsWaitForTheAnswer() throws {
    let feeder = Feeder()
    feeder.push(1)
    feeder.push(2, awaits)
    feeder.push(3)
    feeder.push(4)
    #expect(feeder.frames == [1])
    #expect(feeder.lookahead.heldCount == 3)
    feeder.push(5, answers(2, latency: 3000))
    #expect(feeder.frames == [1, 2, 3, 4, 5])
    let request = try #require(feeder.record(2))
    #expect(request.answer == ATTAnswer(frame: 5, opcode: 0x0B, latencyMicroseconds: 3000))
    #expect(request.outcome == "ok")
    #expect(feeder.record(5)?.answer == nil && feeder.record(5)?.outcome == nil)
    // The answer itself needed no copy: nothing was held any more when it came.
    #expect(feeder.emitted.map(\.sameMemory) == [true, false, false, false, true])
    #expect(feeder.lookahead.heldCount == 0)
  }

  /// A PDU whose attribute is not named yet waits for the discovery on its connection:
  /// it goes out once named (`named`), and the records after it with it.
  @Test func anUnnamedPDUWaitsForItsName() throws {
    let feeder = Feeder()
    feeder.push(1) {
      $0.conn = conn; $0.awaitsName = true
    }
    feeder.push(2)
    #expect(feeder.frames.isEmpty && feeder.lookahead.heldCount == 2)
    let waiting = feeder.lookahead.heldAwaitingName(onConnection: conn.id)
    #expect(waiting.map { $0.held.pointee.record.frame } == [1])
    #expect(feeder.lookahead.heldAwaitingName(onConnection: 2).isEmpty, "another connection waits for nothing")
    feeder.lookahead.named(try #require(waiting.first).sequence, onConnection: conn.id)
    feeder.push(3)
    #expect(feeder.frames == [1, 2, 3])
  }

  /// The end of its connection, or the wait's bound, lets an unnamed PDU go unnamed.
  @Test(arguments: [true, false])
  func anUnnamedPDUGoesWhenItsConnectionEndsOrItsWaitIsOver(_ ends: Bool) {
    let feeder = Feeder()
    feeder.push(1) {
      $0.conn = conn; $0.awaitsName = true
    }
    feeder.push(2)
    // Frame n is at n ms: frame 1 waits until 1 ms + the bound.
    let frame = ends ? 3 : 1 + Int(ResponseLookahead.nameWaitMicroseconds / 1000)
    feeder.push(frame - 1)
    #expect(feeder.frames.isEmpty, "still waiting")
    feeder.push(frame) { if ends { $0.endedConnection = conn } }
    #expect(feeder.frames == [1, 2, frame - 1, frame])
    #expect(feeder.lookahead.heldCount == 0)
  }

  /// Live output cannot wait long: everything held goes out, the request without its answer,
  /// and its answer when it comes still names the request.
  @Test func releaseAllLetsEverythingOut() {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2)
    feeder.releaseAll()
    #expect(feeder.frames == [1, 2] && feeder.lookahead.heldCount == 0)
    #expect(feeder.record(1)?.answer == nil)
    feeder.push(3, answers(1))
    #expect(feeder.frames == [1, 2, 3])
  }

  /// The source overwrites its buffer for every record: held records keep their own bytes.
  @Test func heldRecordsKeepTheirBytes() {
    let feeder = Feeder()
    feeder.push(1, size: 20, awaits)
    for frame in 2...200 { feeder.push(frame, size: frame * 7) }
    feeder.push(201, answers(1))
    #expect(feeder.frames == Array(1...201))
    for item in feeder.emitted where item.frame <= 200 {
      let size = item.frame == 1 ? 20 : item.frame * 7
      #expect(item.bytes == [UInt8](repeating: UInt8(item.frame), count: size), "frame \(item.frame)")
    }
  }

  /// Records bigger than a chunk of held memory, and many chunks in use at once.
  @Test func largeRecordsAndManyChunks() {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2, size: 600_000)
    for frame in 3...120 { feeder.push(frame, size: 9_000) }
    feeder.push(121, size: 0)
    feeder.push(122, answers(1))
    feeder.push(123, awaits)
    feeder.push(124, size: 300_000)
    feeder.finish()
    #expect(feeder.frames == Array(1...124))
    for item in feeder.emitted {
      let size = item.bytes.count
      #expect(item.bytes == [UInt8](repeating: UInt8(item.frame & 0xFF), count: size), "frame \(item.frame)")
    }
    #expect(feeder.emitted[1].bytes.count == 600_000 && feeder.emitted[120].bytes.isEmpty)
  }

  @Test(
    "the answer's opcode is kept: response, Error Response, confirmation",
    arguments: [(UInt8(0x0B), "ok"), (0x01, "error"), (0x1E, "ok")])
  func answerOpcode(_ opcode: UInt8, _ outcome: String) throws {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2, answers(1, opcode: opcode))
    let request = try #require(feeder.record(1))
    #expect(request.answer?.opcode == opcode)
    #expect(request.outcome == outcome)
  }

  @Test(
    "a record that settles a request without an answer releases it",
    arguments: [
      (UnansweredRequest.Reason.timeout, "timeout"), (.disconnected, "unanswered"), (.superseded, "unanswered"),
    ])
  func settledWithoutAnswer(_ reason: UnansweredRequest.Reason, _ outcome: String) throws {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2)
    feeder.push(3, settles(1, reason))
    #expect(feeder.frames == [1, 2, 3])
    let request = try #require(feeder.record(1))
    #expect(request.answer == nil && request.unansweredReason == reason && request.outcome == outcome)
  }

  /// A new request that supersedes the one before it is held in its turn.
  @Test func supersedingRequestIsHeld() throws {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2) {
      awaits(&$0); settles(1, .superseded)(&$0)
    }
    #expect(feeder.frames == [1])
    feeder.push(3, answers(2))
    #expect(feeder.frames == [1, 2, 3])
    #expect(feeder.record(1)?.unansweredReason == .superseded && feeder.record(2)?.answer?.frame == 3)
  }

  /// Two requests in flight (two connections): the first answered goes out only up to the
  /// second, still waiting.
  @Test func overlappingRequests() throws {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2, awaits)
    feeder.push(3)
    feeder.push(4, answers(2))
    #expect(feeder.frames.isEmpty, "frame 1 still waits")
    feeder.push(5, answers(1))
    #expect(feeder.frames == [1, 2, 3, 4, 5])
    feeder.push(6, awaits)
    feeder.push(7, awaits)
    feeder.push(8, answers(6))
    #expect(feeder.frames == [1, 2, 3, 4, 5, 6])
    feeder.push(9)
    feeder.push(10, answers(7))
    #expect(feeder.frames == Array(1...10))
    #expect(feeder.record(1)?.answer?.frame == 5 && feeder.record(2)?.answer?.frame == 4)
    #expect(feeder.record(6)?.answer?.frame == 8 && feeder.record(7)?.answer?.frame == 10)
  }

  @Test func endOfCaptureReleasesEverything() throws {
    let feeder = Feeder()
    feeder.push(1, awaits)
    feeder.push(2)
    feeder.push(3, awaits)
    feeder.push(4)
    #expect(feeder.frames.isEmpty)
    feeder.finish([
      UnansweredRequest(conn: conn, frame: 1, opcode: 0x0A, handle: nil, timestamp: 0, reason: .endOfCapture),
      UnansweredRequest(conn: conn, frame: 3, opcode: 0x1D, handle: nil, timestamp: 0, reason: .endOfCapture),
    ])
    #expect(feeder.frames == [1, 2, 3, 4])
    #expect(feeder.record(1)?.unansweredReason == .endOfCapture && feeder.record(3)?.outcome == "unanswered")
    #expect(feeder.lookahead.heldCount == 0)
  }

  @Test func recordLimitReleasesTheOldestRequest() throws {
    let feeder = Feeder(recordLimit: 5)
    feeder.push(1, awaits)
    for frame in 2...5 { feeder.push(frame) }
    #expect(feeder.frames.isEmpty)
    feeder.push(6)
    #expect(feeder.frames == [1, 2, 3, 4, 5, 6], "the sixth record is over the limit")
    feeder.push(7, answers(1))
    #expect(feeder.frames == Array(1...7))
    let request = try #require(feeder.record(1))
    #expect(request.answer == nil && request.outcome == nil)
    #expect(request.decoded.diagnostics.map(\.id) == ["att.lookahead.limit"])
    #expect(feeder.record(7)?.exchange?.requestFrame == 1, "the answer still names its request")
    #expect(feeder.lookahead.releasedAtLimit == 1)
  }

  /// Over the limit, only the oldest request goes; a later one keeps waiting.
  @Test func limitKeepsLaterRequestsWaiting() throws {
    let feeder = Feeder(recordLimit: 4)
    feeder.push(1, awaits)
    feeder.push(2)
    feeder.push(3, awaits)
    feeder.push(4)
    feeder.push(5)
    #expect(feeder.frames == [1, 2])
    feeder.push(6, answers(3))
    #expect(feeder.frames == Array(1...6))
    #expect(feeder.record(3)?.answer?.frame == 6 && feeder.record(3)?.decoded.diagnostics.isEmpty == true)
    #expect(feeder.lookahead.releasedAtLimit == 1)
  }

  @Test func byteLimitReleasesTheOldestRequest() throws {
    let feeder = Feeder(byteLimit: 100)
    feeder.push(1, size: 40, awaits)
    feeder.push(2, size: 40)
    #expect(feeder.frames.isEmpty)
    feeder.push(3, size: 40)
    #expect(feeder.frames == [1, 2, 3])
    #expect(feeder.record(1)?.decoded.diagnostics.first?.id == "att.lookahead.limit")
  }

  /// An emit that throws (stdout closed) stops the run without corrupting anything.
  @Test func throwingEmitStops() {
    struct Stop: Error {}
    var lookahead = ResponseLookahead()
    var seen: [Int] = []
    let bytes: [UInt8] = [1, 2, 3]
    bytes.withUnsafeBufferPointer { buffer in
      var request = AnalyzedRecord(decoded: DecodedRecord())
      request.awaitsAnswer = true
      lookahead.push(Feeder.record(1, buffer), request) { _, _ in Issue.record("held") }
      var answer = AnalyzedRecord(decoded: DecodedRecord())
      answers(1)(&answer)
      #expect(throws: Stop.self) {
        try lookahead.push(Feeder.record(2, buffer), answer) { record, _ in
          seen.append(record.frame)
          throw Stop()
        }
      }
    }
    #expect(seen == [1])
  }
}

/// The lookahead behind the Analyzer, on ATT PDUs over one LE link, bytes in one reused buffer.
@Suite("response lookahead with the analyzer")
struct ResponseLookaheadAnalyzerTests {
  /// Runs `(sent, ms, ATT PDU hex)` through the Analyzer and a lookahead; returns what came
  /// out with each record's ATT value as it read when it came out.
  /// `filters` are evaluated on each record as it comes out; `matches` has the frames each matched.
  func run(_ pdus: [(sent: Bool, ms: Int64, hex: String)], filters: [String] = [], matches: inout [String: [Int]])
    -> [(record: AnalyzedRecord, value: String)]
  {
    var analyzer = Analyzer()
    var lookahead = ResponseLookahead()
    var out: [(AnalyzedRecord, String)] = []
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 512)
    defer { buffer.deallocate() }
    let compiled = filters.map { try! RecordFilter.compile($0) }
    func emit(_ record: Record, _ analyzed: AnalyzedRecord) {
      for (expression, filter) in zip(filters, compiled)
      where filter.matches(FilterInput(record: record, analyzed: analyzed)) {
        matches[expression, default: []].append(record.frame)
      }
      let value = analyzed.decoded.att?.value.map { range in
        analyzed.decoded.withPayloadBytes(record) { bytes in
          bytes[range.start..<range.start + range.count].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
      }
      out.append((analyzed, value ?? "-"))
    }
    for (index, pdu) in pdus.enumerated() {
      let att = hexBytes(pdu.hex)
      let l2cap = [UInt8(att.count & 0xFF), UInt8(att.count >> 8), 0x04, 0x00] + att
      let acl = [0x40, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
      _ = buffer.initialize(from: acl)
      let record = Record(
        frame: index + 1, timestamp: Timestamp(unixMicroseconds: pdu.ms * 1000),
        direction: pdu.sent ? .sent : .received, adapter: nil, kind: .hci(0x02),
        bytes: UnsafeBufferPointer(rebasing: buffer[0..<acl.count]), originalLength: acl.count, fileOffset: 0)
      lookahead.push(record, analyzer.analyze(record), emit)
      buffer.update(repeating: 0xEE)
    }
    lookahead.finish(analyzer.finish(), emit)
    return out
  }

  func run(_ pdus: [(sent: Bool, ms: Int64, hex: String)]) -> [(record: AnalyzedRecord, value: String)] {
    var matches: [String: [Int]] = [:]
    return run(pdus, matches: &matches)
  }

  static let exchanges: [(sent: Bool, ms: Int64, hex: String)] = [
    // Read Request 0x0003
    (true, 0, "0a 0300"),
    // Handle Value Notification 0x0008 0648
    (false, 2, "1b 0800 0648"),
    // Read Response 4142
    (false, 7, "0b 4142"),
    // Handle Value Indication 0x0003 (the host's own server), Write Request 0x0009 0100
    (true, 8, "1d 0300 0100ffff"),
    (true, 9, "12 0900 0100"),
    // Error Response (Write Request 0x0009, Write Not Permitted), Handle Value Confirmation
    (false, 12, "01 12 0900 03"),
    (false, 20, "1e"),
    // Read Request 0x0005, then nothing before the capture ends
    (true, 21, "0a 0500"),
  ]

  @Test(
    "filter fields of requests and answers",
    arguments: [
      ("att.response_frame == 3", [1]), ("att.response_frame", [1, 4, 5]), ("att.request_frame", [3, 6, 7]),
      ("att.latency_ms == 7", [1, 3]), ("att.latency_us == 12000", [4, 7]),
      ("att.latency_ms >= 3", [1, 3, 4, 5, 6, 7]),
      ("att.outcome == \"ok\"", [1, 4]), ("att.outcome == \"error\"", [5]), ("att.outcome == \"unanswered\"", [8]),
    ])
  func filterFields(_ expression: String, _ frames: [Int]) {
    var matches: [String: [Int]] = [:]
    _ = run(Self.exchanges, filters: [expression], matches: &matches)
    #expect(matches[expression, default: []] == frames)
  }

  @Test func requestsNameTheirAnswers() throws {
    let out = run(Self.exchanges)
    #expect(out.count == 8)
    #expect(out.map { $0.record.decoded.att?.opcode.rawValue } == [0x0A, 0x1B, 0x0B, 0x1D, 0x12, 0x01, 0x1E, 0x0A])
    #expect(out[0].record.answer == ATTAnswer(frame: 3, opcode: 0x0B, latencyMicroseconds: 7000))
    #expect(out[3].record.answer == ATTAnswer(frame: 7, opcode: 0x1E, latencyMicroseconds: 12000))
    #expect(out[4].record.answer == ATTAnswer(frame: 6, opcode: 0x01, latencyMicroseconds: 3000))
    #expect(out[4].record.outcome == "error")
    #expect(out[7].record.answer == nil && out[7].record.unansweredReason == .endOfCapture)
    #expect(out.map(\.value) == ["-", "0648", "4142", "0100ffff", "0100", "-", "-", "-"])
  }

  @Test func timeoutAfterThirtySeconds() throws {
    let out = run([
      (true, 0, "0a 0300"),
      (false, 29_999, "1b 0800 0648"),
      (false, 30_000, "1b 0800 0649"),
    ])
    #expect(out.count == 3)
    #expect(out[0].record.unansweredReason == .timeout && out[0].record.outcome == "timeout")
    #expect(out.map(\.value) == ["-", "0648", "0649"])
  }
}
