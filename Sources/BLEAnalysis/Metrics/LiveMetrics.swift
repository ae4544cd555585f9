import BLECapture
import BLEDissect

/// Counters and histograms over a live capture (`live --metrics`), from the analyzed
/// records in frame order and with the rules `timeline` and `stats` count by, so that the
/// three agree: a transaction is a request or indication on a known connection, settled by
/// its answer, its timeout, the link going down, a newer request or the end of the capture;
/// a connection is one `timeline` lists; an attempt is a (LE Extended) Create Connection.
///
/// Memory stays bounded: per-connection state goes at the disconnection, and every key
/// comes from a bounded set (ATT opcode, outcome, HCI reason, initiator, record type).
public struct LiveMetrics: Sendable {
  /// Durations: their histogram (the buckets of `stats`) and their sum.
  public struct Durations: Sendable {
    public private(set) var histogram = Histogram()
    public private(set) var sumMicroseconds: Int64 = 0

    mutating func add(_ microseconds: Int64) {
      histogram.add(microseconds)
      sumMicroseconds += microseconds
    }
  }

  public struct RequestKey: Hashable, Sendable {
    public var opcode: UInt8
    public var outcome: Transaction.Outcome
  }

  public struct PayloadKey: Hashable, Sendable {
    public var direction: PayloadDirection
    public var operation: PayloadOperation
  }

  public struct DisconnectionKey: Hashable, Sendable {
    public var reason: UInt8
    public var initiator: DisconnectInitiator
  }

  /// How a connection or attempt ended up: `connected`, `already_up` (up before the
  /// capture began), or how an attempt failed (`cancelled`, `failed`, `timed_out`).
  public static let alreadyUp = "already_up"

  /// Transactions by request opcode and outcome.
  public private(set) var requests: [RequestKey: Int] = [:]
  /// How long each transaction took, by request opcode: to its answer, or until it was
  /// given up (timeout, disconnection, a newer request, the end of the capture).
  public private(set) var requestDurations: [UInt8: Durations] = [:]
  /// Connections and failed attempts, by outcome.
  public private(set) var connections: [String: Int] = [:]
  /// Create Connection → Connection Complete, for attempts that connected.
  public private(set) var connectDurations = Durations()
  public private(set) var disconnections: [DisconnectionKey: Int] = [:]
  /// Payload bytes (ATT values, CoC SDUs) by direction and operation, as `throughput` counts them.
  public private(set) var payloadBytes: [PayloadKey: Int] = [:]
  /// Advertising reports, each report of an event counted (as `devices` counts them).
  public private(set) var advertisingReports = 0
  /// Connections up now.
  public var connectionsOpen: Int { open.count }

  private struct OpenConnection: Sendable {
    var adapter: UInt16?
    var complete: Int64?
    var interval: ConnectionInterval?
    var disconnectCommand = false
  }

  private struct PendingKey: Hashable, Sendable {
    var conn: Int
    var frame: Int
  }

  private var open: [Int: OpenConnection] = [:]
  /// Connection ids are numbered in order, so any id above this one is new.
  private var highestConnection = 0
  private var pending: Set<PendingKey> = []
  private var attempts = ConnectionAttempts()
  private var last: Int64 = 0

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    let now = record.timestamp.unixMicroseconds
    last = now
    for request in analyzed.unanswered { settle(request, at: now) }
    if let reports = analyzed.decoded.advertising { advertisingReports += reports.count { !$0.isFragment } }
    if analyzed.decoded.monitor == .deleteIndex { adapterRemoved(record.adapter) }
    guard let hci = analyzed.decoded.hci else { return }
    if hci.type == .acl { return data(record, analyzed) }
    if let attempt = attempts.add(record, analyzed) { settled(attempt) }
    link(analyzed, now)
  }

  /// The end of the capture: requests still waiting get no answer.
  public mutating func finish(_ unanswered: [UnansweredRequest]) {
    for request in unanswered { settle(request, at: last) }
  }

  /// A connection `timeline` lists: counted the first time a record names it.
  private mutating func see(_ conn: ConnectionRef?) {
    guard let conn, conn.id > highestConnection else { return }
    highestConnection = conn.id
    open[conn.id] = OpenConnection(adapter: conn.adapter)
    connections[conn.generation == 0 ? Self.alreadyUp : ConnectionAttempt.Outcome.connected.rawValue, default: 0] += 1
  }

  private mutating func data(_ record: Record, _ analyzed: AnalyzedRecord) {
    see(analyzed.conn)
    if analyzed.conn != nil, let pdu = PayloadPDU(record, analyzed) {
      payloadBytes[PayloadKey(direction: pdu.direction, operation: pdu.operation), default: 0] += pdu.bytes
    }
    guard let conn = analyzed.conn, open[conn.id] != nil, let att = analyzed.decoded.att else { return }
    if let exchange = analyzed.exchange,
      pending.remove(PendingKey(conn: conn.id, frame: exchange.requestFrame)) != nil
    {
      count(exchange.requestOpcode, att.error == nil ? .ok : .error, exchange.latencyMicroseconds)
    }
    if analyzed.awaitsAnswer { pending.insert(PendingKey(conn: conn.id, frame: record.frame)) }
  }

  private mutating func settle(_ request: UnansweredRequest, at now: Int64) {
    guard pending.remove(PendingKey(conn: request.conn.id, frame: request.frame)) != nil else { return }
    count(request.opcode, request.reason == .timeout ? .timeout : .unanswered, now - request.timestamp)
  }

  private mutating func count(_ opcode: UInt8, _ outcome: Transaction.Outcome, _ microseconds: Int64) {
    requests[RequestKey(opcode: opcode, outcome: outcome), default: 0] += 1
    requestDurations[opcode, default: Durations()].add(microseconds)
  }

  private mutating func link(_ analyzed: AnalyzedRecord, _ now: Int64) {
    switch analyzed.link {
    case .disconnect:
      see(analyzed.conn)
      if let conn = analyzed.conn { open[conn.id]?.disconnectCommand = true }
    case .connectionComplete(let complete):
      guard complete.status == 0, let conn = analyzed.conn else { return }
      see(conn)
      open[conn.id]?.complete = now
      if let parameters = complete.parameters { open[conn.id]?.interval = parameters.interval }
    case .disconnectionComplete(_, _, let reason):
      guard let ended = analyzed.endedConnection else { return }
      see(ended)
      guard let connection = open.removeValue(forKey: ended.id) else { return }
      let initiator = DisconnectInitiator.of(
        reason: reason, localCommand: connection.disconnectCommand,
        sinceComplete: connection.complete.map { now - $0 }, interval: connection.interval)
      disconnections[DisconnectionKey(reason: reason, initiator: initiator), default: 0] += 1
    case .commandStatus, .createConnection, .createConnectionCancel:
      break
    default:
      see(analyzed.conn)
    }
  }

  /// A connected attempt counts among the connections (`see`), the others by outcome.
  private mutating func settled(_ attempt: ConnectionAttempt) {
    if attempt.outcome == .connected {
      connectDurations.add(attempt.latencyMicroseconds ?? 0)
    } else {
      connections[attempt.outcome.rawValue, default: 0] += 1
    }
  }

  /// Linux monitor Index Removed: the adapter's connections end (`adapter_gone`).
  private mutating func adapterRemoved(_ adapter: UInt16?) {
    for (id, connection) in open where connection.adapter == adapter {
      open[id] = nil
      let key = DisconnectionKey(
        reason: HCIStatusCode.connectionTerminatedByLocalHost.rawValue, initiator: .adapterGone)
      disconnections[key, default: 0] += 1
    }
  }
}
