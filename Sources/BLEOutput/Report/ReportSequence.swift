import BLEAnalysis
import BLECapture
import BLEDissect

/// The sequence diagram of one capture: the scanner, then each connection (or attempt
/// that made none), in the order their first call began, on three lanes: app, stack,
/// peer. A step is one call, or one run of calls of one kind on one attribute with one
/// result (as `app` folds them, `AppText.runKey`), with its count. Each step is a
/// `<details>` element: its summary draws the arrows (the call, the requests on the
/// wire, the answers, the callback with the duration), its body lists the frames.
///
/// Every step carries `data-call` (the kind), `data-frames` (first–last) and
/// `data-count` (calls folded in it): the steps' counts add up to `app`'s calls.
struct ReportSequence {
  let page: ReportPage
  /// Steps still to draw in this capture.
  private var budget = Self.stepsPerCapture

  init(page: ReportPage) { self.page = page }

  /// Frames listed under one step at most.
  static let framesShown = 12
  /// Steps drawn per connection, and per capture, at most: past them a group says how
  /// many calls it left out (`data-omitted`), which the Calls table and `app` list.
  static let stepsPerGroup = 300
  static let stepsPerCapture = 1500
  /// Calls listed under a folded step at most.
  static let runCallsShown = 40

  mutating func append(into out: inout OutputBuffer) {
    out.append(string: "<section id=\"\(page.id)-sequence\" aria-labelledby=\"\(page.id)-sequence-h\">\n")
    out.append(string: "<h3 id=\"\(page.id)-sequence-h\">Sequence</h3>\n")
    out.append("<p class=\"note\">")
    out.appendHTML(
      "App ↔ stack ↔ peer, calls named for \(page.api.rawValue). Solid arrows are calls and requests, dashed "
        + "ones callbacks and answers; ✗ marks an error. Open a step (click, or Enter; arrow keys move) for its "
        + "frames.")
    out.append("</p>\n")
    let calls = page.report.story.calls
    if calls.isEmpty { out.append("<p>No app call in the capture.</p>\n") }
    let scans = calls.filter { $0.kind == .scan }
    if !scans.isEmpty {
      appendGroup(title: "Scanner", id: "scanner", handle: nil, scans, into: &out)
    }
    var order: [(key: Int, calls: [AppCall])] = []
    var index: [Int: Int] = [:]
    for call in calls where call.kind != .scan {
      let key = call.conn?.id ?? -(call.start.frame)
      if let i = index[key] {
        order[i].calls.append(call)
      } else {
        index[key] = order.count
        order.append((key, [call]))
      }
    }
    let names = page.peerNames
    for (key, group) in order {
      let first = group[0]
      if let conn = first.conn {
        appendGroup(
          title: page.heading(conn, name: names[conn.id]), id: "conn\(conn.id)", handle: conn.handle, group,
          into: &out)
      } else {
        appendGroup(
          title: "Attempt" + (first.peerAddress.map { " → \($0)" } ?? ""), id: "attempt\(-key)", handle: nil, group,
          into: &out)
      }
    }
    out.append("</section>\n")
  }

  private mutating func appendGroup(
    title: String, id: String, handle: UInt16?, _ calls: [AppCall], into out: inout OutputBuffer
  ) {
    var steps: [Range<Int>] = []
    var i = 0
    while i < calls.count {
      var j = i + 1
      if let key = AppText.runKey(calls[i]) {
        while j < calls.count, AppText.runKey(calls[j]) == key { j += 1 }
      }
      if j - i < 3 { j = i + 1 }
      steps.append(i..<j)
      i = j
    }
    let drawn = min(steps.count, Self.stepsPerGroup, budget)
    budget -= drawn
    let omitted = steps.dropFirst(drawn).reduce(0) { $0 + $1.count }
    out.append(string: "<div class=\"seq\" id=\"\(page.id)-\(id)\" data-omitted=\"\(omitted)\"")
    if let handle { out.append(string: " data-handle=\"\(handle)\"") }
    out.append(">\n<h4>")
    out.appendHTML(title)
    out.append("</h4>\n")
    if drawn > 0 {
      out.append(
        "<div class=\"lanes\" aria-hidden=\"true\"><span>App</span><span>Stack</span><span>Peer</span></div>\n")
      out.append("<ol class=\"steps\">\n")
      for step in steps.prefix(drawn) { appendStep(calls[step], into: &out) }
      out.append("</ol>\n")
    }
    if omitted > 0 {
      out.append("<p class=\"note\">")
      out.appendHTML(
        "\(omitted) more call\(omitted == 1 ? "" : "s") not drawn (at most \(Self.stepsPerGroup) steps a connection, "
          + "\(Self.stepsPerCapture) a capture); the Calls table and `bleanalyze app` list them")
      out.append("</p>\n")
    }
    out.append("</div>\n")
  }

  private func appendStep(_ run: ArraySlice<AppCall>, into out: inout OutputBuffer) {
    let call = run[run.startIndex]
    let last = run[run.endIndex - 1]
    let first = run.map(\.frames.first).min() ?? call.start.frame
    let end = run.map(\.frames.last).max() ?? last.end.frame
    let failed = !call.ok
    out.append(
      string:
        "<li class=\"step\" data-call=\"\(call.kind.rawValue)\" data-frames=\"\(first)-\(end)\" data-count=\"\(run.count)\""
    )
    if failed { out.append(" data-error=\"1\"") }
    out.append("><details><summary><span class=\"tm\">")
    out.append(string: page.relative(call.start.timestamp))
    out.append("</span>")
    let count = run.count > 1 ? " ×\(run.count)" : ""
    let title = page.title(call) + count
    let result = (failed ? "✗ " : "") + page.result(call)
    let duration = durationText(run)
    let requests = run.reduce(0) { $0 + $1.requests.count }
    let answers = run.reduce(0) { $0 + $1.responses.count }
    if !call.byLocal {
      // The peer's client asks our server: the app is not involved.
      arrow("l c2", "← " + title, into: &out)
      arrow("r b c2" + (failed ? " e" : ""), result + duration, into: &out)
    } else if call.kind.isEvent {
      arrow("l c2" + (failed ? " e" : ""), eventText(call, run.count), into: &out)
      arrow("l b c1" + (failed ? " e" : ""), page.words.name(call) + count + (failed ? " → " + result : ""), into: &out)
    } else {
      arrow("r c1", title, into: &out)
      if requests > 0 {
        arrow("r c2", wireText(call.requests, total: requests, what: "requests"), into: &out)
      }
      if answers > 0 || failed {
        arrow(
          "l b c2" + (failed ? " e" : ""),
          answers == 0 ? "no answer" : wireText(call.responses, total: answers, what: "answers"), into: &out)
      }
      let callback = page.words.callback(call).map { $0 + " " } ?? ""
      arrow("l b c1" + (failed ? " e" : ""), callback + result + duration, into: &out)
    }
    out.append("</summary><div>")
    if run.count > 1 { appendRunCalls(run, into: &out) }
    appendFrames(run, into: &out)
    out.append("</div></details></li>\n")
  }

  /// `#97 ATT Exchange MTU Request MTU 517`, or `#101 ATT Find By Type Value Request… (2 requests)`.
  private func wireText(_ frames: [Int], total: Int, what: String) -> String {
    guard let first = frames.first else { return "\(total) \(what)" }
    let line = page.lines.text(first, limit: 52).map { "#\(first) " + $0 } ?? "#\(first)"
    return total == 1 ? line : line + " (\(total) \(what))"
  }

  private func arrow(_ classes: String, _ text: String, into out: inout OutputBuffer) {
    out.append(string: "<span class=\"a \(classes)\">")
    out.appendHTML(text)
    out.append("</span>")
  }

  /// ` in 38.952 ms`, or the median of a run; empty for an unfinished call.
  private func durationText(_ run: ArraySlice<AppCall>) -> String {
    if run.count == 1 { return run.first?.duration.map { " in " + Milliseconds.text($0) } ?? "" }
    guard let summary = LatencySummary(run.compactMap(\.duration)) else { return "" }
    return " median " + Milliseconds.text(summary.median) + ", max " + Milliseconds.text(summary.max)
  }

  /// What the peer or the link did: `notification ×12 (240 bytes)`, `disconnected: Remote User Terminated…`.
  private func eventText(_ call: AppCall, _ count: Int) -> String {
    var text = call.kind.rawValue.replacing("_", with: " ")
    if let object = call.object { text += " " + object }
    if let stream = call.stream { text += " ×\(stream.count), \(stream.bytes) bytes" }
    if let reason = call.reason { text += ": " + HCIStatusCode(rawValue: reason).name }
    if let who = call.who { text += " (" + who.replacing("_", with: " ") + ")" }
    if let gap = call.gap { text += " after " + Milliseconds.text(gap) }
    return text + (count > 1 ? " ×\(count)" : "")
  }

  private func appendRunCalls(_ run: ArraySlice<AppCall>, into out: inout OutputBuffer) {
    out.append("<ol class=\"calls\">")
    for call in run.prefix(Self.runCallsShown) {
      let frames = call.frames
      out.appendElement(
        "li",
        page.relative(call.start.timestamp) + " " + page.result(call)
          + (call.duration.map { " in " + Milliseconds.text($0) } ?? "")
          + (frames.first == frames.last ? " (#\(frames.first))" : " (#\(frames.first)–#\(frames.last))"))
    }
    out.append("</ol>")
    if run.count > Self.runCallsShown {
      out.append("<p class=\"note\">")
      out.appendHTML("… \(run.count - Self.runCallsShown) more calls in the Calls table")
      out.append("</p>")
    }
  }

  private func appendFrames(_ run: ArraySlice<AppCall>, into out: inout OutputBuffer) {
    var frames: [Int] = []
    for call in run {
      frames += call.requests + call.responses
      if frames.count >= Self.framesShown { break }
    }
    if frames.isEmpty { frames = [run[run.startIndex].start.frame, run[run.startIndex].end.frame] }
    frames = Array(Set(frames)).sorted()
    out.append("<table class=\"frames\"><caption class=\"note\">Frames</caption><tbody>")
    for frame in frames.prefix(Self.framesShown) {
      out.append(string: "<tr><td>#\(frame)</td>")
      if let line = page.lines.line(frame) {
        out.append(string: "<td>" + page.relative(line.time) + "</td><td>")
        out.append(line.direction == .sent ? "tx" : line.direction == .received ? "rx" : "")
        out.append("</td><td>")
        page.lines.appendHTML(line.range, into: &out)
        out.append("</td>")
      } else {
        out.append("<td colspan=\"3\">(not kept)</td>")
      }
      out.append("</tr>")
    }
    out.append("</tbody></table>")
    let total = run.reduce(0) { $0 + $1.requests.count + $1.responses.count }
    if total > Self.framesShown {
      out.append("<p class=\"note\">")
      out.appendHTML("\(min(frames.count, Self.framesShown)) of \(total) frames; `bleanalyze show` lists them all")
      out.append("</p>")
    }
  }
}
