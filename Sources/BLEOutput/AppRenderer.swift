import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `app`: the calls an app made and the callbacks it got, in a platform's words.
///
/// - text: the scanner, then per connection numbered steps with times from the capture's
///   start and durations; a burst of writes without response is one line; each
///   connection ends with the milestones a user feels;
/// - json: `{"schema_version":2,"calls":[…]}`, one object per call or event
///   (app.schema.json);
/// - ndjson: one such object per line (app-line.schema.json).
public struct AppRenderer {
  let format: RenderFormat
  let api: AppAPI
  let verbose: Bool
  let multipleFiles: Bool
  /// Text: paint failed calls red and the stack's own lines dim (a terminal, no NO_COLOR).
  public var color = false
  private var written = 0
  private var captures: [CaptureInfo] = []

  public init(format: RenderFormat, api: AppAPI, verbose: Bool, multipleFiles: Bool) {
    self.format = format
    self.api = api
    self.verbose = verbose
    self.multipleFiles = multipleFiles
  }

  public mutating func begin(into out: inout OutputBuffer) {
    if format == .json { out.appendDocumentStart(.app, listing: "calls") }
  }

  /// `throughput` adds each connection's transfer verdicts to the text.
  public mutating func render(
    path: String, _ story: AppStory, capture: CaptureInfo, throughput: ThroughputReport? = nil,
    into out: inout OutputBuffer
  ) {
    captures.append(capture)
    let story = api == .android ? story.onePerDiscovery() : story
    let file = multipleFiles ? path : nil
    switch format {
    case .text:
      LinePainter.report(path: path, format: capture.format, color: color, into: &out) { out in
        AppText(api: api, verbose: verbose, throughput: throughput, captureEnd: story.end).append(story, into: &out)
      }
    case .json, .ndjson:
      let disconnectedByApp = Set(story.calls.filter { $0.kind == .disconnect }.compactMap { $0.conn?.id })
      var peerNames: [Int: String] = [:]
      for connection in story.connections { peerNames[connection.ref.id] = connection.peerName }
      for call in story.calls {
        if format == .json, written > 0 { out.append(",") }
        AppJSON.append(
          call, api: api, appDisconnected: disconnectedByApp, peerNames: peerNames, file: file,
          appLog: story.hasAppLog, into: &out)
        if format == .ndjson { out.append("\n") }
        written += 1
      }
    }
  }

  /// A capture `spool` took as its connections ended; `story` has the calls the end of the
  /// capture held back. False when stdout closed or the spool's file failed.
  public mutating func render(
    path: String, spool: AppSpool, _ story: AppStory, capture: CaptureInfo, throughput: ThroughputReport? = nil,
    into out: inout OutputBuffer
  ) -> Bool {
    captures.append(capture)
    return spool.finish(story, path: path, capture: capture, throughput: throughput, written: &written, into: &out)
  }

  public func finish(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.append("]")
    out.appendCapturesJSON(captures)
    out.append("}\n")
  }
}

extension AppCall {
  /// `Heart Rate Measurement (0x0025)`, `0x0031`, or the service for discovery.
  var object: String? {
    let handle = attrHandle.map { "0x" + hex($0) }
    let label = name ?? uuid?.normalized.description
    switch kind {
    case .discoverServices: return label ?? "all"
    case .discoverCharacteristics, .discoverIncluded:
      let range = startHandle.map { s in "0x" + hex(s) + "–0x" + hex(endHandle ?? s) }
      return [label, range].compactMap { $0 }.joined(separator: " ")
    case .readDescriptor, .writeDescriptor:
      let descriptorLabel = descriptorName ?? descriptor?.normalized.description
      let of = [descriptorLabel, label].compactMap { $0 }.joined(separator: " of ")
      return of.isEmpty ? handle : handle.map { "\(of) (\($0))" } ?? of
    default:
      if let label { return handle.map { "\(label) (\($0))" } ?? label }
      return handle
    }
  }

  /// Whether the call's `uuid` is a service's (discovery) rather than a characteristic's.
  var isAboutService: Bool {
    kind == .discoverServices || kind == .discoverCharacteristics || kind == .discoverIncluded
  }
}

// MARK: - Text

struct AppText {
  let api: AppAPI
  let verbose: Bool
  var throughput: ThroughputReport? = nil
  /// The capture's last record: how long an unanswered call waited.
  var captureEnd: FrameTime? = nil

  func append(_ story: AppStory, into out: inout OutputBuffer) {
    let start = story.start ?? 0
    let scans = story.calls.filter { $0.kind == .scan }
    appendScanner(scans, start: start, into: &out)
    let order = Self.sections(story.calls)
    // The stack's own calls that belong to no connection: one section of their own.
    let stack = Self.stack(story.calls)
    if order.isEmpty, scans.isEmpty, stack.isEmpty { out.append("no app calls in the capture\n") }
    let disconnectedByApp = Self.disconnectedByApp(story.calls)
    for (key, calls) in order {
      appendSection(key, calls, start: start, appDisconnected: disconnectedByApp, into: &out)
      var milestones = key > 0 ? AppMilestones(calls) : nil
      milestones?.addScan(scans)
      appendSectionEnd(key, milestones, into: &out)
    }
    appendStack(stack, start: start, appDisconnected: disconnectedByApp, into: &out)
  }

  /// The connections whose calls include the app's disconnect.
  static func disconnectedByApp(_ calls: [AppCall]) -> Set<Int> {
    Set(calls.filter { $0.kind == .disconnect }.compactMap { $0.conn?.id })
  }

  func appendScanner(_ scans: [AppCall], start: Int64, into out: inout OutputBuffer) {
    guard !scans.isEmpty else { return }
    out.append("Scanner\n")
    for (i, scan) in scans.enumerated() { appendScan(scan, step: i + 1, start: start, into: &out) }
    out.append("\n")
  }

  /// The stack's own calls that belong to no connection.
  static func stack(_ calls: [AppCall]) -> [AppCall] {
    calls.filter { $0.origin == .system && $0.conn == nil && $0.kind != .scan }
  }

  func appendStack(_ stack: [AppCall], start: Int64, appDisconnected: Set<Int>, into out: inout OutputBuffer) {
    guard !stack.isEmpty else { return }
    out.append("Stack (not the app's calls)\n")
    for call in stack { appendLine(call, step: nil, start: start, appDisconnected: appDisconnected, into: &out) }
    out.append("\n")
  }

  /// Calls (in the order they began) by section: a connection's (its id), or, for attempts
  /// that made none, the attempt's (minus its first frame); in the order the sections began.
  static func sections(_ calls: [AppCall]) -> [(key: Int, calls: [AppCall])] {
    var order: [(key: Int, calls: [AppCall])] = []
    var index: [Int: Int] = [:]
    for call in calls where call.kind != .scan && !(call.origin == .system && call.conn == nil) {
      let key = call.conn?.id ?? -(call.start.frame)
      if let i = index[key] {
        order[i].calls.append(call)
      } else {
        index[key] = order.count
        order.append((key, [call]))
      }
    }
    return order
  }

  /// A section's heading and numbered steps.
  func appendSection(
    _ key: Int, _ calls: [AppCall], start: Int64, appDisconnected disconnectedByApp: Set<Int>,
    into out: inout OutputBuffer
  ) {
    let first = calls[0]
    if let conn = first.conn {
      out.append(string: "Connection #\(conn.id)  handle 0x" + hex(conn.handle))
      if let role = conn.roleName { out.append(string: "  " + role) }
      if let peer = conn.peer { out.append(string: conn.role == 1 ? " ← " : " → " + peer.description) }
      out.append("\n")
    } else {
      out.append(string: "Attempt" + (first.peerAddress.map { " → \($0)" } ?? "") + "\n")
    }
    var step = 0
    var i = 0
    while i < calls.count {
      let call = calls[i]
      if call.origin == .system {
        appendLine(call, step: nil, start: start, appDisconnected: disconnectedByApp, into: &out)
        i += 1
        continue
      }
      // Calls of one kind on one attribute in a row, with the same result: one line (a
      // burst of writes without response with its rate and buffer stalls).
      var j = i + 1
      if let key = Self.runKey(call) {
        while j < calls.count, Self.runKey(calls[j]) == key { j += 1 }
      }
      step += 1
      if j - i >= 3 {
        let run = Array(calls[i..<j])
        let burst =
          call.kind == .write && call.mode == "without_response"
          && zip(run, run.dropFirst()).allSatisfy { $0.end.microseconds(to: $1.start) < 1_000_000 }
        if burst {
          appendBurst(run, step: step, start: start, into: &out)
        } else {
          appendRun(run, step: step, start: start, appDisconnected: disconnectedByApp, into: &out)
        }
        if verbose {
          for call in calls[i..<j] {
            appendLine(call, step: nil, start: start, appDisconnected: disconnectedByApp, into: &out)
          }
        }
        i = j
        continue
      }
      appendLine(call, step: step, start: start, appDisconnected: disconnectedByApp, into: &out)
      i += 1
    }
  }

  /// A section's end: the connection's milestones, its transfers' verdicts, a blank line.
  func appendSectionEnd(_ key: Int, _ milestones: AppMilestones?, into out: inout OutputBuffer) {
    let parts = milestones?.milestones.map { $0.name + " " + Milliseconds.text($0.microseconds) } ?? []
    if !parts.isEmpty { out.append(string: "  milestones: " + parts.joined(separator: ", ") + "\n") }
    for line in throughput.map({ ThroughputText.storyLines($0, connection: key, verbose: verbose) }) ?? [] {
      out.append(string: "  " + line + "\n")
    }
    out.append("\n")
  }

  private func prefix(step: Int?, at: FrameTime, start: Int64, into out: inout OutputBuffer) {
    out.append("  ")
    let mark = out.count
    if let step { out.appendDecimal(step) }
    out.padRight(from: mark, width: 4)
    out.append(" +")
    let timeMark = out.count
    out.append(string: fixedPointText(at.timestamp - start, scale: 1_000_000, digits: 6))
    out.padRight(from: timeMark, width: 11)
    out.append(" ")
  }

  func name(_ call: AppCall) -> String {
    guard let row = AppPlatform.row(call.kind, mode: call.mode, server: !call.byLocal) else {
      return call.kind.rawValue
    }
    // The stack's own calls have no app method: the GATT procedure's name.
    let api = call.origin == .system ? .gatt : api
    let (call_, callback) =
      switch api {
      case .gatt: (row.gatt, row.gatt)
      case .corebluetooth: row.coreBluetooth
      case .android: row.android
      }
    // A peripheral's app sends its notifications itself (updateValue, notifyCharacteristicChanged).
    let sent = !call.byLocal && (call.kind == .notification || call.kind == .indication)
    let text = call.kind.isEvent && !sent ? callback : call_
    return text == "—" || text.hasPrefix("(") ? row.gatt + (text == "—" ? "" : " " + text) : text
  }

  func callback(_ call: AppCall) -> String? {
    guard !call.kind.isEvent, call.origin == .app,
      let row = AppPlatform.row(call.kind, mode: call.mode, server: !call.byLocal)
    else {
      return nil
    }
    // CoreBluetooth calls no delegate method for a connect the app cancelled.
    if call.kind == .connect, call.outcome == "cancelled", api == .corebluetooth { return nil }
    switch api {
    case .gatt: return nil
    case .corebluetooth, .android:
      let callbacks = (api == .android ? row.android.callback : row.coreBluetooth.callback).split(separator: " / ")
      guard let first = callbacks.first, let last = callbacks.last else { return nil }
      let callback = String(call.ok ? first : last)
      return callback.hasPrefix("—") ? nil : callback
    }
  }

  private func appendLine(
    _ call: AppCall, step: Int?, start: Int64, appDisconnected: Set<Int>, into out: inout OutputBuffer
  ) {
    prefix(step: step, at: call.start, start: start, into: &out)
    if call.origin == .system { out.append("stack: ") }
    if !call.byLocal { out.append("peer's client: ") }
    out.append(string: name(call))
    if let object = call.object, call.kind != .scan { out.append(string: " " + object) }
    var details: [String] = []
    switch call.kind {
    case .connect, .backgroundConnect:
      if let peer = call.peerAddress ?? call.conn?.peer {
        details.append("to \(peer)" + (call.peerName.map { " (\($0))" } ?? ""))
      } else if call.kind == .backgroundConnect {
        details.append("to the devices in the list before the capture")
      }
      if call.autoConnect == true { details.append("auto connect") }
      if call.kind == .backgroundConnect {
        let creates = call.requests.count - (call.systemReason == "background_connect" ? 1 : 0)
        details.append("\(creates) Create Connection" + (creates == 1 ? "" : "s"))
        details.append(
          call.finished
            ? (call.outcome ?? "") + " after " + Milliseconds.text(call.durationMicroseconds)
            : "still waiting when the capture ended")
      }
    case .requestMTU:
      if let requested = call.requestedMTU { details.append("asked \(requested)") }
      if let mtu = call.mtu { details.append("ATT_MTU \(mtu)") }
    case .discoverServices, .discoverCharacteristics, .discoverDescriptors, .discoverIncluded:
      if let found = call.found {
        var text = "\(found) found"
        if let count = call.characteristicCount { text += ", \(count) characteristic" + (count == 1 ? "" : "s") }
        if let count = call.descriptorCount { text += ", \(count) descriptor" + (count == 1 ? "" : "s") }
        details.append(text)
      }
    case .readDescriptor, .writeDescriptor:
      if let length = call.length { details.append("\(length) byte" + (length == 1 ? "" : "s")) }
    case .read, .write:
      if let mode = call.mode, call.kind == .write || mode != "short" { details.append(mode.replacing("_", with: " ")) }
      if let length = call.length { details.append("\(length) byte" + (length == 1 ? "" : "s")) }
      if let stall = call.stall { details.append("waited \(Milliseconds.text(stall)) for a controller buffer") }
    case .setNotify:
      if let mode = call.mode { details.append(mode.replacing("_", with: "+")) }
      if let cccd = call.cccdHandle { details.append("CCCD 0x" + hex(cccd)) }
    case .readRSSI:
      if let rssi = call.rssi { details.append("\(rssi) dBm") }
    case .disconnect:
      if let reason = call.reason { details.append("reason " + HCIStatusCode(rawValue: reason).name) }
    case .disconnected:
      if let reason = call.reason { details.append(HCIStatusCode(rawValue: reason).name + " (0x" + hex(reason) + ")") }
      if let who = call.who { details.append(who.replacing("_", with: " ")) }
    case .notification, .indication:
      if let stream = call.stream {
        var text = "\(stream.count) in " + Milliseconds.text(call.durationMicroseconds)
        if stream.count > 1, call.durationMicroseconds > 0 {
          text += ", " + measureText(Double(stream.count - 1) * 1_000_000 / Double(call.durationMicroseconds)) + "/s"
          text += ", largest gap " + Milliseconds.text(stream.largestGap)
        }
        details.append(text)
      }
    case .pair, .encrypt:
      if let security = call.security {
        if let method = security.method { details.append(method) }
        switch security.trigger {
        case "security_request": details.append("after the peer's Security Request")
        case "att_error":
          let error = security.triggerError.map { ATTErrorCode(rawValue: $0).name } ?? "an error"
          details.append("after \(error) (#\(security.triggerFrame ?? 0))")
        default: break
        }
        if let reason = security.failedReason {
          let by = security.failedByLocal == true ? "this host" : "the peer"
          details.append("Pairing Failed (\(SMPPairingFailedReason(rawValue: reason).name)) from \(by)")
        }
        if call.outcome == "unanswered" { details.append("not answered by this host") }
        if let retry = security.retryFrame {
          details.append("retried at #\(retry)" + (security.retryOutcome.map { ": " + $0 } ?? ""))
        }
      }
    case .reconnected:
      if let gap = call.gap { details.append(Milliseconds.text(gap) + " after #\(call.previousConn ?? 0) ended") }
      switch call.cachedHandles {
      case true?: details.append("used cached handles without rediscovery")
      case false?: details.append("rediscovered")
      default: break
      }
    case .scan, .refresh:
      break
    }
    if call.kind == .connect, let status = call.error.registerStatus {
      details.append("registerApp() failed with status \(status): no Create Connection")
    }
    if call.kind == .connect, call.outcome == "duplicate_pending" {
      details.append("another client of the app already waits for this device: no new Create Connection")
    }
    if !details.isEmpty { out.append(string: ": " + details.joined(separator: ", ")) }
    if !call.kind.isEvent || !call.ok || call.kind == .disconnected {
      out.append(" → ")
      if let callback = callback(call) { out.append(string: callback + " ") }
      out.append(string: result(call, appDisconnected: appDisconnected.contains(call.conn?.id ?? -1)))
    }
    if !call.kind.isEvent || call.kind == .pair || call.kind == .encrypt, let duration = call.duration {
      out.append(string: " in " + Milliseconds.text(duration))
    }
    if call.appOnly {
      out.append(" (app log only)")
    } else {
      let frames = call.frames
      out.append(string: frames.first == frames.last ? " (#\(frames.first))" : " (#\(frames.first)–#\(frames.last))")
    }
    out.append("\n")
    for line in call.appLog {
      out.append("                    log +")
      out.append(string: fixedPointText(line.timestamp - start, scale: 1_000_000, digits: 6))
      out.append(string: " line \(line.line): " + line.text + "\n")
    }
  }

  /// Why a call got no answer: ` (disconnected)`, ` (capture ended 1.234 ms later)`…
  static func unanswered(_ reason: String, _ call: AppCall, end: FrameTime?) -> String {
    switch reason {
    case "timeout": return " (ATT transaction timeout)"
    case "superseded": return " (another request replaced it)"
    case "end_of_capture":
      guard let end else { return " (capture ended)" }
      return " (capture ended " + Milliseconds.text(call.end.microseconds(to: end)) + " later)"
    default: return " (" + reason.replacing("_", with: " ") + ")"
    }
  }

  /// `ok`, `error 0x0F Insufficient Encryption (CBATTError.insufficientEncryption 15)`…
  func result(_ call: AppCall, appDisconnected: Bool) -> String {
    let errors = AppPlatform.errors(of: call, appDisconnected: appDisconnected)
    var text: String
    if call.ok {
      text = call.outcome ?? "ok"
      if call.kind == .disconnected, api != .gatt {
        let error = api == .android ? errors.android : errors.coreBluetooth
        text = error.map { "status \($0.code) \($0.name)" } ?? "no error"
        if let alternatives = error?.alternatives, !alternatives.isEmpty {
          text += " (or \(alternatives.map(String.init).joined(separator: ", ")))"
        }
      }
      return text
    }
    text = call.outcome.map { $0 + ", " } ?? ""
    text += "error"
    if let att = call.error.att {
      let name = ATTErrorCode(rawValue: att).name
      text += " " + name + (name.contains("0x") ? "" : " (0x" + hex(att) + ")")
    }
    if let hci = call.error.hci { text += " " + HCIStatusCode(rawValue: hci).name + " (0x" + hex(hci) + ")" }
    if let unanswered = call.error.unanswered {
      text += ": no answer" + Self.unanswered(unanswered, call, end: captureEnd)
    }
    let platform = api == .android ? errors.android : api == .corebluetooth ? errors.coreBluetooth : nil
    if let platform {
      text +=
        api == .android
        ? " → " + (platform.name.hasPrefix("status") ? platform.name : "status \(platform.code) \(platform.name)")
        : " → \(platform.name) (\(platform.code))"
      if !platform.alternatives.isEmpty {
        text += " or \(platform.alternatives.map(String.init).joined(separator: ", "))"
      }
    }
    return text
  }

  /// What makes calls one run: kind, variant, attribute, client and result.
  static func runKey(_ call: AppCall) -> String? {
    guard call.kind.isATT || call.kind == .readRSSI else { return nil }
    return
      "\(call.kind)|\(call.mode ?? "")|\(call.attrHandle ?? 0)|\(call.startHandle ?? 0)|\(call.uuid?.description ?? "")|"
      + "\(call.byLocal)|\(call.ok)|\(call.error.att ?? 0)"
  }

  /// `Read Characteristic Value ×12 Battery Level (0x0021) over 60 s, every 5 s: median 30 ms, p95 31 ms → ok`.
  private func appendRun(
    _ calls: [AppCall], step: Int, start: Int64, appDisconnected: Set<Int>, into out: inout OutputBuffer
  ) {
    let first = calls[0]
    let last = calls[calls.count - 1]
    prefix(step: step, at: first.start, start: start, into: &out)
    if !first.byLocal { out.append("peer's client: ") }
    out.append(string: name(first) + " ×\(calls.count)")
    if let object = first.object { out.append(string: " " + object) }
    let span = first.start.microseconds(to: last.start)
    out.append(
      string: " over " + Milliseconds.text(span) + ", every " + Milliseconds.text(span / Int64(calls.count - 1)))
    if let durations = LatencySummary(calls.map(\.durationMicroseconds)),
      first.kind != .write || first.mode != "without_response"
    {
      out.append(
        string: ": median " + Milliseconds.text(durations.median) + ", p95 " + Milliseconds.text(durations.p95))
    }
    out.append(" → ")
    if let callback = callback(first) { out.append(string: callback + " ") }
    out.append(string: result(first, appDisconnected: appDisconnected.contains(first.conn?.id ?? -1)))
    out.append(string: " (#\(first.frames.first)–#\(last.frames.last))\n")
  }

  private func appendBurst(_ calls: [AppCall], step: Int, start: Int64, into out: inout OutputBuffer) {
    let first = calls[0]
    let last = calls[calls.count - 1]
    prefix(step: step, at: first.start, start: start, into: &out)
    out.append(string: name(first) + " ×\(calls.count)")
    if let object = first.object { out.append(string: " " + object) }
    let span = first.start.microseconds(to: last.end)
    out.append(string: ": \(calls.reduce(0) { $0 + ($1.length ?? 0) }) bytes in " + Milliseconds.text(span))
    if span > 0 { out.append(string: ", " + measureText(Double(calls.count) * 1_000_000 / Double(span)) + "/s") }
    let stalls = calls.compactMap(\.stall)
    if stalls.isEmpty {
      out.append(", no stalls")
    } else {
      out.append(
        string:
          ", \(stalls.count) stall\(stalls.count == 1 ? "" : "s") waiting for controller buffers (Number Of Completed Packets), "
          + Milliseconds.text(stalls.reduce(0, +)) + " in all, longest " + Milliseconds.text(stalls.max() ?? 0))
    }
    let failed = calls.count { !$0.ok }
    out.append(string: failed == 0 ? " → ok" : " → \(failed) failed")
    out.append(string: " (#\(first.frames.first)–#\(last.frames.last))\n")
  }

  private func appendScan(_ call: AppCall, step: Int, start: Int64, into out: inout OutputBuffer) {
    guard let scan = call.scan else { return }
    prefix(step: step, at: call.start, start: start, into: &out)
    out.append(string: name(call))
    var parts: [String] = []
    if let active = scan.active { parts.append(active ? "active" : "passive") }
    if let interval = scan.interval { parts.append("interval " + measureText(Double(interval) * 0.625) + " ms") }
    if let window = scan.window { parts.append("window " + measureText(Double(window) * 0.625) + " ms") }
    if let filter = scan.filterDuplicates { parts.append(filter ? "duplicates filtered" : "duplicates reported") }
    if scan.extended { parts.append("extended") }
    if scan.restarts > 0 {
      parts.append(
        "restarted by the stack \(scan.restarts) time\(scan.restarts == 1 ? "" : "s")"
          + (scan.parameterChanges > 0 ? " (\(scan.parameterChanges) with new parameters)" : ""))
    }
    out.append(string: ": " + parts.joined(separator: ", "))
    out.append(string: " → \(scan.reports) reports, \(scan.results) results from \(scan.devices.count) devices")
    if call.outcome == "running" {
      out.append(", still scanning at the end")
    } else {
      out.append(string: " in " + Milliseconds.text(call.durationMicroseconds))
    }
    out.append(string: " (#\(call.frames.first)–#\(call.frames.last))\n")
    let pad = "                    "
    if let first = scan.firstResult {
      out.append(
        string: pad + "first result " + Milliseconds.text(scan.enable.microseconds(to: first)) + " after enabling")
      out.append(string: " (#\(first.frame)" + (scan.firstResultAddress.map { " \($0)" } ?? "") + ")\n")
    }
    for device in scan.devices where device.connected {
      out.append(string: pad + "\(device.address)" + (device.name.map { " \"\($0)\"" } ?? ""))
      out.append(
        string: ", later connected: first report " + Milliseconds.text(scan.enable.microseconds(to: device.firstReport))
      )
      out.append(string: " (#\(device.firstReport.frame))")
      if let result = device.firstResult {
        out.append(
          string: ", first result " + Milliseconds.text(scan.enable.microseconds(to: result)) + " (#\(result.frame))")
      }
      out.append("\n")
    }
    // Which advertised services a filter could match, and when it would first have.
    var services: [(uuid: BluetoothUUID, devices: Int, first: FrameTime?)] = []
    for device in scan.devices {
      for uuid in device.services {
        if let k = services.firstIndex(where: { $0.uuid == uuid }) {
          services[k].devices += 1
          if let r = device.firstResult, services[k].first.map({ r < $0 }) ?? true { services[k].first = r }
        } else {
          services.append((uuid, 1, device.firstResult))
        }
      }
    }
    if !services.isEmpty {
      let list = services.prefix(12).map { s in
        "\(s.uuid.normalized) (\(s.devices) device\(s.devices == 1 ? "" : "s")"
          + (s.first.map { ", first result " + Milliseconds.text(scan.enable.microseconds(to: $0)) } ?? "") + ")"
      }
      out.append(string: pad + "a service filter would match: " + list.joined(separator: ", ") + "\n")
    }
  }
}

// MARK: - JSON

enum AppJSON {
  static func append(
    _ call: AppCall, api: AppAPI, appDisconnected: Set<Int>, peerNames: [Int: String], file: String?,
    appLog: Bool = false, into out: inout OutputBuffer
  ) {
    var k = JSONKeys()
    out.append("{")
    if let file { k.string("file", file, into: &out) }
    k.string("call", call.kind.rawValue, into: &out)
    k.key("conn", into: &out)
    if let conn = call.conn {
      out.appendConnJSON(conn, peerName: peerNames[conn.id])
    } else {
      out.append("null")
    }
    k.string("client", call.byLocal ? "local" : "remote", into: &out)
    k.string("origin", call.origin.rawValue, into: &out)
    k.integer("attr_handle", call.attrHandle, into: &out)
    if call.kind == .setNotify { k.integer("cccd_handle", call.cccdHandle, into: &out) }
    k.uuid("service_uuid", call.isAboutService ? call.uuid ?? call.service : call.service, into: &out)
    k.string("service_name", call.isAboutService ? call.name ?? call.serviceName : call.serviceName, into: &out)
    k.uuid("characteristic_uuid", call.isAboutService ? nil : call.uuid, into: &out)
    k.string("characteristic_name", call.isAboutService ? nil : call.name, into: &out)
    if call.kind == .readDescriptor || call.kind == .writeDescriptor {
      k.uuid("descriptor_uuid", call.descriptor, into: &out)
      k.string("descriptor_name", call.descriptorName, into: &out)
    }
    k.string("mode", call.mode, into: &out)
    k.string("result", call.ok ? "ok" : "error", into: &out)
    k.string("outcome", call.outcome, into: &out)
    k.key("platform_error", into: &out)
    let errors = AppPlatform.errors(of: call, appDisconnected: appDisconnected.contains(call.conn?.id ?? -1))
    if call.ok, errors.android == nil, errors.coreBluetooth == nil {
      out.append("null")
    } else {
      var e = JSONKeys()
      out.append("{")
      e.integer("hci_status", call.error.hci, into: &out)
      e.integer("att_error", call.error.att, into: &out)
      e.integer("corebluetooth", errors.coreBluetooth?.code, into: &out)
      e.integer("android", errors.android?.code, into: &out)
      e.string("corebluetooth_name", errors.coreBluetooth?.name, into: &out)
      e.string("android_name", errors.android?.name, into: &out)
      if let alternatives = errors.android?.alternatives, !alternatives.isEmpty {
        e.key("android_alternatives", into: &out)
        out.append(string: "[" + alternatives.map(String.init).joined(separator: ",") + "]")
      }
      e.string("unanswered_reason", call.error.unanswered, into: &out)
      out.append("}")
    }
    k.key("start_ts", into: &out)
    JSONRecord.appendSeconds(call.start.timestamp, into: &out)
    k.key("end_ts", into: &out)
    if call.finished { JSONRecord.appendSeconds(call.end.timestamp, into: &out) } else { out.append("null") }
    k.milliseconds("duration_ms", call.duration, into: &out)
    k.key("frames", into: &out)
    out.append(string: call.appOnly ? "null" : "[\(call.frames.first),\(call.frames.last)]")
    k.key("requests", into: &out)
    out.append(string: "[" + call.requests.map(String.init).joined(separator: ",") + "]")
    k.key("responses", into: &out)
    out.append(string: "[" + call.responses.map(String.init).joined(separator: ",") + "]")
    if let row = AppPlatform.row(call.kind, mode: call.mode, server: !call.byLocal), api != .gatt {
      k.string("api_call", api == .android ? row.android.call : row.coreBluetooth.call, into: &out)
      k.string("api_callback", api == .android ? row.android.callback : row.coreBluetooth.callback, into: &out)
    }
    extras(call, &k, into: &out)
    if appLog {
      k.string("source", call.source, into: &out)
      k.key("app_log", into: &out)
      out.append("[")
      for (n, line) in call.appLog.enumerated() {
        if n > 0 { out.append(",") }
        var l = JSONKeys()
        out.append("{")
        l.integer("line", line.line, into: &out)
        l.key("ts", into: &out)
        JSONRecord.appendSeconds(line.timestamp, into: &out)
        l.string("text", line.text, into: &out)
        out.append("}")
      }
      out.append("]")
    }
    out.append("}")
  }

  private static func extras(_ call: AppCall, _ k: inout JSONKeys, into out: inout OutputBuffer) {
    if let reason = call.systemReason { k.string("system_reason", reason, into: &out) }
    if let status = call.error.registerStatus { k.integer("register_status", status, into: &out) }
    if let peer = call.peerAddress {
      k.peer("peer", peer, type: call.peerAddressType, peerName: call.peerName, into: &out)
    }
    if let auto = call.autoConnect { k.bool("auto_connect", auto, into: &out) }
    if let start = call.startHandle { k.integer("start_handle", start, into: &out) }
    if let end = call.endHandle { k.integer("end_handle", end, into: &out) }
    if let found = call.found { k.integer("found", found, into: &out) }
    if let count = call.characteristicCount { k.integer("characteristic_count", count, into: &out) }
    if let count = call.descriptorCount { k.integer("descriptor_count", count, into: &out) }
    if let length = call.length { k.integer("length", length, into: &out) }
    if let requested = call.requestedMTU { k.integer("requested_mtu", requested, into: &out) }
    if let mtu = call.mtu { k.integer("mtu", mtu, into: &out) }
    if let rssi = call.rssi { k.integer("rssi", rssi, into: &out) }
    if let reason = call.reason {
      k.integer("reason", reason, into: &out)
      k.string("reason_name", HCIStatusCode(rawValue: reason).name, into: &out)
    }
    if let who = call.who { k.string("who", who, into: &out) }
    if let stall = call.stall { k.milliseconds("stall_ms", stall, into: &out) }
    if let stream = call.stream {
      k.integer("count", stream.count, into: &out)
      k.integer("bytes", stream.bytes, into: &out)
      k.key("rate_hz", into: &out)
      let duration = call.durationMicroseconds
      if stream.count > 1, duration > 0 {
        out.appendMeasure(Double(stream.count - 1) * 1_000_000 / Double(duration))
      } else {
        out.append("null")
      }
      k.milliseconds("largest_gap_ms", stream.count > 1 ? stream.largestGap : nil, into: &out)
      if call.kind == .indication { k.integer("confirmed", stream.confirmed, into: &out) }
    }
    if let security = call.security {
      k.key("security", into: &out)
      var s = JSONKeys()
      out.append("{")
      s.string("trigger", security.trigger, into: &out)
      s.integer("trigger_frame", security.triggerFrame, into: &out)
      s.integer("trigger_error", security.triggerError, into: &out)
      s.string("method", security.method, into: &out)
      s.key("bonding", into: &out)
      out.append(security.bonding.map { $0 ? "true" : "false" } ?? "null")
      s.string("initiator", security.localInitiated ? "local" : "remote", into: &out)
      s.integer("failed_reason", security.failedReason, into: &out)
      s.string(
        "failed_reason_name", security.failedReason.map { SMPPairingFailedReason(rawValue: $0).name }, into: &out)
      s.integer("retry_frame", security.retryFrame, into: &out)
      s.string("retry_outcome", security.retryOutcome, into: &out)
      out.append("}")
    }
    if let previous = call.previousConn { k.integer("previous_conn", previous, into: &out) }
    if let gap = call.gap { k.milliseconds("gap_ms", gap, into: &out) }
    if call.kind == .reconnected {
      k.key("cached_handles", into: &out)
      out.append(call.cachedHandles.map { $0 ? "true" : "false" } ?? "null")
    }
    if let scan = call.scan { appendScan(scan, &k, into: &out) }
  }

  private static func appendScan(_ scan: AppScan, _ k: inout JSONKeys, into out: inout OutputBuffer) {
    k.key("scan", into: &out)
    var s = JSONKeys()
    out.append("{")
    s.key("active", into: &out)
    out.append(scan.active.map { $0 ? "true" : "false" } ?? "null")
    s.milliseconds("interval_ms", scan.interval.map { Int64($0) * 625 }, into: &out)
    s.milliseconds("window_ms", scan.window.map { Int64($0) * 625 }, into: &out)
    s.key("filter_duplicates", into: &out)
    out.append(scan.filterDuplicates.map { $0 ? "true" : "false" } ?? "null")
    s.bool("extended", scan.extended, into: &out)
    s.integer("enable_frame", scan.enable.frame, into: &out)
    s.integer("disable_frame", scan.disable?.frame, into: &out)
    s.integer("report_count", scan.reports, into: &out)
    s.integer("results", scan.results, into: &out)
    s.integer("restarts", scan.restarts, into: &out)
    s.integer("parameter_changes", scan.parameterChanges, into: &out)
    s.key("first_result", into: &out)
    if let first = scan.firstResult {
      var f = JSONKeys()
      out.append("{")
      f.integer("frame", first.frame, into: &out)
      f.key("ts", into: &out)
      JSONRecord.appendSeconds(first.timestamp, into: &out)
      f.milliseconds("after_ms", scan.enable.microseconds(to: first), into: &out)
      f.string("address", scan.firstResultAddress?.description, into: &out)
      out.append("}")
    } else {
      out.append("null")
    }
    s.key("devices", into: &out)
    out.append("[")
    for (i, device) in scan.devices.enumerated() {
      if i > 0 { out.append(",") }
      var d = JSONKeys()
      out.append("{")
      d.string("address", device.address.description, into: &out)
      d.string("address_type", device.addressType?.name, into: &out)
      d.string("name", device.name, into: &out)
      d.bool("connectable", device.connectable, into: &out)
      d.bool("connected_later", device.connected, into: &out)
      d.integer("report_count", device.reports, into: &out)
      d.integer("results", device.results, into: &out)
      d.integer("first_report_frame", device.firstReport.frame, into: &out)
      d.milliseconds("first_report_ms", scan.enable.microseconds(to: device.firstReport), into: &out)
      d.integer("first_result_frame", device.firstResult?.frame, into: &out)
      d.milliseconds("first_result_ms", device.firstResult.map { scan.enable.microseconds(to: $0) }, into: &out)
      d.key("service_uuids", into: &out)
      out.append("[")
      for (j, uuid) in device.services.enumerated() {
        if j > 0 { out.append(",") }
        out.appendJSONString(uuid.normalized.description)
      }
      out.append("]}")
    }
    out.append("]}")
  }
}
