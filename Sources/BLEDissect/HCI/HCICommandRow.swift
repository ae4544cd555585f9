/// One HCI command (Core 6.0, Vol 4, Part E, 7.1 to 7.8): its opcode, spec name,
/// parameter layout, the return parameters its Command Complete event carries, and
/// which parameters a one-line listing shows.
public struct HCICommandRow: Sendable {
  public var opcode: UInt16
  /// The spec's name, verbatim (`LE Extended Create Connection [v2]`).
  public var name: String
  /// The command's parameters; nil for commands known by name only, whose
  /// parameters are shown raw.
  public var parameters: [HCIParameter]?
  /// The return parameters of its Command Complete event; nil when the command is
  /// answered by Command Status (or its return parameters are not tabled), in which
  /// case a Command Complete shows a `Status` and the rest raw.
  public var returnParameters: [HCIParameter]?
  /// The 1 to 4 command parameters worth showing on a one-line listing.
  public var summary: [String]
  /// The return parameters worth showing on the Command Complete's line.
  public var returnSummary: [String]

  public init(
    _ opcode: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) {
    self.opcode = opcode
    self.name = name
    self.parameters = parameters
    self.returnParameters = returns
    self.summary = summary ?? Self.defaultSummary(parameters ?? [])
    self.returnSummary = returnSummary ?? (returns?.first.map { $0.name == "Status" ? ["Status"] : [] } ?? [])
  }

  /// The first two scalar parameters.
  private static func defaultSummary(_ parameters: [HCIParameter]) -> [String] {
    var names: [String] = []
    for parameter in parameters where names.count < 2 {
      switch parameter {
      case .bytes, .rest, .repeated, .lengthPrefixed: continue
      default: names.append(parameter.name)
      }
    }
    return names
  }

  static func linkControl(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x0400 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func linkPolicy(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x0800 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func baseband(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x0C00 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func informational(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x1000 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func statusParameters(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x1400 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func testing(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x1800 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }

  static func le(
    _ ocf: UInt16, _ name: String, _ parameters: [HCIParameter]? = nil, returns: [HCIParameter]? = nil,
    summary: [String]? = nil, returnSummary: [String]? = nil
  ) -> Self {
    Self(0x2000 | ocf, name, parameters, returns: returns, summary: summary, returnSummary: returnSummary)
  }
}

/// Layouts several commands and events share.
enum HCILayout {
  static let status: [HCIParameter] = [.status]
  static let connectionHandle: [HCIParameter] = [.handle("Connection_Handle")]
  static let statusConnectionHandle: [HCIParameter] = [.status, .handle("Connection_Handle")]
  static let bdAddr: [HCIParameter] = [.address("BD_ADDR")]
  static let statusBDAddr: [HCIParameter] = [.status, .address("BD_ADDR")]
  static let handle: [HCIParameter] = [.handle("Handle")]
  static let statusHandle: [HCIParameter] = [.status, .handle("Handle")]
  static let peerIdentity: [HCIParameter] = [
    .addressType("Peer_Identity_Address_Type"), .address("Peer_Identity_Address"),
  ]
  static let leAddress: [HCIParameter] = [.addressType("Address_Type"), .address("Address")]
  static let advertiser: [HCIParameter] = [
    .addressType("Advertiser_Address_Type"), .address("Advertiser_Address"), .uint8("Advertising_SID"),
  ]

  /// Per-PHY connection parameters of LE Extended Create Connection.
  static let initiatingPHY: [HCIParameter] = [
    .interval("Scan_Interval", .slots), .interval("Scan_Window", .slots),
    .interval("Connection_Interval_Min", .ms1_25), .interval("Connection_Interval_Max", .ms1_25),
    .uint16("Max_Latency"), .interval("Supervision_Timeout", .ms10),
    .interval("Min_CE_Length", .slots), .interval("Max_CE_Length", .slots),
  ]

  /// Channel Sounding capabilities, as read, cached and reported (7.8.130).
  static let csCapabilities: [HCIParameter] = [
    .uint8("Num_Config_Supported"), .uint16("Max_Consecutive_Procedures_Supported"),
    .uint8("Num_Antennas_Supported"), .uint8("Max_Antenna_Paths_Supported"),
    .flags("Roles_Supported", HCIValueNames.csRoleBits), .hex8("Modes_Supported"), .hex8("RTT_Capability"),
    .uint8("RTT_AA_Only_N"), .uint8("RTT_Sounding_N"), .uint8("RTT_Random_Payload_N"),
    .hex16("NADM_Sounding_Capability"), .hex16("NADM_Random_Capability"), .hex8("CS_SYNC_PHYs_Supported"),
    .hex16("Subfeatures_Supported"), .hex16("T_IP1_Times_Supported"), .hex16("T_IP2_Times_Supported"),
    .hex16("T_FCS_Times_Supported"), .hex16("T_PM_Times_Supported"), .uint8("T_SW_Time_Supported"),
    .hex8("TX_SNR_Capability"),
  ]

  /// Extended advertising parameters [v1] (7.8.53).
  static let extendedAdvertisingParameters: [HCIParameter] = [
    .hex8("Advertising_Handle"),
    .flags("Advertising_Event_Properties", bytes: 2, HCIValueNames.advertisingEventProperties),
    .interval("Primary_Advertising_Interval_Min", .slots, bytes: 3),
    .interval("Primary_Advertising_Interval_Max", .slots, bytes: 3),
    .flags("Primary_Advertising_Channel_Map", HCIValueNames.advertisingChannelMap),
    .enumeration("Own_Address_Type", HCIValueNames.ownAddressType), .addressType("Peer_Address_Type"),
    .address("Peer_Address"), .enumeration("Advertising_Filter_Policy", HCIValueNames.advertisingFilterPolicy),
    .int8("Advertising_TX_Power"), .enumeration("Primary_Advertising_PHY", HCIValueNames.phy),
    .uint8("Secondary_Advertising_Max_Skip"), .enumeration("Secondary_Advertising_PHY", HCIValueNames.phy),
    .uint8("Advertising_SID"), .enumeration("Scan_Request_Notification_Enable", HCIValueNames.enabled),
  ]
}
