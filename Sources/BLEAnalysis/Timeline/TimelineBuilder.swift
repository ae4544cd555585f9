import BLECapture
import BLEDissect

/// Builds the timeline of a capture from its analyzed records: connection attempts,
/// each connection's setup, security, discovery, subscriptions and end, every ATT
/// transaction, and write→notify pairs. The state of a connection that is not output
/// (outstanding requests, writes waiting for an answer) goes when it disconnects.
public struct TimelineBuilder {
  public internal(set) var timeline = Timeline()
  /// How long a write waits for the notification that answers it (`--pair-window`).
  public var pairWindowMicroseconds: Int64
  public var rules: [PairRule]

  /// Connection id → index in `timeline.connections`.
  var index: [Int: Int] = [:]
  /// Per live connection.
  var states: [Int: LinkState] = [:]
  /// The LE Create Connection waiting for its result, per adapter.
  private var pendingLE: [UInt16?: Int] = [:]
  /// BR/EDR Create Connections waiting, per adapter and address.
  private var pendingBREDR: [PeerKey: Int] = [:]
  /// The last connection to each peer that ended, for the reconnect gap.
  var lastEnded: [PeerKey: Int] = [:]
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
    if timeline.start == nil { timeline.start = record.timestamp.unixMicroseconds }
    security.add(record, analyzed)
    guard let hci = analyzed.decoded.hci else {
      if analyzed.decoded.linkLayer != nil { addLinkLayer(record, analyzed) }
      if let monitor = analyzed.decoded.monitor { adapterRecord(monitor, record, analyzed) }
      return
    }
    for request in analyzed.unanswered { settle(request) }
    let at = FrameTime(record)
    switch hci.type {
    case .command: command(hci.opcode ?? 0, record, analyzed, at)
    case .event: event(hci, record, analyzed, at)
    case .acl: data(record, analyzed, at)
    default: break
    }
  }

  /// Ends the capture: requests still waiting get no answer, attempts stay pending.
  public mutating func finish(_ unanswered: [UnansweredRequest]) -> Timeline {
    for request in unanswered { settle(request) }
    for i in timeline.connections.indices {
      timeline.connections[i].transactions.sort { $0.request.frame < $1.request.frame }
    }
    states = [:]
    security.finish(&timeline)
    return timeline
  }

  // MARK: - Connections

  mutating func connection(_ ref: ConnectionRef?, _ at: FrameTime) -> Int? {
    guard let ref else { return nil }
    if let i = index[ref.id] {
      timeline.connections[i].last = at
      return i
    }
    index[ref.id] = timeline.connections.count
    states[ref.id] = LinkState()
    timeline.connections.append(ConnectionTimeline(ref: ref, first: at, last: at))
    return timeline.connections.count - 1
  }

  static let leCreateConnection: Set<HCIOpcode> = [
    .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2,
  ]

  private mutating func command(_ code: UInt16, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    let fields = analyzed.decoded.hciParameters(record)
    let opcode = HCIOpcode(rawValue: code)
    switch opcode {
    case _ where Self.leCreateConnection.contains(opcode), .createConnection:
      let isLE = opcode != .createConnection
      var attempt = ConnectionAttempt(adapter: record.adapter, command: opcode.name, create: at, isLE: isLE)
      if case .address(let address) = fields.lookup(isLE ? "Peer_Address" : "BD_ADDR")?.value,
        fields.lookup("Initiator_Filter_Policy")?.value.integer ?? 0 == 0
      {
        attempt.peer = address
        attempt.peerType = (fields.lookup("Peer_Address_Type")?.value.integer).map { UInt8(truncatingIfNeeded: $0) }
      }
      if isLE {
        pendingLE[record.adapter] = timeline.attempts.count
      } else if let peer = attempt.peer {
        pendingBREDR[PeerKey(adapter: record.adapter, address: peer)] = timeline.attempts.count
      }
      timeline.attempts.append(attempt)
    case .leCreateConnectionCancel:
      if let i = pendingLE[record.adapter] { timeline.attempts[i].cancel = at }
    case .createConnectionCancel:
      if case .address(let address) = fields.lookup("BD_ADDR")?.value,
        let i = pendingBREDR[PeerKey(adapter: record.adapter, address: address)]
      {
        timeline.attempts[i].cancel = at
      }
    case .disconnect:
      guard let conn = analyzed.conn, connection(conn, at) != nil else { return }
      let reason = UInt8(truncatingIfNeeded: fields.lookup("Reason")?.value.integer ?? 0)
      states[conn.id]?.disconnectCommand = (at, reason)
    case .leEnableEncryption:
      guard let conn = analyzed.conn, let i = connection(conn, at) else { return }
      states[conn.id]?.encryptionStart = at
      answerSecurityRequest(i, at, "LE Enable Encryption")
    default:
      break
    }
  }

  private mutating func event(_ hci: HCILayer, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    let fields = analyzed.decoded.hciParameters(record)
    func integer(_ name: String) -> Int64? { fields.lookup(name)?.value.integer }
    func parameters() -> ConnectionParameters? {
      guard let interval = integer("Connection_Interval"), let timeout = integer("Supervision_Timeout") else {
        return nil
      }
      return ConnectionParameters(
        interval: ConnectionInterval(units: UInt16(truncatingIfNeeded: interval)),
        latency: UInt16(truncatingIfNeeded: integer("Peripheral_Latency") ?? 0),
        supervisionTimeout: SupervisionTimeout(units: UInt16(truncatingIfNeeded: timeout)))
    }
    let status = UInt8(truncatingIfNeeded: integer("Status") ?? 0)
    switch (hci.event ?? 0, hci.subevent) {
    case (0x0F, _):
      // A Create Connection the controller refused.
      guard status != 0, let opcode = hci.opcode, Self.leCreateConnection.contains(HCIOpcode(rawValue: opcode)),
        let i = pendingLE.removeValue(forKey: record.adapter)
      else { return }
      settleAttempt(i, at, status: status, connection: nil)
    case (0x03, _), (0x3E, 0x01), (0x3E, 0x0A), (0x3E, 0x29):
      connectionComplete(hci, record, analyzed, at, status: status, parameters: parameters())
    case (0x05, _):
      guard status == 0, let ended = analyzed.endedConnection, let i = connection(ended, at) else { return }
      let reason = UInt8(truncatingIfNeeded: integer("Reason") ?? 0)
      let command = states[ended.id]?.disconnectCommand
      let connection = timeline.connections[i]
      timeline.connections[i].disconnect = Disconnect(
        command: command?.at, commandReason: command?.reason, complete: at, reason: reason,
        initiator: .of(
          reason: reason, localCommand: command != nil, sinceComplete: connection.complete?.microseconds(to: at),
          interval: connection.parameters?.interval))
      states[ended.id] = nil
      if let peer = ended.peer { lastEnded[PeerKey(adapter: ended.adapter, address: peer)] = i }
    case (0x08, _), (0x59, _), (0x30, _):
      guard let i = connection(analyzed.conn, at), let id = analyzed.conn?.id else { return }
      let enabled = hci.event == 0x30 || integer("Encryption_Enabled") ?? 0 != 0
      timeline.connections[i].encryption.append(
        EncryptionChange(
          start: states[id]?.encryptionStart, change: at, status: status, enabled: status == 0 && enabled,
          isKeyRefresh: hci.event == 0x30))
      states[id]?.encryptionStart = nil
      if status == 0, enabled, let p = timeline.connections[i].pairing.indices.last,
        timeline.connections[i].pairing[p].encrypted == nil, timeline.connections[i].pairing[p].failed == nil
      {
        timeline.connections[i].pairing[p].encrypted = at
      }
    case (0x0C, _):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].remoteVersion = (
        at, UInt8(truncatingIfNeeded: integer("Version") ?? 0),
        UInt16(truncatingIfNeeded: integer("Company_Identifier") ?? 0)
      )
    case (0x3E, 0x03):
      guard let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].updates.append(
        ParameterUpdate(
          at: at, parameters: status == 0 ? parameters() : nil, status: status, what: "LE Connection Update Complete"))
    case (0x3E, 0x04):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].remoteFeatures = at
    case (0x3E, 0x05):
      guard let conn = analyzed.conn, connection(conn, at) != nil else { return }
      states[conn.id]?.encryptionStart = at
    case (0x3E, 0x06):
      guard let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: nil, status: 0, what: "LE Remote Connection Parameter Request"))
    case (0x3E, 0x07):
      guard let i = connection(analyzed.conn, at) else { return }
      func u16(_ name: String) -> UInt16 { UInt16(truncatingIfNeeded: integer(name) ?? 0) }
      timeline.connections[i].dataLength.append(
        DataLengthChange(
          at: at, maxTXOctets: u16("Max_TX_Octets"), maxTXTime: u16("Max_TX_Time"),
          maxRXOctets: u16("Max_RX_Octets"), maxRXTime: u16("Max_RX_Time")))
    case (0x3E, 0x0C):
      guard status == 0, let i = connection(analyzed.conn, at) else { return }
      timeline.connections[i].phy.append(
        PHYChange(
          at: at, tx: UInt8(truncatingIfNeeded: integer("TX_PHY") ?? 0),
          rx: UInt8(truncatingIfNeeded: integer("RX_PHY") ?? 0)))
    default:
      break
    }
  }

  private mutating func connectionComplete(
    _ hci: HCILayer, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime, status: UInt8,
    parameters: ConnectionParameters?
  ) {
    let isLE = hci.event == 0x3E
    let fields = analyzed.decoded.hciParameters(record)
    var attemptIndex: Int?
    if isLE {
      // Only a central's connection answers a Create Connection.
      if fields.lookup("Role")?.value.integer ?? 0 == 0 { attemptIndex = pendingLE.removeValue(forKey: record.adapter) }
    } else if case .address(let address) = fields.lookup("BD_ADDR")?.value {
      attemptIndex = pendingBREDR.removeValue(forKey: PeerKey(adapter: record.adapter, address: address))
    }
    guard status == 0, let ref = analyzed.conn, let i = connection(ref, at) else {
      if let attemptIndex { settleAttempt(attemptIndex, at, status: status, connection: nil) }
      return
    }
    timeline.connections[i].complete = at
    timeline.connections[i].parameters = parameters
    if let attemptIndex {
      settleAttempt(attemptIndex, at, status: 0, connection: ref.id)
      timeline.connections[i].attempt = timeline.attempts[attemptIndex]
    }
    if let peer = ref.peer, let previous = lastEnded.removeValue(forKey: PeerKey(adapter: ref.adapter, address: peer)),
      let ended = timeline.connections[previous].disconnect
    {
      timeline.connections[previous].reconnectGapMicroseconds = ended.complete.microseconds(to: at)
      timeline.connections[previous].reconnectedAs = ref.id
    }
  }

  private mutating func settleAttempt(_ i: Int, _ at: FrameTime, status: UInt8, connection: Int?) {
    timeline.attempts[i].result = at
    timeline.attempts[i].status = status
    timeline.attempts[i].connection = connection
    timeline.attempts[i].outcome = .init(status: status, cancelled: timeline.attempts[i].cancel != nil)
  }

  // MARK: - Data

  mutating func data(_ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    guard let conn = analyzed.conn, let i = connection(conn, at), states[conn.id] != nil else { return }
    if let smp = analyzed.decoded.smp { security(smp, record, analyzed, i, at) }
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
        byLocal: byLocal, characteristic: analyzed.attribute?.characteristic,
        valueHandle: analyzed.attribute?.valueHandle, name: analyzed.attribute?.label)
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
        conn: conn.id, window: pairWindowMicroseconds)
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
    guard let i = index[request.conn.id],
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
      Subscription(
        at: at, handle: handle, valueHandle: analyzed.attribute?.valueHandle,
        characteristic: analyzed.attribute?.characteristic, characteristicName: analyzed.attribute?.characteristicName,
        value: value))
    if att.opcode == .writeRequest {
      states[id]?.subscriptionWrites[record.frame] = timeline.connections[i].subscriptions.count - 1
    }
  }

  // MARK: - Security

  private mutating func security(_ smp: SMPPDU, _ record: Record, _ analyzed: AnalyzedRecord, _ i: Int, _ at: FrameTime)
  {
    let sent = record.direction == .sent
    switch smp.code {
    case .securityRequest:
      let authReq = smp.authReq
      timeline.connections[i].securityRequests.append(
        SecurityRequest(
          at: at, byLocal: sent, bonding: authReq?.bonding ?? false, mitm: authReq?.mitm ?? false))
    case .pairingRequest:
      answerSecurityRequest(i, at, "Pairing Request")
      timeline.connections[i].pairing.append(
        Pairing(
          start: at, localInitiated: record.direction == .sent, method: nil,
          bonding: smp.pairingFeatures?.authReq.bonding ?? false))
    case .pairingResponse:
      guard let p = timeline.connections[i].pairing.indices.last else { return }
      timeline.connections[i].pairing[p].method = analyzed.pairingMethod
      if smp.pairingFeatures?.authReq.bonding != true { timeline.connections[i].pairing[p].bonding = false }
    case .pairingFailed:
      guard let reason = smp.failureReason else { return }
      if let p = timeline.connections[i].pairing.indices.last,
        timeline.connections[i].pairing[p].failed == nil, timeline.connections[i].pairing[p].encrypted == nil
      {
        timeline.connections[i].pairing[p].failed = (at, reason.rawValue)
        timeline.connections[i].pairing[p].failedByLocal = sent
      } else if let r = timeline.connections[i].securityRequests.indices.last,
        timeline.connections[i].securityRequests[r].answer == nil
      {
        // A Security Request refused.
        answerSecurityRequest(i, at, "Pairing Failed")
        timeline.connections[i].securityRequests[r].refusedReason = reason.rawValue
      }
    default:
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
