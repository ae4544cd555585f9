import BLECapture
import BLEDissect

/// The connection a record belongs to: `conn` of the data contract.
public struct ConnectionRef: Hashable, Sendable {
  /// Numbered from 1 in the order connections complete (or first show up, for
  /// connections that were up before the capture started).
  public var id: Int
  public var adapter: UInt16?
  public var handle: UInt16
  /// How many connections completed on this adapter and handle so far, this one
  /// included (controllers reuse a handle at once); 0 for a connection that was up
  /// before the capture started.
  public var generation: Int
  public var peer: DeviceAddress?
  /// Peer_Address_Type as the controller reported it.
  public var peerType: UInt8?
  /// 0 central, 1 peripheral (the local controller's role).
  public var role: UInt8?
  /// `central` or `peripheral`.
  public var roleName: String? {
    switch role {
    case 0: "central"
    case 1: "peripheral"
    default: nil
    }
  }
  /// LE or BR/EDR.
  public var isLE: Bool
}

/// What a response or confirmation answers.
public struct ATTExchange: Hashable, Sendable {
  public var requestFrame: Int
  public var requestOpcode: UInt8
  /// The handle the request named.
  public var handle: UInt16?
  public var latencyMicroseconds: Int64
  /// The Attribute (Group) Type a Read By (Group) Type or Find By Type Value request asked for.
  public var requestType: BluetoothUUID?
  /// The Attribute Value a Find By Type Value request searched for, as a UUID (what
  /// discovery by service UUID searches for), when it is 2, 4 or 16 octets.
  public var requestValueUUID: BluetoothUUID?
  /// The Value Offset of a Read Blob or Prepare Write request.
  public var requestOffset: UInt16?
}

/// A request or indication that got no answer: the record that settles it says why.
public struct UnansweredRequest: Hashable, Sendable {
  public enum Reason: Hashable, Sendable {
    /// No answer within the ATT transaction timeout (30 s).
    case timeout
    /// The link went down first.
    case disconnected
    /// Another request went out on the same bearer and direction first.
    case superseded
    /// The capture ended first.
    case endOfCapture
  }

  public var conn: ConnectionRef
  public var frame: Int
  public var opcode: UInt8
  public var handle: UInt16?
  /// When the request was sent, µs since the Unix epoch.
  public var timestamp: Int64
  public var reason: Reason
}

/// The answer a request or indication got: set on the request by `ResponseLookahead`.
public struct ATTAnswer: Hashable, Sendable {
  public var frame: Int
  public var opcode: UInt8
  public var latencyMicroseconds: Int64
}

/// What a few analyzed records carry besides their fixed-size facts, out of line in
/// the analyzer's `ExtrasTable`.
public struct AnalyzedExtras {
  /// Requests and indications this record ends without an answer.
  public var unanswered: [UnansweredRequest] = []
  /// Long reads and prepared writes this frame completes (GATTTracker).
  public var assembled: [AssembledValue] = []
  /// The PDU's value decoded with its characteristic's or descriptor's format (GATTTracker).
  public var value: DecodeResult?
  /// What the PDU says in a protocol over GATT, or what a disconnection cut short (VendorTracker).
  public var vendor: [VendorRecord] = []

  public init() {}
}

/// Where analyzed records keep what they carry beyond their fixed-size facts.
public let analyzedExtrasTable = ExtrasTable<AnalyzedExtras>()

/// A record with what was learned from the records before it.
///
/// Like `DecodedRecord`, what only a few records carry lives out of line, in
/// `analyzedExtrasTable`; the pipeline releases a record's extras when it is done.
public struct AnalyzedRecord: Sendable {
  public var decoded: DecodedRecord
  /// The HCI command or event, for what analysis acts on (`LinkEvent`).
  public var link: LinkEvent?
  public var conn: ConnectionRef?
  /// For a response, Error Response or confirmation: the request it answers.
  public var exchange: ATTExchange?
  /// For a request or indication: it waits for an answer (a later record carries its
  /// `exchange`, or lists it in `unanswered`).
  public var awaitsAnswer = false
  /// For a PDU about one attribute that its server's database does not name yet: a
  /// discovery later on the connection may name it (`ResponseLookahead` holds it).
  public var awaitsName = false
  /// For a discovery response: it taught its server's database something.
  public var learnedAttributes = false
  /// For a request or indication, once a later record answered it (filled in by
  /// `ResponseLookahead`, which holds records back until then).
  public var answer: ATTAnswer?
  /// For a request or indication that got no answer: why (set by `ResponseLookahead`).
  public var unansweredReason: UnansweredRequest.Reason?
  /// The ATT_MTU in force on the PDU's bearer, when known.
  public var mtu: UInt16?
  /// What the record is in its connection's pairing procedure (`PairingProcedure`).
  public var security: SecurityStep?
  /// For a successful Disconnection Complete: the connection that ended.
  public var endedConnection: ConnectionRef?
  /// What the ATT PDU's handle is in its server's GATT database (GATTTracker). Held
  /// unowned: the database keeps every attribute it handed out for as long as it lives.
  public var attribute: GATTAttribute? {
    get { attributeReference?.takeUnretainedValue() }
    set { attributeReference = newValue.map { Unmanaged.passUnretained($0) } }
  }
  /// The same, for the record path to read without retaining it (`withAttribute`).
  public var attributeReference: Unmanaged<GATTAttribute>?

  /// `body` of the attribute, read without retaining it; nil when there is none.
  @inlinable public func withAttribute<R>(_ body: (GATTAttribute) -> R) -> R? {
    attributeReference?._withUnsafeGuaranteedRef(body)
  }
  /// The name of the connection's peer, as far as the capture told it so far. Held
  /// unowned, like `attribute`: the analyzer keeps every name it handed out.
  public var peerName: PeerName? {
    get { peerNameReference?.takeUnretainedValue() }
    set { peerNameReference = newValue.map { Unmanaged.passUnretained($0) } }
  }
  /// The same, for the record path to read without retaining it.
  public var peerNameReference: Unmanaged<PeerName>?
  /// The record's entry in `analyzedExtrasTable`, 0 for none.
  public private(set) var extrasID: UInt32 = 0

  public init(decoded: DecodedRecord) {
    self.decoded = decoded
  }

  /// The record's extras, made on first write.
  private var extras: AnalyzedExtras {
    get { extrasID == 0 ? AnalyzedExtras() : analyzedExtrasTable[extrasID] }
    set {
      if extrasID == 0 {
        extrasID = analyzedExtrasTable.add(newValue)
      } else {
        analyzedExtrasTable[extrasID] = newValue
      }
    }
  }

  /// Requests and indications this record ends without an answer.
  public var unanswered: [UnansweredRequest] {
    get { extrasID == 0 ? [] : extras.unanswered }
    set { extras.unanswered = newValue }
  }

  /// Long reads and prepared writes this frame completes (GATTTracker).
  public var assembled: [AssembledValue] {
    get { extrasID == 0 ? [] : extras.assembled }
    set { extras.assembled = newValue }
  }

  /// The PDU's value decoded with its characteristic's or descriptor's format (GATTTracker).
  public var value: DecodeResult? {
    get { extrasID == 0 ? nil : extras.value }
    set { extras.value = newValue }
  }

  /// What the PDU says in a protocol over GATT, or what a disconnection cut short (VendorTracker).
  public var vendor: [VendorRecord] {
    get { extrasID == 0 ? [] : extras.vendor }
    set { extras.vendor = newValue }
  }

  /// Frees the record's extras, decoded and analyzed; the record must not be read
  /// afterwards.
  public func releaseExtras() {
    analyzedExtrasTable.release(extrasID)
    decoded.releaseExtras()
  }

  /// For a Pairing Response: the method the two feature sets select.
  public var pairingMethod: SMPPairingMethod? {
    if case .pairingResponse(_, let method) = security { method } else { nil }
  }

  /// The handle an ATT PDU is about: its own, or its request's. Requests over a
  /// handle range name none (their range is in `att.start_handle`, `att.end_handle`).
  public var attHandle: UInt16? {
    guard let att = decoded.att else { return nil }
    switch att.parameters {
    case .handleRange, .findByTypeValue, .readByType: return nil
    default: return att.handle ?? exchange?.handle
    }
  }
}

/// Follows connections, ATT bearers and pairing across records: which connection
/// a record belongs to, which request a response answers, the ATT_MTU, and the
/// pairing method. State for a connection goes when it disconnects.
public struct LinkTracker {
  struct LinkKey: Hashable {
    var adapter: UInt16?
    var handle: UInt16

    func hash(into hasher: inout Hasher) {
      hasher.combine(UInt64(handle) | (adapter.map { UInt64($0) | 1 << 16 } ?? 0) << 16)
    }
  }

  /// One flow of ATT transactions: a client's requests and a server's indications are
  /// separate flows, each with at most one outstanding (Core 6.0, Vol 3, Part F, 3.3.2),
  /// and a device can be client and server on the same bearer at once.
  struct Bearer: Hashable {
    var cid: UInt16
    /// The direction of the request or indication waiting for its answer.
    var direction: Direction?
    var indication: Bool

    func hash(into hasher: inout Hasher) {
      hasher.combine(ACLKey(adapter: nil, handle: cid, direction: direction).packed << 1 | (indication ? 1 : 0))
    }
  }

  struct Outstanding {
    var bearer: Bearer
    var frame: Int
    var opcode: UInt8
    var handle: UInt16?
    var timestamp: Int64
    var type: BluetoothUUID?
    var valueUUID: BluetoothUUID?
    var offset: UInt16?

    func unanswered(_ conn: ConnectionRef, _ reason: UnansweredRequest.Reason) -> UnansweredRequest {
      UnansweredRequest(conn: conn, frame: frame, opcode: opcode, handle: handle, timestamp: timestamp, reason: reason)
    }
  }

  struct Link {
    var ref: ConnectionRef
    /// Client Rx MTU and Server Rx MTU as exchanged on the fixed ATT channel.
    var clientMTU: UInt16?
    var effectiveMTU: UInt16?
    /// At most one per bearer: a handful at once, searched in order.
    var outstanding: [Outstanding] = []
    var pairing = PairingProcedure()

    func outstandingIndex(_ bearer: Bearer) -> Int? { outstanding.firstIndex { $0.bearer == bearer } }
  }

  var links = LinkTable<Link>()
  private var nextID = 1
  var generations: [LinkKey: Int] = [:]
  /// The earliest time an outstanding request times out.
  var nextDeadline = Int64.max
  /// Connections heard on air (sniffer captures), by connection number.
  var airLinks = AirLinks()

  /// Connections followed at once; ACL data of further ones is decoded, not followed.
  public let maxLinks: Int
  /// Records of connections over the limit.
  public private(set) var untrackedRecords = 0

  public init(maxLinks: Int = 16_384) {
    self.maxLinks = maxLinks
  }

  /// The ATT transaction timeout (Core 6.0, Vol 3, Part F, 3.3.3).
  public static let transactionTimeoutMicroseconds: Int64 = 30_000_000

  /// The default ATT_MTU of an LE link (Core 6.0, Vol 3, Part F, 3.2.8).
  static let defaultLEMTU: UInt16 = 23

  public mutating func analyze(_ record: Record, _ decoded: consuming DecodedRecord) -> AnalyzedRecord {
    var analyzed = AnalyzedRecord(decoded: decoded)
    analyze(record, &analyzed)
    return analyzed
  }

  /// Analyzes the record `analyzed.decoded` was decoded from, in place.
  public mutating func analyze(_ record: Record, _ analyzed: inout AnalyzedRecord) {
    guard let hci = analyzed.decoded.hci else {
      if case .linkLayer = record.kind {
        var record = record
        record.direction = analyzed.decoded.ll?.direction?.hostDirection
        analyzeLinkLayer(record, &analyzed)
      } else if case .monitor(.deleteIndex) = record.kind {
        endAdapter(record.adapter, &analyzed)
      }
      return
    }
    if record.timestamp.unixMicroseconds >= nextDeadline { expire(at: record.timestamp.unixMicroseconds, &analyzed) }
    if let acl = analyzed.decoded.acl {
      // One lookup per record; the link is then changed in place, so its tables are not copied.
      let slot: Int
      if let known = links.slot(adapter: record.adapter, handle: acl.handle) {
        slot = known
      } else {
        guard links.count < maxLinks else {
          refuse(LinkKey(adapter: record.adapter, handle: acl.handle), &analyzed)
          return
        }
        // Up before the capture started: its peer and MTU are unknown.
        slot = links.insert(
          Link(ref: newRef(adapter: record.adapter, handle: acl.handle, generation: 0, isLE: true)),
          adapter: record.adapter, handle: acl.handle)
      }
      analyzed.conn = links[slot: slot].ref
      trackPDUs(record, at: slot, &analyzed)
    } else if hci.type == .event || hci.type == .command {
      analyzed.link = LinkEvent(record, hci)
      trackControl(record, hci, &analyzed)
    }
  }

  /// A connection over `maxLinks`: not followed.
  private mutating func refuse(_ key: LinkKey, _ analyzed: inout AnalyzedRecord) {
    untrackedRecords += 1
    analyzed.decoded.diagnostics.append(
      Diagnostic(
        id: "conn.limit", severity: .warning,
        "\(links.count) connections are followed, the limit: handle 0x\(hex(key.handle)) is not followed"))
  }

  mutating func newRef(adapter: UInt16?, handle: UInt16, generation: Int, isLE: Bool) -> ConnectionRef {
    defer { nextID += 1 }
    return ConnectionRef(id: nextID, adapter: adapter, handle: handle, generation: generation, isLE: isLE)
  }

  /// Ends the capture: the requests still waiting get no answer.
  public mutating func finish() -> [UnansweredRequest] {
    var unanswered: [UnansweredRequest] = []
    for key in links.keys {
      settleAll(LinkKey(adapter: key.adapter, handle: key.handle), .endOfCapture, into: &unanswered)
    }
    return unanswered.sorted { $0.frame < $1.frame }
  }

  /// Every request of a link waits no more: `analyzed` lists them.
  mutating func settleAll(_ key: LinkKey, _ reason: UnansweredRequest.Reason, into analyzed: inout AnalyzedRecord) {
    var list: [UnansweredRequest] = []
    settleAll(key, reason, into: &list)
    if !list.isEmpty { analyzed.unanswered += list }
  }

  /// Every request of a link waits no more.
  mutating func settleAll(
    _ key: LinkKey, _ reason: UnansweredRequest.Reason, into list: inout [UnansweredRequest]
  ) {
    guard let slot = links.slot(adapter: key.adapter, handle: key.handle), !links[slot: slot].outstanding.isEmpty
    else { return }
    let link = links[slot: slot]
    for request in link.outstanding.sorted(by: { $0.frame < $1.frame }) {
      list.append(request.unanswered(link.ref, reason))
    }
    links[slot: slot].outstanding.removeAll(keepingCapacity: true)
  }

  /// Requests older than the transaction timeout at `time` time out.
  mutating func expire(at time: Int64, _ analyzed: inout AnalyzedRecord) {
    nextDeadline = .max
    for key in links.keys {
      guard let slot = links.slot(adapter: key.adapter, handle: key.handle) else { continue }
      let link = links[slot: slot]
      for request in link.outstanding.sorted(by: { $0.frame < $1.frame }) {
        let deadline = request.timestamp + Self.transactionTimeoutMicroseconds
        if deadline <= time {
          analyzed.unanswered.append(request.unanswered(link.ref, .timeout))
          links[slot: slot].outstanding.removeAll { $0.bearer == request.bearer }
        } else {
          nextDeadline = min(nextDeadline, deadline)
        }
      }
    }
  }

  // MARK: - Connections

  private mutating func trackControl(_ record: Record, _ hci: HCILayer, _ analyzed: inout AnalyzedRecord) {
    switch analyzed.link {
    case .connectionComplete(let complete):
      guard complete.status == 0 else { return }
      let key = LinkKey(adapter: record.adapter, handle: complete.handle)
      // A handle completes again without a Disconnection Complete in between.
      settleAll(key, .disconnected, into: &analyzed)
      guard links[key] != nil || links.count < maxLinks else {
        refuse(key, &analyzed)
        return
      }
      generations[key, default: 0] += 1
      var ref = newRef(
        adapter: record.adapter, handle: complete.handle, generation: generations[key]!, isLE: complete.le)
      ref.peer = complete.peer
      ref.peerType = complete.peerType
      ref.role = complete.role
      var link = Link(ref: ref)
      if ref.isLE { link.effectiveMTU = Self.defaultLEMTU }
      links[key] = link
      analyzed.conn = ref
    case .disconnectionComplete(let status, let handle, _):
      let key = LinkKey(adapter: record.adapter, handle: handle)
      analyzed.conn = links[key]?.ref
      guard status == 0 else { return }
      analyzed.endedConnection = links[key]?.ref
      settleAll(key, .disconnected, into: &analyzed)
      links[key] = nil
    case .commandComplete, .commandStatus, .completedPackets:
      // Number Of Completed Packets is too frequent to walk; commands' answers name their
      // command's connection, not their own.
      return
    default:
      guard let handle = RecordDecoder.connectionHandle(record, hci) else { return }
      let key = LinkKey(adapter: record.adapter, handle: handle)
      analyzed.conn = links[key]?.ref
      if case .encryptionChange(0, _, true, _) = analyzed.link { analyzed.security = links[key]?.pairing.encrypted() }
    }
  }

  // MARK: - ATT

  /// ATT and SMP on the link in `slot`, changed in place (HCI and air captures alike).
  mutating func trackPDUs(_ record: Record, at slot: Int, _ analyzed: inout AnalyzedRecord) {
    if let att = analyzed.decoded.att, let l2cap = analyzed.decoded.l2cap,
      let deadline = Self.trackATT(record, att, l2cap, &links[slot: slot], &analyzed)
    {
      nextDeadline = min(nextDeadline, deadline)
    }
    if let smp = analyzed.decoded.smp { analyzed.security = links[slot: slot].pairing.step(smp, record.direction) }
  }

  /// Returns when a request that went out times out.
  private static func trackATT(
    _ record: Record, _ att: ATTPDU, _ l2cap: L2CAPLayer, _ link: inout Link, _ analyzed: inout AnalyzedRecord
  ) -> Int64? {
    let time = record.timestamp.unixMicroseconds
    let fixedChannel = l2cap.cid == L2CAPChannelID.attribute.rawValue
    if let mtu = fixedChannel ? link.effectiveMTU : l2cap.channelMTU {
      analyzed.mtu = mtu
      if l2cap.payload.count > Int(mtu), !l2cap.isCut {
        analyzed.decoded.diagnostics.append(
          Diagnostic(
            id: "att.mtu.exceeded", severity: .warning,
            "\(l2cap.payload.count)-byte ATT PDU on a bearer whose ATT_MTU is \(mtu)"))
      }
    }
    switch att.opcode.kind {
    case .request, .indication:
      let indication = if case .indication = att.opcode.kind { true } else { false }
      let bearer = Bearer(cid: l2cap.cid, direction: record.direction, indication: indication)
      var outstanding = Outstanding(
        bearer: bearer, frame: record.frame, opcode: att.opcode.rawValue, handle: att.handle, timestamp: time)
      switch att.parameters {
      case .readByType(_, _, let type): outstanding.type = type
      case .findByTypeValue(_, _, let type, let value):
        outstanding.type = BluetoothUUID(uuid16: type)
        outstanding.valueUUID = analyzed.decoded.withPayloadBytes(record) {
          $0.bluetoothUUID(at: value.start, width: value.count)
        }
      case .readBlob(_, let offset), .prepareWrite(_, let offset, _): outstanding.offset = offset
      default: break
      }
      if let earlier = link.outstandingIndex(bearer) {
        analyzed.unanswered.append(link.outstanding[earlier].unanswered(link.ref, .superseded))
        link.outstanding[earlier] = outstanding
      } else {
        link.outstanding.append(outstanding)
      }
      analyzed.awaitsAnswer = true
      if fixedChannel, let mtu = att.mtu { link.clientMTU = mtu }
      return time + transactionTimeoutMicroseconds
    case .response, .confirmation, .error:
      let bearer = Bearer(
        cid: l2cap.peerCID ?? l2cap.cid, direction: record.direction.map { $0 == .sent ? .received : .sent },
        indication: att.opcode.kind == .confirmation)
      guard let index = link.outstandingIndex(bearer) else { return nil }
      let request = link.outstanding[index]
      let answered: UInt8? =
        switch att.opcode.kind {
        case .response(let request): request
        case .confirmation: ATTOpcode.handleValueIndication.rawValue
        default: att.requestOpcode?.rawValue
        }
      guard answered == nil || answered == request.opcode else { return nil }
      link.outstanding.remove(at: index)
      analyzed.exchange = ATTExchange(
        requestFrame: request.frame, requestOpcode: request.opcode, handle: request.handle,
        latencyMicroseconds: time - request.timestamp, requestType: request.type, requestValueUUID: request.valueUUID,
        requestOffset: request.offset)
      if fixedChannel, let serverMTU = att.mtu, let clientMTU = link.clientMTU {
        link.effectiveMTU = max(defaultLEMTU, min(clientMTU, serverMTU))
      }
    default:
      break
    }
    return nil
  }

}

extension LinkTable {
  subscript(key: LinkTracker.LinkKey) -> Link? {
    get { self[adapter: key.adapter, handle: key.handle] }
    set { self[adapter: key.adapter, handle: key.handle] = newValue }
  }
}
