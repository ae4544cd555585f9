import BLEAnalysis
import BLEDissect

/// The outcome of a request that `live` showed before it was settled, written when a
/// later record settles it without an answer or the capture ends: NDJSON
/// `{"type":"outcome","request_frame":12,"outcome":"unanswered","reason":"disconnected"}`
/// (`reason` also `superseded`, `end_of_capture`; `"outcome":"timeout"` after 30 s), text
/// `# #12 Read Request → no response (disconnected)`. An answer's own line names its
/// request. A JSON document holds its records until the end, so its requests carry
/// their outcome themselves.
public enum LateOutcome {
  public static func appendEndOfCapture(
    frame: Int, name: String, format: RenderFormat, into out: inout OutputBuffer
  ) {
    append(.init(frame: frame, name: name, reason: .endOfCapture), format: format, into: &out)
  }

  public static func append(_ settled: EarlyRequests.Settled, format: RenderFormat, into out: inout OutputBuffer) {
    let reason = settled.reason
    switch format {
    case .text:
      out.append("# #")
      out.appendDecimal(settled.frame)
      out.append(" ")
      out.append(contentsOf: settled.name.utf8)
      out.append(settled.name == "Handle Value Indication" ? " → no confirmation" : " → no response")
      switch reason {
      case .timeout: out.append(" in 30 s\n")
      case .disconnected: out.append(" (disconnected)\n")
      case .superseded: out.append(" (superseded)\n")
      case .endOfCapture: out.append(" (capture ended)\n")
      }
    case .ndjson:
      out.append("{\"type\":\"outcome\",\"request_frame\":")
      out.appendDecimal(settled.frame)
      out.append(
        reason == .timeout ? ",\"outcome\":\"timeout\",\"reason\":\"" : ",\"outcome\":\"unanswered\",\"reason\":\"")
      switch reason {
      case .timeout: out.append("timeout")
      case .disconnected: out.append("disconnected")
      case .superseded: out.append("superseded")
      case .endOfCapture: out.append("end_of_capture")
      }
      out.append("\"}\n")
    case .json:
      break
    }
  }
}
