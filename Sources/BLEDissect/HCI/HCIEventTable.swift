private typealias L = HCILayout
private typealias N = HCIValueNames

/// One HCI event or LE Meta subevent (Core 6.0, Vol 4, Part E, 7.7): its code, spec
/// name, parameter layout and which parameters a one-line listing shows.
public struct HCIEventRow: Sendable {
  public var code: UInt8
  /// The spec's name, verbatim (`LE Enhanced Connection Complete [v2]`).
  public var name: String
  /// The event's parameters (after Subevent_Code for LE Meta subevents); nil when
  /// only the name is known and the parameters are shown raw.
  public var parameters: [HCIParameter]?
  /// The 1 to 4 parameters worth showing on a one-line listing.
  public var summary: [String]

  public init(_ code: UInt8, _ name: String, _ parameters: [HCIParameter]? = nil, summary: [String]? = nil) {
    self.code = code
    self.name = name
    self.parameters = parameters
    self.summary = summary ?? Self.defaultSummary(parameters ?? [])
  }

  /// Status and the connection handle when the event has them, else the first
  /// scalar parameter.
  private static func defaultSummary(_ parameters: [HCIParameter]) -> [String] {
    let names = parameters.map(\.name)
    var summary = names.filter { $0 == "Status" || $0 == "Connection_Handle" || $0 == "Sync_Handle" }
    if summary.isEmpty, let first = parameters.first(where: { if case .repeated = $0 { false } else { true } }) {
      summary = [first.name]
    }
    return summary
  }
}

/// Every HCI event and LE Meta subevent of Core 6.0, one row each, and the indexes
/// by code the name lookups use.
enum HCIEventTable {
  static let eventsByCode: [UInt8: HCIEventRow] = Dictionary(
    events.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
  static let subeventsByCode: [UInt8: HCIEventRow] = Dictionary(
    leSubevents.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
  /// Names by code, for the hot path (`HCIEventCode.name`, `LESubeventCode.name`):
  /// indexed, not hashed.
  static let eventNames: [String?] = names(events)
  static let subeventNames: [String?] = names(leSubevents)

  private static func names(_ rows: [HCIEventRow]) -> [String?] {
    var names = [String?](repeating: nil, count: 256)
    for row in rows where names[Int(row.code)] == nil { names[Int(row.code)] = row.name }
    return names
  }

  private static let inquiryResponse: [HCIParameter] = [
    .address("BD_ADDR"), .enumeration("Page_Scan_Repetition_Mode", N.pageScanRepetitionMode),
  ]

  private static let flowSpecification: [HCIParameter] = [
    .hex8("Unused"), .hex8("Flow_Direction"), .hex8("Service_Type"), .uint32("Token_Rate"),
    .uint32("Token_Bucket_Size"), .uint32("Peak_Bandwidth"), .uint32("Access_Latency"),
  ]

  /// HCI events (7.7.1 to 7.7.78), LE Meta and vendor events included.
  static let events: [HCIEventRow] = [
    .init(0x01, "Inquiry Complete", L.status),
    .init(
      0x02, "Inquiry Result",
      [
        .uint8("Num_Responses"),
        .repeated(
          countFrom: "Num_Responses", item: "Response",
          inquiryResponse + [.hex16("Reserved"), .hex24("Class_Of_Device"), .hex16("Clock_Offset")]),
      ], summary: ["Num_Responses", "BD_ADDR"]),
    .init(
      0x03, "Connection Complete",
      [
        .status, .handle("Connection_Handle"), .address("BD_ADDR"),
        .enumeration("Link_Type", N.connectionLinkType), .enumeration("Encryption_Enabled", N.enabled),
      ], summary: ["Status", "Connection_Handle", "BD_ADDR", "Link_Type"]),
    .init(
      0x04, "Connection Request",
      [.address("BD_ADDR"), .hex24("Class_Of_Device"), .enumeration("Link_Type", N.connectionLinkType)],
      summary: ["BD_ADDR", "Link_Type"]),
    .init(
      0x05, "Disconnection Complete", [.status, .handle("Connection_Handle"), .reason("Reason")],
      summary: ["Status", "Connection_Handle", "Reason"]),
    .init(0x06, "Authentication Complete", L.statusConnectionHandle),
    .init(
      0x07, "Remote Name Request Complete", [.status, .address("BD_ADDR"), .text("Remote_Name", 248)],
      summary: ["Status", "BD_ADDR", "Remote_Name"]),
    .init(
      0x08, "Encryption Change [v1]",
      [.status, .handle("Connection_Handle"), .enumeration("Encryption_Enabled", N.encryptionEnabled)],
      summary: ["Status", "Connection_Handle", "Encryption_Enabled"]),
    .init(0x09, "Change Connection Link Key Complete", L.statusConnectionHandle),
    .init(0x0A, "Link Key Type Changed", [.status, .handle("Connection_Handle"), .hex8("Key_Flag")]),
    .init(
      0x0B, "Read Remote Supported Features Complete", [.status, .handle("Connection_Handle"), .hex64("LMP_Features")]
    ),
    .init(
      0x0C, "Read Remote Version Information Complete",
      [
        .status, .handle("Connection_Handle"), .enumeration("Version", N.version), .hex16("Company_Identifier"),
        .hex16("Subversion"),
      ], summary: ["Status", "Connection_Handle", "Version", "Company_Identifier"]),
    .init(
      0x0D, "QoS Setup Complete",
      [
        .status, .handle("Connection_Handle"), .hex8("Unused"), .hex8("Service_Type"), .uint32("Token_Rate"),
        .uint32("Peak_Bandwidth"), .uint32("Latency"), .uint32("Delay_Variation"),
      ]),
    .init(
      0x0E, "Command Complete",
      [.uint8("Num_HCI_Command_Packets"), .opcode("Command_Opcode"), .rest("Return_Parameters")],
      summary: ["Command_Opcode"]),
    .init(
      0x0F, "Command Status", [.status, .uint8("Num_HCI_Command_Packets"), .opcode("Command_Opcode")],
      summary: ["Command_Opcode", "Status"]),
    .init(0x10, "Hardware Error", [.hex8("Hardware_Code")]),
    .init(0x11, "Flush Occurred", L.handle),
    .init(
      0x12, "Role Change", [.status, .address("BD_ADDR"), .enumeration("New_Role", N.role)],
      summary: ["Status", "BD_ADDR", "New_Role"]),
    .init(
      0x13, "Number Of Completed Packets",
      [
        .uint8("Num_Handles"),
        .repeated(
          countFrom: "Num_Handles", item: "Handle", [.handle("Connection_Handle"), .uint16("Num_Completed_Packets")]),
      ], summary: ["Num_Handles"]),
    .init(
      0x14, "Mode Change",
      [
        .status, .handle("Connection_Handle"), .enumeration("Current_Mode", N.currentMode),
        .interval("Interval", .slots),
      ], summary: ["Status", "Connection_Handle", "Current_Mode"]),
    .init(
      0x15, "Return Link Keys",
      [
        .uint8("Num_Keys"),
        .repeated(countFrom: "Num_Keys", item: "Key", [.address("BD_ADDR"), .bytes("Link_Key", 16)]),
      ]),
    .init(0x16, "PIN Code Request", L.bdAddr),
    .init(0x17, "Link Key Request", L.bdAddr),
    .init(
      0x18, "Link Key Notification",
      [.address("BD_ADDR"), .bytes("Link_Key", 16), .enumeration("Key_Type", N.keyType)],
      summary: ["BD_ADDR", "Key_Type"]),
    .init(0x19, "Loopback Command", [.rest("HCI_Command_Packet")]),
    .init(0x1A, "Data Buffer Overflow", [.enumeration("Link_Type", N.overflowLinkType)]),
    .init(0x1B, "Max Slots Change", [.handle("Connection_Handle"), .uint8("LMP_Max_Slots")]),
    .init(0x1C, "Read Clock Offset Complete", [.status, .handle("Connection_Handle"), .hex16("Clock_Offset")]),
    .init(0x1D, "Connection Packet Type Changed", [.status, .handle("Connection_Handle"), .hex16("Packet_Type")]),
    .init(0x1E, "QoS Violation", L.handle),
    .init(0x20, "Page Scan Repetition Mode Change", inquiryResponse),
    .init(0x21, "Flow Specification Complete", [.status, .handle("Connection_Handle")] + flowSpecification),
    .init(
      0x22, "Inquiry Result with RSSI",
      [
        .uint8("Num_Responses"),
        .repeated(
          countFrom: "Num_Responses", item: "Response",
          inquiryResponse + [
            .hex8("Reserved"), .hex24("Class_Of_Device"), .hex16("Clock_Offset"), .rssi("RSSI"),
          ]),
      ], summary: ["Num_Responses", "BD_ADDR", "RSSI"]),
    .init(
      0x23, "Read Remote Extended Features Complete",
      [
        .status, .handle("Connection_Handle"), .uint8("Page_Number"), .uint8("Max_Page_Number"),
        .hex64("Extended_LMP_Features"),
      ]),
    .init(
      0x2C, "Synchronous Connection Complete",
      [
        .status, .handle("Connection_Handle"), .address("BD_ADDR"),
        .enumeration("Link_Type", N.connectionLinkType), .uint8("Transmission_Interval"),
        .uint8("Retransmission_Window"), .uint16("RX_Packet_Length"), .uint16("TX_Packet_Length"),
        .enumeration("Air_Mode", N.airMode),
      ], summary: ["Status", "Connection_Handle", "BD_ADDR"]),
    .init(
      0x2D, "Synchronous Connection Changed",
      [
        .status, .handle("Connection_Handle"), .uint8("Transmission_Interval"), .uint8("Retransmission_Window"),
        .uint16("RX_Packet_Length"), .uint16("TX_Packet_Length"),
      ]),
    .init(
      0x2E, "Sniff Subrating",
      [
        .status, .handle("Connection_Handle"), .interval("Max_TX_Latency", .slots),
        .interval("Max_RX_Latency", .slots), .interval("Min_Remote_Timeout", .slots),
        .interval("Min_Local_Timeout", .slots),
      ]),
    .init(
      0x2F, "Extended Inquiry Result",
      [.uint8("Num_Responses")] + inquiryResponse + [
        .hex8("Reserved"), .hex24("Class_Of_Device"), .hex16("Clock_Offset"), .rssi("RSSI"),
        .bytes("Extended_Inquiry_Response", 240),
      ], summary: ["BD_ADDR", "RSSI"]),
    .init(0x30, "Encryption Key Refresh Complete", L.statusConnectionHandle),
    .init(0x31, "IO Capability Request", L.bdAddr),
    .init(
      0x32, "IO Capability Response",
      [
        .address("BD_ADDR"), .enumeration("IO_Capability", N.ioCapability), .hex8("OOB_Data_Present"),
        .enumeration("Authentication_Requirements", N.authenticationRequirements),
      ], summary: ["BD_ADDR", "IO_Capability"]),
    .init(0x33, "User Confirmation Request", [.address("BD_ADDR"), .uint32("Numeric_Value")]),
    .init(0x34, "User Passkey Request", L.bdAddr),
    .init(0x35, "Remote OOB Data Request", L.bdAddr),
    .init(0x36, "Simple Pairing Complete", L.statusBDAddr, summary: ["Status", "BD_ADDR"]),
    .init(
      0x38, "Link Supervision Timeout Changed",
      [.handle("Connection_Handle"), .interval("Link_Supervision_Timeout", .slots)]),
    .init(0x39, "Enhanced Flush Complete", L.handle),
    .init(0x3B, "User Passkey Notification", [.address("BD_ADDR"), .uint32("Passkey")]),
    .init(
      0x3C, "Keypress Notification",
      [.address("BD_ADDR"), .enumeration("Notification_Type", N.keypressNotification)]),
    .init(
      0x3D, "Remote Host Supported Features Notification",
      [.address("BD_ADDR"), .hex64("Host_Supported_Features")]),
    .init(0x3E, "LE Meta", [.hex8("Subevent_Code"), .rest("Parameters")], summary: ["Subevent_Code"]),
    .init(
      0x48, "Number Of Completed Data Blocks",
      [
        .uint16("Total_Num_Data_Blocks"), .uint8("Num_Handles"),
        .repeated(
          countFrom: "Num_Handles", item: "Handle",
          [.handle("Handle"), .uint16("Num_Completed_Packets"), .uint16("Num_Completed_Blocks")]),
      ], summary: ["Num_Handles"]),
    .init(
      0x4E, "Triggered Clock Capture",
      [
        .handle("Connection_Handle"), .enumeration("Which_Clock", N.whichClock), .hex32("Clock"),
        .uint16("Slot_Offset"),
      ]),
    .init(0x4F, "Synchronization Train Complete", L.status),
    .init(
      0x50, "Synchronization Train Received",
      [
        .status, .address("BD_ADDR"), .hex32("Clock_Offset"), .bytes("AFH_Channel_Map", 10), .hex8("LT_ADDR"),
        .hex32("Next_Broadcast_Instant"), .interval("Connectionless_Peripheral_Broadcast_Interval", .slots),
        .hex8("Service_Data"),
      ]),
    .init(
      0x51, "Connectionless Peripheral Broadcast Receive",
      [
        .address("BD_ADDR"), .hex8("LT_ADDR"), .hex32("Clock"), .hex32("Offset"), .hex8("RX_Status"),
        .hex8("Fragment"), .lengthPrefixed("Data", lengthName: "Data_Length"),
      ]),
    .init(0x52, "Connectionless Peripheral Broadcast Timeout", [.address("BD_ADDR"), .hex8("LT_ADDR")]),
    .init(0x53, "Truncated Page Complete", L.statusBDAddr),
    .init(0x54, "Peripheral Page Response Timeout", []),
    .init(0x55, "Connectionless Peripheral Broadcast Channel Map Change", [.bytes("Channel_Map", 10)]),
    .init(0x56, "Inquiry Response Notification", [.hex24("LAP"), .rssi("RSSI")]),
    .init(0x57, "Authenticated Payload Timeout Expired", L.connectionHandle),
    .init(
      0x58, "SAM Status Change",
      [
        .handle("Connection_Handle"), .uint8("Local_SAM_Index"), .uint8("Local_SAM_TX_Availability"),
        .uint8("Local_SAM_RX_Availability"), .uint8("Remote_SAM_Index"), .uint8("Remote_SAM_TX_Availability"),
        .uint8("Remote_SAM_RX_Availability"),
      ]),
    .init(
      0x59, "Encryption Change [v2]",
      [
        .status, .handle("Connection_Handle"), .enumeration("Encryption_Enabled", N.encryptionEnabled),
        .uint8("Encryption_Key_Size"),
      ], summary: ["Status", "Connection_Handle", "Encryption_Enabled", "Encryption_Key_Size"]),
    .init(0xFF, "Vendor Specific", [.rest("Parameters")], summary: []),
  ]

  private static let connectionComplete: [HCIParameter] = [
    .status, .handle("Connection_Handle"), .enumeration("Role", N.role), .addressType("Peer_Address_Type"),
    .address("Peer_Address"),
  ]

  private static let connectionParameters: [HCIParameter] = [
    .interval("Connection_Interval", .ms1_25), .uint16("Peripheral_Latency"), .interval("Supervision_Timeout", .ms10),
  ]

  private static let enhancedConnectionComplete: [HCIParameter] =
    connectionComplete + [
      .address("Local_Resolvable_Private_Address"), .address("Peer_Resolvable_Private_Address"),
    ] + connectionParameters + [.enumeration("Central_Clock_Accuracy", N.clockAccuracy)]

  private static let syncEstablished: [HCIParameter] = [
    .status, .handle("Sync_Handle"), .uint8("Advertising_SID"), .addressType("Advertiser_Address_Type"),
    .address("Advertiser_Address"), .enumeration("Advertiser_PHY", N.phy),
    .interval("Periodic_Advertising_Interval", .ms1_25), .enumeration("Advertiser_Clock_Accuracy", N.clockAccuracy),
  ]

  private static let syncTransferReceived: [HCIParameter] = [
    .status, .handle("Connection_Handle"), .hex16("Service_Data"), .handle("Sync_Handle"),
    .uint8("Advertising_SID"), .addressType("Advertiser_Address_Type"), .address("Advertiser_Address"),
    .enumeration("Advertiser_PHY", N.phy), .interval("Periodic_Advertising_Interval", .ms1_25),
    .enumeration("Advertiser_Clock_Accuracy", N.clockAccuracy),
  ]

  private static let responseTiming: [HCIParameter] = [
    .uint8("Num_Subevents"), .interval("Subevent_Interval", .ms1_25, bytes: 1),
    .interval("Response_Slot_Delay", .ms1_25, bytes: 1), .interval("Response_Slot_Spacing", .ms0_125, bytes: 1),
  ]

  private static let cisEstablished: [HCIParameter] = [
    .status, .handle("Connection_Handle"), .interval("CIG_Sync_Delay", .us, bytes: 3),
    .interval("CIS_Sync_Delay", .us, bytes: 3), .interval("Transport_Latency_C_To_P", .us, bytes: 3),
    .interval("Transport_Latency_P_To_C", .us, bytes: 3), .enumeration("PHY_C_To_P", N.phy),
    .enumeration("PHY_P_To_C", N.phy), .uint8("NSE"), .uint8("BN_C_To_P"), .uint8("BN_P_To_C"), .uint8("FT_C_To_P"),
    .uint8("FT_P_To_C"), .uint16("Max_PDU_C_To_P"), .uint16("Max_PDU_P_To_C"), .interval("ISO_Interval", .ms1_25),
  ]

  private static let bigHandles: HCIParameter = .repeated(
    countFrom: "Num_BIS", item: "BIS", [.handle("Connection_Handle")])

  private static let iqSamples: HCIParameter = .repeated(
    countFrom: "Sample_Count", item: "Sample", [.int8("I_Sample"), .int8("Q_Sample")])

  private static let csSteps: HCIParameter = .repeated(
    countFrom: "Num_Steps_Reported", item: "Step",
    [.uint8("Step_Mode"), .uint8("Step_Channel"), .lengthPrefixed("Step_Data", lengthName: "Step_Data_Length")])

  private static let csResultStatus: [HCIParameter] = [
    .enumeration("Procedure_Done_Status", N.csDoneStatus), .enumeration("Subevent_Done_Status", N.csDoneStatus),
    .hex8("Abort_Reason"), .uint8("Num_Antenna_Paths"), .uint8("Num_Steps_Reported"), csSteps,
  ]

  /// LE Meta subevents (7.7.65.1 to 7.7.65.53); parameters follow Subevent_Code.
  static let leSubevents: [HCIEventRow] = [
    .init(
      0x01, "LE Connection Complete",
      connectionComplete + connectionParameters + [.enumeration("Central_Clock_Accuracy", N.clockAccuracy)],
      summary: ["Status", "Connection_Handle", "Role", "Peer_Address"]),
    .init(
      0x02, "LE Advertising Report",
      [
        .uint8("Num_Reports"),
        .repeated(
          countFrom: "Num_Reports", item: "Report",
          [
            .enumeration("Event_Type", N.reportEventType), .addressType("Address_Type"), .address("Address"),
            .lengthPrefixed("Data", lengthName: "Data_Length"), .rssi("RSSI"),
          ]),
      ], summary: ["Num_Reports", "Event_Type", "Address", "RSSI"]),
    .init(
      0x03, "LE Connection Update Complete", [.status, .handle("Connection_Handle")] + connectionParameters,
      summary: ["Status", "Connection_Handle", "Connection_Interval", "Peripheral_Latency"]),
    .init(
      0x04, "LE Read Remote Features Page 0 Complete",
      [.status, .handle("Connection_Handle"), .hex64("LE_Features")]),
    .init(
      0x05, "LE Long Term Key Request",
      [.handle("Connection_Handle"), .hex64("Random_Number"), .hex16("Encrypted_Diversifier")],
      summary: ["Connection_Handle", "Encrypted_Diversifier"]),
    .init(
      0x06, "LE Remote Connection Parameter Request",
      [
        .handle("Connection_Handle"), .interval("Interval_Min", .ms1_25), .interval("Interval_Max", .ms1_25),
        .uint16("Max_Latency"), .interval("Timeout", .ms10),
      ], summary: ["Connection_Handle", "Interval_Min", "Interval_Max"]),
    .init(
      0x07, "LE Data Length Change",
      [
        .handle("Connection_Handle"), .uint16("Max_TX_Octets"), .interval("Max_TX_Time", .us),
        .uint16("Max_RX_Octets"), .interval("Max_RX_Time", .us),
      ], summary: ["Connection_Handle", "Max_TX_Octets", "Max_RX_Octets"]),
    .init(
      0x08, "LE Read Local P-256 Public Key Complete",
      [.status, .bytes("Key_X_Coordinate", 32), .bytes("Key_Y_Coordinate", 32)]),
    .init(0x09, "LE Generate DHKey Complete", [.status, .bytes("DH_Key", 32)]),
    .init(
      0x0A, "LE Enhanced Connection Complete [v1]", enhancedConnectionComplete,
      summary: ["Status", "Connection_Handle", "Role", "Peer_Address"]),
    .init(
      0x0B, "LE Directed Advertising Report",
      [
        .uint8("Num_Reports"),
        .repeated(
          countFrom: "Num_Reports", item: "Report",
          [
            .enumeration("Event_Type", N.directedReportEventType), .addressType("Address_Type"),
            .address("Address"), .addressType("Direct_Address_Type"), .address("Direct_Address"), .rssi("RSSI"),
          ]),
      ], summary: ["Num_Reports", "Address", "RSSI"]),
    .init(
      0x0C, "LE PHY Update Complete",
      [.status, .handle("Connection_Handle"), .enumeration("TX_PHY", N.phy), .enumeration("RX_PHY", N.phy)],
      summary: ["Status", "Connection_Handle", "TX_PHY", "RX_PHY"]),
    .init(
      0x0D, "LE Extended Advertising Report",
      [
        .uint8("Num_Reports"),
        .repeated(
          countFrom: "Num_Reports", item: "Report",
          [
            .flags("Event_Type", bytes: 2, N.extendedReportEventType), .addressType("Address_Type"),
            .address("Address"), .enumeration("Primary_PHY", N.phy), .enumeration("Secondary_PHY", N.secondaryPHY),
            .uint8("Advertising_SID"), .txPower("TX_Power"), .rssi("RSSI"),
            .interval("Periodic_Advertising_Interval", .ms1_25), .addressType("Direct_Address_Type"),
            .address("Direct_Address"), .lengthPrefixed("Data", lengthName: "Data_Length"),
          ]),
      ], summary: ["Num_Reports", "Event_Type", "Address", "RSSI"]),
    .init(
      0x0E, "LE Periodic Advertising Sync Established [v1]", syncEstablished,
      summary: ["Status", "Sync_Handle", "Advertiser_Address"]),
    .init(
      0x0F, "LE Periodic Advertising Report [v1]",
      [
        .handle("Sync_Handle"), .txPower("TX_Power"), .rssi("RSSI"), .enumeration("CTE_Type", N.cteType),
        .enumeration("Data_Status", N.dataStatus), .lengthPrefixed("Data", lengthName: "Data_Length"),
      ], summary: ["Sync_Handle", "RSSI", "Data_Length"]),
    .init(0x10, "LE Periodic Advertising Sync Lost", [.handle("Sync_Handle")]),
    .init(0x11, "LE Scan Timeout", []),
    .init(
      0x12, "LE Advertising Set Terminated",
      [
        .status, .hex8("Advertising_Handle"), .handle("Connection_Handle"),
        .uint8("Num_Completed_Extended_Advertising_Events"),
      ], summary: ["Status", "Advertising_Handle", "Connection_Handle"]),
    .init(
      0x13, "LE Scan Request Received",
      [.hex8("Advertising_Handle"), .addressType("Scanner_Address_Type"), .address("Scanner_Address")],
      summary: ["Advertising_Handle", "Scanner_Address"]),
    .init(
      0x14, "LE Channel Selection Algorithm",
      [.handle("Connection_Handle"), .enumeration("Channel_Selection_Algorithm", N.channelSelectionAlgorithm)],
      summary: ["Connection_Handle", "Channel_Selection_Algorithm"]),
    .init(
      0x15, "LE Connectionless IQ Report",
      [
        .handle("Sync_Handle"), .uint8("Channel_Index"), .int16("RSSI"), .hex8("RSSI_Antenna_ID"),
        .enumeration("CTE_Type", N.cteType), .hex8("Slot_Durations"), .hex8("Packet_Status"),
        .uint16("Periodic_Event_Counter"), .uint8("Sample_Count"), iqSamples,
      ]),
    .init(
      0x16, "LE Connection IQ Report",
      [
        .handle("Connection_Handle"), .enumeration("RX_PHY", N.phy), .uint8("Data_Channel_Index"), .int16("RSSI"),
        .hex8("RSSI_Antenna_ID"), .enumeration("CTE_Type", N.cteType), .hex8("Slot_Durations"),
        .hex8("Packet_Status"), .uint16("Connection_Event_Counter"), .uint8("Sample_Count"), iqSamples,
      ]),
    .init(0x17, "LE CTE Request Failed", L.statusConnectionHandle),
    .init(0x18, "LE Periodic Advertising Sync Transfer Received [v1]", syncTransferReceived),
    .init(0x19, "LE CIS Established [v1]", cisEstablished),
    .init(
      0x1A, "LE CIS Request",
      [
        .handle("ACL_Connection_Handle"), .handle("CIS_Connection_Handle"), .hex8("CIG_ID"), .hex8("CIS_ID"),
      ], summary: ["ACL_Connection_Handle", "CIS_Connection_Handle"]),
    .init(
      0x1B, "LE Create BIG Complete",
      [
        .status, .hex8("BIG_Handle"), .interval("BIG_Sync_Delay", .us, bytes: 3),
        .interval("Transport_Latency_BIG", .us, bytes: 3), .enumeration("PHY", N.phy), .uint8("NSE"), .uint8("BN"),
        .uint8("PTO"), .uint8("IRC"), .uint16("Max_PDU"), .interval("ISO_Interval", .ms1_25), .uint8("Num_BIS"),
        bigHandles,
      ], summary: ["Status", "BIG_Handle", "Num_BIS"]),
    .init(0x1C, "LE Terminate BIG Complete", [.hex8("BIG_Handle"), .reason("Reason")]),
    .init(
      0x1D, "LE BIG Sync Established",
      [
        .status, .hex8("BIG_Handle"), .interval("Transport_Latency_BIG", .us, bytes: 3), .uint8("NSE"), .uint8("BN"),
        .uint8("PTO"), .uint8("IRC"), .uint16("Max_PDU"), .interval("ISO_Interval", .ms1_25), .uint8("Num_BIS"),
        bigHandles,
      ], summary: ["Status", "BIG_Handle", "Num_BIS"]),
    .init(0x1E, "LE BIG Sync Lost", [.hex8("BIG_Handle"), .reason("Reason")]),
    .init(
      0x1F, "LE Request Peer SCA Complete",
      [.status, .handle("Connection_Handle"), .enumeration("Peer_Clock_Accuracy", N.sleepClockAccuracy)]),
    .init(
      0x20, "LE Path Loss Threshold",
      [
        .handle("Connection_Handle"), .interval("Current_Path_Loss", .dB, bytes: 1),
        .enumeration("Zone_Entered", N.zoneEntered),
      ]),
    .init(
      0x21, "LE Transmit Power Reporting",
      [
        .status, .handle("Connection_Handle"), .enumeration("Reason", N.transmitPowerReportingReason),
        .enumeration("PHY", N.transmitPowerPHY), .txPower("TX_Power_Level"), .hex8("TX_Power_Level_Flag"),
        .int8("Delta"),
      ], summary: ["Status", "Connection_Handle", "TX_Power_Level"]),
    .init(
      0x22, "LE BIGInfo Advertising Report",
      [
        .handle("Sync_Handle"), .uint8("Num_BIS"), .uint8("NSE"), .interval("ISO_Interval", .ms1_25), .uint8("BN"),
        .uint8("PTO"), .uint8("IRC"), .uint16("Max_PDU"), .interval("SDU_Interval", .us, bytes: 3),
        .uint16("Max_SDU"), .enumeration("PHY", N.phy), .enumeration("Framing", N.framing),
        .enumeration("Encryption", N.enabled),
      ], summary: ["Sync_Handle", "Num_BIS"]),
    .init(
      0x23, "LE Subrate Change",
      [
        .status, .handle("Connection_Handle"), .uint16("Subrate_Factor"), .uint16("Peripheral_Latency"),
        .uint16("Continuation_Number"), .interval("Supervision_Timeout", .ms10),
      ], summary: ["Status", "Connection_Handle", "Subrate_Factor"]),
    .init(
      0x24, "LE Periodic Advertising Sync Established [v2]", syncEstablished + responseTiming,
      summary: ["Status", "Sync_Handle", "Advertiser_Address"]),
    .init(
      0x25, "LE Periodic Advertising Report [v2]",
      [
        .handle("Sync_Handle"), .txPower("TX_Power"), .rssi("RSSI"), .enumeration("CTE_Type", N.cteType),
        .uint16("Periodic_Event_Counter"), .uint8("Subevent"), .enumeration("Data_Status", N.dataStatus),
        .lengthPrefixed("Data", lengthName: "Data_Length"),
      ], summary: ["Sync_Handle", "RSSI", "Data_Length"]),
    .init(0x26, "LE Periodic Advertising Sync Transfer Received [v2]", syncTransferReceived + responseTiming),
    .init(
      0x27, "LE Periodic Advertising Subevent Data Request",
      [.hex8("Advertising_Handle"), .uint8("Subevent_Start"), .uint8("Subevent_Data_Count")]),
    .init(
      0x28, "LE Periodic Advertising Response Report",
      [
        .hex8("Advertising_Handle"), .uint8("Subevent"), .hex8("Tx_Status"), .uint8("Num_Responses"),
        .repeated(
          countFrom: "Num_Responses", item: "Response",
          [
            .txPower("Tx_Power"), .rssi("RSSI"), .enumeration("CTE_Type", N.cteType), .uint8("Response_Slot"),
            .enumeration("Data_Status", N.dataStatus), .lengthPrefixed("Data", lengthName: "Data_Length"),
          ]),
      ], summary: ["Advertising_Handle", "Subevent", "Num_Responses"]),
    .init(
      0x29, "LE Enhanced Connection Complete [v2]",
      enhancedConnectionComplete + [.hex8("Advertising_Handle"), .handle("Sync_Handle")],
      summary: ["Status", "Connection_Handle", "Role", "Peer_Address"]),
    .init(
      0x2A, "LE CIS Established [v2]",
      cisEstablished + [
        .interval("Sub_Interval", .us, bytes: 3), .uint16("Max_SDU_C_To_P"), .uint16("Max_SDU_P_To_C"),
        .interval("SDU_Interval_C_To_P", .us, bytes: 3), .interval("SDU_Interval_P_To_C", .us, bytes: 3),
        .enumeration("Framing", N.framing),
      ]),
    .init(
      0x2B, "LE Read All Remote Features Complete",
      [
        .status, .handle("Connection_Handle"), .uint8("Max_Remote_Page"), .uint8("Max_Valid_Page"),
        .bytes("LE_Features", 248),
      ]),
    .init(
      0x2C, "LE CS Read Remote Supported Capabilities Complete",
      [.status, .handle("Connection_Handle")] + L.csCapabilities),
    .init(
      0x2D, "LE CS Read Remote FAE Table Complete",
      [.status, .handle("Connection_Handle"), .bytes("Remote_FAE_Table", 72)]),
    .init(0x2E, "LE CS Security Enable Complete", L.statusConnectionHandle),
    .init(
      0x2F, "LE CS Config Complete",
      [.status, .handle("Connection_Handle"), .uint8("Config_ID"), .enumeration("Action", N.csConfigAction)]
        + L.csConfig + [.uint8("T_IP1_Time"), .uint8("T_IP2_Time"), .uint8("T_FCS_Time"), .uint8("T_PM_Time")],
      summary: ["Status", "Connection_Handle", "Config_ID", "Action"]),
    .init(
      0x30, "LE CS Procedure Enable Complete",
      [
        .status, .handle("Connection_Handle"), .uint8("Config_ID"), .enumeration("State", N.csState),
        .uint8("Tone_Antenna_Config_Selection"), .int8("Selected_TX_Power"),
        .interval("Subevent_Len", .us, bytes: 3), .uint8("Subevents_Per_Event"),
        .interval("Subevent_Interval", .slots), .uint16("Event_Interval"), .uint16("Procedure_Interval"),
        .uint16("Procedure_Count"), .interval("Max_Procedure_Len", .slots),
      ], summary: ["Status", "Connection_Handle", "Config_ID", "State"]),
    .init(
      0x31, "LE CS Subevent Result",
      [
        .handle("Connection_Handle"), .uint8("Config_ID"), .uint16("Start_ACL_Conn_Event_Counter"),
        .uint16("Procedure_Counter"), .int16("Frequency_Compensation"), .txPower("Reference_Power_Level"),
      ] + csResultStatus, summary: ["Connection_Handle", "Config_ID", "Procedure_Counter", "Num_Steps_Reported"]),
    .init(
      0x32, "LE CS Subevent Result Continue",
      [.handle("Connection_Handle"), .uint8("Config_ID")] + csResultStatus,
      summary: ["Connection_Handle", "Config_ID", "Num_Steps_Reported"]),
    .init(0x33, "LE CS Test End Complete", L.status),
    .init(
      0x34, "LE Monitored Advertisers Report", [.addressType("Address_Type"), .address("Address"), .hex8("Condition")],
      summary: ["Address", "Condition"]),
    .init(
      0x35, "LE Frame Space Update Complete",
      [
        .status, .handle("Connection_Handle"), .enumeration("Initiator", N.frameSpaceInitiator),
        .interval("Frame_Space", .us), .flags("PHYs", N.phyBits), .flags("Spacing_Types", bytes: 2, N.spacingTypes),
      ], summary: ["Status", "Connection_Handle", "Frame_Space"]),
  ]
}
