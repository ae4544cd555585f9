/// A rate of payload bytes (ATT value or L2CAP SDU bytes) per second.
public struct BytesPerSecond: Hashable, Comparable, Sendable {
  public var value: Double

  public init(_ value: Double) { self.value = value }

  /// `bytes` over `microseconds`; nil for an empty span.
  public init?(bytes: Int, microseconds: Int64) {
    guard microseconds > 0 else { return nil }
    value = Double(bytes) * 1_000_000 / Double(microseconds)
  }

  public var kilobitsPerSecond: Double { value * 8 / 1000 }

  public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
}

/// An LE PHY, numbered as HCI numbers it (TX_PHY and RX_PHY of LE PHY Update Complete,
/// Core 6.0, Vol 4, Part E, 7.7.65.12): 1 LE 1M, 2 LE 2M, 3 LE Coded.
public struct LEPHY: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let le1M = Self(rawValue: 1)
  public static let le2M = Self(rawValue: 2)
  public static let leCoded = Self(rawValue: 3)

  /// From an LL_PHY_UPDATE_IND field, one bit per PHY (bit 0 LE 1M, bit 1 LE 2M, bit 2
  /// LE Coded; Vol 6, Part B, 2.4.2.22); nil for 0, which keeps the PHY.
  public init?(llBits bits: UInt8) {
    switch bits {
    case 1: self = .le1M
    case 2: self = .le2M
    case 4: self = .leCoded
    default: return nil
    }
  }

  /// `1M`, `2M`, `Coded`.
  public var name: String { PHYChange.name(rawValue) }

  /// Air time of one octet: 8 µs on LE 1M (1 Msym/s), 4 µs on LE 2M (2 Msym/s), 64 µs on LE
  /// Coded with S=8 (Vol 6, Part A, 3.2; Vol 6, Part B, 2.2), the worst case the model takes.
  public var microsecondsPerOctet: Int64 {
    switch self {
    case .le2M: 4
    case .leCoded: 64
    default: 8
    }
  }
}

/// The ceiling model: what a link can carry with the parameters in force, written once.
///
/// **Air time** (Core 6.0, Vol 6, Part B). A data PDU and the empty PDU that
/// acknowledges it take one *slot*:
///
///     slot = T_IFS + (octets + 14) · t_octet + T_IFS + 10 · t_octet
///
/// - `T_IFS` = 150 µs, the inter frame space between packets of a connection event (4.1.1);
/// - `octets` is the PDU's payload, at most the data length in force (connMaxTxOctets:
///   27 until LE Data Length Extension, up to 251; 4.5.10);
/// - 14 octets of overhead per data PDU: preamble 1, access address 4, PDU header 2, MIC 4
///   (encrypted links), CRC 3 (2.1, 2.4). On LE 2M the preamble takes 2 octets, 4 µs the
///   model leaves out, as the truth's generator does;
/// - the empty PDU that acknowledges it: preamble 1, access address 4, header 2, CRC 3 =
///   10 octets, no MIC (a PDU with an empty payload carries none, 2.4);
/// - `t_octet`: 8 µs on LE 1M, 4 µs on LE 2M (`LEPHY.microsecondsPerOctet`).
///
/// **Connection events.** PDUs of one direction share a connection event while fewer than
/// 6 went (`pdusPerEventLimit`: a limit of the phones' controllers, not of the spec) and the
/// next slot ends before `interval − 400 µs` (`eventMargin`: the controller closes the event
/// before the next anchor point, 4.5.1); the first PDU of an event always goes. An ATT
/// value of `v` bytes travels as an L2CAP SDU of `v + header` octets (`header`: ATT opcode
/// and handle 3, L2CAP basic header 4 for a write or notification), cut into PDUs of the
/// data length. The ceiling is the steady state of that packing: the SDUs one period of
/// events carries, over the period, with the sender never short of data.
///
/// **Acknowledged operations** (write request, read, indication, prepare write): the
/// peer answers in the connection event after the request at the earliest, so one
/// operation takes two connection intervals (Silicon Labs, "Throughput with Bluetooth Low
/// Energy Technology"): `value / (2 · interval)`.
///
/// **Host buffers**: a host sends an ACL packet only while the controller has a free buffer
/// (LE Read Buffer Size, Vol 4, Part E, 7.8.2 and 7.8.93) and gets it back with Number Of
/// Completed Packets (7.7.19); with `n` buffers each back after `cycle` on average, at most
/// `n / packets per SDU` SDUs are on their way per cycle (Little's law).
///
/// The truth of the synthetic `transfer` capture states this model as its generator ran it
/// (`link_model`); `ThroughputModelTests` checks it against the published reference figures.
public enum ThroughputModel {
  /// T_IFS, µs (Vol 6, Part B, 4.1.1).
  public static let interFrameSpace: Int64 = 150
  /// Preamble, access address, header, MIC and CRC of a data PDU, in octets.
  public static let pduOverheadOctets = 14
  /// An empty PDU: preamble, access address, header and CRC, in octets.
  public static let emptyPDUOctets = 10
  /// How long before the next anchor point the controller ends a connection event, µs.
  public static let eventMargin: Int64 = 400
  /// PDUs one direction sends in a connection event at most: phones' controllers stop at 6.
  public static let pdusPerEventLimit = 6
  /// The default data length, and the largest (Vol 6, Part B, 4.5.10).
  public static let defaultDataLength = 27
  public static let maximumDataLength = 251

  /// µs of one data PDU of `octets` payload octets and the empty PDU that acknowledges it,
  /// with their inter frame spaces.
  public static func slot(octets: Int, phy: LEPHY) -> Int64 {
    interFrameSpace + Int64(octets + pduOverheadOctets) * phy.microsecondsPerOctet + interFrameSpace
      + Int64(emptyPDUOctets) * phy.microsecondsPerOctet
  }

  /// What limits the PDUs of a connection event.
  public enum EventLimit: String, Sendable {
    /// The controller's limit on PDUs per event.
    case count
    /// The air time before the event must end.
    case airtime
  }

  /// The packing of a sender that always has data.
  public struct Packing: Hashable, Sendable {
    public var bytesPerSecond: BytesPerSecond
    /// PDUs in the fullest connection event.
    public var pdusPerEvent: Int
    public var limitedBy: EventLimit
    /// Link-layer PDUs each SDU takes.
    public var pdusPerSDU: Int
  }

  /// The ceiling of unacknowledged operations (write without response, notification, CoC
  /// SDUs): `value` bytes per SDU after `header` octets, sent back to back.
  public static func unacknowledged(
    value: Int, header: Int, phy: LEPHY, dataLength: Int, interval: ConnectionInterval,
    pdusPerEvent cap: Int = pdusPerEventLimit
  ) -> Packing {
    let dataLength = max(dataLength, defaultDataLength)
    let sdu = max(value, 0) + header
    var fragments: [Int] = []
    var left = sdu
    repeat {
      fragments.append(min(dataLength, left))
      left -= dataLength
    } while left > 0
    let slots = fragments.map { slot(octets: $0, phy: phy) }
    let budget = interval.microseconds - eventMargin
    var events = 0
    var sdus = 0
    var offset: Int64 = 0
    var count = 0
    var fullest = 0
    var index = 0
    // Events until one starts on an SDU boundary again: the packing's period. Bounded: a
    // period cannot be longer than one event per fragment of `cap` SDUs.
    let limit = max(1, cap) * fragments.count + 1
    while events < limit {
      let next = slots[index]
      if count > 0 && (count >= cap || offset + next >= budget) {
        events += 1
        fullest = max(fullest, count)
        offset = 0
        count = 0
        if index == 0 { break }
      }
      offset += next
      count += 1
      index += 1
      if index == fragments.count {
        index = 0
        sdus += 1
      }
    }
    let period = Int64(max(events, 1)) * interval.microseconds
    let rate = BytesPerSecond(bytes: sdus * max(value, 0), microseconds: period) ?? BytesPerSecond(0)
    return Packing(
      bytesPerSecond: rate, pdusPerEvent: fullest, limitedBy: fullest >= cap ? .count : .airtime,
      pdusPerSDU: fragments.count)
  }

  /// The ceiling of one sender on the air with no connection event boundaries: one SDU's
  /// slots back to back (the PHY's own limit, before events cut it).
  public static func airtime(value: Int, header: Int, phy: LEPHY, dataLength: Int) -> BytesPerSecond {
    let dataLength = max(dataLength, defaultDataLength)
    var left = max(value, 0) + header
    var microseconds: Int64 = 0
    repeat {
      microseconds += slot(octets: min(dataLength, left), phy: phy)
      left -= dataLength
    } while left > 0
    return BytesPerSecond(bytes: max(value, 0), microseconds: microseconds) ?? BytesPerSecond(0)
  }

  /// The ceiling of acknowledged operations: one per two connection intervals.
  public static func acknowledged(value: Int, interval: ConnectionInterval) -> BytesPerSecond {
    BytesPerSecond(bytes: max(value, 0), microseconds: 2 * interval.microseconds) ?? BytesPerSecond(0)
  }

  /// The ceiling the controller's buffers allow: `buffers` ACL buffers of `bufferOctets`,
  /// each back after `cycleMicroseconds` on average, SDUs of `value + header` octets.
  public static func hostBuffers(
    buffers: Int, bufferOctets: Int, value: Int, header: Int, cycleMicroseconds: Double
  ) -> BytesPerSecond? {
    guard buffers > 0, bufferOctets > 0, cycleMicroseconds > 0 else { return nil }
    let packetsPerSDU = (max(value, 0) + header + bufferOctets - 1) / bufferOctets
    let sdusPerCycle = Double(buffers) / Double(max(packetsPerSDU, 1))
    return BytesPerSecond(sdusPerCycle * Double(max(value, 0)) * 1_000_000 / cycleMicroseconds)
  }
}
