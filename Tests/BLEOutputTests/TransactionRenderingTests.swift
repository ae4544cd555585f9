import BLEDissect
import Testing

@testable import BLEAnalysis
@testable import BLEOutput

/// How a request and its answer point at each other in `show`'s text line, its JSON `att`
/// object and its `-v` tree.
@Suite struct TransactionRenderingTests {
  /// A record whose ATT PDU has `opcode`, with what the lookahead and LinkTracker set.
  static func record(
    _ opcode: UInt8, exchange: (request: Int, opcode: UInt8)? = nil, answer: (frame: Int, opcode: UInt8)? = nil,
    unanswered: UnansweredRequest.Reason? = nil, awaiting: Bool = false
  ) -> AnalyzedRecord {
    var decoded = DecodedRecord()
    decoded.att = ATTPDU(opcode: ATTOpcode(rawValue: opcode), parameters: .none)
    var analyzed = AnalyzedRecord(decoded: decoded)
    analyzed.awaitsAnswer = awaiting
    if let exchange {
      analyzed.exchange = ATTExchange(
        requestFrame: exchange.request, requestOpcode: exchange.opcode, latencyMicroseconds: 6317)
    }
    if let answer {
      analyzed.awaitsAnswer = true
      analyzed.answer = ATTAnswer(frame: answer.frame, opcode: answer.opcode, latencyMicroseconds: 58_903)
    }
    if let unanswered {
      analyzed.awaitsAnswer = true
      analyzed.unansweredReason = unanswered
    }
    return analyzed
  }

  static let rows: [(String, AnalyzedRecord, String, String?)] = [
    // Read Request answered by a Read Response in #14
    ("request", record(0x0A, answer: (14, 0x0B)), " → rsp #14 in 58.903 ms", "ok"),
    // Write Request answered by an Error Response in #45
    ("error", record(0x12, answer: (45, 0x01)), " → err #45 in 58.903 ms", "error"),
    // Handle Value Indication confirmed in #57
    ("indication", record(0x1D, answer: (57, 0x1E)), " → cfm #57 in 58.903 ms", "ok"),
    // Read Response to #12, Error Response to #12, Handle Value Confirmation of #56
    ("response", record(0x0B, exchange: (12, 0x0A)), " ← req #12 in 6.317 ms", nil),
    ("error response", record(0x01, exchange: (12, 0x0A)), " ← req #12 in 6.317 ms", nil),
    ("confirmation", record(0x1E, exchange: (56, 0x1D)), " ← ind #56 in 6.317 ms", nil),
    // Requests that got no answer, and why
    ("timeout", record(0x0A, unanswered: .timeout), " → no response in 30 s", "timeout"),
    ("disconnected", record(0x12, unanswered: .disconnected), " → no response (disconnected)", "unanswered"),
    ("superseded", record(0x0A, unanswered: .superseded), " → no response (superseded)", "unanswered"),
    ("end of capture", record(0x0A, unanswered: .endOfCapture), " → no response", "unanswered"),
    ("unconfirmed", record(0x1D, unanswered: .timeout), " → no confirmation in 30 s", "timeout"),
    // Held past the lookahead's limit: nothing known
    ("released at the limit", record(0x0A, awaiting: true), "", nil),
    ("notification", record(0x1B), "", nil),
  ]

  @Test(arguments: rows)
  func textAndOutcome(_ name: String, _ analyzed: AnalyzedRecord, _ text: String, _ outcome: String?) {
    var out = OutputBuffer(fd: -1)
    RecordLine.appendTransaction(analyzed, into: &out)
    #expect(String(decoding: out.bytes, as: UTF8.self) == text, "\(name)")
    #expect(analyzed.outcome == outcome, "\(name)")
  }

  @Test func verboseFields() {
    #expect(
      Self.record(0x0A, answer: (14, 0x0B)).transactionFields == [
        Field("Response In Frame", .unsigned(14, hexDigits: 0)),
        Field("Latency", .measure(58_903, hexDigits: 0, value: 58.903, unit: "ms")),
      ])
    #expect(Self.record(0x12, answer: (45, 0x01)).transactionFields.first?.name == "Error Response In Frame")
    #expect(Self.record(0x1D, answer: (57, 0x1E)).transactionFields.first?.name == "Confirmation In Frame")
    #expect(
      Self.record(0x1E, exchange: (56, 0x1D)).transactionFields.first
        == Field("Indication In Frame", .unsigned(56, hexDigits: 0)))
    #expect(
      Self.record(0x0A, unanswered: .timeout).transactionFields == [Field("Response", .text("none within 30 s"))])
    #expect(Self.record(0x1B).transactionFields.isEmpty)
    var out = OutputBuffer(fd: -1)
    out.appendFieldTree(Self.record(0x0A, answer: (14, 0x0B)).transactionFields, indent: 0)
    #expect(String(decoding: out.bytes, as: UTF8.self) == "Response In Frame: 14\nLatency: 58.903 ms\n")
  }
}
