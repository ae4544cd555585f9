import BLECapture
import BLEDissect

/// Builds the timeline of a capture from its analyzed records: connection attempts,
/// each connection's setup, security, discovery, subscriptions and end, every ATT
/// transaction, and write→notify pairs. The state of a connection that is not output
/// (outstanding requests, writes waiting for an answer) goes when it disconnects.
///
/// With `retires` set, a connection leaves the timeline once it has ended and every
/// connection that began before it has left: it waits, complete with its security
/// summary, in `retired` until the caller takes it (`takeRetired()`), so that memory
/// holds only the connections still open and those that ended after an open one began.
public struct TimelineBuilder {
  public internal(set) var timeline = Timeline()
  /// How long a write waits for the notification that answers it (`--pair-window`).
  public var pairWindowMicroseconds: Int64
  public var rules: [PairRule]
  /// Only connections, their attempts and how they ended (what `app` streams with): no
  /// transactions, pairs, subscriptions or security summaries.
  public var connectionsOnly = false

  /// Connection id → the connection's place in the capture's order of connections:
  /// `timeline.connections[place - retiredCount]` until it retires.
  var index: [Int: Int] = [:]
  /// Hand each connection that ended over through `retired` (see above).
  public var retires = false
  /// Connections retired and not taken yet, in the order they began.
  public private(set) var retired: [ConnectionTimeline] = []
  /// Connections retired so far: the first ones of the capture's order.
  private var retiredCount = 0
  /// The peer names of connections retired, for the attempts that made them.
  private var retiredNames: [Int: String] = [:]
  /// Per live connection.
  var states: [Int: LinkState] = [:]
  private var attempts = ConnectionAttempts()
  /// The last connection to each peer that ended, and when, for the reconnect gap.
  var lastEnded: [PeerKey: (id: Int, ended: FrameTime)] = [:]
  /// What each connection's security summary needs beyond the timeline.
  private var security = SecurityTracker()

  struct PeerKey: Hashable {
    var adapter: UInt16?
    var address: DeviceAddress
  }

  struct LinkState {
    /// Requests and indications waiting for their answer, by frame.
    var pending: [Int: Transaction] = [:]
    /// Client Characteristic Configuration Write Requests waiting, by frame.
    var subscriptionWrites: [Int: Int] = [:]
    var disconnectCommand: (at: FrameTime, reason: UInt8)?
    var encryptionStart: FrameTime?
    /// The discovery run is still going (its client has asked nothing else yet).
    var discovering = false
    var pairer = WriteNotifyPairer()
  }

  public init(pairWindowMicroseconds: Int64 = 2_000_000, rules: [PairRule] = []) {
    self.pairWindowMicroseconds = pairWindowMicroseconds
    self.rules = rules
  }

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    addRecord(record, analyzed)
    if retires { retireEnded() }
  }

  private mutating func addRecord(_ record: Record, _ analyzed: AnalyzedRecord) {
    if timeline.start == nil { timeline.start = record.timestamp.unixMicroseconds }
    if !connectionsOnly { security.add(record, analyzed) }
    guard let hci = analyzed.decoded.hci else {
      if analyzed.decoded.linkLayer != nil { addLinkLayer(record, analyzed) }
      if let monitor = analyzed.decoded.monitor { adapterRecord(monitor, record, analyzed) }
      return
    }
    for request in analyzed.unanswered { settle(request) }
    let at = FrameTime(record)
    if let name = analyzed.peerName, let conn = analyzed.conn { notePeerName(name, conn) }
    if hci.type == .acl { return data(record, analyzed, at) }
    let settled = attempts.add(record, analyzed)
    if let link = analyzed.link { self.link(link, record, analyzed, at) }
    if let settled {
      timeline.attempts.append(settled)
      if let id = settled.connection, let i = position(id) { timeline.connections[i].attempt = settled }
    }
  }

  /// Where connection `id` is in `timeline.connections`; nil when unknown or retired.
  func position(_ id: Int) -> Int? {
    guard let place = index[id], place >= retiredCount else { return nil }
    return place - retiredCount
  }

  /// The connections retired since the last call, in the order they began.
  public mutating func takeRetired() -> [ConnectionTimeline] {
    defer { retired = [] }
    return retired
  }

  /// Retires the connections at the front of the timeline that have ended.
  mutating func retireEnded() {
    while let first = timeline.connections.first, states[first.ref.id] == nil { retireFirst() }
  }

  /// Finishes the first connection of the timeline (its transactions in order, its
  /// security summary) and moves it to `retired`.
  private mutating func retireFirst() {
    var connection = timeline.connections.removeFirst()
    retiredCount += 1
    connection.transactions.sort { $0.request.frame < $1.request.frame }
    security.finish(&connection)
    if let name = connection.peerName { retiredNames[connection.ref.id] = name }
    retired.append(connection)
  }

  /// Ends the capture: requests still waiting get no answer, attempts stay pending.
  /// `advertisedName` names the peers of attempts (`Analyzer.advertisedName(of:)`).
  public mutating func finish(
    _ unanswered: [UnansweredRequest], advertisedName: (DeviceAddress) -> String? = { _ in nil }
  ) -> Timeline {
    for request in unanswered { settle(request) }
    timeline.attempts += attempts.finish()
    timeline.attempts.sort { $0.number < $1.number }
    for i in timeline.attempts.indices {
      guard let peer = timeline.attempts[i].peer else { continue }
      let id = timeline.attempts[i].connection
      let name = id.flatMap { id in position(id).map { timeline.connections[$0].peerName } ?? retiredNames[id] }
      timeline.attempts[i].peerName = name ?? advertisedName(peer)
    }
    states = [:]
    if retires {
      while !timeline.connections.isEmpty { retireFirst() }
      return timeline
    }
    for i in timeline.connections.indices {
      timeline.connections[i].transactions.sort { $0.request.frame < $1.request.frame }
    }
    security.finish(&timeline)
    return timeline
  }

  // MARK: - Connections

  /// The last name a record gave its connection's peer: most records repeat it.
  private var lastPeerName: (conn: Int, name: ObjectIdentifier)?

  private mutating func notePeerName(_ name: PeerName, _ conn: ConnectionRef) {
    guard lastPeerName?.conn != conn.id || lastPeerName?.name != ObjectIdentifier(name),
      let i = position(conn.id)
    else { return }
    lastPeerName = (conn.id, ObjectIdentifier(name))
    timeline.connections[i].peerName = name.name
  }

  mutating func connection(_ ref: ConnectionRef?, _ at: FrameTime) -> Int? {
    guard let ref else { return nil }
    if let i = position(ref.id) {
      timeline.connections[i].last = at
      return i
    }
    // A retired connection has ended: nothing more happens on it.
    guard index[ref.id] == nil else { return nil }
    index[ref.id] = retiredCount + timeline.connections.count
    states[ref.id] = LinkState()
    timeline.connections.append(ConnectionTimeline(ref: ref, first: at, last: at))
    return timeline.connections.count - 1
  }

  /// A connection to `peer` completed as `id`: the last one with that peer that ended
  /// gets its reconnect gap.
  mutating func reconnected(_ peer: PeerKey, as id: Int, at: FrameTime) {
    guard let previous = lastEnded.removeValue(forKey: peer) else { return }
    let gap = previous.ended.microseconds(to: at)
    guard let i = position(previous.id) else {
      timeline.retiredReconnects[previous.id] = (gap, id)
      return
    }
    timeline.connections[i].reconnectGapMicroseconds = gap
    timeline.connections[i].reconnectedAs = id
  }

  /// Connection `ref` ended at `at`: what its peer's next connection measures its gap from.
  mutating func ended(_ ref: ConnectionRef, at: FrameTime) {
    guard let peer = ref.peer else { return }
    lastEnded[PeerKey(adapter: ref.adapter, address: peer)] = (ref.id, at)
  }

  static let leCreateConnection: Set<HCIOpcode> = [
    .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2,
  ]

  private mutating func link(_ link: LinkEvent, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    switch link {
    case .disconnect(_, let reason):
      guard let conn = analyzed.conn, connection(conn, at) != nil else { return }
      states[conn.id]?.disconnectCommand = (at, reason)
    case .enableEncryption:
      guard let conn = analyzed.conn, let i = connection(conn, at) else { return }
      states[conn.id]?.encryptionStart = at
      answerSecurityRequest(i, at, "LE Enable Encryption")
    case .connectionComplete(let complete):
      guard complete.status == 0, let ref = analyzed.conn, let i = connection(ref, at) else { return }
      timeline.connections[i].complete = at
      timeline.connections[i].parameters = complete.parameters
      if let peer = ref.peer { reconnected(PeerKey(adapter: ref.adapter, address: peer), as: ref.id, at: at) }
    case .disconnectionComplete(let status, _, let reason):
      guard status == 0, let ended = analyzed.endedConnection, let i = connection(ended, at) else { return }
      let command = states[ended.id]?.disconnectCommand
      let connection = timeline.connections[i]
      timeline.connections[i].disconnect = Disconnect(
        command: command?.at, commandReason: command?.reason, complete: at, reason: reason,
        initiator: .of(
          reason: reason, localCommand: command != nil, sinceComplete: connection.complete?.microseconds(to: at),
          interval: connection.parameters?.interval))
      states[ended.id] = nil
      self.ended(ended, at: at)
    case .encryptionChange(let status, _, let enabled, let keyRefresh):
      guard let i = connection(analyzed.conn, at), let id = analyzed.conn?.id else { return }
      timeline.connections[i].encryption.append(
        EncryptionChange(
          start: states[id]?.encryptionStart, change: at, status: status, enabled: status == 0 && enabled,
          isKeyRefresh: keyRefresh))
      states[id]?.encryptionStart = nil
      if let step = analyzed.security { security(step, record, i, at) }
    case .remoteVersion(let status, _, let version, let company):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].remoteVersion = (at, version, company)
    case .connectionUpdate(let status, _, let parameters):
      guard let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: parameters, status: status, what: "LE Connection Update Complete"))
    case .remoteFeatures(let status, _):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].remoteFeatures = at
    case .longTermKeyRequest:
      guard let conn = analyzed.conn, connection(conn, at) != nil else { return }
      states[conn.id]?.encryptionStart = at
    case .remoteConnectionParameterRequest:
      guard let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: nil, status: 0, what: "LE Remote Connection Parameter Request"))
    case .dataLengthChange(_, let length):
      guard let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].dataLength.append(
        DataLengthChange(
          at: at, maxTXOctets: length.maxTXOctets, maxTXTime: length.maxTXTime, maxRXOctets: length.maxRXOctets,
          maxRXTime: length.maxRXTime))
    case .phyUpdate(let status, _, let tx, let rx):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].phy.append(PHYChange(at: at, tx: tx, rx: rx))
    default:
      break
    }
  }

  // MARK: - Data

  mutating func data(_ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    guard let conn = analyzed.conn, let i = connection(conn, at), states[conn.id] != nil, !connectionsOnly else {
      return
    }
    if let step = analyzed.security { security(step, record, i, at) }
    if let signaling = analyzed.decoded.signaling, signaling.code.rawValue == 0x12 {
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: nil, status: 0, what: "L2CAP Connection Parameter Update Request"))
    }
    guard let att = analyzed.decoded.att else { return }
    timeline.connections[i].attCounts[att.opcode.rawValue, default: 0] += 1
    let byLocal = record.direction == .sent
    if let exchange = analyzed.exchange { answer(exchange, att, analyzed, conn.id, i, at) }
    if analyzed.awaitsAnswer {
      states[conn.id]!.pending[record.frame] = Transaction(
        conn: conn.id, opcode: att.opcode.rawValue, handle: att.handle, request: at, outcome: .unanswered,
        byLocal: byLocal, attribute: analyzed.attribute)
      discoveryRequest(att, byLocal: byLocal, i, conn.id, at)
    }
    switch att.opcode {
    case .exchangeMTURequest where analyzed.decoded.l2cap?.cid == L2CAPChannelID.attribute.rawValue:
      if timeline.connections[i].mtu == nil, let mtu = att.mtu {
        timeline.connections[i].mtu = MTUExchange(request: at, clientMTU: mtu)
      }
    case .writeRequest, .writeCommand, .signedWriteCommand:
      guard let handle = att.handle else { return }
      if analyzed.attribute?.uuid == Self.clientCharacteristicConfiguration {
        subscribe(att, record, analyzed, handle, i, conn.id, at)
      } else if analyzed.attribute?.kind != .descriptor {
        states[conn.id]!.pairer.write(
          at, opcode: att.opcode.rawValue, handle: handle, direction: record.direction,
          attribute: analyzed.attribute, rules: rules)
      }
    case .handleValueNotification, .handleValueIndication:
      guard let handle = att.handle else { return }
      timeline.connections[i].pairs += states[conn.id]!.pairer.notify(
        at, opcode: att.opcode.rawValue, handle: handle, direction: record.direction, attribute: analyzed.attribute,
        conn: conn.id, window: pairWindowMicroseconds, interval: timeline.connections[i].currentParameters?.interval)
    default:
      break
    }
  }

  static let clientCharacteristicConfiguration = BluetoothUUID(uuid16: 0x2902)

  /// A response, Error Response or confirmation: completes its transaction.
  private mutating func answer(
    _ exchange: ATTExchange, _ att: ATTPDU, _ analyzed: AnalyzedRecord, _ id: Int, _ i: Int, _ at: FrameTime
  ) {
    guard var transaction = states[id]?.pending.removeValue(forKey: exchange.requestFrame) else { return }
    transaction.response = at
    transaction.responseOpcode = att.opcode.rawValue
    transaction.errorCode = att.error?.rawValue
    transaction.outcome = att.error == nil ? .ok : .error
    timeline.connections[i].transactions.append(transaction)
    if let s = states[id]?.subscriptionWrites.removeValue(forKey: exchange.requestFrame) {
      timeline.connections[i].subscriptions[s].outcome = transaction.outcome
    }
    if exchange.requestOpcode == ATTOpcode.exchangeMTURequest.rawValue, let mtu = att.mtu,
      timeline.connections[i].mtu?.request.frame == exchange.requestFrame
    {
      timeline.connections[i].mtu?.response = at
      timeline.connections[i].mtu?.serverMTU = mtu
    }
    if states[id]?.discovering == true, Self.isDiscovery(exchange.requestOpcode, exchange.requestType) {
      timeline.connections[i].discovery?.end = at
    }
  }

  mutating func settle(_ request: UnansweredRequest) {
    guard let i = position(request.conn.id),
      var transaction = states[request.conn.id]?.pending.removeValue(forKey: request.frame)
    else { return }
    transaction.outcome = request.reason == .timeout ? .timeout : .unanswered
    timeline.connections[i].transactions.append(transaction)
  }

  /// GATT discovery: primary and secondary services, included services,
  /// characteristics and descriptors (Core 6.0, Vol 3, Part G, 4.4–4.7).
  static func isDiscovery(_ opcode: UInt8, _ type: BluetoothUUID?) -> Bool {
    switch opcode {
    case 0x04, 0x06: true
    case 0x08, 0x10: type?.shortValue.map { (0x2800...0x2803).contains($0) } ?? false
    default: false
    }
  }

  /// A request: starts or extends the discovery run, or ends it when its client asks
  /// for something else.
  private mutating func discoveryRequest(_ att: ATTPDU, byLocal: Bool, _ i: Int, _ id: Int, _ at: FrameTime) {
    guard case .request = att.opcode.kind, att.opcode != .exchangeMTURequest else { return }
    var type: BluetoothUUID?
    if case .readByType(_, _, let requested) = att.parameters { type = requested }
    let isDiscovery = Self.isDiscovery(att.opcode.rawValue, type)
    guard let discovery = timeline.connections[i].discovery else {
      if isDiscovery {
        timeline.connections[i].discovery = Discovery(start: at, end: at, requests: 1, byLocal: byLocal)
        states[id]?.discovering = true
      }
      return
    }
    guard states[id]?.discovering == true, discovery.byLocal == byLocal else { return }
    if isDiscovery {
      timeline.connections[i].discovery?.requests += 1
    } else {
      states[id]?.discovering = false
    }
  }

  private mutating func subscribe(
    _ att: ATTPDU, _ record: Record, _ analyzed: AnalyzedRecord, _ handle: UInt16, _ i: Int, _ id: Int,
    _ at: FrameTime
  ) {
    guard let range = att.value else { return }
    let value = analyzed.decoded.withPayloadBytes(record) { $0.littleEndianUInt16(at: range.start) }
    guard let value, range.count >= 2 else { return }
    timeline.connections[i].subscriptions.append(
      Subscription(at: at, handle: handle, attribute: analyzed.attribute, value: value))
    if att.opcode == .writeRequest {
      states[id]?.subscriptionWrites[record.frame] = timeline.connections[i].subscriptions.count - 1
    }
  }

  // MARK: - Security

  private mutating func security(_ step: SecurityStep, _ record: Record, _ i: Int, _ at: FrameTime) {
    let sent = record.direction == .sent
    switch step {
    case .securityRequest(let authReq):
      timeline.connections[i].securityRequests.append(
        SecurityRequest(at: at, byLocal: sent, bonding: authReq.bonding, mitm: authReq.mitm))
    case .pairingRequest(let features):
      answerSecurityRequest(i, at, "Pairing Request")
      timeline.connections[i].pairing.append(
        Pairing(start: at, localInitiated: sent, method: nil, bonding: features.authReq.bonding))
    case .pairingResponse(let features, let method):
      guard let p = timeline.connections[i].pairing.indices.last else { return }
      timeline.connections[i].pairing[p].method = method
      if !features.authReq.bonding { timeline.connections[i].pairing[p].bonding = false }
    case .pairingFailed(let reason, true):
      guard let p = timeline.connections[i].pairing.indices.last else { return }
      timeline.connections[i].pairing[p].failed = (at, reason.rawValue)
      timeline.connections[i].pairing[p].failedByLocal = sent
    case .pairingFailed(let reason, false):
      // A Security Request refused.
      guard let r = timeline.connections[i].securityRequests.indices.last,
        timeline.connections[i].securityRequests[r].answer == nil
      else { return }
      answerSecurityRequest(i, at, "Pairing Failed")
      timeline.connections[i].securityRequests[r].refusedReason = reason.rawValue
    case .pairingEncrypted:
      guard let p = timeline.connections[i].pairing.indices.last else { return }
      timeline.connections[i].pairing[p].encrypted = at
    case .keyDistribution, .pairingPDU:
      break
    }
  }

  /// The last Security Request of connection `i`, if still unanswered, gets its answer.
  mutating func answerSecurityRequest(_ i: Int, _ at: FrameTime, _ name: String) {
    guard let r = timeline.connections[i].securityRequests.indices.last,
      timeline.connections[i].securityRequests[r].answer == nil
    else { return }
    timeline.connections[i].securityRequests[r].answer = at
    timeline.connections[i].securityRequests[r].answerName = name
  }
}
