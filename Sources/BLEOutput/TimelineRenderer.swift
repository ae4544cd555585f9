import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `timeline`: each connection's story.
///
/// - text: per connection, its events with times from the capture's start, then a
///   summary; attempts that made no connection on their own lines; `-v` lists every
///   ATT transaction too;
/// - json: `{"schema_version":2,"connections":[…],"connection_attempts":[…],
///   "transactions":[…],"pairs":[…]}` (DESIGN.md's data contract);
/// - ndjson: one object per line, each with `type`: `connection`, `attempt`,
///   `transaction`, `pair` or `adapter_event`.
public struct TimelineRenderer {
  let format: RenderFormat
  let verbose: Bool
  let multipleFiles: Bool
  /// Text: paint failed calls red and the stack's own lines dim (a terminal, no NO_COLOR).
  public var color = false
  private var json = TimelineJSON()

  public init(format: RenderFormat, verbose: Bool, multipleFiles: Bool) {
    self.format = format
    self.verbose = verbose
    self.multipleFiles = multipleFiles
  }

  /// `throughput` adds each connection's transfer verdicts to the text. With `spill`, the
  /// connections retired from the timeline are there (`TimelineSpill`, made with this
  /// renderer's format, verbosity and the file when there are several).
  public mutating func render(
    path: String, _ timeline: Timeline, capture: CaptureInfo, throughput: ThroughputReport? = nil,
    spill: TimelineSpill? = nil, into out: inout OutputBuffer
  ) {
    let file = multipleFiles ? path : nil
    switch format {
    case .text:
      guard let spill else {
        return LinePainter.report(path: path, format: capture.format, color: color, into: &out) { out in
          TimelineText.append(timeline, verbose: verbose, throughput: throughput, into: &out)
        }
      }
      LinePainter.report(path: path, format: capture.format, color: false, into: &out) { _ in }
      spill.appendText(timeline, throughput: throughput, color: color, into: &out)
    case .json:
      json.collect(timeline, file: file, capture: capture, spill: spill)
    case .ndjson:
      if let spill {
        spill.appendLines(timeline, into: &out)
      } else {
        TimelineJSON.appendLines(timeline, file: file, into: &out)
      }
      out.append("{\"type\":\"capture\"")
      var k = JSONKeys(following: 1)
      capture.appendFields(&k, into: &out)
      out.append("}\n")
    }
  }

  public func finish(into out: inout OutputBuffer) {
    if format == .json { json.appendDocument(into: &out) }
  }
}

/// The story items of a connection, in frame order: what text prints and JSON's `events`.
public struct TimelineEvent: Sendable {
  public var at: FrameTime
  /// A stable machine name: `connected`, `mtu`, `encryption`, `disconnected`…
  public var type: String
  public var text: String
}

extension ConnectionTimeline {
  /// Every event of the connection worth telling, in order. `transactions` adds every
  /// ATT transaction; otherwise only those that failed appear.
  public func events(transactions all: Bool = false) -> [TimelineEvent] {
    var events: [TimelineEvent] = []
    func add(_ at: FrameTime, _ type: String, _ text: String) {
      events.append(TimelineEvent(at: at, type: type, text: text))
    }
    if let attempt {
      add(attempt.create, "create_connection", attempt.command + (attempt.peer.map { " to \($0)" } ?? ""))
    }
    if let complete {
      var text = "connected"
      if let latency = connectLatencyMicroseconds { text += " in " + Milliseconds.text(latency) }
      if let parameters { text += ": " + parameters.text }
      add(complete, "connected", text)
    }
    if let remoteFeatures { add(remoteFeatures, "remote_features", "remote features read") }
    if let remoteVersion {
      add(
        remoteVersion.at, "remote_version",
        "remote version 0x\(hex(remoteVersion.version)), company \(AssignedNumbers.company(remoteVersion.company) ?? "0x" + hex(remoteVersion.company))"
      )
    }
    for change in dataLength {
      add(change.at, "data_length", "data length: tx \(change.maxTXOctets) octets, rx \(change.maxRXOctets) octets")
    }
    for change in phy {
      add(change.at, "phy", "PHY: tx \(PHYChange.name(change.tx)), rx \(PHYChange.name(change.rx))")
    }
    for update in updates {
      var text = update.what
      if let parameters = update.parameters { text += ": " + parameters.text }
      if update.status != 0 { text += " failed: " + HCIStatusCode(rawValue: update.status).name }
      add(update.at, "parameters", text)
    }
    if let mtu {
      var text = "MTU exchange: client \(mtu.clientMTU)"
      if let server = mtu.serverMTU, let effective = mtu.mtu { text += ", server \(server) → ATT_MTU \(effective)" }
      add(mtu.response ?? mtu.request, "mtu", text)
    }
    for request in securityRequests {
      var text = "Security Request " + (request.byLocal ? "sent by this host" : "from the peer")
      let wants = [request.bonding ? "bonding" : nil, request.mitm ? "MITM" : nil].compactMap { $0 }
      if !wants.isEmpty { text += " (" + wants.joined(separator: ", ") + ")" }
      if let answer = request.answer, let name = request.answerName {
        text += ", answered by \(name) (#\(answer.frame))"
        if let reason = request.refusedReason { text += ": " + SMPPairingFailedReason(rawValue: reason).name }
      } else {
        text += ", not answered"
      }
      add(request.at, "security_request", text)
      if let answer = request.answer, let reason = request.refusedReason {
        let by = request.byLocal ? "the peer" : "this host"
        add(answer, "pairing_failed", "Pairing Failed sent by \(by): " + SMPPairingFailedReason(rawValue: reason).name)
      }
    }
    for pairing in pairing {
      var text = "pairing" + (pairing.method.map { " (\($0.name))" } ?? "")
      text += pairing.localInitiated ? " requested by this host" : " requested by the peer"
      if pairing.bonding { text += ", bonding" }
      add(pairing.start, "pairing", text)
      if let failed = pairing.failed {
        let by = pairing.failedByLocal.map { $0 ? " (sent by this host)" : " (sent by the peer)" } ?? ""
        add(failed.at, "pairing_failed", "pairing failed: " + SMPPairingFailedReason(rawValue: failed.reason).name + by)
      }
    }
    for change in encryption {
      var text = change.isKeyRefresh ? "encryption key refreshed" : change.enabled ? "encrypted" : "encryption off"
      if change.status != 0 { text = "encryption failed: " + HCIStatusCode(rawValue: change.status).name }
      if let start = change.start { text += " in " + Milliseconds.text(start.microseconds(to: change.change)) }
      if let pairing = pairing.last(where: { $0.encrypted == change.change }), let latency = pairing.latencyMicroseconds
      {
        text += ", pairing took " + Milliseconds.text(latency)
      } else if change.enabled, !change.isKeyRefresh, !pairing.contains(where: { $0.encrypted != nil }) {
        text += " with a stored key"
      }
      add(change.change, "encryption", text)
    }
    if let discovery {
      let by = discovery.byLocal ? "by this host" : "by the peer"
      add(discovery.start, "discovery_start", "GATT discovery started \(by)")
      add(
        discovery.end, "discovery_end",
        "GATT discovery done: \(discovery.requests) requests in " + Milliseconds.text(discovery.durationMicroseconds))
    }
    for subscription in subscriptions {
      var text = "subscribe \(subscription.valueName) on " + (subscription.characteristicLabel ?? "handle")
      text += " (CCCD 0x" + hex(subscription.handle) + ")"
      if let outcome = subscription.outcome, outcome != .ok { text += ": " + outcome.rawValue }
      add(subscription.at, "subscription", text)
    }
    // Each one with `all` (-v); otherwise repeats of one kind roll up into one line.
    let shown = self.transactions.filter { all || ($0.outcome != .ok && !$0.endsSearch) }
    for group in Self.groups(shown, all: all, key: \.rollUpKey) {
      guard let first = group.first else { continue }
      if group.count == 1 {
        add(first.request, "transaction", first.text)
      } else {
        let latencies = LatencySummary(group.compactMap(\.latencyMicroseconds))
        add(
          first.request, "transactions",
          first.text(latency: false) + " ×\(group.count)" + Self.spread(latencies)
            + " (#\(first.request.frame)–#\(group[group.count - 1].request.frame))")
      }
    }
    for group in Self.groups(pairs, all: all, key: \.rollUpKey) {
      guard let first = group.first else { continue }
      if group.count == 1 {
        add(
          first.write, "pair", first.text + " (#\(first.notify.frame)) in " + Milliseconds.text(first.rttMicroseconds))
      } else {
        add(
          first.write, "pairs",
          first.text + " ×\(group.count)" + Self.spread(LatencySummary(group.map(\.rttMicroseconds)))
            + " (#\(first.write.frame)–#\(group[group.count - 1].notify.frame))")
      }
    }
    if let disconnect {
      if let command = disconnect.command {
        add(
          command, "disconnect_command",
          "Disconnect sent: " + HCIStatusCode(rawValue: disconnect.commandReason ?? 0).name)
      }
      let by: String =
        switch disconnect.initiator {
        case .local: "by this host"
        case .remote: "by the peer"
        case .linkLoss: "link lost"
        case .failedToEstablish: "failed to establish"
        case .adapterGone: "adapter removed"
        }
      add(
        disconnect.complete, "disconnected",
        disconnect.initiator == .adapterGone
          ? "disconnected: adapter removed (Index Removed)"
          : "disconnected: \(disconnect.reasonName) (0x\(hex(disconnect.reason))), \(by)")
    }
    events.sort { $0.at.frame < $1.at.frame }
    return events
  }
}

extension ConnectionTimeline {
  /// Items in order, grouped by `key` (each alone with `all`), groups in the order of their first item.
  static func groups<T>(_ items: [T], all: Bool, key: (T) -> String) -> [[T]] {
    if all { return items.map { [$0] } }
    var order: [String] = []
    var groups: [String: [T]] = [:]
    for item in items {
      let k = key(item)
      if groups[k] == nil { order.append(k) }
      groups[k, default: []].append(item)
    }
    return order.compactMap { groups[$0] }
  }

  /// `: median 30.1 ms, p95 45.2 ms`.
  static func spread(_ latencies: LatencySummary?) -> String {
    guard let latencies else { return "" }
    return ": median " + Milliseconds.text(latencies.median) + ", p95 " + Milliseconds.text(latencies.p95)
  }
}

extension WriteNotifyPair {
  /// Pairs of one write and one notification kind roll up together.
  var rollUpKey: String { "\(writeOpcode) \(writeHandle) \(notifyOpcode) \(notifyHandle)" }

  /// `Write Command ff02 (0x0031) answered by Handle Value Notification ff01 (0x002d)`.
  var text: String {
    "\(ATTOpcode(rawValue: writeOpcode).name) " + Transaction.attribute(writeName, writeHandle) + " answered by "
      + "\(ATTOpcode(rawValue: notifyOpcode).name) " + Transaction.attribute(notifyName, notifyHandle)
  }
}

extension ConnectionParameters {
  /// `interval 30 ms, latency 0, supervision timeout 720 ms`.
  var text: String {
    // A parameter, not a measured time: as the spec's unit gives it (`7.5`, `30`).
    "interval " + measureText(Double(interval.microseconds) / 1000) + " ms, latency \(latency), supervision timeout "
      + "\(supervisionTimeout.milliseconds) ms"
  }
}

extension Transaction {
  /// `ff05 (0x0038)`, or `0x0038` when the database does not know the handle.
  static func attribute(_ name: String?, _ handle: UInt16) -> String {
    name.map { "\($0) (0x" + hex(handle) + ")" } ?? "0x" + hex(handle)
  }

  /// Transactions of one request, handle and answer roll up together.
  var rollUpKey: String {
    "\(opcode) \(handle ?? 0) \(responseOpcode ?? 0) \(errorCode ?? 0) \(outcome.rawValue) \(byLocal)"
  }

  /// `Read Request ff05 (0x0038) → Error Response (Read Not Permitted) in 30.0 ms`.
  var text: String { text(latency: true) }

  func text(latency withLatency: Bool) -> String {
    var text = ATTOpcode(rawValue: opcode).name
    if let handle { text += " " + Self.attribute(name, handle) }
    switch outcome {
    case .ok, .error:
      if let responseOpcode { text += " → " + ATTOpcode(rawValue: responseOpcode).name }
      if let errorCode { text += " (" + ATTErrorCode(rawValue: errorCode).name + ")" }
      if withLatency, let latency = latencyMicroseconds { text += " in " + Milliseconds.text(latency) }
    case .timeout: text += " → no answer within 30 s"
    case .unanswered: text += " → no answer"
    }
    return text
  }
}

/// Durations in milliseconds to the microsecond, always with three decimals, so that
/// every listing writes its latencies one way (`show`'s lines do too).
enum Milliseconds {
  /// `20.489`, `30.000`, `4002.829`.
  static func decimal(_ microseconds: Int64) -> String { StatsText.milliseconds(microseconds) }

  /// `20.489 ms`, or seconds from 10 s on: `14.003 s`.
  static func text(_ microseconds: Int64) -> String {
    if microseconds.magnitude >= 10_000_000 { return decimal(microseconds / 1000) + " s" }
    return decimal(microseconds) + " ms"
  }
}

/// A connection, or an attempt, in the order they began: its index in the timeline's
/// `connections` or `attempts` (an index, not a copy, is all the ordering needs).
enum TimelineItem {
  case connection(Int)
  case attempt(Int)
}

extension Timeline {
  /// Connections and attempts in the order they began (a connection at its Create
  /// Connection); `allAttempts: false` leaves out the attempts that made a connection.
  func items(allAttempts: Bool) -> [TimelineItem] {
    items(connectionKeys: connections.map(\.itemKey), allAttempts: allAttempts)
  }

  /// The same for connections that sort at `connectionKeys` (`itemKey`), in their order.
  func items(connectionKeys: [Int], allAttempts: Bool) -> [TimelineItem] {
    var items: [(frame: Int, item: TimelineItem)] = connectionKeys.enumerated().map { ($1, .connection($0)) }
    items += attempts.indices.filter { allAttempts || attempts[$0].connection == nil }.map {
      (attempts[$0].create.frame, .attempt($0))
    }
    return items.sorted { $0.frame < $1.frame }.map(\.item)
  }
}

extension ConnectionTimeline {
  /// Where the connection sorts among connections and attempts: its Create Connection.
  var itemKey: Int { attempt?.create.frame ?? first.frame }
}

// MARK: - Text

enum TimelineText {
  static func append(
    _ timeline: Timeline, verbose: Bool, throughput: ThroughputReport? = nil, into out: inout OutputBuffer
  ) {
    let start = timeline.start ?? 0
    let items = timeline.items(allAttempts: false)
    for event in timeline.adapterEvents { appendAdapterEvent(event, start: start, into: &out) }
    if !timeline.adapterEvents.isEmpty { out.append("\n") }
    if items.isEmpty { out.append("no connections in the capture\n") }
    for item in items {
      switch item {
      case .connection(let i):
        appendConnection(timeline.connections[i], start: start, verbose: verbose, throughput: throughput, into: &out)
      case .attempt(let i): appendAttempt(timeline.attempts[i], start: start, into: &out)
      }
      // What was written goes out as it grows: a whole capture's story is never held.
      out.flush()
    }
  }

  /// `Adapter hci1  +2.100000     #310    removed: connections #3, #4 ended`.
  static func appendAdapterEvent(_ event: AdapterEvent, start: Int64, into out: inout OutputBuffer) {
    out.append("Adapter ")
    out.append(contentsOf: (event.adapter.map { "hci\($0)" } ?? "-").utf8)
    out.append("  ")
    appendWhen(event.at, start: start, into: &out)
    out.append(contentsOf: event.kind.rawValue.utf8)
    if !event.endedConnections.isEmpty {
      out.append(": connection")
      out.append(event.endedConnections.count == 1 ? " " : "s ")
      out.append(contentsOf: event.endedConnections.map { "#\($0)" }.joined(separator: ", ").utf8)
      out.append(" ended")
    }
    out.append("\n")
  }

  /// `+3.624671     #105    `: the time from the capture's start and the frame, in columns.
  static func appendWhen(_ at: FrameTime, start: Int64, into out: inout OutputBuffer) {
    let mark = out.count
    out.append("+")
    out.append(string: fixedPointText(at.timestamp - start, scale: 1_000_000, digits: 6))
    out.padRight(from: mark, width: 13)
    out.append(" #")
    let frameMark = out.count
    out.appendDecimal(at.frame)
    out.padRight(from: frameMark, width: 7)
    out.append(" ")
  }

  static func appendConnection(
    _ c: ConnectionTimeline, start: Int64, verbose: Bool, throughput: ThroughputReport? = nil,
    into out: inout OutputBuffer
  ) {
    appendHead(c, start: start, verbose: verbose, into: &out)
    appendReconnect(gap: c.reconnectGapMicroseconds, next: c.reconnectedAs, into: &out)
    appendSummary(c, into: &out)
    appendThroughput(throughput, id: c.ref.id, verbose: verbose, into: &out)
    appendSecurity(c, into: &out)
  }

  /// The connection's heading and events: what comes before its reconnect.
  static func appendHead(_ c: ConnectionTimeline, start: Int64, verbose: Bool, into out: inout OutputBuffer) {
    out.append("Connection #")
    out.appendDecimal(c.ref.id)
    out.append("  handle 0x")
    out.appendHexDigits(UInt64(c.ref.handle), width: 4)
    if let role = c.ref.roleName { out.append(string: "  " + role) }
    if let peer = c.ref.peer {
      out.append(c.ref.role == 1 ? " ← " : " → ")
      out.append(string: peer.description)
      if let type = c.ref.peerType { out.append(string: " (" + AdvertisingAddressType(rawValue: type).name + ")") }
    }
    if let accessAddress = c.accessAddress {
      out.append("  access address 0x")
      out.appendHexDigits(UInt64(accessAddress), width: 8)
    }
    if c.complete == nil { out.append("  (up before the capture started)") }
    out.append("\n")
    for event in c.events(transactions: verbose) {
      out.append("  ")
      appendWhen(event.at, start: start, into: &out)
      out.append(string: event.text)
      out.append("\n")
    }
    if c.disconnect == nil { out.append("  still connected when the capture ended\n") }
  }

  /// `  reconnected as #5 1.200 ms later`.
  static func appendReconnect(gap: Int64?, next: Int?, into out: inout OutputBuffer) {
    guard let gap, let next else { return }
    out.append(string: "  reconnected as #\(next) " + Milliseconds.text(gap) + " later\n")
  }

  /// The connection's summary line.
  static func appendSummary(_ c: ConnectionTimeline, into out: inout OutputBuffer) {
    out.append("  ")
    out.append(string: summary(c))
    out.append("\n")
  }

  /// The transfer verdicts of connection `id`.
  static func appendThroughput(_ throughput: ThroughputReport?, id: Int, verbose: Bool, into out: inout OutputBuffer) {
    for line in throughput.map({ ThroughputText.storyLines($0, connection: id, verbose: verbose) }) ?? [] {
      out.append(string: "  " + line + "\n")
    }
  }

  /// The security summary, and the blank line that ends the connection.
  static func appendSecurity(_ c: ConnectionTimeline, into out: inout OutputBuffer) {
    if let security = c.security {
      out.append(string: "  security: " + security.headline + "\n")
      for line in security.detailLines { out.append(string: "    " + line + "\n") }
    }
    out.append("\n")
  }

  static func appendAttempt(_ attempt: ConnectionAttempt, start: Int64, into out: inout OutputBuffer) {
    out.append("Attempt  ")
    out.append(string: attempt.command)
    if let peer = attempt.peer { out.append(string: " to " + peer.description) }
    out.append(string: " at +" + fixedPointText(attempt.create.timestamp - start, scale: 1_000_000, digits: 6))
    out.append(string: " (#\(attempt.create.frame)): " + attempt.outcome.rawValue.replacing("_", with: " "))
    if let result = attempt.result, let latency = attempt.latencyMicroseconds {
      out.append(string: " after " + Milliseconds.text(latency) + " (#\(result.frame)")
      if let status = attempt.status, status != 0 {
        out.append(string: ", status 0x" + hex(status) + " " + HCIStatusCode(rawValue: status).name)
      }
      out.append(")")
    }
    if let cancel = attempt.cancel { out.append(string: "; cancel sent at #\(cancel.frame)") }
    out.append("\n\n")
  }

  /// `80 ATT transactions (69 ok, 11 error), median 30 ms, max 60 ms; 32 notifications; 5 write→notify pairs`.
  static func summary(_ c: ConnectionTimeline) -> String {
    let transactions = c.transactions.filter { $0.opcode != ATTOpcode.handleValueIndication.rawValue }
    var outcomes: [String] = []
    for outcome in [Transaction.Outcome.ok, .error, .timeout, .unanswered] {
      let count = transactions.count { $0.outcome == outcome }
      if count > 0 { outcomes.append("\(count) \(outcome.rawValue)") }
    }
    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    var text = count(transactions.count, "ATT request")
    if !outcomes.isEmpty { text += " (" + outcomes.joined(separator: ", ") + ")" }
    if let latency = LatencySummary(transactions.compactMap(\.latencyMicroseconds)) {
      text += ", median " + Milliseconds.text(latency.median) + ", max " + Milliseconds.text(latency.max)
    }
    let notifications = c.attCounts[ATTOpcode.handleValueNotification.rawValue] ?? 0
    let indications = c.attCounts[ATTOpcode.handleValueIndication.rawValue] ?? 0
    text +=
      "; " + count(notifications, "notification") + ", " + count(indications, "indication") + "; "
      + count(c.pairs.count, "write→notify pair")
    return text
  }
}

// MARK: - JSON

/// Writes the keys of one JSON object, with the commas between them.
struct JSONKeys {
  private var count = 0

  init() {}

  /// Keys written after `count` others (the object is already open with them).
  init(following count: Int) { self.count = count }

  mutating func key(_ name: StaticString, into out: inout OutputBuffer) {
    out.append(count == 0 ? "\"" : ",\"")
    out.append(name)
    out.append("\":")
    count += 1
  }

  mutating func integer(_ name: StaticString, _ value: (some BinaryInteger)?, into out: inout OutputBuffer) {
    key(name, into: &out)
    if let value { out.appendDecimal(Int(value)) } else { out.append("null") }
  }

  mutating func milliseconds(_ name: StaticString, _ microseconds: Int64?, into out: inout OutputBuffer) {
    key(name, into: &out)
    if let microseconds { out.appendMeasure(Double(microseconds) / 1000) } else { out.append("null") }
  }

  mutating func string(_ name: StaticString, _ value: String?, into out: inout OutputBuffer) {
    key(name, into: &out)
    if let value { out.appendJSONString(value) } else { out.append("null") }
  }

  mutating func bool(_ name: StaticString, _ value: Bool, into out: inout OutputBuffer) {
    key(name, into: &out)
    out.append(value ? "true" : "false")
  }

  mutating func uuid(_ name: StaticString, _ value: BluetoothUUID?, into out: inout OutputBuffer) {
    string(name, value.map { $0.normalized.description }, into: &out)
  }

  /// A key made at run time (`write_characteristic_uuid`).
  mutating func key(named name: String, into out: inout OutputBuffer) {
    out.append(count == 0 ? "\"" : ",\"")
    out.append(string: name)
    out.append("\":")
    count += 1
  }

  /// What an attribute is, in the naming scheme of the contract: `service_uuid`,
  /// `service_name`, `characteristic_uuid`, `characteristic_name`, `descriptor_uuid`,
  /// `descriptor_name` (each after `prefix`), null where unknown.
  mutating func attribute(_ attribute: GATTAttribute?, prefix: String = "", into out: inout OutputBuffer) {
    for (name, text) in [
      ("service_uuid", attribute?.serviceUUIDText), ("service_name", attribute?.serviceName),
      ("characteristic_uuid", attribute?.characteristicUUIDText),
      ("characteristic_name", attribute?.characteristicName),
      ("descriptor_uuid", attribute?.descriptorUUIDText), ("descriptor_name", attribute?.descriptorName),
    ] {
      key(named: prefix + name, into: &out)
      if let text { out.appendJSONString(text) } else { out.append("null") }
    }
  }

  /// `peer`: `{"address","type","name"}`, or null.
  mutating func peer(
    _ name: StaticString, _ address: DeviceAddress?, type: UInt8?, peerName: String?, into out: inout OutputBuffer
  ) {
    key(name, into: &out)
    out.appendPeerJSON(address, type: type, name: peerName)
  }

  /// `conn`: `{"id","handle","peer"}` of connection `id` in `connections`, or null.
  mutating func conn(_ id: Int?, _ connections: ConnectionIndex, into out: inout OutputBuffer) {
    key("conn", into: &out)
    guard let id, let connection = connections[id] else { return out.append("null") }
    out.appendConnJSON(connection.ref, peerName: connection.peerName)
  }
}

/// A timeline's connections by id, for the `conn` objects of its attempts, transactions and pairs.
struct ConnectionIndex {
  private var byID: [Int: (ref: ConnectionRef, peerName: String?)] = [:]

  init() {}

  init(_ timeline: Timeline) {
    for connection in timeline.connections { add(connection) }
  }

  mutating func add(_ connection: ConnectionTimeline) {
    byID[connection.ref.id] = (connection.ref, connection.peerName)
  }

  subscript(id: Int) -> (ref: ConnectionRef, peerName: String?)? { byID[id] }
}

struct TimelineJSON {
  private var timelines: [(Timeline, String?)] = []
  private var spills: [TimelineSpill?] = []
  private var captures: [CaptureInfo] = []

  /// `spill`: the capture's retired connections, their transactions and pairs.
  mutating func collect(_ timeline: Timeline, file: String?, capture: CaptureInfo, spill: TimelineSpill? = nil) {
    timelines.append((timeline, file))
    spills.append(spill)
    captures.append(capture)
  }

  func appendDocument(into out: inout OutputBuffer) {
    out.appendDocumentHeader(.timeline)
    let indexes = zip(timelines, spills).map { $1?.index(of: $0.0) ?? ConnectionIndex($0.0) }
    appendSection(",\"connections\":[", \.connections, .connections) { Self.appendConnection($0, file: $1, into: &$3) }
    appendSection(",\"connection_attempts\":[", \.attempts, nil) { Self.appendAttempt($0, file: $1, $2, into: &$3) }
    appendSection(",\"transactions\":[", \.transactionsInOrder, .transactions) {
      Self.appendTransaction($0, file: $1, $2, into: &$3)
    }
    appendSection(",\"pairs\":[", \.pairs, .pairs) { Self.appendPair($0, file: $1, $2, into: &$3) }
    appendSection(",\"adapter_events\":[", \.adapterEvents, nil) { Self.appendAdapterEvent($0, file: $1, into: &$3) }
    out.appendCapturesJSON(captures)
    out.append("}\n")

    /// `key`, then the items of every capture, each with its capture's file (those of a
    /// capture's spill in `spilled`, written already).
    func appendSection<S: Sequence>(
      _ key: StaticString, _ items: (Timeline) -> S, _ spilled: TimelineSpill.Section?,
      _ append: (S.Element, String?, ConnectionIndex, inout OutputBuffer) -> Void
    ) {
      out.append(key)
      var first = true
      for (((timeline, file), index), spill) in zip(zip(timelines, indexes), spills) {
        if let spill, let spilled {
          spill.copy(spilled, timeline: timeline, first: &first, into: &out)
          continue
        }
        for item in items(timeline) {
          if !first { out.append(",") }
          first = false
          append(item, file, index, &out)
          out.flush()
        }
      }
      out.append("]")
    }
  }

  static func appendLines(_ timeline: Timeline, file: String?, into out: inout OutputBuffer) {
    let index = ConnectionIndex(timeline)
    for item in timeline.items(allAttempts: true) {
      switch item {
      case .connection(let i): appendConnection(timeline.connections[i], file: file, type: true, into: &out)
      case .attempt(let i): appendAttempt(timeline.attempts[i], file: file, index, type: true, into: &out)
      }
      out.append("\n")
      out.flush()
    }
    for transaction in timeline.transactionsInOrder {
      appendTransaction(transaction, file: file, index, type: true, into: &out)
      out.append("\n")
      out.flush()
    }
    for pair in timeline.pairs {
      appendPair(pair, file: file, index, type: true, into: &out)
      out.append("\n")
      out.flush()
    }
    for event in timeline.adapterEvents {
      appendAdapterEvent(event, file: file, type: true, into: &out)
      out.append("\n")
    }
  }

  /// `{"adapter":1,"event":"removed","frame":310,"ended_connections":[3,4]}`.
  static func appendAdapterEvent(
    _ event: AdapterEvent, file: String?, type: Bool = false, into out: inout OutputBuffer
  ) {
    var k = begin("adapter_event", file, type, into: &out)
    k.integer("adapter", event.adapter, into: &out)
    k.string("change", event.kind.rawValue, into: &out)
    k.integer("frame", event.at.frame, into: &out)
    k.key("ended_connections", into: &out)
    out.append("[")
    for (position, id) in event.endedConnections.enumerated() {
      if position > 0 { out.append(",") }
      out.appendDecimal(id)
    }
    out.append("]}")
  }

  private static func begin(_ type: StaticString, _ file: String?, _ tagged: Bool, into out: inout OutputBuffer)
    -> JSONKeys
  {
    var keys = JSONKeys()
    out.append("{")
    if tagged { keys.string("type", "\(type)", into: &out) }
    if let file { keys.string("file", file, into: &out) }
    return keys
  }

  static func appendConnection(
    _ c: ConnectionTimeline, file: String?, type: Bool = false, into out: inout OutputBuffer
  ) {
    var k = appendHead(c, file: file, type: type, into: &out)
    appendReconnect(gap: c.reconnectGapMicroseconds, next: c.reconnectedAs, &k, into: &out)
    appendTail(c, &k, into: &out)
  }

  /// `"reconnect_gap_ms":…,"reconnected_as":…`.
  static func appendReconnect(gap: Int64?, next: Int?, _ k: inout JSONKeys, into out: inout OutputBuffer) {
    k.milliseconds("reconnect_gap_ms", gap, into: &out)
    k.integer("reconnected_as", next, into: &out)
  }

  /// The connection's object up to its reconnect (open, with keys written).
  static func appendHead(
    _ c: ConnectionTimeline, file: String?, type: Bool = false, into out: inout OutputBuffer
  ) -> JSONKeys {
    var k = begin("connection", file, type, into: &out)
    k.integer("id", c.ref.id, into: &out)
    k.integer("adapter", c.ref.adapter, into: &out)
    k.integer("handle", c.ref.handle, into: &out)
    k.integer("generation", c.ref.generation, into: &out)
    k.string("role", c.ref.roleName, into: &out)
    k.peer("peer", c.ref.peer, type: c.ref.peerType, peerName: c.peerName, into: &out)
    if let accessAddress = c.accessAddress { k.integer("access_address", accessAddress, into: &out) }
    k.integer("create_frame", c.attempt?.create.frame, into: &out)
    k.integer("complete_frame", c.complete?.frame, into: &out)
    k.milliseconds("connect_latency_ms", c.connectLatencyMicroseconds, into: &out)
    k.integer("status", c.complete.map { _ in 0 }, into: &out)
    k.string("outcome", c.complete == nil ? "up_before_capture" : "connected", into: &out)
    k.milliseconds("interval_ms", c.parameters?.interval.microseconds, into: &out)
    k.integer("latency", c.parameters?.latency, into: &out)
    k.integer("supervision_timeout_ms", c.parameters?.supervisionTimeout.milliseconds, into: &out)
    k.integer("mtu", c.mtu?.mtu, into: &out)
    k.key("updates", into: &out)
    appendArray(c.updates, into: &out) { update, out in
      var u = JSONKeys()
      u.integer("frame", update.at.frame, into: &out)
      u.string("what", update.what, into: &out)
      u.integer("status", update.status, into: &out)
      u.milliseconds("interval_ms", update.parameters?.interval.microseconds, into: &out)
      u.integer("latency", update.parameters?.latency, into: &out)
      u.integer("supervision_timeout_ms", update.parameters?.supervisionTimeout.milliseconds, into: &out)
    }
    k.key("data_length", into: &out)
    appendOptional(c.dataLength.last, into: &out) { change, out in
      var d = JSONKeys()
      d.integer("frame", change.at.frame, into: &out)
      d.integer("max_tx_octets", change.maxTXOctets, into: &out)
      d.integer("max_tx_time_us", change.maxTXTime, into: &out)
      d.integer("max_rx_octets", change.maxRXOctets, into: &out)
      d.integer("max_rx_time_us", change.maxRXTime, into: &out)
    }
    k.key("phy_update", into: &out)
    appendOptional(c.phy.last, into: &out) { change, out in
      var p = JSONKeys()
      p.integer("frame", change.at.frame, into: &out)
      p.string("tx", PHYChange.name(change.tx), into: &out)
      p.string("rx", PHYChange.name(change.rx), into: &out)
    }
    appendEncryption(c, into: &out, &k)
    k.key("security_requests", into: &out)
    appendArray(c.securityRequests, into: &out) { request, out in
      var r = JSONKeys()
      r.integer("frame", request.at.frame, into: &out)
      r.string("from", request.byLocal ? "local" : "remote", into: &out)
      r.bool("bonding", request.bonding, into: &out)
      r.bool("mitm", request.mitm, into: &out)
      r.integer("answer_frame", request.answer?.frame, into: &out)
      r.string("answer", request.answerName, into: &out)
      r.integer("refused_reason", request.refusedReason, into: &out)
      r.string(
        "refused_reason_name", request.refusedReason.map { SMPPairingFailedReason(rawValue: $0).name }, into: &out)
    }
    k.key("security", into: &out)
    if let security = c.security { out.appendSecurityJSON(security) } else { out.append("null") }
    k.key("discovery", into: &out)
    appendOptional(c.discovery, into: &out) { discovery, out in
      var d = JSONKeys()
      d.integer("start_frame", discovery.start.frame, into: &out)
      d.integer("end_frame", discovery.end.frame, into: &out)
      d.milliseconds("duration_ms", discovery.durationMicroseconds, into: &out)
      d.integer("request_count", discovery.requests, into: &out)
      d.string("by", discovery.byLocal ? "local" : "remote", into: &out)
    }
    k.key("subscriptions", into: &out)
    appendArray(c.subscriptions, into: &out) { subscription, out in
      var s = JSONKeys()
      s.integer("frame", subscription.at.frame, into: &out)
      s.integer("handle", subscription.handle, into: &out)
      s.integer("value_handle", subscription.valueHandle, into: &out)
      s.attribute(subscription.attribute, into: &out)
      s.string("value", subscription.valueName, into: &out)
      s.string("outcome", subscription.outcome?.rawValue, into: &out)
    }
    k.key("disconnect", into: &out)
    appendOptional(c.disconnect, into: &out) { disconnect, out in
      var d = JSONKeys()
      d.integer("frame", disconnect.complete.frame, into: &out)
      d.integer("reason", disconnect.reason, into: &out)
      d.string("reason_name", disconnect.reasonName, into: &out)
      d.string("initiator", disconnect.initiator.rawValue, into: &out)
      d.integer("command_frame", disconnect.command?.frame, into: &out)
      d.integer("command_reason", disconnect.commandReason, into: &out)
    }
    return k
  }

  /// The rest of the connection's object after its reconnect, and its end.
  static func appendTail(_ c: ConnectionTimeline, _ k: inout JSONKeys, into out: inout OutputBuffer) {
    k.integer("first_frame", c.first.frame, into: &out)
    k.integer("last_frame", c.last.frame, into: &out)
    k.integer("att_pdus", c.attCounts.values.reduce(0, +), into: &out)
    k.integer("transaction_count", c.transactions.count, into: &out)
    k.integer("pair_count", c.pairs.count, into: &out)
    k.key("events", into: &out)
    appendArray(c.events(), into: &out) { event, out in
      var e = JSONKeys()
      e.integer("frame", event.at.frame, into: &out)
      e.key("ts", into: &out)
      JSONRecord.appendSeconds(event.at.timestamp, into: &out)
      e.string("type", event.type, into: &out)
      e.string("text", event.text, into: &out)
    }
    out.append("}")
  }

  private static func appendEncryption(_ c: ConnectionTimeline, into out: inout OutputBuffer, _ k: inout JSONKeys) {
    k.key("encryption", into: &out)
    let first = c.encryption.first { $0.enabled && !$0.isKeyRefresh }
    guard first != nil || !c.encryption.isEmpty || !c.pairing.isEmpty else { return out.append("null") }
    var e = JSONKeys()
    out.append("{")
    e.bool("enabled", c.encryption.last(where: { !$0.isKeyRefresh && $0.status == 0 })?.enabled ?? false, into: &out)
    e.integer("frame", first?.change.frame, into: &out)
    e.integer("start_frame", first?.start?.frame, into: &out)
    e.milliseconds("latency_ms", first.flatMap { f in f.start.map { $0.microseconds(to: f.change) } }, into: &out)
    let pairing = c.pairing.last
    e.string("method", pairing?.method?.name ?? (first != nil && pairing == nil ? "stored key" : nil), into: &out)
    e.milliseconds("pairing_latency_ms", pairing?.latencyMicroseconds, into: &out)
    e.key("changes", into: &out)
    appendArray(c.encryption, into: &out) { change, out in
      var x = JSONKeys()
      x.integer("frame", change.change.frame, into: &out)
      x.integer("start_frame", change.start?.frame, into: &out)
      x.integer("status", change.status, into: &out)
      x.bool("enabled", change.enabled, into: &out)
      x.bool("key_refresh", change.isKeyRefresh, into: &out)
    }
    e.key("pairing", into: &out)
    appendArray(c.pairing, into: &out) { pairing, out in
      var p = JSONKeys()
      p.integer("frame", pairing.start.frame, into: &out)
      p.string("method", pairing.method?.name, into: &out)
      p.bool("bonding", pairing.bonding, into: &out)
      p.string("initiator", pairing.localInitiated ? "local" : "remote", into: &out)
      p.integer("encrypted_frame", pairing.encrypted?.frame, into: &out)
      p.milliseconds("latency_ms", pairing.latencyMicroseconds, into: &out)
      p.integer("failed_frame", pairing.failed?.at.frame, into: &out)
      p.integer("failed_reason", pairing.failed?.reason, into: &out)
      p.string(
        "failed_reason_name", pairing.failed.map { SMPPairingFailedReason(rawValue: $0.reason).name }, into: &out)
      p.string("failed_by", pairing.failedByLocal.map { $0 ? "local" : "remote" }, into: &out)
    }
    out.append("}")
  }

  static func appendAttempt(
    _ attempt: ConnectionAttempt, file: String?, _ connections: ConnectionIndex, type: Bool = false,
    into out: inout OutputBuffer
  ) {
    var k = begin("attempt", file, type, into: &out)
    k.integer("adapter", attempt.adapter, into: &out)
    k.string("command", attempt.command, into: &out)
    k.integer("create_frame", attempt.create.frame, into: &out)
    k.peer("peer", attempt.peer, type: attempt.peerType, peerName: attempt.peerName, into: &out)
    k.integer("cancel_frame", attempt.cancel?.frame, into: &out)
    k.integer("result_frame", attempt.result?.frame, into: &out)
    k.integer("status", attempt.status, into: &out)
    k.string("status_name", attempt.status.map { HCIStatusCode(rawValue: $0).name }, into: &out)
    k.string("outcome", attempt.outcome.rawValue, into: &out)
    k.milliseconds("latency_ms", attempt.latencyMicroseconds, into: &out)
    k.conn(attempt.connection, connections, into: &out)
    out.append("}")
  }

  static func appendTransaction(
    _ transaction: Transaction, file: String?, _ connections: ConnectionIndex, type: Bool = false,
    into out: inout OutputBuffer
  ) {
    var k = begin("transaction", file, type, into: &out)
    k.conn(transaction.conn, connections, into: &out)
    k.integer("opcode", transaction.opcode, into: &out)
    k.string("name", ATTOpcode(rawValue: transaction.opcode).name, into: &out)
    k.integer("handle", transaction.handle, into: &out)
    k.attribute(transaction.attribute, into: &out)
    k.integer("request_frame", transaction.request.frame, into: &out)
    k.integer("response_frame", transaction.response?.frame, into: &out)
    k.key("request_ts", into: &out)
    JSONRecord.appendSeconds(transaction.request.timestamp, into: &out)
    k.key("response_ts", into: &out)
    if let response = transaction.response {
      JSONRecord.appendSeconds(response.timestamp, into: &out)
    } else {
      out.append("null")
    }
    k.integer("response_opcode", transaction.responseOpcode, into: &out)
    k.milliseconds("latency_ms", transaction.latencyMicroseconds, into: &out)
    k.string("outcome", transaction.outcome.rawValue, into: &out)
    k.integer("error", transaction.errorCode, into: &out)
    k.string("error_name", transaction.errorCode.map { ATTErrorCode(rawValue: $0).name }, into: &out)
    k.string("client", transaction.byLocal ? "local" : "remote", into: &out)
    out.append("}")
  }

  static func appendPair(
    _ pair: WriteNotifyPair, file: String?, _ connections: ConnectionIndex, type: Bool = false,
    into out: inout OutputBuffer
  ) {
    var k = begin("pair", file, type, into: &out)
    k.conn(pair.conn, connections, into: &out)
    k.integer("write_frame", pair.write.frame, into: &out)
    k.integer("write_opcode", pair.writeOpcode, into: &out)
    k.integer("write_handle", pair.writeHandle, into: &out)
    k.attribute(pair.writeAttribute, prefix: "write_", into: &out)
    k.key("write_ts", into: &out)
    JSONRecord.appendSeconds(pair.write.timestamp, into: &out)
    k.integer("notify_frame", pair.notify.frame, into: &out)
    k.key("notify_ts", into: &out)
    JSONRecord.appendSeconds(pair.notify.timestamp, into: &out)
    k.integer("notify_opcode", pair.notifyOpcode, into: &out)
    k.integer("notify_handle", pair.notifyHandle, into: &out)
    k.attribute(pair.notifyAttribute, prefix: "notify_", into: &out)
    k.milliseconds("rtt_ms", pair.rttMicroseconds, into: &out)
    k.string("rule", pair.byRule ? "pair" : "service", into: &out)
    out.append("}")
  }

  static func appendArray<T>(
    _ items: [T], into out: inout OutputBuffer, _ body: (T, inout OutputBuffer) -> Void
  ) {
    out.append("[")
    for (i, item) in items.enumerated() {
      out.append(i == 0 ? "{" : ",{")
      body(item, &out)
      out.append("}")
    }
    out.append("]")
  }

  private static func appendOptional<T>(
    _ item: T?, into out: inout OutputBuffer, _ body: (T, inout OutputBuffer) -> Void
  ) {
    guard let item else { return out.append("null") }
    out.append("{")
    body(item, &out)
    out.append("}")
  }
}
