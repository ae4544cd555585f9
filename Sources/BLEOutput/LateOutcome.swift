/// The outcome of a request that `live` showed before it was settled, written when the
/// capture ends without its answer: in text `# #12 Read Request → no response (capture
/// ended)`, in NDJSON `{"type":"outcome","request_frame":12,"outcome":"unanswered",
/// "reason":"end_of_capture"}`. A JSON document holds its records until the end, so its
/// requests carry their outcome themselves.
public enum LateOutcome {
  public static func appendEndOfCapture(
    frame: Int, name: String, format: RenderFormat, into out: inout OutputBuffer
  ) {
    switch format {
    case .text:
      out.append("# #")
      out.appendDecimal(frame)
      out.append(" ")
      out.append(contentsOf: name.utf8)
      out.append(name == "Handle Value Indication" ? " → no confirmation" : " → no response")
      out.append(" (capture ended)\n")
    case .ndjson:
      out.append("{\"type\":\"outcome\",\"request_frame\":")
      out.appendDecimal(frame)
      out.append(",\"outcome\":\"unanswered\",\"reason\":\"end_of_capture\"}\n")
    case .json:
      break
    }
  }
}
