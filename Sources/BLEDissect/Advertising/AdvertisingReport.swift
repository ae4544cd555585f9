import BLECapture

/// One report of an LE Advertising Report, LE Directed Advertising Report, LE
/// Extended Advertising Report or LE Periodic Advertising Report event (Core 6.0,
/// Vol 4, Part E, 7.7.65.2, .11, .13, .15, .34), with its AD structures decoded.
public struct AdvertisingReport: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable {
    case legacy, directed, extended, periodic
  }

  public var kind: Kind
  /// Event_Type as carried (one octet for legacy and directed, two for extended;
  /// 0 for periodic).
  public var eventType: UInt16
  /// The data-contract PDU type name (`ADV_IND`, `SCAN_RSP`, `EXT_ADV`…): see
  /// `AdvertisingReport.pduType(kind:eventType:)`.
  public var pduType: String
  /// The advertiser (for periodic reports, the one the sync was established with,
  /// when the capture shows it). Nil for anonymous extended advertising.
  public var address: DeviceAddress?
  public var addressType: AdvertisingAddressType?
  /// The address a directed advertisement is aimed at.
  public var directAddress: DeviceAddress?
  public var directAddressType: AdvertisingAddressType?
  /// RSSI in dBm; nil when the controller says it is not available (127).
  public var rssi: Int8?
  /// TX_Power in dBm of extended and periodic reports; nil when not available (127).
  public var txPower: Int8?
  /// Advertising_SID; nil when there is none (0xFF) or for legacy reports.
  public var sid: UInt8?
  public var syncHandle: UInt16?
  public var primaryPHY: UInt8?
  public var secondaryPHY: UInt8?
  /// Periodic_Advertising_Interval of an extended report, 0 when none, in 1.25 ms.
  public var periodicInterval: UInt16?
  public var dataStatus: AdvertisingDataStatus = .complete
  /// The advertising data: in the record, or in `reassembled` when set.
  public var data: ByteRange
  /// The data of an extended or periodic report put together from several
  /// fragments; `data` and the structures' ranges index it.
  public var reassembled: [UInt8]?
  /// Where `address` and `directAddress` are in the record, when it carries them.
  public var addressOffset: Int?
  public var directAddressOffset: Int?
  /// This report's own piece of reassembled data, in the record.
  public var piece: ByteRange?
  /// How many reports the data came in (1 unless reassembled).
  public var fragments = 1
  /// The capture source cut some of the report's bytes away.
  public var isCut = false
  /// The AD structures; empty for a fragment whose data continues in a later report.
  public var structures: [ADStructure] = []
  public var beacon: Beacon?

  public init(kind: Kind, eventType: UInt16, data: ByteRange) {
    self.kind = kind
    self.eventType = eventType
    self.pduType = Self.pduType(kind: kind, eventType: eventType)
    self.data = data
  }

  /// Whether more of this report's data comes in a later report.
  public var isFragment: Bool { dataStatus == .moreData }

  /// The bytes `data` and the structures' ranges index.
  public func withDataBytes<T>(_ record: Record, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    if let reassembled { return reassembled.withUnsafeBytes(body) }
    return body(UnsafeRawBufferPointer(record.bytes))
  }

  /// The data-contract name of a report's PDU type.
  ///
  /// | report | Event_Type | name |
  /// | --- | --- | --- |
  /// | legacy | 0x00…0x04 | `ADV_IND`, `ADV_DIRECT_IND`, `ADV_SCAN_IND`, `ADV_NONCONN_IND`, `SCAN_RSP` |
  /// | directed | 0x01 | `ADV_DIRECT_IND` |
  /// | extended, legacy bit (4) set | 0x13, 0x15, 0x12, 0x10, 0x1B/0x1A | the legacy names, as btmon and tshark |
  /// | extended, legacy bit clear | scan response bit (3) set | `EXT_SCAN_RSP` (AUX_SCAN_RSP) |
  /// | extended, legacy bit clear | otherwise | `EXT_ADV` (ADV_EXT_IND with its AUX_ADV_IND/AUX_CHAIN_IND) |
  /// | periodic | | `PERIODIC` (AUX_SYNC_IND) |
  ///
  /// Reserved legacy values read `RESERVED_0x05`. Extended bits 7-15 are reserved
  /// and ignored.
  public static func pduType(kind: Kind, eventType: UInt16) -> String {
    switch kind {
    case .legacy:
      guard eventType < legacyNames.count else { return "RESERVED_0x" + hex(UInt8(truncatingIfNeeded: eventType)) }
      return legacyNames[Int(eventType)]
    case .directed:
      return "ADV_DIRECT_IND"
    case .periodic:
      return "PERIODIC"
    case .extended:
      let bits = ExtendedEventType(rawValue: eventType)
      guard bits.contains(.legacy) else { return bits.contains(.scanResponse) ? "EXT_SCAN_RSP" : "EXT_ADV" }
      if bits.contains(.scanResponse) { return "SCAN_RSP" }
      if bits.contains(.directed) { return "ADV_DIRECT_IND" }
      if bits.contains(.connectable) { return "ADV_IND" }
      return bits.contains(.scannable) ? "ADV_SCAN_IND" : "ADV_NONCONN_IND"
    }
  }

  static let legacyNames = ["ADV_IND", "ADV_DIRECT_IND", "ADV_SCAN_IND", "ADV_NONCONN_IND", "SCAN_RSP"]

  /// Every PDU type name a report can have, in the data contract's order.
  public static let pduTypeNames = [
    "ADV_IND", "ADV_DIRECT_IND", "ADV_SCAN_IND", "ADV_NONCONN_IND", "SCAN_RSP", "EXT_ADV", "EXT_SCAN_RSP", "PERIODIC",
  ]
}

/// Event_Type bits of an LE Extended Advertising Report (Core 6.0, Vol 4, Part E,
/// 7.7.65.13): bits 5-6 are the Data_Status.
public struct ExtendedEventType: OptionSet, Hashable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let connectable = Self(rawValue: 1 << 0)
  public static let scannable = Self(rawValue: 1 << 1)
  public static let directed = Self(rawValue: 1 << 2)
  public static let scanResponse = Self(rawValue: 1 << 3)
  public static let legacy = Self(rawValue: 1 << 4)

  public var dataStatus: AdvertisingDataStatus { AdvertisingDataStatus(rawValue: UInt8(rawValue >> 5 & 0x03)) }
}

/// Data_Status of extended and periodic reports.
public struct AdvertisingDataStatus: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Complete
  public static let complete = Self(rawValue: 0)
  /// Incomplete, more data to come
  public static let moreData = Self(rawValue: 1)
  /// Incomplete, data truncated, no more to come
  public static let truncated = Self(rawValue: 2)

  /// `complete`, `incomplete_more`, `incomplete_truncated`, `reserved_3`.
  public var name: String {
    switch rawValue {
    case 0: "complete"
    case 1: "incomplete_more"
    case 2: "incomplete_truncated"
    default: "reserved_\(rawValue)"
    }
  }
}

/// The Address_Type of advertising reports (Core 6.0, Vol 4, Part E, 7.7.65.2, .13).
public struct AdvertisingAddressType: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Public Device Address
  public static let `public` = Self(rawValue: 0x00)
  /// Random Device Address
  public static let random = Self(rawValue: 0x01)
  /// Public Identity Address (the controller resolved an RPA)
  public static let publicIdentity = Self(rawValue: 0x02)
  /// Random (static) Identity Address (the controller resolved an RPA)
  public static let randomIdentity = Self(rawValue: 0x03)
  /// Random Device Address, the controller unable to resolve (direct address only)
  public static let randomUnresolved = Self(rawValue: 0xFE)
  /// No address provided (anonymous advertisement)
  public static let anonymous = Self(rawValue: 0xFF)

  /// The data-contract name: `public`, `random`, `public_identity`,
  /// `random_identity`, `random_unresolved`, `anonymous`, `reserved_0x04`.
  public var name: String {
    switch rawValue {
    case 0x00: "public"
    case 0x01: "random"
    case 0x02: "public_identity"
    case 0x03: "random_identity"
    case 0xFE: "random_unresolved"
    case 0xFF: "anonymous"
    default: "reserved_0x" + hex(rawValue)
    }
  }

  /// Whether the address is a random one (a random identity is a static address).
  public var isRandom: Bool { rawValue == 0x01 || rawValue == 0x03 || rawValue == 0xFE }
}

extension DeviceAddress {
  /// The sub-type of a random device address, from its two most significant bits
  /// (Core 6.0, Vol 6, Part B, 1.3.2).
  public enum RandomKind: String, Hashable, Sendable {
    /// 0b11: static device address.
    case `static`
    /// 0b01: resolvable private address (RPA), resolvable with the owner's IRK.
    case resolvable
    /// 0b00: non-resolvable private address.
    case nonResolvable = "non_resolvable"
    /// 0b10: reserved.
    case reserved
  }

  /// What a random address is, read from its top bits.
  public var randomKind: RandomKind {
    switch rawValue >> 46 {
    case 0b11: .static
    case 0b01: .resolvable
    case 0b00: .nonResolvable
    default: .reserved
    }
  }
}
