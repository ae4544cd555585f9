/// The PDU Type of an advertising physical channel PDU (Core 6.0, Vol 6, Part B,
/// 2.3). The same number names another PDU on the secondary advertising channels
/// (channel indices 0–36). Unknown values survive as they are.
public struct LLAdvertisingPDUType: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

  /// ADV_IND
  public static let advInd = Self(rawValue: 0x0)
  /// ADV_DIRECT_IND
  public static let advDirectInd = Self(rawValue: 0x1)
  /// ADV_NONCONN_IND
  public static let advNonconnInd = Self(rawValue: 0x2)
  /// SCAN_REQ, AUX_SCAN_REQ
  public static let scanReq = Self(rawValue: 0x3)
  /// SCAN_RSP
  public static let scanRsp = Self(rawValue: 0x4)
  /// CONNECT_IND, AUX_CONNECT_REQ
  public static let connectInd = Self(rawValue: 0x5)
  /// ADV_SCAN_IND
  public static let advScanInd = Self(rawValue: 0x6)
  /// ADV_EXT_IND, AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND, AUX_CHAIN_IND
  public static let advExtInd = Self(rawValue: 0x7)
  /// AUX_CONNECT_RSP
  public static let auxConnectRsp = Self(rawValue: 0x8)

  /// How the payload after the header is laid out.
  public enum Layout: Hashable, Sendable {
    /// AdvA, then AD structures (AdvData or ScanRspData).
    case advertiserAndData
    /// AdvA, TargetA.
    case directed
    /// ScanA, AdvA.
    case scanRequest
    /// InitA, AdvA, LLData.
    case connect
    /// The Common Extended Advertising Payload Format.
    case extended
    case unknown
  }

  /// One row per PDU type: names on the primary and the secondary channels, the
  /// payload layout and its length rule.
  public struct Row: Sendable {
    public var type: LLAdvertisingPDUType
    public var primaryName: String
    public var secondaryName: String?
    public var layout: Layout
    public var length: PDULength

    init(
      type: LLAdvertisingPDUType, primaryName: String, secondaryName: String? = nil, layout: Layout, length: PDULength
    ) {
      self.type = type
      self.primaryName = primaryName
      self.secondaryName = secondaryName
      self.layout = layout
      self.length = length
    }
  }

  public static let table: [Row] = [
    Row(type: .advInd, primaryName: "ADV_IND", layout: .advertiserAndData, length: .atLeast(6)),
    Row(type: .advDirectInd, primaryName: "ADV_DIRECT_IND", layout: .directed, length: .exactly(12)),
    Row(type: .advNonconnInd, primaryName: "ADV_NONCONN_IND", layout: .advertiserAndData, length: .atLeast(6)),
    Row(
      type: .scanReq, primaryName: "SCAN_REQ", secondaryName: "AUX_SCAN_REQ", layout: .scanRequest,
      length: .exactly(12)),
    Row(type: .scanRsp, primaryName: "SCAN_RSP", layout: .advertiserAndData, length: .atLeast(6)),
    Row(
      type: .connectInd, primaryName: "CONNECT_IND", secondaryName: "AUX_CONNECT_REQ", layout: .connect,
      length: .exactly(34)),
    Row(type: .advScanInd, primaryName: "ADV_SCAN_IND", layout: .advertiserAndData, length: .atLeast(6)),
    Row(
      type: .advExtInd, primaryName: "ADV_EXT_IND", secondaryName: "AUX_ADV_IND", layout: .extended, length: .atLeast(1)
    ),
    Row(type: .auxConnectRsp, primaryName: "AUX_CONNECT_RSP", layout: .extended, length: .atLeast(1)),
  ]

  public var row: Row? { rawValue < Self.table.count ? Self.table[Int(rawValue)] : nil }

  /// The spec name; `secondary` for a PDU heard on a secondary advertising channel.
  public func name(secondary: Bool) -> String {
    guard let row else { return "Unknown (0x\(hex(rawValue)))" }
    return secondary ? row.secondaryName ?? row.primaryName : row.primaryName
  }
}

/// The LLID of a data channel PDU header (Core 6.0, Vol 6, Part B, 2.4).
public struct LLID: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue & 0x3 }

  /// LL Data PDU: continuation fragment of an L2CAP message, or an empty PDU.
  public static let continuation = Self(rawValue: 0b01)
  /// LL Data PDU: start of an L2CAP message or a complete one with no fragmentation.
  public static let start = Self(rawValue: 0b10)
  /// LL Control PDU.
  public static let control = Self(rawValue: 0b11)

  public var name: String {
    switch rawValue {
    case 1: "LL Data PDU (continuation or empty)"
    case 2: "LL Data PDU (start or complete)"
    case 3: "LL Control PDU"
    default: "Reserved (0b00)"
    }
  }
}
