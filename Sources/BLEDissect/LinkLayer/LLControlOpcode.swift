/// The Opcode of an LL Control PDU (Core 6.0, Vol 6, Part B, 2.4.2). Unknown
/// values survive as they are and render `Unknown (0x..)`.
public struct LLControlOpcode: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// LL_CONNECTION_UPDATE_IND
  public static let connectionUpdateInd = Self(rawValue: 0x00)
  /// LL_TERMINATE_IND
  public static let terminateInd = Self(rawValue: 0x02)
  /// LL_ENC_REQ
  public static let encReq = Self(rawValue: 0x03)
  /// LL_START_ENC_REQ
  public static let startEncReq = Self(rawValue: 0x05)
  /// LL_START_ENC_RSP
  public static let startEncRsp = Self(rawValue: 0x06)
  /// LL_FEATURE_RSP
  public static let featureRsp = Self(rawValue: 0x09)
  /// LL_PAUSE_ENC_RSP
  public static let pauseEncRsp = Self(rawValue: 0x0B)
  /// LL_VERSION_IND
  public static let versionInd = Self(rawValue: 0x0C)
  /// LL_CONNECTION_PARAM_REQ
  public static let connectionParamReq = Self(rawValue: 0x0F)
  /// LL_LENGTH_REQ
  public static let lengthReq = Self(rawValue: 0x14)
  /// LL_LENGTH_RSP
  public static let lengthRsp = Self(rawValue: 0x15)
  /// LL_PHY_UPDATE_IND
  public static let phyUpdateInd = Self(rawValue: 0x18)

  public var row: LLControlRow? { Int(rawValue) < LLControlRow.table.count ? LLControlRow.table[Int(rawValue)] : nil }

  /// The spec name, verbatim (`LL_TERMINATE_IND`).
  public var name: String { row?.name ?? "Unknown (0x\(hex(rawValue)))" }
}

/// How an LL Control PDU parameter is shown.
public enum LLParameterFormat: Hashable, Sendable {
  /// A number in hex of its width.
  case hex
  case decimal
  /// A count of `unit` steps in `scale` of a physical unit: 1.25 ms, 10 ms, µs.
  case measure(scale: Double, unit: String)
  /// A Controller error code (HCI status names).
  case errorCode
  /// A Bluetooth SIG company identifier.
  case company
  /// A Link Layer version (Bluetooth Core version names).
  case version
  /// PHY bits: LE 1M, LE 2M, LE Coded.
  case phys
  /// An LL Control opcode.
  case opcode
  case address
  case bytes
}

/// One LL Control PDU parameter: its spec name, size in octets and format.
public struct LLParameter: Hashable, Sendable {
  public var name: String
  public var size: Int
  public var format: LLParameterFormat

  public init(_ name: String, _ size: Int, _ format: LLParameterFormat = .hex) {
    self.name = name
    self.size = size
    self.format = format
  }
}

/// One row of the LL Control PDU table: opcode, spec name, parameters (CtrData).
/// The length rule is the sum of the parameters' sizes.
public struct LLControlRow: Sendable {
  public var opcode: UInt8
  public var name: String
  public var parameters: [LLParameter]

  public init(_ opcode: UInt8, _ name: String, _ parameters: [LLParameter] = []) {
    self.opcode = opcode
    self.name = name
    self.parameters = parameters
  }

  public var length: Int { parameters.reduce(0) { $0 + $1.size } }

  static let interval = LLParameterFormat.measure(scale: 1.25, unit: "ms")
  static let timeout = LLParameterFormat.measure(scale: 10, unit: "ms")
  static let microseconds = LLParameterFormat.measure(scale: 1, unit: "µs")

  static let connectionParameters: [LLParameter] =
    [
      LLParameter("Interval_Min", 2, interval), LLParameter("Interval_Max", 2, interval),
      LLParameter("Latency", 2, .decimal), LLParameter("Timeout", 2, timeout),
      LLParameter("PreferredPeriodicity", 1, .decimal), LLParameter("ReferenceConnEventCount", 2, .decimal),
    ] + (0...5).map { LLParameter("Offset\($0)", 2, .hex) }

  static let lengths = [
    LLParameter("MaxRxOctets", 2, .decimal), LLParameter("MaxRxTime", 2, microseconds),
    LLParameter("MaxTxOctets", 2, .decimal), LLParameter("MaxTxTime", 2, microseconds),
  ]

  /// Indexed by opcode: every opcode Core 6.0 defines up to 0x29.
  public static let table: [LLControlRow] = [
    LLControlRow(
      0x00, "LL_CONNECTION_UPDATE_IND",
      [
        LLParameter("WinSize", 1, interval), LLParameter("WinOffset", 2, interval),
        LLParameter("Interval", 2, interval), LLParameter("Latency", 2, .decimal), LLParameter("Timeout", 2, timeout),
        LLParameter("Instant", 2, .decimal),
      ]),
    LLControlRow(0x01, "LL_CHANNEL_MAP_IND", [LLParameter("ChM", 5, .bytes), LLParameter("Instant", 2, .decimal)]),
    LLControlRow(0x02, "LL_TERMINATE_IND", [LLParameter("ErrorCode", 1, .errorCode)]),
    LLControlRow(
      0x03, "LL_ENC_REQ",
      [
        LLParameter("Rand", 8, .bytes), LLParameter("EDIV", 2), LLParameter("SKDC", 8, .bytes),
        LLParameter("IVC", 4, .bytes),
      ]
    ),
    LLControlRow(0x04, "LL_ENC_RSP", [LLParameter("SKDP", 8, .bytes), LLParameter("IVP", 4, .bytes)]),
    LLControlRow(0x05, "LL_START_ENC_REQ"),
    LLControlRow(0x06, "LL_START_ENC_RSP"),
    LLControlRow(0x07, "LL_UNKNOWN_RSP", [LLParameter("UnknownType", 1, .opcode)]),
    LLControlRow(0x08, "LL_FEATURE_REQ", [LLParameter("FeatureSet", 8, .bytes)]),
    LLControlRow(0x09, "LL_FEATURE_RSP", [LLParameter("FeatureSet", 8, .bytes)]),
    LLControlRow(0x0A, "LL_PAUSE_ENC_REQ"),
    LLControlRow(0x0B, "LL_PAUSE_ENC_RSP"),
    LLControlRow(
      0x0C, "LL_VERSION_IND",
      [LLParameter("VersNr", 1, .version), LLParameter("CompId", 2, .company), LLParameter("SubVersNr", 2)]),
    LLControlRow(0x0D, "LL_REJECT_IND", [LLParameter("ErrorCode", 1, .errorCode)]),
    LLControlRow(0x0E, "LL_PERIPHERAL_FEATURE_REQ", [LLParameter("FeatureSet", 8, .bytes)]),
    LLControlRow(0x0F, "LL_CONNECTION_PARAM_REQ", connectionParameters),
    LLControlRow(0x10, "LL_CONNECTION_PARAM_RSP", connectionParameters),
    LLControlRow(
      0x11, "LL_REJECT_EXT_IND", [LLParameter("RejectOpcode", 1, .opcode), LLParameter("ErrorCode", 1, .errorCode)]),
    LLControlRow(0x12, "LL_PING_REQ"),
    LLControlRow(0x13, "LL_PING_RSP"),
    LLControlRow(0x14, "LL_LENGTH_REQ", lengths),
    LLControlRow(0x15, "LL_LENGTH_RSP", lengths),
    LLControlRow(0x16, "LL_PHY_REQ", [LLParameter("TX_PHYS", 1, .phys), LLParameter("RX_PHYS", 1, .phys)]),
    LLControlRow(0x17, "LL_PHY_RSP", [LLParameter("TX_PHYS", 1, .phys), LLParameter("RX_PHYS", 1, .phys)]),
    LLControlRow(
      0x18, "LL_PHY_UPDATE_IND",
      [LLParameter("PHY_C_TO_P", 1, .phys), LLParameter("PHY_P_TO_C", 1, .phys), LLParameter("Instant", 2, .decimal)]),
    LLControlRow(
      0x19, "LL_MIN_USED_CHANNELS_IND", [LLParameter("PHYS", 1, .phys), LLParameter("MinUsedChannels", 1, .decimal)]),
    LLControlRow(0x1A, "LL_CTE_REQ", [LLParameter("CTETypeReq", 1)]),
    LLControlRow(0x1B, "LL_CTE_RSP"),
    LLControlRow(
      0x1C, "LL_PERIODIC_SYNC_IND",
      [
        LLParameter("ID", 2), LLParameter("SyncInfo", 18, .bytes), LLParameter("connEventCount", 2, .decimal),
        LLParameter("lastPaEventCounter", 2, .decimal), LLParameter("SID, AType, SCA", 1), LLParameter("PHY", 1, .phys),
        LLParameter("AdvA", 6, .address), LLParameter("syncConnEventCount", 2, .decimal),
      ]),
    LLControlRow(0x1D, "LL_CLOCK_ACCURACY_REQ", [LLParameter("SCA", 1)]),
    LLControlRow(0x1E, "LL_CLOCK_ACCURACY_RSP", [LLParameter("SCA", 1)]),
    LLControlRow(
      0x1F, "LL_CIS_REQ",
      [
        LLParameter("CIG_ID", 1), LLParameter("CIS_ID", 1), LLParameter("PHY_C_To_P", 1, .phys),
        LLParameter("PHY_P_To_C", 1, .phys), LLParameter("Max_SDU_C_To_P", 2), LLParameter("Max_SDU_P_To_C", 2),
        LLParameter("SDU_Interval_C_To_P", 3, microseconds), LLParameter("SDU_Interval_P_To_C", 3, microseconds),
        LLParameter("Max_PDU_C_To_P", 2, .decimal), LLParameter("Max_PDU_P_To_C", 2, .decimal),
        LLParameter("NSE", 1, .decimal), LLParameter("Sub_Interval", 3, microseconds), LLParameter("BN", 1),
        LLParameter("FT_C_To_P", 1, .decimal), LLParameter("FT_P_To_C", 1, .decimal),
        LLParameter("ISO_Interval", 2, interval), LLParameter("CIS_Offset_Min", 3, microseconds),
        LLParameter("CIS_Offset_Max", 3, microseconds), LLParameter("connEventCount", 2, .decimal),
      ]),
    LLControlRow(
      0x20, "LL_CIS_RSP",
      [
        LLParameter("CIS_Offset_Min", 3, microseconds), LLParameter("CIS_Offset_Max", 3, microseconds),
        LLParameter("connEventCount", 2, .decimal),
      ]),
    LLControlRow(
      0x21, "LL_CIS_IND",
      [
        LLParameter("AA", 4), LLParameter("CIS_Offset", 3, microseconds),
        LLParameter("CIG_Sync_Delay", 3, microseconds),
        LLParameter("CIS_Sync_Delay", 3, microseconds), LLParameter("connEventCount", 2, .decimal),
      ]),
    LLControlRow(
      0x22, "LL_CIS_TERMINATE_IND",
      [LLParameter("CIG_ID", 1), LLParameter("CIS_ID", 1), LLParameter("ErrorCode", 1, .errorCode)]),
    LLControlRow(
      0x23, "LL_POWER_CONTROL_REQ", [LLParameter("PHY", 1, .phys), LLParameter("Delta", 1), LLParameter("TxPower", 1)]),
    LLControlRow(
      0x24, "LL_POWER_CONTROL_RSP",
      [LLParameter("Min, Max", 1), LLParameter("Delta", 1), LLParameter("TxPower", 1), LLParameter("APR", 1)]),
    LLControlRow(
      0x25, "LL_POWER_CHANGE_IND",
      [LLParameter("PHY", 1, .phys), LLParameter("Min, Max", 1), LLParameter("Delta", 1), LLParameter("TxPower", 1)]),
    LLControlRow(
      0x26, "LL_SUBRATE_REQ",
      [
        LLParameter("SubrateFactorMin", 2, .decimal), LLParameter("SubrateFactorMax", 2, .decimal),
        LLParameter("MaxLatency", 2, .decimal), LLParameter("ContinuationNumber", 2, .decimal),
        LLParameter("Timeout", 2, timeout),
      ]),
    LLControlRow(
      0x27, "LL_SUBRATE_IND",
      [
        LLParameter("SubrateFactor", 2, .decimal), LLParameter("SubrateBaseEvent", 2, .decimal),
        LLParameter("Latency", 2, .decimal), LLParameter("ContinuationNumber", 2, .decimal),
        LLParameter("Timeout", 2, timeout),
      ]),
    LLControlRow(
      0x28, "LL_CHANNEL_REPORTING_IND",
      [LLParameter("Enable", 1), LLParameter("MinSpacing", 1, .decimal), LLParameter("MaxDelay", 1, .decimal)]),
    LLControlRow(0x29, "LL_CHANNEL_STATUS_IND", [LLParameter("Channel_Classification", 10, .bytes)]),
  ]
}

extension LLParameter {
  /// The parameter's field, read from `c`.
  func read(_ c: inout ByteCursor) throws(DecodeError) -> Field {
    if format == .bytes { return Field(name, .bytes(try c.readBytes(size))) }
    if format == .address { return Field(name, .address(try c.readAddress())) }
    var value: UInt64 = 0
    for index in 0..<size { value |= UInt64(try c.readUInt8()) << (8 * UInt64(index)) }
    let digits = size * 2
    switch format {
    case .decimal: return Field(name, .unsigned(value, hexDigits: 0))
    case .measure(let scale, let unit):
      return Field(name, .measure(value, hexDigits: digits, value: Double(value) * scale, unit: unit))
    case .errorCode:
      return Field(
        name, .code(value, hexDigits: 2, name: HCIStatusCode(rawValue: UInt8(truncatingIfNeeded: value)).name))
    case .company:
      let company = AssignedNumbers.company(UInt16(truncatingIfNeeded: value)) ?? "Unknown"
      return Field(name, .code(value, hexDigits: 4, name: company))
    case .version:
      return Field(name, .code(value, hexDigits: 2, name: HCIValueNames.version[value] ?? "Unknown"))
    case .phys:
      let names = HCIValueNames.phyBits.enumerated().filter { value & (1 << UInt64($0.offset)) != 0 }.map(\.element)
      return Field(name, .flags(value, hexDigits: 2, names: names))
    case .opcode:
      return Field(
        name, .code(value, hexDigits: 2, name: LLControlOpcode(rawValue: UInt8(truncatingIfNeeded: value)).name))
    default: return Field(name, .unsigned(value, hexDigits: digits))
    }
  }
}
