import BLEAnalysis
import BLECapture
import BLEDissect

/// The summary of one capture: the counts (also as data attributes, from the same
/// models `app`, `timeline` and `devices` render), the capture, its peers, each
/// connection and how it ended, the findings and the milestones.
struct ReportSummary {
  let page: ReportPage

  /// The numbers the summary shows and carries: app calls and events, connections,
  /// calls that failed, advertisers.
  struct Counts {
    var calls: Int
    var connections: Int
    var errors: Int
    var advertisers: Int

    init(_ report: CaptureReport) {
      calls = report.story.calls.count
      connections = report.timeline.connections.count
      errors = report.story.calls.count { !$0.ok }
      advertisers = report.devices.count
    }
  }

  func append(into out: inout OutputBuffer) {
    let counts = Counts(page.report)
    out.append(string: "<section class=\"summary\" id=\"\(page.id)-summary\" aria-labelledby=\"\(page.id)-summary-h\"")
    out.append(
      string:
        " data-calls=\"\(counts.calls)\" data-connections=\"\(counts.connections)\" data-errors=\"\(counts.errors)\" data-advertisers=\"\(counts.advertisers)\">\n"
    )
    out.append(string: "<h3 id=\"\(page.id)-summary-h\">Summary</h3>\n<ul class=\"counts\">")
    for (count, what) in [
      (counts.calls, "app calls and events"), (counts.connections, "connections"),
      (counts.errors, "calls that failed"), (counts.advertisers, "advertisers"),
    ] {
      out.append(string: "<li><b>\(count)</b> \(what)</li>")
    }
    out.append("</ul>\n")
    appendCapture(into: &out)
    appendPeers(into: &out)
    appendConnections(into: &out)
    appendFindings(into: &out)
    appendMilestones(into: &out)
    out.append("</section>\n")
  }

  // MARK: - The capture

  private func appendCapture(into out: inout OutputBuffer) {
    let capture = page.capture
    out.append("<dl class=\"facts\">")
    fact("Format", capture.format, into: &out)
    out.append("<dt>Span</dt><dd>")
    if let first = capture.first?.unixMicroseconds, let last = capture.last?.unixMicroseconds {
      TextShowRenderer.appendUTC(first, date: true, into: &out)
      out.append(" → ")
      TextShowRenderer.appendUTC(last, date: true, into: &out)
      out.append(string: " UTC (" + Milliseconds.text(last - first) + ")")
    } else {
      out.append("no records")
    }
    out.append("</dd>")
    fact("Records", "\(capture.records)", into: &out)
    fact("Damage", capture.damage.map { "damaged: \($0)" } ?? "none: every record was read", into: &out)
    if capture.sources.count > 1 || capture.sources.first?.path != capture.file {
      out.append("<dt>Sources</dt><dd><ul>")
      for source in capture.sources {
        var text = "\(source.path) (\(source.format), \(source.records) records"
        if source.delivered != source.records { text += ", \(source.delivered) delivered" }
        if source.summary { text += ", btsnooz summary" }
        out.appendElement("li", text + ")")
      }
      out.append("</ul></dd>")
    } else {
      fact("Sources", "the file itself", into: &out)
    }
    if page.redacted {
      fact(
        "Redacted", "addresses and names are pseudonyms; keys and values not known to be safe are blanked", into: &out)
    }
    out.append("</dl>\n")
  }

  private func fact(_ term: String, _ value: String, into out: inout OutputBuffer) {
    out.appendElement("dt", term)
    out.appendElement("dd", value)
  }

  // MARK: - Peers and connections

  private func appendPeers(into out: inout OutputBuffer) {
    struct Peer {
      var address: DeviceAddress
      var type: UInt8?
      var name: String?
      var connections = 0
      var attempts = 0
    }
    var peers: [Peer] = []
    var index: [DeviceAddress: Int] = [:]
    func peer(_ address: DeviceAddress, _ type: UInt8?, _ name: String?) -> Int {
      if let i = index[address] {
        if peers[i].name == nil { peers[i].name = name }
        return i
      }
      index[address] = peers.count
      peers.append(Peer(address: address, type: type, name: name))
      return peers.count - 1
    }
    for connection in page.report.timeline.connections {
      guard let address = connection.ref.peer else { continue }
      peers[peer(address, connection.ref.peerType, connection.peerName)].connections += 1
    }
    for attempt in page.report.timeline.attempts {
      guard let address = attempt.peer else { continue }
      peers[peer(address, attempt.peerType, attempt.peerName)].attempts += 1
    }
    out.append(string: "<h4 id=\"\(page.id)-peers\">Peers</h4>\n")
    guard !peers.isEmpty else { return out.append("<p>No connection or connection attempt in the capture.</p>\n") }
    let table = HTMLTable(["address", "type", "name", "connections", "attempts"], numeric: [3, 4])
    let rows: [[HTMLTable.Cell]] = peers.map { peer in
      [
        .init(peer.address.description), .init(peer.type.map { AdvertisingAddressType(rawValue: $0).name } ?? ""),
        .init(peer.name ?? "(no name in the capture)"), .init(peer.connections), .init(peer.attempts),
      ]
    }
    table.append(caption: "Peers this host connected to or tried to", rows: rows, more: "", into: &out)
  }

  private func appendConnections(into out: inout OutputBuffer) {
    let timeline = page.report.timeline
    out.append(string: "<h4 id=\"\(page.id)-connections\">Connections</h4>\n")
    let unconnected = timeline.attempts.filter { $0.connection == nil }
    guard !timeline.connections.isEmpty || !unconnected.isEmpty else {
      return out.append("<p>No connection in the capture.</p>\n")
    }
    let table = HTMLTable(
      ["#", "handle", "role", "peer", "name", "at (s)", "connect ms", "lasted s", "outcome"], numeric: [0, 5, 6, 7])
    var rows: [[HTMLTable.Cell]] = []
    for connection in timeline.connections {
      let ref = connection.ref
      let began = connection.complete ?? connection.first
      let end = connection.disconnect?.complete ?? connection.last
      let outcome = Self.outcome(connection)
      rows.append([
        .init(ref.id), .init("0x" + hex(ref.handle)), .init(ref.roleName ?? ""), .init(ref.peer?.description ?? ""),
        .init(connection.peerName ?? ""),
        .init(page.relative(began.timestamp), value: Double(began.timestamp - page.start) / 1e6),
        .init(milliseconds: connection.connectLatencyMicroseconds),
        .init(StatsText.seconds(began.microseconds(to: end)), value: Double(began.microseconds(to: end)) / 1e6),
        .init(outcome.text, error: outcome.bad),
      ])
    }
    for attempt in unconnected {
      rows.append([
        "", "", "", .init(attempt.peer?.description ?? "(accept list)"), .init(attempt.peerName ?? ""),
        .init(page.relative(attempt.create.timestamp), value: Double(attempt.create.timestamp - page.start) / 1e6),
        .init(milliseconds: attempt.latencyMicroseconds), "",
        .init(
          "no connection: " + attempt.outcome.rawValue.replacing("_", with: " ")
            + (attempt.status.map { $0 == 0 ? "" : ", " + HCIStatusCode(rawValue: $0).name } ?? ""),
          error: attempt.outcome != .cancelled && attempt.outcome != .pending),
      ])
    }
    table.append(
      caption: "Connections and attempts that made none, and how each ended", rows: rows, more: "", into: &out)
  }

  /// How a connection ended, and whether that is bad news (the link was lost or never got going).
  static func outcome(_ connection: ConnectionTimeline) -> (text: String, bad: Bool) {
    guard let disconnect = connection.disconnect else { return ("up at the end of the capture", false) }
    let who = disconnect.initiator.rawValue.replacing("_", with: " ")
    let bad = [.linkLoss, .failedToEstablish].contains(disconnect.initiator)
    return ((bad ? "✗ " : "") + "\(who): " + disconnect.reasonName + " (0x" + hex(disconnect.reason) + ")", bad)
  }

  // MARK: - Findings

  private func appendFindings(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-findings\">Findings</h4>\n")
    var security: [(SecurityFinding, Int)] = []
    for connection in page.report.timeline.connections {
      for finding in connection.security?.findings ?? [] { security.append((finding, connection.ref.id)) }
    }
    security.sort { $0.0.severity < $1.0.severity }
    let platform = page.report.throughput.findings
    let failed = page.failedCalls
    if security.isEmpty && platform.isEmpty && failed.isEmpty {
      return out.append("<p>No security finding, no platform rule broken, no call failed.</p>\n")
    }
    out.append("<ul class=\"findings\">")
    for (finding, conn) in security {
      out.append(string: "<li class=\"sev-\(finding.severity.rawValue)\">")
      var text = "security, \(finding.severity.rawValue): \(finding.reason)"
      if let detail = finding.detail { text += " (\(detail))" }
      text += ", connection #\(conn)" + Self.frames(finding.frames)
      out.appendHTML(text)
      out.append("</li>")
    }
    for finding in platform.prefix(Self.findingsShown) {
      out.appendElement(
        "li",
        "platform rule, " + ThroughputText.findingText(finding)
          + ", connection #\(finding.conn.id) (#\(finding.at.frame))")
    }
    if platform.count > Self.findingsShown {
      out.appendElement(
        "li", "… \(platform.count - Self.findingsShown) more platform findings (`bleanalyze throughput`)")
    }
    if !failed.isEmpty {
      var byKind: [(kind: AppCallKind, count: Int)] = []
      for call in failed {
        if let i = byKind.firstIndex(where: { $0.kind == call.kind }) {
          byKind[i].count += 1
        } else {
          byKind.append((call.kind, 1))
        }
      }
      out.append("<li class=\"err\">")
      out.appendHTML(
        "✗ \(failed.count) call\(failed.count == 1 ? "" : "s") failed: "
          + byKind.map { "\($0.kind.rawValue) \($0.count)" }.joined(separator: ", "))
      out.append("<ul>")
      for call in failed.prefix(Self.findingsShown) {
        let frames = call.frames
        out.appendElement(
          "li",
          page.relative(call.start.timestamp) + (call.conn.map { " connection #\($0.id)" } ?? "") + ": "
            + page.title(call) + " → " + page.result(call) + " (#\(frames.first)–#\(frames.last))")
      }
      if failed.count > Self.findingsShown {
        out.appendElement("li", "… \(failed.count - Self.findingsShown) more in the Errors table")
      }
      out.append("</ul></li>")
    }
    out.append("</ul>\n")
  }

  static let findingsShown = 20

  /// ` (#12, #14)`, at most eight frames.
  static func frames(_ frames: [Int]) -> String {
    guard !frames.isEmpty else { return "" }
    let shown = frames.prefix(8).map { "#\($0)" }.joined(separator: ", ")
    return " (" + shown + (frames.count > 8 ? ", …" : "") + ")"
  }

  // MARK: - Milestones

  private func appendMilestones(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-milestones\">Milestones</h4>\n")
    let calls = page.report.story.calls
    let scans = calls.filter { $0.kind == .scan }
    var byConnection: [Int: [AppCall]] = [:]
    for call in calls { if let id = call.conn?.id { byConnection[id, default: []].append(call) } }
    let names = AppMilestones.names
    var rows: [[HTMLTable.Cell]] = []
    for id in byConnection.keys.sorted() {
      let milestones = AppMilestones(byConnection[id] ?? [], scans: scans).milestones
      guard !milestones.isEmpty else { continue }
      rows.append(
        [.init(id)]
          + names.map { name in .init(milliseconds: milestones.first { $0.name == name }?.microseconds) })
    }
    guard !rows.isEmpty else { return out.append("<p>No connection came up.</p>\n") }
    HTMLTable(["connection"] + names.map { $0 + " (ms)" }, numeric: [0, 1, 2, 3, 4]).append(
      caption: "What a user waits for, per connection", rows: rows, more: "", into: &out)
  }
}
