import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `report`: one self-contained HTML file for one or more captures, to look at
/// and to attach to a bug.
///
/// Per capture: a summary (the capture, the counts it carries as data attributes, peers,
/// connections and how each ended, findings, milestones), a sequence diagram per
/// connection (app ↔ stack ↔ peer; each call one element with `data-call` and
/// `data-frames`), charts drawn here as SVG (each with its text alternative), and tables
/// that sort. The file loads nothing: style and script are inline, and its Content
/// Security Policy forbids every request.
public struct HTMLReportRenderer {
  let api: AppAPI
  let redacted: Bool
  private var index = 0

  public init(api: AppAPI, redacted: Bool) {
    self.api = api
    self.redacted = redacted
  }

  /// The head, the title and the list of captures.
  public func begin(files: [String], version: String, into out: inout OutputBuffer) {
    out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
    out.append("<meta http-equiv=\"Content-Security-Policy\" content=\"")
    out.append(ReportStyle.contentSecurityPolicy)
    out.append("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
    out.append("<meta name=\"generator\" content=\"bleanalyze ")
    out.appendHTML(version)
    out.append("\">\n<title>")
    out.appendHTML("bleanalyze report: " + files.joined(separator: ", "))
    out.append("</title>\n<style>\n")
    out.append(ReportStyle.css)
    out.append("\n</style>\n</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to the report</a>\n<header>\n")
    out.append("<h1>bleanalyze report</h1>\n<p class=\"note\">")
    out.appendHTML(
      "Made by bleanalyze \(version); calls named for \(api.rawValue) (--api)."
        + (redacted
          ? " Redacted: addresses and names are pseudonyms, keys and values not known to be safe are blanked."
          : ""))
    out.append("</p>\n")
    if files.count > 1 {
      out.append("<nav aria-label=\"Captures\"><ul>")
      for (i, file) in files.enumerated() {
        out.append(string: "<li><a href=\"#c\(i + 1)\">")
        out.appendHTML(file)
        out.append("</a></li>")
      }
      out.append("</ul></nav>\n")
    }
    out.append("</header>\n<main id=\"main\">\n")
  }

  /// One capture's section.
  public mutating func render(
    path: String, _ report: CaptureReport, capture: CaptureInfo, lines: FrameLines, into out: inout OutputBuffer
  ) {
    index += 1
    let page = ReportPage(
      id: "c\(index)", path: path, report: report, capture: capture, lines: lines, api: api, redacted: redacted)
    out.append(string: "<section class=\"capture\" id=\"\(page.id)\" aria-labelledby=\"\(page.id)-h\"")
    out.append(" data-file=\"")
    out.appendHTML(path)
    out.append(string: "\">\n<h2 id=\"\(page.id)-h\">")
    out.appendHTML(path)
    out.append("</h2>\n<nav class=\"sub\" aria-label=\"Parts\"><ul>")
    for (part, title) in ReportPage.parts {
      out.append(string: "<li><a href=\"#\(page.id)-\(part)\">\(title)</a></li>")
    }
    out.append("</ul></nav>\n")
    ReportSummary(page: page).append(into: &out)
    var sequence = ReportSequence(page: page)
    sequence.append(into: &out)
    ReportCharts(page: page).append(into: &out)
    ReportTables(page: page).append(into: &out)
    out.append("</section>\n")
  }

  public func finish(into out: inout OutputBuffer) {
    if index == 0 { out.append("<p>No capture could be read.</p>\n") }
    out.append("</main>\n<script>\n")
    out.append(ReportStyle.script)
    out.append("\n</script>\n</body>\n</html>\n")
  }
}

/// What every part of one capture's section needs.
struct ReportPage {
  /// The section's id, a prefix of every id in it.
  let id: String
  let path: String
  let report: CaptureReport
  let capture: CaptureInfo
  let lines: FrameLines
  let api: AppAPI
  let redacted: Bool
  /// The app's words for calls, callbacks and results.
  let words: AppText
  /// Names of UUIDs: the built-in dissectors and the user's.
  var names: DissectorLibrary { lines.names }
  /// Connections the app disconnected itself (their end is no error).
  let appDisconnected: Set<Int>
  /// Where relative times start: the capture's first record.
  let start: Int64

  static let parts = [("summary", "Summary"), ("sequence", "Sequence"), ("charts", "Charts"), ("tables", "Tables")]

  init(
    id: String, path: String, report: CaptureReport, capture: CaptureInfo, lines: FrameLines, api: AppAPI,
    redacted: Bool
  ) {
    self.id = id
    self.path = path
    self.report = report
    self.capture = capture
    self.lines = lines
    self.api = api
    self.redacted = redacted
    words = AppText(api: api, verbose: false, captureEnd: report.story.end)
    appDisconnected = Set(report.story.calls.filter { $0.kind == .disconnect }.compactMap { $0.conn?.id })
    start = capture.first?.unixMicroseconds ?? report.story.start ?? 0
  }

  /// `+2.335340`: seconds from the capture's first record.
  func relative(_ time: Int64) -> String { "+" + fixedPointText(time - start, scale: 1_000_000, digits: 6) }

  /// `ok`, or the error as the app would get it.
  func result(_ call: AppCall) -> String {
    words.result(call, appDisconnected: appDisconnected.contains(call.conn?.id ?? -1))
  }

  /// The call in the app's words with what it is about: `BluetoothGatt.readCharacteristic(c) ff04 (0x0036)`.
  func title(_ call: AppCall) -> String {
    var text = (call.byLocal ? "" : "peer's client: ") + words.name(call)
    if let object = call.object, call.kind != .scan { text += " " + object }
    return text
  }

  /// A connection's heading: `Connection #2 handle 0x0041 central → D4:36:39:67:A2:61 "Mhealth2-5C54"`.
  func heading(_ conn: ConnectionRef, name: String?) -> String {
    var text = "Connection #\(conn.id) handle 0x" + hex(conn.handle)
    if let role = conn.roleName { text += " " + role }
    if let peer = conn.peer { text += (conn.role == 1 ? " ← " : " → ") + peer.description }
    if let name { text += " \"\(name)\"" }
    return text
  }

  /// Peer names by connection id, as the timeline knows them.
  var peerNames: [Int: String] {
    var names: [Int: String] = [:]
    for connection in report.timeline.connections { names[connection.ref.id] = connection.peerName }
    return names
  }

  /// The calls the app got an error for.
  var failedCalls: [AppCall] { report.story.calls.filter { !$0.ok } }
}
