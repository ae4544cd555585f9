import BLECapture
import BLEDissect

/// A record's place in the capture: its frame number and time (Unix µs).
public struct FrameTime: Hashable, Sendable, Comparable {
  public var frame: Int
  public var timestamp: Int64

  public init(frame: Int, timestamp: Int64) {
    self.frame = frame
    self.timestamp = timestamp
  }

  init(_ record: Record) {
    self.init(frame: record.frame, timestamp: record.timestamp.unixMicroseconds)
  }

  /// Microseconds from `self` to `later`.
  public func microseconds(to later: FrameTime) -> Int64 { later.timestamp - timestamp }

  public static func < (a: Self, b: Self) -> Bool { a.frame < b.frame }
}

/// Connection_Interval: units of 1.25 ms (Core 6.0, Vol 4, Part E, 7.7.65.1).
public struct ConnectionInterval: Hashable, Sendable {
  public var units: UInt16
  public var microseconds: Int64 { Int64(units) * 1250 }
  public var milliseconds: Double { Double(units) * 1.25 }
}

/// Supervision_Timeout: units of 10 ms.
public struct SupervisionTimeout: Hashable, Sendable {
  public var units: UInt16
  public var milliseconds: Int { Int(units) * 10 }
}

/// The parameters a connection runs with, from its completion or an update.
public struct ConnectionParameters: Hashable, Sendable {
  public var interval: ConnectionInterval
  /// Peripheral_Latency, in connection events.
  public var latency: UInt16
  public var supervisionTimeout: SupervisionTimeout
}

/// An LE (Extended) Create Connection or Create Connection command and what became of it.
public struct ConnectionAttempt: Sendable {
  public enum Outcome: String, Sendable {
    /// A connection completed.
    case connected
    /// The host cancelled it (Create Connection Cancel) before a connection completed.
    case cancelled
    /// The command or the completion reported an error.
    case failed
    /// The controller gave up waiting for the peer (Page Timeout, Connection Failed
    /// to be Established, Connection Timeout).
    case timedOut = "timed_out"
    /// Still waiting when the capture ended.
    case pending

    /// Status codes that mean the controller gave up waiting for the peer.
    static let timeoutStatuses: Set<UInt8> = [0x04, 0x08, 0x22, 0x3E]

    /// How an attempt ended whose completion (or Command Status) reported `status`;
    /// `cancelled` when the host sent a Create Connection Cancel for it.
    init(status: UInt8, cancelled: Bool) {
      self =
        if status == 0 {
          .connected
        } else if cancelled || status == HCIStatusCode.operationCancelledByHost.rawValue {
          .cancelled
        } else if Self.timeoutStatuses.contains(status) {
          .timedOut
        } else {
          .failed
        }
    }
  }

  public var adapter: UInt16?
  /// The command's name as the spec writes it.
  public var command: String
  public var create: FrameTime
  /// The address asked for; nil when the Filter Accept List decides.
  public var peer: DeviceAddress?
  public var peerType: UInt8?
  public var cancel: FrameTime?
  /// The Connection Complete, or the Command Status that refused the command.
  public var result: FrameTime?
  public var status: UInt8?
  public var outcome: Outcome = .pending
  /// The connection it made.
  public var connection: Int?

  /// From the command to its result.
  public var latencyMicroseconds: Int64? { result.map { create.microseconds(to: $0) } }
  var isLE: Bool
  /// Attempts are numbered from 0 in the order they began.
  var number = 0
  /// The peer's name, as far as the capture told it.
  public var peerName: String?
}

/// An LE Data Length Change.
public struct DataLengthChange: Hashable, Sendable {
  public var at: FrameTime
  public var maxTXOctets: UInt16
  public var maxTXTime: UInt16
  public var maxRXOctets: UInt16
  public var maxRXTime: UInt16
}

/// An LE PHY Update Complete: 1 (LE 1M), 2 (LE 2M), 3 (LE Coded).
public struct PHYChange: Hashable, Sendable {
  public var at: FrameTime
  public var tx: UInt8
  public var rx: UInt8

  public static func name(_ phy: UInt8) -> String {
    switch phy {
    case 1: "1M"
    case 2: "2M"
    case 3: "Coded"
    default: "0x" + hex(phy)
    }
  }
}

/// An LE Connection Update Complete, or a request for one (L2CAP Connection
/// Parameter Update Request, LE Remote Connection Parameter Request).
public struct ParameterUpdate: Hashable, Sendable {
  public var at: FrameTime
  /// The parameters now in force; nil for a request or a failed update.
  public var parameters: ConnectionParameters?
  public var status: UInt8
  /// What happened: `LE Connection Update Complete`, `L2CAP Connection Parameter Update Request`…
  public var what: String
}

/// The ATT MTU exchange on the fixed ATT channel.
public struct MTUExchange: Hashable, Sendable {
  public var request: FrameTime
  public var response: FrameTime?
  public var clientMTU: UInt16
  public var serverMTU: UInt16?
  /// The ATT_MTU both sides use from then on.
  public var mtu: UInt16? { serverMTU.map { max(23, min(clientMTU, $0)) } }
}

/// An Encryption Change (or Key Refresh), with the command or request that started it.
public struct EncryptionChange: Hashable, Sendable {
  /// LE Enable Encryption (central) or LE Long Term Key Request (peripheral).
  public var start: FrameTime?
  public var change: FrameTime
  public var status: UInt8
  public var enabled: Bool
  public var isKeyRefresh: Bool
}

/// SMP pairing, from its first PDU to the encryption it brought, or its failure.
public struct Pairing: Hashable, Sendable {
  public var start: FrameTime
  /// Pairing Request from the central's host: this host when it sent it.
  public var localInitiated: Bool
  public var method: SMPPairingMethod?
  public var bonding: Bool
  /// The Encryption Change that followed.
  public var encrypted: FrameTime?
  /// Pairing Failed: its reason.
  public var failed: (at: FrameTime, reason: UInt8)?
  /// Whether this host sent the Pairing Failed.
  public var failedByLocal: Bool?
  public var latencyMicroseconds: Int64? { encrypted.map { start.microseconds(to: $0) } }

  public static func == (a: Self, b: Self) -> Bool {
    a.start == b.start && a.method == b.method && a.encrypted == b.encrypted && a.failed?.at == b.failed?.at
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(start) }
}

/// An SMP Security Request: a peripheral asks its central to pair or encrypt
/// (Core 6.0, Vol 3, Part H, 3.6.7), and what the central answered.
public struct SecurityRequest: Hashable, Sendable {
  public var at: FrameTime
  /// This host sent it (it is the peripheral).
  public var byLocal: Bool
  public var bonding: Bool
  public var mitm: Bool
  /// The answer: a Pairing Request, LE Enable Encryption, or Pairing Failed with its reason.
  public var answer: FrameTime?
  public var answerName: String?
  public var refusedReason: UInt8?
}

/// The first run of GATT discovery procedures on a connection.
public struct Discovery: Hashable, Sendable {
  public var start: FrameTime
  /// The answer to the last discovery request of the run.
  public var end: FrameTime
  /// Discovery requests in the run.
  public var requests: Int
  /// Whether this host ran it (the client), or the peer.
  public var byLocal: Bool
  public var durationMicroseconds: Int64 { start.microseconds(to: end) }
}

/// A Client Characteristic Configuration write.
public struct Subscription: Hashable, Sendable {
  public var at: FrameTime
  /// The descriptor's handle and the characteristic's value handle.
  public var handle: UInt16
  /// The Client Characteristic Configuration descriptor, when the database knows it.
  public var attribute: GATTAttribute?
  public var valueHandle: UInt16? { attribute?.valueHandle }
  public var characteristic: BluetoothUUID? { attribute?.characteristic }
  /// The characteristic's name, else its UUID, for people.
  public var characteristicLabel: String? {
    attribute.flatMap { $0.characteristicName ?? $0.characteristicUUIDText }
  }
  /// 0x0001 notifications, 0x0002 indications, 0 off.
  public var value: UInt16
  /// Set when the write was a Write Request and its answer came: ok or the error.
  public var outcome: Transaction.Outcome?

  public var valueName: String {
    switch value {
    case 0: "off"
    case 1: "notify"
    case 2: "indicate"
    case 3: "notify+indicate"
    default: "0x" + hex(value)
    }
  }
}

/// Who ended a connection.
public enum DisconnectInitiator: String, Sendable {
  /// This host (an HCI Disconnect it sent, or reason Connection Terminated By Local Host).
  case local
  /// The peer.
  case remote
  /// Neither: the link was lost (Connection Timeout, LL Response Timeout, or Connection
  /// Failed to be Established once the connection had been running).
  case linkLoss = "link_loss"
  /// The connection never got going: Connection Failed to be Established (0x3E) within
  /// its first connection events. Android reports it as status 62 or 133, CoreBluetooth
  /// as didFailToConnect.
  case failedToEstablish = "failed_to_establish"
  /// The adapter went away (Linux monitor Index Removed) with the connection up: the
  /// kernel ends its connections with no HCI event, as Connection Terminated By Local
  /// Host (0x16) to its own sockets.
  case adapterGone = "adapter_gone"

  /// Reasons that mean the link was lost, not closed.
  static let linkLossReasons: Set<UInt8> = [0x08, 0x22, 0x28, 0x3E]

  /// The Link Layer gives up on a new connection when no packet arrives in its first
  /// six connection events (Core 6.0, Vol 6, Part B, 4.5.2); a 0x3E that comes within
  /// twice that many intervals of the completion is that failure, a later one a loss.
  static let establishmentEvents: Int64 = 12

  /// `sinceComplete` is the time from the connection's completion to its end, and
  /// `interval` the interval it started with, when the capture shows them.
  static func of(
    reason: UInt8, localCommand: Bool, sinceComplete: Int64? = nil, interval: ConnectionInterval? = nil
  ) -> Self {
    if localCommand { return .local }
    if reason == HCIStatusCode.connectionFailedToBeEstablished.rawValue, let sinceComplete, let interval,
      sinceComplete <= establishmentEvents * interval.microseconds
    {
      return .failedToEstablish
    }
    if linkLossReasons.contains(reason) { return .linkLoss }
    return reason == HCIStatusCode.connectionTerminatedByLocalHost.rawValue ? .local : .remote
  }
}

/// How a connection ended.
public struct Disconnect: Hashable, Sendable {
  /// The HCI Disconnect this host sent, and the reason it gave.
  public var command: FrameTime?
  public var commandReason: UInt8?
  public var complete: FrameTime
  public var reason: UInt8
  public var initiator: DisconnectInitiator
  public var reasonName: String { HCIStatusCode(rawValue: reason).name }
}

/// An ATT request (or indication) and its answer.
public struct Transaction: Sendable {
  public enum Outcome: String, Sendable {
    case ok
    /// An Error Response.
    case error
    /// No answer within 30 s.
    case timeout
    /// No answer before the link went down, another request replaced it, or the capture ended.
    case unanswered
  }

  public var conn: Int
  /// The request's (or indication's) opcode.
  public var opcode: UInt8
  public var handle: UInt16?
  public var request: FrameTime
  public var response: FrameTime?
  public var responseOpcode: UInt8?
  /// The Error Response's Error Code.
  public var errorCode: UInt8?
  public var outcome: Outcome
  /// Whether this host sent the request (it is the client).
  public var byLocal: Bool
  /// The attribute the request is about, when the GATT database knows it.
  public var attribute: GATTAttribute?
  public var characteristic: BluetoothUUID? { attribute?.characteristic }
  public var valueHandle: UInt16? { attribute?.valueHandle }
  /// The attribute's label (`Heart Rate Measurement`, `Client Characteristic Configuration of …`).
  public var name: String? { attribute?.label }
  public var latencyMicroseconds: Int64? { response.map { request.microseconds(to: $0) } }

  /// An Attribute Not Found that ends a search (discovery, Read By Type): how a server
  /// says there is no more, not a failure.
  public var endsSearch: Bool {
    errorCode == ATTErrorCode.attributeNotFound.rawValue && [0x04, 0x06, 0x08, 0x10].contains(opcode)
  }
}

/// A write answered by a notification or indication.
public struct WriteNotifyPair: Sendable {
  public var conn: Int
  public var write: FrameTime
  public var writeOpcode: UInt8
  public var writeHandle: UInt16
  /// The written and the notified attributes, when the database knows them.
  public var writeAttribute: GATTAttribute?
  public var notify: FrameTime
  public var notifyOpcode: UInt8
  public var notifyHandle: UInt16
  public var notifyAttribute: GATTAttribute?
  public var writeCharacteristic: BluetoothUUID? { writeAttribute?.characteristic }
  public var notifyCharacteristic: BluetoothUUID? { notifyAttribute?.characteristic }
  /// Their labels, for people.
  public var writeName: String? { writeAttribute?.label }
  public var notifyName: String? { notifyAttribute?.label }
  /// Whether a `--pair` rule made it, rather than the same-service rule.
  public var byRule: Bool
  public var rttMicroseconds: Int64 { write.microseconds(to: notify) }
}

/// A connection's story: how it came up, what ran over it, how it ended.
public struct ConnectionTimeline: Sendable {
  public var ref: ConnectionRef
  /// The peer's name: the Device Name read on the connection, else the Local Name its
  /// address advertised, as far as the capture told it.
  public var peerName: String?
  /// The access address of a connection heard on air (sniffer captures).
  public var accessAddress: UInt32?
  /// The Create Connection that led to it (central role).
  public var attempt: ConnectionAttempt?
  /// The (LE Enhanced) Connection Complete; nil when the link was up before the capture.
  public var complete: FrameTime?
  /// The parameters the connection started with.
  public var parameters: ConnectionParameters?
  public var updates: [ParameterUpdate] = []
  /// The parameters in force at the end: the last successful update's, or the first.
  public var currentParameters: ConnectionParameters? {
    updates.last(where: { $0.parameters != nil })?.parameters ?? parameters
  }
  public var remoteFeatures: FrameTime?
  public var remoteVersion: (at: FrameTime, version: UInt8, company: UInt16)?
  public var dataLength: [DataLengthChange] = []
  public var phy: [PHYChange] = []
  public var mtu: MTUExchange?
  public var encryption: [EncryptionChange] = []
  public var pairing: [Pairing] = []
  public var securityRequests: [SecurityRequest] = []
  public var discovery: Discovery?
  public var subscriptions: [Subscription] = []
  public var disconnect: Disconnect?
  /// From this connection's end to the next connection with the same peer.
  public var reconnectGapMicroseconds: Int64?
  /// The connection that came next with the same peer.
  public var reconnectedAs: Int?
  public var transactions: [Transaction] = []
  public var pairs: [WriteNotifyPair] = []
  /// ATT PDUs per opcode, both ways.
  public var attCounts: [UInt8: Int] = [:]
  /// Pairing, encryption, the security level and the findings (`SecurityTracker`); nil
  /// when the connection had no pairing, no encryption and no ATT security error.
  public var security: ConnectionSecurity?
  public var first: FrameTime
  public var last: FrameTime

  public var connectLatencyMicroseconds: Int64? {
    guard let attempt, let complete else { return nil }
    return attempt.create.microseconds(to: complete)
  }
}

/// Every connection, attempt, transaction and pair of a capture.
public struct Timeline: Sendable {
  /// The first record's time: where relative times start.
  public var start: Int64?
  public var connections: [ConnectionTimeline] = []
  public var attempts: [ConnectionAttempt] = []
  /// Adapters added, opened, closed and removed (Linux monitor records), in frame order.
  public var adapterEvents: [AdapterEvent] = []
  /// The reconnect gap and the next connection of each connection that had retired
  /// (`TimelineBuilder.retires`) before its peer reconnected, by connection id.
  public var retiredReconnects: [Int: (gapMicroseconds: Int64, next: Int)] = [:]

  public init() {}

  /// Every connection's transactions, in request order.
  public var transactions: [Transaction] { connections.flatMap(\.transactions).sorted { $0.request < $1.request } }
  /// The same once `TimelineBuilder.finish` has put each connection's in request order,
  /// merged from them as they are read rather than copied and sorted.
  public var transactionsInOrder: TransactionMerge { TransactionMerge(connections) }
  public var pairs: [WriteNotifyPair] { connections.flatMap(\.pairs).sorted { $0.write < $1.write } }
}

/// Merges the connections' transactions, each connection's in request order, into one
/// sequence in request order without copying them: a heap holds each connection's next.
public struct TransactionMerge: Sequence, IteratorProtocol {
  private let connections: [ConnectionTimeline]
  /// (request frame, connection, position) of each connection's next transaction: a min-heap.
  private var heap: [(frame: Int, connection: Int, position: Int)] = []

  init(_ connections: [ConnectionTimeline]) {
    self.connections = connections
    for (c, connection) in connections.enumerated() {
      guard let first = connection.transactions.first else { continue }
      push((first.request.frame, c, 0))
    }
  }

  public mutating func next() -> Transaction? {
    guard let top = heap.first else { return nil }
    let transactions = connections[top.connection].transactions
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(0)
    }
    if top.position + 1 < transactions.count {
      push((transactions[top.position + 1].request.frame, top.connection, top.position + 1))
    }
    return transactions[top.position]
  }

  private mutating func push(_ item: (frame: Int, connection: Int, position: Int)) {
    heap.append(item)
    var i = heap.count - 1
    while i > 0, heap[(i - 1) / 2].frame > heap[i].frame {
      heap.swapAt(i, (i - 1) / 2)
      i = (i - 1) / 2
    }
  }

  private mutating func siftDown(_ start: Int) {
    var i = start
    while true {
      var least = i
      for child in [2 * i + 1, 2 * i + 2] where child < heap.count && heap[child].frame < heap[least].frame {
        least = child
      }
      guard least != i else { return }
      heap.swapAt(i, least)
      i = least
    }
  }
}
