import BLECapture
import BLEDissect

/// The link a connection runs with at one moment: its parameters, each direction's PHY
/// and data length, and the ATT_MTU.
public struct LinkInForce: Hashable, Sendable {
  /// Interval, Peripheral Latency and Supervision Timeout; nil when the capture began
  /// after the connection was made and no update came since.
  public var parameters: ConnectionParameters?
  public var phyTX: LEPHY = .le1M
  public var phyRX: LEPHY = .le1M
  /// LE Data Length Change (or LL_LENGTH_RSP on air); 27 octets and 328 µs each way until one.
  public var dataLength = LinkEvent.DataLength(maxTXOctets: 27, maxTXTime: 328, maxRXOctets: 27, maxRXTime: 328)
  public var mtu: UInt16 = ATTPDU.minimumMTU

  public init() {}

  public func phy(_ direction: PayloadDirection) -> LEPHY { direction == .tx ? phyTX : phyRX }

  /// The largest PDU payload the sender of `direction` may send.
  public func dataLength(_ direction: PayloadDirection) -> Int {
    Int(direction == .tx ? dataLength.maxTXOctets : dataLength.maxRXOctets)
  }
}

/// What changed on a link while a transfer ran: the segment before and the one after it.
public struct LinkChange: Hashable, Sendable {
  public enum Kind: String, Sendable {
    case parameters, phy
    case dataLength = "data_length"
    case mtu
  }

  public var at: FrameTime
  public var kinds: [Kind]
  public var before: LinkInForce
  public var after: LinkInForce
}

/// What the host side shows of a transfer it sent: the controller's buffers, how many
/// the transfer's packets held, the time the host waited for one, and how soon Number Of
/// Completed Packets gave them back.
public struct HostFacts: Hashable, Sendable {
  /// The buffers LE packets use, and each one's size; nil when the capture does not show
  /// LE Read Buffer Size or Read Buffer Size.
  public var buffers: Int?
  public var bufferOctets: Int?
  /// Whether they are LE buffers of their own (not shared with BR/EDR).
  public var dedicated = false
  /// Buffers taken (all connections of the adapter) when each packet went: most and mean.
  public var creditsInUseMax = 0
  public var creditsInUseSum = 0
  public var packets = 0
  /// Waits for a buffer of 2 ms or more (`ControllerBuffers.reactionMicroseconds`): stalls.
  public var stallCount = 0
  public var stalledMicroseconds: Int64 = 0
  public var longestStallMicroseconds: Int64 = 0
  /// Every wait for a buffer, however short: the time spent with no credit left.
  public var noCreditMicroseconds: Int64 = 0
  /// Completions of the transfer's packets, and their latency from the packet, µs.
  public var completions = 0
  public var completionLatencySum: Int64 = 0
  public var completionLatencyMax: Int64 = 0

  public var creditsInUseMean: Double? { packets > 0 ? Double(creditsInUseSum) / Double(packets) : nil }
  public var completionLatencyMean: Double? {
    completions > 0 ? Double(completionLatencySum) / Double(completions) : nil
  }
}

/// Why a transfer went no faster: the one factor that binds.
public enum ThroughputBinding: String, Hashable, Sendable, CaseIterable {
  /// Acknowledged operations: one per two connection intervals at best.
  case ackPerInterval = "ack_per_interval"
  /// The controller's limit on PDUs per connection event.
  case pdusPerEvent = "pdus_per_event"
  /// Air time on the PHY in force, with PDUs as large as they can be.
  case phy
  /// PDUs cut to a data length below 251 octets.
  case dataLength = "data_length"
  /// Values cut to ATT_MTU − 3 while the PDUs had room for more.
  case mtu
  /// The controller's buffers, given back too slowly by Number Of Completed Packets.
  case hostBuffers = "host_buffers"
  /// The sender paused between PDUs with the link and the buffers free.
  case appPacing = "app_pacing"
}

/// Every ceiling the model gives for a segment, bytes per second.
public struct Ceilings: Hashable, Sendable {
  /// The link's packing for unacknowledged PDUs of this size (ThroughputModel.unacknowledged).
  public var link: ThroughputModel.Packing?
  /// One operation per two intervals (acknowledged operations only).
  public var acknowledged: BytesPerSecond?
  /// The controller's buffers at the completion latency seen (when they, not the link, held
  /// the packets).
  public var hostBuffers: BytesPerSecond?
  /// The sender's own pace: its largest value per mean gap (when it binds).
  public var appPacing: BytesPerSecond?
}

/// A transfer's run with one link: the whole transfer, or the part of it between two
/// link changes.
public struct TransferSegment: Hashable, Sendable {
  public var first: FrameTime
  public var last: FrameTime
  public var payloadBytes = 0
  public var pduCount = 0
  public var aclPacketCount = 0
  /// The first PDU's bytes: the achieved rate counts the bytes after it.
  public var firstPDUBytes = 0
  /// The largest value (or SDU): the full-size one the ceilings are for.
  public var largestValue = 0
  public var link: LinkInForce
  /// For a transfer this host sent.
  public var host: HostFacts?
  /// Answers (acknowledged operations): how many, and their latency from the request.
  public var answers = 0
  public var answerLatencySum: Int64 = 0
  /// Time the link spent on the transfer: air time of unacknowledged PDUs (the model's
  /// slots), or the time acknowledged ones waited for their answer.
  public var busyMicroseconds: Int64 = 0
  /// Packets per connection event with data, estimated from how completions (sent) or
  /// packets (received) arrive within each interval.
  public var pdusPerEventEstimate: Double?
  public var ceilings = Ceilings()
  public var binding: ThroughputBinding?
  /// The binding factor's ceiling.
  public var ceiling: BytesPerSecond?

  public var spanMicroseconds: Int64 { first.microseconds(to: last) }
  /// The bytes after the first PDU over the time from the first PDU to the last.
  public var achieved: BytesPerSecond? {
    pduCount > 1 ? BytesPerSecond(bytes: payloadBytes - firstPDUBytes, microseconds: spanMicroseconds) : nil
  }
  public var busyShare: Double? {
    spanMicroseconds > 0 ? min(1, Double(busyMicroseconds) / Double(spanMicroseconds)) : nil
  }
  /// The mean value of the PDUs after the first (those the achieved rate counts).
  public var meanValue: Double? {
    pduCount > 1 ? Double(payloadBytes - firstPDUBytes) / Double(pduCount - 1) : nil
  }
  public var answerLatencyMean: Double? { answers > 0 ? Double(answerLatencySum) / Double(answers) : nil }
}

/// What a transfer is about: the attribute (names as the GATT database gives them) or the
/// CoC channel.
public struct TransferSubject: Hashable, Sendable {
  /// The attribute handle, or the CID for CoC.
  public var handle: UInt16
  public var serviceUUID: BluetoothUUID?
  public var serviceName: String?
  public var characteristicUUID: BluetoothUUID?
  public var characteristicName: String?
  public var descriptorUUID: BluetoothUUID?
  public var descriptorName: String?
  /// The CoC channel's SPSM, when its setup was seen.
  public var psm: UInt16?
}

/// Runs of one operation on one attribute (or CoC channel) in one direction without a
/// long pause (`ThroughputBuilder.pause`), split into segments where the link changed.
public struct Transfer: Hashable, Sendable {
  public var conn: ConnectionRef
  public var peerName: String?
  public var operation: PayloadOperation
  public var direction: PayloadDirection
  public var subject: TransferSubject
  public var segments: [TransferSegment]
  public var changes: [LinkChange] = []

  public var first: FrameTime { segments[0].first }
  public var last: FrameTime { segments[segments.count - 1].last }
  public var payloadBytes: Int { segments.reduce(0) { $0 + $1.payloadBytes } }
  public var pduCount: Int { segments.reduce(0) { $0 + $1.pduCount } }
  public var aclPacketCount: Int { segments.reduce(0) { $0 + $1.aclPacketCount } }
  public var spanMicroseconds: Int64 { first.microseconds(to: last) }
  public var busyMicroseconds: Int64 { segments.reduce(0) { $0 + $1.busyMicroseconds } }
  /// Waits for a controller buffer of 2 ms or more, and their time, over all segments.
  public var stallCount: Int { segments.reduce(0) { $0 + ($1.host?.stallCount ?? 0) } }
  public var stalledMicroseconds: Int64 { segments.reduce(0) { $0 + ($1.host?.stalledMicroseconds ?? 0) } }
  public var achieved: BytesPerSecond? {
    pduCount > 1 ? BytesPerSecond(bytes: payloadBytes - segments[0].firstPDUBytes, microseconds: spanMicroseconds) : nil
  }
  public var busyShare: Double? {
    spanMicroseconds > 0 ? min(1, Double(busyMicroseconds) / Double(spanMicroseconds)) : nil
  }
  /// The segment the transfer spent most time in: its binding is the transfer's.
  public var main: TransferSegment {
    segments.max { ($0.spanMicroseconds, $0.payloadBytes) < ($1.spanMicroseconds, $1.payloadBytes) }!
  }
  /// The rate the segments' ceilings allow together: all bytes over the time each
  /// segment's bytes take at its ceiling.
  public var ceiling: BytesPerSecond? {
    var seconds = 0.0
    for segment in segments {
      guard let ceiling = segment.ceiling, ceiling.value > 0 else { return nil }
      seconds += Double(segment.payloadBytes) / ceiling.value
    }
    return seconds > 0 ? BytesPerSecond(Double(payloadBytes) / seconds) : nil
  }
}

/// Every PDU of one operation on one attribute and connection, when it came in several transfers:
/// how much of the time between the first and the last the transfers filled. Runs too short
/// to be transfers count in the totals.
public struct TransferSeries: Hashable, Sendable {
  public var conn: ConnectionRef
  public var peerName: String?
  public var operation: PayloadOperation
  public var direction: PayloadDirection
  public var subject: TransferSubject
  /// Transfers, and runs of any length (transfers included).
  public var transferCount: Int
  public var runCount: Int
  public var first: FrameTime
  public var last: FrameTime
  public var payloadBytes: Int
  public var pduCount: Int
  public var firstPDUBytes: Int
  /// The transfers' own spans and busy time, summed.
  public var activeMicroseconds: Int64
  public var busyMicroseconds: Int64
  /// `app_pacing` when the pauses between transfers took most of the time; otherwise the
  /// binding of the transfers that took most of it.
  public var binding: ThroughputBinding?
  /// The highest ceiling of its transfers: what the link allowed while they ran.
  public var bestCeiling: BytesPerSecond?

  public var spanMicroseconds: Int64 { first.microseconds(to: last) }
  public var achieved: BytesPerSecond? {
    BytesPerSecond(bytes: payloadBytes - firstPDUBytes, microseconds: spanMicroseconds)
  }
  public var activeShare: Double? {
    spanMicroseconds > 0 ? min(1, Double(activeMicroseconds) / Double(spanMicroseconds)) : nil
  }
  public var busyShare: Double? {
    spanMicroseconds > 0 ? min(1, Double(busyMicroseconds) / Double(spanMicroseconds)) : nil
  }
}

/// A platform rule about connection parameters, applied to what the capture shows.
public struct PlatformFinding: Hashable, Sendable {
  public enum Kind: Hashable, Sendable {
    /// A Connection Parameter Update Request that breaks Apple's rules (iOS may reject it).
    case appleParameterRequest(ParameterRequest, broken: [AppleConnectionRule], byLocal: Bool)
    /// The interval a connection runs with, and the Android connection priority whose band
    /// holds it (nil: none does).
    case androidPriority(ConnectionInterval, AndroidConnectionPriority?)
  }

  public var conn: ConnectionRef
  public var at: FrameTime
  public var kind: Kind
  public var peerName: String? = nil
}

/// Every transfer of a capture, with its series and the platform findings.
public struct ThroughputReport: Sendable {
  public var transfers: [Transfer] = []
  public var series: [TransferSeries] = []
  public var findings: [PlatformFinding] = []

  public init() {}

  /// The transfers and series of connection `id`.
  public func transfers(onConnection id: Int) -> [Transfer] { transfers.filter { $0.conn.id == id } }
  public func series(onConnection id: Int) -> [TransferSeries] { series.filter { $0.conn.id == id } }
}
