import BLECapture
import BLEDissect

/// ATT transactions by how they ended.
public struct OutcomeCounts: Hashable, Sendable {
  public var ok = 0
  public var error = 0
  public var timeout = 0
  public var unanswered = 0

  public init() {}

  public var total: Int { ok + error + timeout + unanswered }

  public mutating func add(_ outcome: Transaction.Outcome) {
    switch outcome {
    case .ok: ok += 1
    case .error: error += 1
    case .timeout: timeout += 1
    case .unanswered: unanswered += 1
    }
  }
}

/// A group of ATT transactions: how they ended, and the latency of those answered
/// (an Error Response is an answer too).
public struct TransactionStats: Hashable, Sendable {
  public var outcomes = OutcomeCounts()
  public var latency: LatencySummary?
  public var histogram = Histogram()

  public init(_ transactions: some Sequence<Transaction>) {
    var tally = TransactionTally()
    for transaction in transactions { tally.add(transaction) }
    self.init(tally)
  }

  init(_ tally: TransactionTally) {
    outcomes = tally.outcomes
    histogram = tally.histogram
    latency = LatencySummary(tally.latencies)
  }
}

/// What `TransactionStats` is made from, gathered one transaction at a time: the
/// outcomes, and the latencies as bare numbers (exact percentiles need them all).
struct TransactionTally {
  var outcomes = OutcomeCounts()
  var histogram = Histogram()
  var latencies: [Int64] = []

  mutating func add(_ transaction: Transaction) {
    outcomes.add(transaction.outcome)
    if let latency = transaction.latencyMicroseconds {
      latencies.append(latency)
      histogram.add(latency)
    }
  }

  /// Adds the transactions `other` tallied.
  mutating func add(_ other: Self) {
    outcomes.ok += other.outcomes.ok
    outcomes.error += other.outcomes.error
    outcomes.timeout += other.outcomes.timeout
    outcomes.unanswered += other.outcomes.unanswered
    histogram.add(other.histogram)
    latencies += other.latencies
  }
}

/// ATT PDUs of one opcode, both ways.
public struct OpcodeStats: Sendable {
  public var opcode: ATTOpcode
  public var count: Int
  /// Attribute value bytes the PDUs carry (`att.value`).
  public var valueBytes: Int
  /// For a request or an indication: its transactions.
  public var transactions: TransactionStats?
}

/// Error Responses with one Request Opcode In Error and Error Code.
public struct ErrorStats: Hashable, Sendable {
  public var request: ATTOpcode
  public var code: ATTErrorCode
  public var count: Int
}

/// A characteristic of one peer: the peer's address (nil when the capture does not show
/// it), the value handle and UUID (nil when no discovery or imported database named the
/// handle). Two peers with the same characteristic are two rows.
public struct CharacteristicKey: Hashable, Sendable, Comparable {
  public var peer: DeviceAddress?
  public var valueHandle: UInt16
  public var uuid: BluetoothUUID?

  public init(peer: DeviceAddress?, valueHandle: UInt16, uuid: BluetoothUUID?) {
    self.peer = peer
    self.valueHandle = valueHandle
    self.uuid = uuid
  }

  public static func < (a: Self, b: Self) -> Bool {
    if a.peer != b.peer { return (a.peer?.rawValue ?? 0) < (b.peer?.rawValue ?? 0) }
    if a.valueHandle != b.valueHandle { return a.valueHandle < b.valueHandle }
    return (a.uuid?.description ?? "") < (b.uuid?.description ?? "")
  }
}

/// What happened to one characteristic's value.
public struct CharacteristicStats: Sendable {
  public var key: CharacteristicKey
  /// The peer's type and name, as the capture told them.
  public var peerType: UInt8?
  public var peerName: String?
  /// The characteristic's attribute (names and service), when the database knows it.
  public var attribute: GATTAttribute?
  /// Read Requests and Read Blob Requests.
  public var reads = 0
  /// Write Requests.
  public var writeRequests = 0
  /// Write Commands and Signed Write Commands.
  public var writeCommands = 0
  /// Prepare Write Requests (each part of a long write).
  public var prepareWrites = 0
  /// Writes to the characteristic's Client Characteristic Configuration descriptor.
  public var cccdWrites = 0
  public var notifications = 0
  public var indications = 0
  /// Error Responses whose Attribute Handle In Error is the value.
  public var errors = 0
  /// Value bytes read, written, notified and indicated.
  public var valueBytes = 0
  /// Reads, writes and indications of the value, with their answers.
  public var transactions: TransactionStats?
}

/// One connection: its traffic, its transactions and its write→notify round trips.
public struct ConnectionStats: Sendable {
  public var ref: ConnectionRef
  public var peerName: String?
  /// From the Create Connection to the Connection Complete (central role).
  public var connectLatencyMicroseconds: Int64?
  /// From the Connection Complete (or the first record, for a link up before the
  /// capture) to the Disconnection Complete (or the last record).
  public var durationMicroseconds: Int64
  public var attPDUs = 0
  public var valueBytes = 0
  public var transactions: TransactionStats
  public var pairs: Int
  public var rtt: LatencySummary?
  public var disconnect: Disconnect?
}

/// Write→notify pairs between two characteristics, and their round-trip times.
public struct PairStats: Sendable {
  public var write: CharacteristicKey
  public var writeAttribute: GATTAttribute?
  public var notify: CharacteristicKey
  public var notifyAttribute: GATTAttribute?
  public var rtt: LatencySummary
}

/// Counts and latency statistics of a capture (`bleanalyze stats`).
///
/// `add` counts each analyzed record (ATT PDUs per opcode, per characteristic, per
/// connection; Error Responses per request and code) and keeps nothing of it;
/// `add(connection:)` takes each connection of the capture's `Timeline`, in the
/// timeline's order, as it retires (`TimelineBuilder.retires`), and keeps only numbers
/// of it: its own summary, and the latencies and round trips per request opcode, per
/// characteristic and per pair of characteristics; `finish` adds the connections the
/// timeline still holds and makes the summaries: each as a `LatencySummary` and a
/// `Histogram`.
public struct Statistics {
  public private(set) var records = 0
  /// The time of the first and the last record.
  public private(set) var first: Timestamp?
  public private(set) var last: Timestamp?
  public private(set) var attPDUs = 0
  /// Records the capture source lost (`Record.droppedBefore`).
  public private(set) var dropped = 0
  /// Air sniffer captures: link-layer packets, those with a bad CRC, retransmissions.
  public private(set) var llPackets = 0
  public private(set) var llCRCBad = 0
  public private(set) var llRetransmissions = 0

  private var opcodeCounts = [Int](repeating: 0, count: 256)
  private var opcodeBytes = [Int](repeating: 0, count: 256)
  private var errorCounts: [UInt16: Int] = [:]
  private var characteristicIndex: [CharacteristicKey: Int] = [:]
  /// The characteristic counted last: notifications come in runs, so most records
  /// need no hashing.
  private var lastKey: CharacteristicKey?
  private var lastIndex = 0
  /// ATT PDUs and value bytes by connection id (ids count from 1).
  private var connectionCounts: [(pdus: Int, bytes: Int)] = []
  /// Each connection's peer, by id.
  private var connectionPeers: [Int: DeviceAddress] = [:]
  /// The transactions of the connections added, by request opcode and by characteristic
  /// (index in `characteristics` before they are sorted).
  private var opcodeTallies: [UInt8: TransactionTally] = [:]
  private var characteristicTallies: [Int: TransactionTally] = [:]
  /// Write→notify round trips by route.
  private var routes: [PairRoute: RouteTally] = [:]
  /// Connections that completed but failed to be established, by id.
  private var failedConnections: Set<Int> = []

  struct PairRoute: Hashable {
    var write: CharacteristicKey
    var notify: CharacteristicKey
  }

  /// A route's round trips, with the write frame and the attributes of its first pair.
  struct RouteTally {
    var write: Int
    var writeAttribute: GATTAttribute?
    var notifyAttribute: GATTAttribute?
    var rtts: [Int64] = []
  }

  /// Opcodes seen, ascending.
  public private(set) var opcodes: [OpcodeStats] = []
  /// By request opcode, then error code.
  public private(set) var errors: [ErrorStats] = []
  /// By value handle.
  public private(set) var characteristics: [CharacteristicStats] = []
  /// By connection id.
  public private(set) var connections: [ConnectionStats] = []
  /// Every transaction of the capture.
  public private(set) var transactions = TransactionStats([])
  /// Create Connection commands by outcome (`ConnectionAttempt.Outcome`'s names, and
  /// `failed_to_establish` for a connection that completed but failed to be
  /// established, which is not connected).
  public private(set) var attempts: [(outcome: String, count: Int)] = []
  /// Connections that completed but failed to be established (Connection Failed to be
  /// Established, 0x3E, within their first connection events): in `connections`, but
  /// not counted as connected.
  public private(set) var failedToEstablish = 0
  /// Connections that completed after a Create Connection in the capture.
  public private(set) var connectLatency: LatencySummary?
  public private(set) var connectHistogram = Histogram()
  /// Write→notify round trips.
  public private(set) var rtt: LatencySummary?
  public private(set) var rttHistogram = Histogram()
  public private(set) var pairs: [PairStats] = []
  /// The connections' security summed up.
  public private(set) var security = SecuritySummary()

  public init() {}

  /// The attempt outcome of a connection that completed but failed to be established.
  public static let failedToEstablishOutcome = "failed_to_establish"

  /// From the first record to the last.
  public var durationMicroseconds: Int64 {
    guard let first, let last else { return 0 }
    return last.unixMicroseconds - first.unixMicroseconds
  }

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    records += 1
    dropped += record.droppedBefore
    if first == nil { first = record.timestamp }
    last = record.timestamp
    if analyzed.decoded.linkLayer != nil, let ll = analyzed.decoded.ll {
      // A damaged or repeated air packet is counted, and stays out of the ATT counts.
      llPackets += 1
      if ll.radio.crc == .bad { llCRCBad += 1 }
      if ll.isRetransmission { llRetransmissions += 1 }
      if ll.radio.crc == .bad || ll.isRetransmission { return }
    }
    guard let att = analyzed.decoded.att else { return }
    attPDUs += 1
    let code = Int(att.opcode.rawValue)
    let bytes = att.value?.count ?? 0
    opcodeCounts[code] += 1
    opcodeBytes[code] += bytes
    if let request = att.requestOpcode, let error = att.error {
      errorCounts[UInt16(request.rawValue) << 8 | UInt16(error.rawValue), default: 0] += 1
    }
    if let id = analyzed.conn?.id, id >= 0 {
      if id >= connectionCounts.count {
        connectionCounts += repeatElement((pdus: 0, bytes: 0), count: id + 1 - connectionCounts.count)
      }
      connectionCounts[id].pdus += 1
      connectionCounts[id].bytes += bytes
      if connectionCounts[id].pdus == 1, let peer = analyzed.conn?.peer { connectionPeers[id] = peer }
    }
    countCharacteristic(att, analyzed, bytes: bytes)
  }

  /// The characteristic value an ATT PDU reads, writes, notifies or indicates, or the
  /// error about it. Declarations and descriptors are not characteristics' values.
  private mutating func countCharacteristic(_ att: ATTPDU, _ analyzed: AnalyzedRecord, bytes: Int) {
    let kind = Self.characteristicAccess[Int(att.opcode.rawValue)]
    // Handle 0x0000 is reserved: an Error Response names it for a malformed request.
    guard kind != .none, let handle = analyzed.attHandle, handle != 0 else { return }
    // An error about a discovery request names the start of a range, not a value.
    if kind == .error, !Self.singleAttributeRequests.contains(att.requestOpcode?.rawValue ?? 0) { return }
    let peer = analyzed.conn?.peer
    let key: CharacteristicKey
    var cccd = false
    switch analyzed.attribute {
    case nil: key = CharacteristicKey(peer: peer, valueHandle: handle, uuid: nil)
    case let attribute? where attribute.kind == .value:
      key = CharacteristicKey(peer: peer, valueHandle: attribute.valueHandle ?? handle, uuid: attribute.characteristic)
    case let attribute? where kind == .write && attribute.uuid == Self.cccd:
      // A CCCD write counts for the characteristic it configures.
      guard let valueHandle = attribute.valueHandle else { return }
      key = CharacteristicKey(peer: peer, valueHandle: valueHandle, uuid: attribute.characteristic)
      cccd = true
    default: return
    }
    let i: Int
    if key == lastKey {
      i = lastIndex
    } else if let known = characteristicIndex[key] {
      i = known
    } else {
      i = characteristics.count
      characteristicIndex[key] = i
      characteristics.append(
        CharacteristicStats(
          key: key, peerType: analyzed.conn?.peerType, peerName: analyzed.peerName?.name,
          attribute: cccd ? nil : analyzed.attribute))
    }
    lastKey = key
    lastIndex = i
    if characteristics[i].attribute == nil, !cccd { characteristics[i].attribute = analyzed.attribute }
    if characteristics[i].peerName == nil { characteristics[i].peerName = analyzed.peerName?.name }
    switch kind {
    case .read: characteristics[i].reads += 1
    case .write:
      if cccd {
        characteristics[i].cccdWrites += 1
      } else if att.opcode == .writeRequest {
        characteristics[i].writeRequests += 1
      } else if att.opcode == .prepareWriteRequest {
        characteristics[i].prepareWrites += 1
      } else {
        characteristics[i].writeCommands += 1
      }
    case .notification: characteristics[i].notifications += 1
    case .indication: characteristics[i].indications += 1
    case .error: characteristics[i].errors += 1
    case .response, .none: break
    }
    if kind != .error, !cccd { characteristics[i].valueBytes += bytes }
  }

  static let cccd = BluetoothUUID(uuid16: 0x2902)

  enum Access {
    case none, read, response, write, notification, indication, error
  }

  /// How each opcode touches a characteristic's value.
  static let characteristicAccess: [Access] = {
    var table = [Access](repeating: .none, count: 256)
    for (opcode, access) in [
      (0x01, Access.error), (0x0A, .read), (0x0B, .response), (0x0C, .read), (0x0D, .response), (0x12, .write),
      (0x16, .write), (0x52, .write), (0xD2, .write), (0x1B, .notification), (0x1D, .indication),
    ] {
      table[opcode] = access
    }
    return table
  }()

  /// Requests about one attribute (its value, for a characteristic), and indications.
  static let singleAttributeRequests: Set<UInt8> = [0x0A, 0x0C, 0x12, 0x16, 0x1D]

  /// Takes a connection of the timeline, with its transactions and pairs, once every
  /// record up to its end was added; connections come in the timeline's order.
  public mutating func add(connection: ConnectionTimeline) {
    let id = connection.ref.id
    for transaction in connection.transactions {
      opcodeTallies[transaction.opcode, default: TransactionTally()].add(transaction)
      if let i = characteristic(of: transaction) {
        characteristicTallies[i, default: TransactionTally()].add(transaction)
      }
    }
    for pair in connection.pairs { add(pair) }
    let counts = connectionCounts.indices.contains(id) ? connectionCounts[id] : (pdus: 0, bytes: 0)
    let start = connection.complete ?? connection.first
    let end = connection.disconnect?.complete ?? connection.last
    connections.append(
      ConnectionStats(
        ref: connection.ref, peerName: connection.peerName,
        connectLatencyMicroseconds: connection.connectLatencyMicroseconds,
        durationMicroseconds: start.microseconds(to: end), attPDUs: counts.pdus, valueBytes: counts.bytes,
        transactions: TransactionStats(connection.transactions), pairs: connection.pairs.count,
        rtt: LatencySummary(connection.pairs.map(\.rttMicroseconds)), disconnect: connection.disconnect))
    security.add(connection.security)
    if connection.disconnect?.initiator == .failedToEstablish { failedConnections.insert(id) }
  }

  /// The characteristic (index before sorting) whose value a read, write or indication is about.
  private func characteristic(of transaction: Transaction) -> Int? {
    guard Self.singleAttributeRequests.contains(transaction.opcode), let handle = transaction.handle else { return nil }
    // A descriptor's or declaration's transaction names a characteristic whose
    // value handle is another handle.
    if let valueHandle = transaction.valueHandle, valueHandle != handle { return nil }
    let peer = connectionPeers[transaction.conn]
    return characteristicIndex[CharacteristicKey(peer: peer, valueHandle: handle, uuid: transaction.characteristic)]
  }

  private mutating func add(_ pair: WriteNotifyPair) {
    let peer = connectionPeers[pair.conn]
    let route = PairRoute(
      write: CharacteristicKey(peer: peer, valueHandle: pair.writeHandle, uuid: pair.writeCharacteristic),
      notify: CharacteristicKey(peer: peer, valueHandle: pair.notifyHandle, uuid: pair.notifyCharacteristic))
    let first = RouteTally(
      write: pair.write.frame, writeAttribute: pair.writeAttribute, notifyAttribute: pair.notifyAttribute)
    var tally = routes.removeValue(forKey: route) ?? first
    // The attributes are the first pair's in write order.
    if first.write < tally.write {
      tally = RouteTally(
        write: first.write, writeAttribute: first.writeAttribute, notifyAttribute: first.notifyAttribute,
        rtts: tally.rtts)
    }
    tally.rtts.append(pair.rttMicroseconds)
    routes[route] = tally
  }

  /// Takes the latencies from the capture's timeline, once every record was added:
  /// the connections it still holds are added first.
  public mutating func finish(_ timeline: Timeline) {
    for connection in timeline.connections { add(connection: connection) }
    var all = TransactionTally()
    for tally in opcodeTallies.values { all.add(tally) }
    transactions = TransactionStats(all)
    finishOpcodes()
    errors = errorCounts.sorted { $0.key < $1.key }.map {
      ErrorStats(
        request: ATTOpcode(rawValue: UInt8($0.key >> 8)), code: ATTErrorCode(rawValue: UInt8($0.key & 0xFF)),
        count: $0.value)
    }
    finishCharacteristics()
    finishConnections(timeline)
    finishPairs()
  }

  private mutating func finishOpcodes() {
    opcodes = opcodeCounts.indices.compactMap { code in
      let opcode = UInt8(code)
      let tally = opcodeTallies[opcode]
      guard opcodeCounts[code] > 0 || tally != nil else { return nil }
      return OpcodeStats(
        opcode: ATTOpcode(rawValue: opcode), count: opcodeCounts[code], valueBytes: opcodeBytes[code],
        transactions: tally.map(TransactionStats.init))
    }
    opcodeTallies = [:]
  }

  private mutating func finishCharacteristics() {
    for (i, tally) in characteristicTallies { characteristics[i].transactions = TransactionStats(tally) }
    characteristicTallies = [:]
    characteristics.sort { $0.key < $1.key }
    characteristicIndex = Dictionary(uniqueKeysWithValues: characteristics.enumerated().map { ($1.key, $0) })
    lastKey = nil
  }

  private mutating func finishConnections(_ timeline: Timeline) {
    connections.sort { $0.ref.id < $1.ref.id }
    let latencies = connections.compactMap(\.connectLatencyMicroseconds)
    connectLatency = LatencySummary(latencies)
    connectHistogram = Histogram(latencies)
    let failed = failedConnections
    failedToEstablish = failed.count
    var outcomes: [String: Int] = [:]
    for attempt in timeline.attempts {
      let failedConnection = attempt.outcome == .connected && attempt.connection.map(failed.contains) == true
      outcomes[failedConnection ? Self.failedToEstablishOutcome : attempt.outcome.rawValue, default: 0] += 1
    }
    let order: [ConnectionAttempt.Outcome] = [.connected, .cancelled, .failed, .timedOut, .pending]
    attempts = ([order[0].rawValue, Self.failedToEstablishOutcome] + order.dropFirst().map(\.rawValue)).compactMap {
      outcome in outcomes[outcome].map { (outcome, $0) }
    }
  }

  private mutating func finishPairs() {
    let rtts = routes.values.flatMap(\.rtts)
    rtt = LatencySummary(rtts)
    rttHistogram = Histogram(rtts)
    // By characteristics; routes that compare alike in the order of their first pair.
    let order = routes.sorted {
      ($0.key.write, $0.key.notify, $0.value.write) < ($1.key.write, $1.key.notify, $1.value.write)
    }
    pairs = order.compactMap { route, value in
      guard let rtt = LatencySummary(value.rtts) else { return nil }
      return PairStats(
        write: route.write, writeAttribute: value.writeAttribute, notify: route.notify,
        notifyAttribute: value.notifyAttribute, rtt: rtt)
    }
    routes = [:]
  }
}
