private typealias L = HCILayout
private typealias N = HCIValueNames

/// Every HCI command of Core 6.0 (Vol 4, Part E, 7.1 to 7.8), one row each, and the
/// index by opcode the name lookups use.
enum HCICommandTable {
  /// All rows, in opcode order within each group.
  static let rows: [HCICommandRow] =
    linkControl + linkPolicy + controllerBaseband + informational + statusParameters + testing + leController

  /// Rows by opcode, built once. A duplicate opcode keeps its first row (the table
  /// tests reject duplicates).
  static let byOpcode: [UInt16: HCICommandRow] = Dictionary(
    rows.map { ($0.opcode, $0) }, uniquingKeysWith: { first, _ in first })

  /// Names by opcode, for the hot path (`HCIOpcode.name`).
  static let names: [UInt16: String] = byOpcode.mapValues(\.name)

  private static let allowRoleSwitch: [UInt64: String] = [0x00: "Not allowed", 0x01: "Allowed"]
  private static let powerLevelType: [UInt64: String] = [0x00: "Current", 0x01: "Maximum"]
  private static let scanKind: [UInt64: String] = [0x00: "Standard Scan", 0x01: "Interlaced Scan"]
  private static let inquiryLength = HCIUnit.s1_28

  /// Synchronous connection parameters of Setup and Accept Synchronous Connection.
  private static let synchronous: [HCIParameter] = [
    .uint32("Transmit_Bandwidth"), .uint32("Receive_Bandwidth"), .interval("Max_Latency", .ms),
    .hex16("Voice_Setting"), .hex8("Retransmission_Effort"), .hex16("Packet_Type"),
  ]

  /// Enhanced synchronous connection parameters (7.1.45, 7.1.46).
  private static let enhancedSynchronous: [HCIParameter] = [
    .uint32("Transmit_Bandwidth"), .uint32("Receive_Bandwidth"), .bytes("Transmit_Coding_Format", 5),
    .bytes("Receive_Coding_Format", 5), .uint16("Transmit_Codec_Frame_Size"), .uint16("Receive_Codec_Frame_Size"),
    .uint32("Input_Bandwidth"), .uint32("Output_Bandwidth"), .bytes("Input_Coding_Format", 5),
    .bytes("Output_Coding_Format", 5), .uint16("Input_Coded_Data_Size"), .uint16("Output_Coded_Data_Size"),
    .hex8("Input_PCM_Data_Format"), .hex8("Output_PCM_Data_Format"), .uint8("Input_PCM_Sample_Payload_MSB_Position"),
    .uint8("Output_PCM_Sample_Payload_MSB_Position"), .hex8("Input_Data_Path"), .hex8("Output_Data_Path"),
    .uint8("Input_Transport_Unit_Size"), .uint8("Output_Transport_Unit_Size"), .interval("Max_Latency", .ms),
    .hex16("Packet_Type"), .hex8("Retransmission_Effort"),
  ]

  private static let oobExtended: [HCIParameter] = [
    .bytes("C_192", 16), .bytes("R_192", 16), .bytes("C_256", 16), .bytes("R_256", 16),
  ]

  /// Link Control commands, OGF 0x01 (7.1).
  static let linkControl: [HCICommandRow] = [
    .linkControl(
      0x0001, "Inquiry", [.hex24("LAP"), .interval("Inquiry_Length", inquiryLength, bytes: 1), .uint8("Num_Responses")]
    ),
    .linkControl(0x0002, "Inquiry Cancel", [], returns: L.status),
    .linkControl(
      0x0003, "Periodic Inquiry Mode",
      [
        .interval("Max_Period_Length", inquiryLength), .interval("Min_Period_Length", inquiryLength), .hex24("LAP"),
        .interval("Inquiry_Length", inquiryLength, bytes: 1), .uint8("Num_Responses"),
      ], returns: L.status),
    .linkControl(0x0004, "Exit Periodic Inquiry Mode", [], returns: L.status),
    .linkControl(
      0x0005, "Create Connection",
      [
        .address("BD_ADDR"), .hex16("Packet_Type"),
        .enumeration("Page_Scan_Repetition_Mode", N.pageScanRepetitionMode), .hex8("Reserved"),
        .hex16("Clock_Offset"), .enumeration("Allow_Role_Switch", allowRoleSwitch),
      ], summary: ["BD_ADDR"]),
    .linkControl(
      0x0006, "Disconnect", [.handle("Connection_Handle"), .reason("Reason")],
      summary: ["Connection_Handle", "Reason"]),
    .linkControl(0x0008, "Create Connection Cancel", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(0x0009, "Accept Connection Request", [.address("BD_ADDR"), .enumeration("Role", N.role)]),
    .linkControl(0x000A, "Reject Connection Request", [.address("BD_ADDR"), .reason("Reason")]),
    .linkControl(
      0x000B, "Link Key Request Reply", [.address("BD_ADDR"), .bytes("Link_Key", 16)], returns: L.statusBDAddr),
    .linkControl(0x000C, "Link Key Request Negative Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(
      0x000D, "PIN Code Request Reply", [.address("BD_ADDR"), .uint8("PIN_Code_Length"), .bytes("PIN_Code", 16)],
      returns: L.statusBDAddr),
    .linkControl(0x000E, "PIN Code Request Negative Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(0x000F, "Change Connection Packet Type", [.handle("Connection_Handle"), .hex16("Packet_Type")]),
    .linkControl(0x0011, "Authentication Requested", L.connectionHandle),
    .linkControl(
      0x0013, "Set Connection Encryption",
      [.handle("Connection_Handle"), .enumeration("Encryption_Enable", N.enabled)]),
    .linkControl(0x0015, "Change Connection Link Key", L.connectionHandle),
    .linkControl(0x0017, "Link Key Selection", [.hex8("Key_Flag")]),
    .linkControl(
      0x0019, "Remote Name Request",
      [
        .address("BD_ADDR"), .enumeration("Page_Scan_Repetition_Mode", N.pageScanRepetitionMode),
        .hex8("Reserved"), .hex16("Clock_Offset"),
      ], summary: ["BD_ADDR"]),
    .linkControl(0x001A, "Remote Name Request Cancel", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(0x001B, "Read Remote Supported Features", L.connectionHandle),
    .linkControl(0x001C, "Read Remote Extended Features", [.handle("Connection_Handle"), .uint8("Page_Number")]),
    .linkControl(0x001D, "Read Remote Version Information", L.connectionHandle),
    .linkControl(0x001F, "Read Clock Offset", L.connectionHandle),
    .linkControl(
      0x0020, "Read LMP Handle", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .hex8("LMP_Handle"), .hex32("Reserved")]),
    .linkControl(0x0028, "Setup Synchronous Connection", [.handle("Connection_Handle")] + synchronous),
    .linkControl(0x0029, "Accept Synchronous Connection Request", [.address("BD_ADDR")] + synchronous),
    .linkControl(0x002A, "Reject Synchronous Connection Request", [.address("BD_ADDR"), .reason("Reason")]),
    .linkControl(
      0x002B, "IO Capability Request Reply",
      [
        .address("BD_ADDR"), .enumeration("IO_Capability", N.ioCapability), .hex8("OOB_Data_Present"),
        .enumeration("Authentication_Requirements", N.authenticationRequirements),
      ], returns: L.statusBDAddr),
    .linkControl(0x002C, "User Confirmation Request Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(0x002D, "User Confirmation Request Negative Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(
      0x002E, "User Passkey Request Reply", [.address("BD_ADDR"), .uint32("Numeric_Value")], returns: L.statusBDAddr),
    .linkControl(0x002F, "User Passkey Request Negative Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(
      0x0030, "Remote OOB Data Request Reply", [.address("BD_ADDR"), .bytes("C", 16), .bytes("R", 16)],
      returns: L.statusBDAddr),
    .linkControl(0x0033, "Remote OOB Data Request Negative Reply", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(
      0x0034, "IO Capability Request Negative Reply", [.address("BD_ADDR"), .reason("Reason")],
      returns: L.statusBDAddr),
    .linkControl(
      0x003D, "Enhanced Setup Synchronous Connection", [.handle("Connection_Handle")] + enhancedSynchronous),
    .linkControl(
      0x003E, "Enhanced Accept Synchronous Connection Request", [.address("BD_ADDR")] + enhancedSynchronous),
    .linkControl(
      0x003F, "Truncated Page",
      [
        .address("BD_ADDR"), .enumeration("Page_Scan_Repetition_Mode", N.pageScanRepetitionMode),
        .hex16("Clock_Offset"),
      ]),
    .linkControl(0x0040, "Truncated Page Cancel", L.bdAddr, returns: L.statusBDAddr),
    .linkControl(
      0x0041, "Set Connectionless Peripheral Broadcast",
      [
        .enumeration("Enable", N.enabled), .hex8("LT_ADDR"), .enumeration("LPO_Allowed", allowRoleSwitch),
        .hex16("Packet_Type"), .interval("Interval_Min", .slots), .interval("Interval_Max", .slots),
        .interval("Supervision_Timeout", .slots),
      ], returns: [.status, .hex8("LT_ADDR"), .interval("Interval", .slots)]),
    .linkControl(
      0x0042, "Set Connectionless Peripheral Broadcast Receive",
      [
        .enumeration("Enable", N.enabled), .address("BD_ADDR"), .hex8("LT_ADDR"), .interval("Interval", .slots),
        .hex32("Clock_Offset"), .hex32("Next_Connectionless_Peripheral_Broadcast_Clock"),
        .interval("Supervision_Timeout", .slots), .uint8("Remote_Timing_Accuracy"), .uint8("Skip"),
        .hex16("Packet_Type"), .bytes("AFH_Channel_Map", 10),
      ], returns: [.status, .address("BD_ADDR"), .hex8("LT_ADDR")]),
    .linkControl(0x0043, "Start Synchronization Train", []),
    .linkControl(
      0x0044, "Receive Synchronization Train",
      [
        .address("BD_ADDR"), .interval("Sync_Scan_Timeout", .slots), .interval("Sync_Scan_Window", .slots),
        .interval("Sync_Scan_Interval", .slots),
      ]),
    .linkControl(
      0x0045, "Remote OOB Extended Data Request Reply", [.address("BD_ADDR")] + oobExtended,
      returns: L.statusBDAddr),
  ]

  /// Link Policy commands, OGF 0x02 (7.2).
  static let linkPolicy: [HCICommandRow] = [
    .linkPolicy(
      0x0001, "Hold Mode",
      [
        .handle("Connection_Handle"), .interval("Hold_Mode_Max_Interval", .slots),
        .interval("Hold_Mode_Min_Interval", .slots),
      ]),
    .linkPolicy(
      0x0003, "Sniff Mode",
      [
        .handle("Connection_Handle"), .interval("Sniff_Max_Interval", .slots),
        .interval("Sniff_Min_Interval", .slots), .uint16("Sniff_Attempt"), .uint16("Sniff_Timeout"),
      ]),
    .linkPolicy(0x0004, "Exit Sniff Mode", L.connectionHandle),
    .linkPolicy(
      0x0007, "QoS Setup",
      [
        .handle("Connection_Handle"), .hex8("Unused"), .hex8("Service_Type"), .uint32("Token_Rate"),
        .uint32("Peak_Bandwidth"), .uint32("Latency"), .uint32("Delay_Variation"),
      ]),
    .linkPolicy(
      0x0009, "Role Discovery", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .enumeration("Current_Role", N.role)]),
    .linkPolicy(0x000B, "Switch Role", [.address("BD_ADDR"), .enumeration("Role", N.role)]),
    .linkPolicy(
      0x000C, "Read Link Policy Settings", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .hex16("Link_Policy_Settings")]),
    .linkPolicy(
      0x000D, "Write Link Policy Settings", [.handle("Connection_Handle"), .hex16("Link_Policy_Settings")],
      returns: L.statusConnectionHandle),
    .linkPolicy(
      0x000E, "Read Default Link Policy Settings", [], returns: [.status, .hex16("Default_Link_Policy_Settings")]),
    .linkPolicy(
      0x000F, "Write Default Link Policy Settings", [.hex16("Default_Link_Policy_Settings")], returns: L.status),
    .linkPolicy(
      0x0010, "Flow Specification",
      [
        .handle("Connection_Handle"), .hex8("Unused"), .hex8("Flow_Direction"), .hex8("Service_Type"),
        .uint32("Token_Rate"), .uint32("Token_Bucket_Size"), .uint32("Peak_Bandwidth"), .uint32("Access_Latency"),
      ]),
    .linkPolicy(
      0x0011, "Sniff Subrating",
      [
        .handle("Connection_Handle"), .interval("Max_Latency", .slots), .interval("Min_Remote_Timeout", .slots),
        .interval("Min_Local_Timeout", .slots),
      ], returns: L.statusConnectionHandle),
  ]

  /// Controller & Baseband commands, OGF 0x03 (7.3).
  static let controllerBaseband: [HCICommandRow] = [
    .baseband(0x0001, "Set Event Mask", [.hex64("Event_Mask")], returns: L.status),
    .baseband(0x0003, "Reset", [], returns: L.status),
    .baseband(0x0005, "Set Event Filter", [.hex8("Filter_Type"), .rest("Condition")], returns: L.status),
    .baseband(0x0008, "Flush", L.connectionHandle, returns: L.statusConnectionHandle),
    .baseband(0x0009, "Read PIN Type", [], returns: [.status, .enumeration("PIN_Type", pinType)]),
    .baseband(0x000A, "Write PIN Type", [.enumeration("PIN_Type", pinType)], returns: L.status),
    .baseband(
      0x000D, "Read Stored Link Key",
      [.address("BD_ADDR"), .enumeration("Read_All", [0x00: "BD_ADDR only", 0x01: "All"])],
      returns: [.status, .uint16("Max_Num_Keys"), .uint16("Num_Keys_Read")]),
    .baseband(
      0x0011, "Write Stored Link Key",
      [
        .uint8("Num_Keys_To_Write"),
        .repeated(countFrom: "Num_Keys_To_Write", item: "Key", [.address("BD_ADDR"), .bytes("Link_Key", 16)]),
      ], returns: [.status, .uint8("Num_Keys_Written")]),
    .baseband(
      0x0012, "Delete Stored Link Key",
      [.address("BD_ADDR"), .enumeration("Delete_All", [0x00: "BD_ADDR only", 0x01: "All"])],
      returns: [.status, .uint16("Num_Keys_Deleted")]),
    .baseband(0x0013, "Write Local Name", [.text("Local_Name", 248)], returns: L.status),
    .baseband(
      0x0014, "Read Local Name", [], returns: [.status, .text("Local_Name", 248)],
      returnSummary: ["Status", "Local_Name"]),
    .baseband(
      0x0015, "Read Connection Accept Timeout", [],
      returns: [.status, .interval("Connection_Accept_Timeout", .slots)]),
    .baseband(
      0x0016, "Write Connection Accept Timeout", [.interval("Connection_Accept_Timeout", .slots)],
      returns: L.status),
    .baseband(0x0017, "Read Page Timeout", [], returns: [.status, .interval("Page_Timeout", .slots)]),
    .baseband(0x0018, "Write Page Timeout", [.interval("Page_Timeout", .slots)], returns: L.status),
    .baseband(
      0x0019, "Read Scan Enable", [], returns: [.status, .enumeration("Scan_Enable", N.scanEnable)],
      returnSummary: ["Status", "Scan_Enable"]),
    .baseband(0x001A, "Write Scan Enable", [.enumeration("Scan_Enable", N.scanEnable)], returns: L.status),
    .baseband(
      0x001B, "Read Page Scan Activity", [],
      returns: [.status, .interval("Page_Scan_Interval", .slots), .interval("Page_Scan_Window", .slots)]),
    .baseband(
      0x001C, "Write Page Scan Activity",
      [.interval("Page_Scan_Interval", .slots), .interval("Page_Scan_Window", .slots)], returns: L.status),
    .baseband(
      0x001D, "Read Inquiry Scan Activity", [],
      returns: [.status, .interval("Inquiry_Scan_Interval", .slots), .interval("Inquiry_Scan_Window", .slots)]),
    .baseband(
      0x001E, "Write Inquiry Scan Activity",
      [.interval("Inquiry_Scan_Interval", .slots), .interval("Inquiry_Scan_Window", .slots)], returns: L.status),
    .baseband(
      0x001F, "Read Authentication Enable", [],
      returns: [.status, .enumeration("Authentication_Enable", N.enabled)]),
    .baseband(
      0x0020, "Write Authentication Enable", [.enumeration("Authentication_Enable", N.enabled)], returns: L.status),
    .baseband(0x0023, "Read Class of Device", [], returns: [.status, .hex24("Class_Of_Device")]),
    .baseband(0x0024, "Write Class of Device", [.hex24("Class_Of_Device")], returns: L.status),
    .baseband(0x0025, "Read Voice Setting", [], returns: [.status, .hex16("Voice_Setting")]),
    .baseband(0x0026, "Write Voice Setting", [.hex16("Voice_Setting")], returns: L.status),
    .baseband(
      0x0027, "Read Automatic Flush Timeout", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .interval("Flush_Timeout", .slots)]),
    .baseband(
      0x0028, "Write Automatic Flush Timeout", [.handle("Connection_Handle"), .interval("Flush_Timeout", .slots)],
      returns: L.statusConnectionHandle),
    .baseband(
      0x0029, "Read Num Broadcast Retransmissions", [],
      returns: [.status, .uint8("Num_Broadcast_Retransmissions")]),
    .baseband(
      0x002A, "Write Num Broadcast Retransmissions", [.uint8("Num_Broadcast_Retransmissions")], returns: L.status),
    .baseband(0x002B, "Read Hold Mode Activity", [], returns: [.status, .hex8("Hold_Mode_Activity")]),
    .baseband(0x002C, "Write Hold Mode Activity", [.hex8("Hold_Mode_Activity")], returns: L.status),
    .baseband(
      0x002D, "Read Transmit Power Level", [.handle("Connection_Handle"), .enumeration("Type", powerLevelType)],
      returns: [.status, .handle("Connection_Handle"), .txPower("TX_Power_Level")]),
    .baseband(
      0x002E, "Read Synchronous Flow Control Enable", [],
      returns: [.status, .enumeration("Synchronous_Flow_Control_Enable", N.enabled)]),
    .baseband(
      0x002F, "Write Synchronous Flow Control Enable", [.enumeration("Synchronous_Flow_Control_Enable", N.enabled)],
      returns: L.status),
    .baseband(
      0x0031, "Set Controller To Host Flow Control", [.enumeration("Flow_Control_Enable", flowControlEnable)],
      returns: L.status),
    .baseband(
      0x0033, "Host Buffer Size",
      [
        .uint16("Host_ACL_Data_Packet_Length"), .uint8("Host_Synchronous_Data_Packet_Length"),
        .uint16("Host_Total_Num_ACL_Data_Packets"), .uint16("Host_Total_Num_Synchronous_Data_Packets"),
      ], returns: L.status),
    .baseband(
      0x0035, "Host Number Of Completed Packets",
      [
        .uint8("Num_Handles"),
        .repeated(
          countFrom: "Num_Handles", item: "Handle",
          [.handle("Connection_Handle"), .uint16("Host_Num_Completed_Packets")]),
      ], returns: L.status, summary: ["Num_Handles"]),
    .baseband(
      0x0036, "Read Link Supervision Timeout", L.handle,
      returns: [.status, .handle("Handle"), .interval("Link_Supervision_Timeout", .slots)]),
    .baseband(
      0x0037, "Write Link Supervision Timeout",
      [.handle("Connection_Handle"), .interval("Link_Supervision_Timeout", .slots)], returns: L.statusHandle),
    .baseband(0x0038, "Read Number Of Supported IAC", [], returns: [.status, .uint8("Num_Supported_IAC")]),
    .baseband(
      0x0039, "Read Current IAC LAP", [],
      returns: [
        .status, .uint8("Num_Current_IAC"),
        .repeated(countFrom: "Num_Current_IAC", item: "IAC", [.hex24("IAC_LAP")]),
      ]),
    .baseband(
      0x003A, "Write Current IAC LAP",
      [.uint8("Num_Current_IAC"), .repeated(countFrom: "Num_Current_IAC", item: "IAC", [.hex24("IAC_LAP")])],
      returns: L.status),
    .baseband(
      0x003F, "Set AFH Host Channel Classification", [.bytes("AFH_Host_Channel_Classification", 10)],
      returns: L.status),
    .baseband(
      0x0042, "Read Inquiry Scan Type", [], returns: [.status, .enumeration("Inquiry_Scan_Type", scanKind)]),
    .baseband(0x0043, "Write Inquiry Scan Type", [.enumeration("Scan_Type", scanKind)], returns: L.status),
    .baseband(0x0044, "Read Inquiry Mode", [], returns: [.status, .enumeration("Inquiry_Mode", inquiryMode)]),
    .baseband(0x0045, "Write Inquiry Mode", [.enumeration("Inquiry_Mode", inquiryMode)], returns: L.status),
    .baseband(0x0046, "Read Page Scan Type", [], returns: [.status, .enumeration("Page_Scan_Type", scanKind)]),
    .baseband(0x0047, "Write Page Scan Type", [.enumeration("Page_Scan_Type", scanKind)], returns: L.status),
    .baseband(
      0x0048, "Read AFH Channel Assessment Mode", [],
      returns: [.status, .enumeration("AFH_Channel_Assessment_Mode", N.enabled)]),
    .baseband(
      0x0049, "Write AFH Channel Assessment Mode", [.enumeration("AFH_Channel_Assessment_Mode", N.enabled)],
      returns: L.status),
    .baseband(
      0x0051, "Read Extended Inquiry Response", [],
      returns: [.status, .hex8("FEC_Required"), .bytes("Extended_Inquiry_Response", 240)]),
    .baseband(
      0x0052, "Write Extended Inquiry Response", [.hex8("FEC_Required"), .bytes("Extended_Inquiry_Response", 240)],
      returns: L.status),
    .baseband(0x0053, "Refresh Encryption Key", L.connectionHandle),
    .baseband(
      0x0055, "Read Simple Pairing Mode", [], returns: [.status, .enumeration("Simple_Pairing_Mode", N.enabled)]),
    .baseband(
      0x0056, "Write Simple Pairing Mode", [.enumeration("Simple_Pairing_Mode", N.enabled)], returns: L.status),
    .baseband(0x0057, "Read Local OOB Data", [], returns: [.status, .bytes("C", 16), .bytes("R", 16)]),
    .baseband(
      0x0058, "Read Inquiry Response Transmit Power Level", [], returns: [.status, .txPower("TX_Power")]),
    .baseband(0x0059, "Write Inquiry Transmit Power Level", [.txPower("TX_Power")], returns: L.status),
    .baseband(
      0x005A, "Read Default Erroneous Data Reporting", [],
      returns: [.status, .enumeration("Erroneous_Data_Reporting", N.enabled)]),
    .baseband(
      0x005B, "Write Default Erroneous Data Reporting", [.enumeration("Erroneous_Data_Reporting", N.enabled)],
      returns: L.status),
    .baseband(0x005F, "Enhanced Flush", [.handle("Handle"), .hex8("Packet_Type")]),
    .baseband(
      0x0060, "Send Keypress Notification",
      [.address("BD_ADDR"), .enumeration("Notification_Type", N.keypressNotification)], returns: L.statusBDAddr),
    .baseband(0x0063, "Set Event Mask Page 2", [.hex64("Event_Mask_Page_2")], returns: L.status),
    .baseband(
      0x0066, "Read Flow Control Mode", [], returns: [.status, .enumeration("Flow_Control_Mode", flowControlMode)]),
    .baseband(
      0x0067, "Write Flow Control Mode", [.enumeration("Flow_Control_Mode", flowControlMode)], returns: L.status),
    .baseband(
      0x0068, "Read Enhanced Transmit Power Level",
      [.handle("Connection_Handle"), .enumeration("Type", powerLevelType)],
      returns: [
        .status, .handle("Connection_Handle"), .txPower("TX_Power_Level_GFSK"), .txPower("TX_Power_Level_DQPSK"),
        .txPower("TX_Power_Level_8DPSK"),
      ]),
    .baseband(
      0x006C, "Read LE Host Support", [],
      returns: [.status, .enumeration("LE_Supported_Host", N.enabled), .hex8("Unused")]),
    .baseband(
      0x006D, "Write LE Host Support", [.enumeration("LE_Supported_Host", N.enabled), .hex8("Unused")],
      returns: L.status),
    .baseband(
      0x006E, "Set MWS Channel Parameters",
      [
        .enumeration("MWS_Channel_Enable", N.enabled), .uint16("MWS_RX_Center_Frequency"),
        .uint16("MWS_TX_Center_Frequency"), .uint16("MWS_RX_Channel_Bandwidth"),
        .uint16("MWS_TX_Channel_Bandwidth"), .hex8("MWS_Channel_Type"),
      ], returns: L.status),
    .baseband(
      0x006F, "Set External Frame Configuration",
      [
        .uint16("MWS_Frame_Duration"), .int16("MWS_Frame_Sync_Assert_Offset"),
        .uint16("MWS_Frame_Sync_Assert_Jitter"), .uint8("MWS_Num_Periods"),
        .repeated(countFrom: "MWS_Num_Periods", item: "Period", [.uint16("Period_Duration"), .hex8("Period_Type")]),
      ], returns: L.status),
    .baseband(0x0070, "Set MWS Signaling"),
    .baseband(
      0x0071, "Set MWS Transport Layer",
      [.hex8("Transport_Layer"), .uint32("To_MWS_Baud_Rate"), .uint32("From_MWS_Baud_Rate")], returns: L.status),
    .baseband(
      0x0072, "Set MWS Scan Frequency Table",
      [
        .uint8("Num_Scan_Frequencies"),
        .repeated(
          countFrom: "Num_Scan_Frequencies", item: "Scan_Frequency",
          [.uint16("Scan_Frequency_Low"), .uint16("Scan_Frequency_High")]),
      ], returns: L.status),
    .baseband(0x0073, "Set MWS_PATTERN Configuration"),
    .baseband(0x0074, "Set Reserved LT_ADDR", [.hex8("LT_ADDR")], returns: [.status, .hex8("LT_ADDR")]),
    .baseband(0x0075, "Delete Reserved LT_ADDR", [.hex8("LT_ADDR")], returns: [.status, .hex8("LT_ADDR")]),
    .baseband(
      0x0076, "Set Connectionless Peripheral Broadcast Data",
      [.hex8("LT_ADDR"), .hex8("Fragment"), .lengthPrefixed("Data", lengthName: "Data_Length")],
      returns: [.status, .hex8("LT_ADDR")]),
    .baseband(
      0x0077, "Read Synchronization Train Parameters", [],
      returns: [
        .status, .interval("Sync_Train_Interval", .slots), .interval("Sync_Train_Timeout", .slots, bytes: 4),
        .hex8("Service_Data"),
      ]),
    .baseband(
      0x0078, "Write Synchronization Train Parameters",
      [
        .interval("Interval_Min", .slots), .interval("Interval_Max", .slots),
        .interval("Sync_Train_Timeout", .slots, bytes: 4), .hex8("Service_Data"),
      ], returns: [.status, .interval("Sync_Train_Interval", .slots)]),
    .baseband(
      0x0079, "Read Secure Connections Host Support", [],
      returns: [.status, .enumeration("Secure_Connections_Host_Support", N.enabled)]),
    .baseband(
      0x007A, "Write Secure Connections Host Support", [.enumeration("Secure_Connections_Host_Support", N.enabled)],
      returns: L.status),
    .baseband(
      0x007B, "Read Authenticated Payload Timeout", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .interval("Authenticated_Payload_Timeout", .ms10)]),
    .baseband(
      0x007C, "Write Authenticated Payload Timeout",
      [.handle("Connection_Handle"), .interval("Authenticated_Payload_Timeout", .ms10)],
      returns: L.statusConnectionHandle),
    .baseband(0x007D, "Read Local OOB Extended Data", [], returns: [.status] + oobExtended),
    .baseband(
      0x007E, "Read Extended Page Timeout", [], returns: [.status, .interval("Extended_Page_Timeout", .slots)]),
    .baseband(
      0x007F, "Write Extended Page Timeout", [.interval("Extended_Page_Timeout", .slots)], returns: L.status),
    .baseband(
      0x0080, "Read Extended Inquiry Length", [], returns: [.status, .interval("Extended_Inquiry_Length", .slots)]),
    .baseband(
      0x0081, "Write Extended Inquiry Length", [.interval("Extended_Inquiry_Length", .slots)], returns: L.status),
    .baseband(0x0082, "Set Ecosystem Base Interval", [.interval("Interval", .ms1_25)], returns: L.status),
    .baseband(
      0x0083, "Configure Data Path",
      [
        .enumeration("Data_Path_Direction", N.dataPathDirection), .hex8("Data_Path_ID"),
        .lengthPrefixed("Vendor_Specific_Config", lengthName: "Vendor_Specific_Config_Length"),
      ], returns: L.status),
    .baseband(0x0084, "Set Min Encryption Key Size", [.uint8("Min_Encryption_Key_Size")], returns: L.status),
  ]

  private static let pinType: [UInt64: String] = [0x00: "Variable PIN", 0x01: "Fixed PIN"]
  private static let flowControlEnable: [UInt64: String] = [
    0x00: "Off", 0x01: "ACL on, Synchronous off", 0x02: "ACL off, Synchronous on", 0x03: "ACL on, Synchronous on",
  ]
  private static let flowControlMode: [UInt64: String] = [0x00: "Packet based", 0x01: "Data block based"]
  private static let inquiryMode: [UInt64: String] = [
    0x00: "Standard Inquiry Result", 0x01: "Inquiry Result with RSSI",
    0x02: "Inquiry Result with RSSI or Extended Inquiry Result",
  ]
  private static let loopbackMode: [UInt64: String] = [
    0x00: "No Loopback mode enabled", 0x01: "Enable Local Loopback", 0x02: "Enable Remote Loopback",
  ]

  private static let codecDescription: [HCIParameter] = [
    .bytes("Codec_ID", 5), .hex8("Logical_Transport_Type"), .enumeration("Direction", N.dataPathDirection),
  ]

  /// Informational Parameters commands, OGF 0x04 (7.4).
  static let informational: [HCICommandRow] = [
    .informational(
      0x0001, "Read Local Version Information", [],
      returns: [
        .status, .enumeration("HCI_Version", N.version), .hex16("HCI_Subversion"),
        .enumeration("LMP_Version", N.version), .hex16("Company_Identifier"), .hex16("LMP_Subversion"),
      ], returnSummary: ["Status", "HCI_Version", "Company_Identifier"]),
    .informational(
      0x0002, "Read Local Supported Commands", [], returns: [.status, .bytes("Supported_Commands", 64)]),
    .informational(0x0003, "Read Local Supported Features", [], returns: [.status, .hex64("LMP_Features")]),
    .informational(
      0x0004, "Read Local Extended Features", [.uint8("Page_Number")],
      returns: [.status, .uint8("Page_Number"), .uint8("Max_Page_Number"), .hex64("Extended_LMP_Features")]),
    .informational(
      0x0005, "Read Buffer Size", [],
      returns: [
        .status, .uint16("ACL_Data_Packet_Length"), .uint8("Synchronous_Data_Packet_Length"),
        .uint16("Total_Num_ACL_Data_Packets"), .uint16("Total_Num_Synchronous_Data_Packets"),
      ], returnSummary: ["Status", "ACL_Data_Packet_Length", "Total_Num_ACL_Data_Packets"]),
    .informational(0x0009, "Read BD_ADDR", [], returns: L.statusBDAddr, returnSummary: ["Status", "BD_ADDR"]),
    .informational(
      0x000A, "Read Data Block Size", [],
      returns: [
        .status, .uint16("Max_ACL_Data_Packet_Length"), .uint16("Data_Block_Length"), .uint16("Total_Num_Data_Blocks"),
      ]),
    .informational(
      0x000B, "Read Local Supported Codecs [v1]", [],
      returns: [
        .status, .uint8("Num_Supported_Standard_Codecs"),
        .repeated(countFrom: "Num_Supported_Standard_Codecs", item: "Standard_Codec", [.hex8("Standard_Codec_ID")]),
        .uint8("Num_Supported_Vendor_Specific_Codecs"),
        .repeated(
          countFrom: "Num_Supported_Vendor_Specific_Codecs", item: "Vendor_Specific_Codec",
          [.hex32("Vendor_Specific_Codec_ID")]),
      ]),
    .informational(
      0x000C, "Read Local Simple Pairing Options", [],
      returns: [.status, .hex8("Simple_Pairing_Options"), .uint8("Max_Encryption_Key_Size")]),
    .informational(
      0x000D, "Read Local Supported Codecs [v2]", [],
      returns: [
        .status, .uint8("Num_Supported_Standard_Codecs"),
        .repeated(
          countFrom: "Num_Supported_Standard_Codecs", item: "Standard_Codec",
          [.hex8("Standard_Codec_ID"), .hex8("Standard_Codec_Transport")]),
        .uint8("Num_Supported_Vendor_Specific_Codecs"),
        .repeated(
          countFrom: "Num_Supported_Vendor_Specific_Codecs", item: "Vendor_Specific_Codec",
          [.hex32("Vendor_Specific_Codec_ID"), .hex8("Vendor_Specific_Codec_Transport")]),
      ]),
    .informational(
      0x000E, "Read Local Supported Codec Capabilities", codecDescription,
      returns: [
        .status, .uint8("Num_Codec_Capabilities"),
        .repeated(
          countFrom: "Num_Codec_Capabilities", item: "Codec_Capability",
          [.lengthPrefixed("Codec_Capability", lengthName: "Codec_Capability_Length")]),
      ]),
    .informational(
      0x000F, "Read Local Supported Controller Delay",
      codecDescription + [.lengthPrefixed("Codec_Configuration", lengthName: "Codec_Configuration_Length")],
      returns: [
        .status, .interval("Min_Controller_Delay", .us, bytes: 3), .interval("Max_Controller_Delay", .us, bytes: 3),
      ]),
  ]

  /// Status Parameters commands, OGF 0x05 (7.5).
  static let statusParameters: [HCICommandRow] = [
    .statusParameters(
      0x0001, "Read Failed Contact Counter", L.handle,
      returns: [.status, .handle("Handle"), .uint16("Failed_Contact_Counter")]),
    .statusParameters(0x0002, "Reset Failed Contact Counter", L.handle, returns: L.statusHandle),
    .statusParameters(
      0x0003, "Read Link Quality", L.handle, returns: [.status, .handle("Handle"), .uint8("Link_Quality")]),
    .statusParameters(
      0x0005, "Read RSSI", L.handle, returns: [.status, .handle("Handle"), .int8("RSSI")],
      returnSummary: ["Status", "Handle", "RSSI"]),
    .statusParameters(
      0x0006, "Read AFH Channel Map", L.connectionHandle,
      returns: [
        .status, .handle("Connection_Handle"), .enumeration("AFH_Mode", N.enabled), .bytes("AFH_Channel_Map", 10),
      ]),
    .statusParameters(
      0x0007, "Read Clock", [.handle("Connection_Handle"), .enumeration("Which_Clock", N.whichClock)],
      returns: [.status, .handle("Connection_Handle"), .hex32("Clock"), .interval("Accuracy", .halfSlots)]),
    .statusParameters(
      0x0008, "Read Encryption Key Size", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .uint8("Key_Size")],
      returnSummary: ["Status", "Connection_Handle", "Key_Size"]),
    .statusParameters(0x000C, "Get MWS Transport Layer Configuration", []),
    .statusParameters(
      0x000D, "Set Triggered Clock Capture",
      [
        .handle("Connection_Handle"), .enumeration("Enable", N.enabled), .enumeration("Which_Clock", N.whichClock),
        .enumeration("LPO_Allowed", allowRoleSwitch), .uint8("Num_Clock_Captures_To_Filter"),
      ], returns: L.status),
  ]

  /// Testing commands, OGF 0x06 (7.6).
  static let testing: [HCICommandRow] = [
    .testing(0x0001, "Read Loopback Mode", [], returns: [.status, .enumeration("Loopback_Mode", loopbackMode)]),
    .testing(0x0002, "Write Loopback Mode", [.enumeration("Loopback_Mode", loopbackMode)], returns: L.status),
    .testing(0x0003, "Enable Implementation Under Test Mode", [], returns: L.status),
    .testing(
      0x0004, "Write Simple Pairing Debug Mode", [.enumeration("Simple_Pairing_Debug_Mode", N.enabled)],
      returns: L.status),
    .testing(
      0x000A, "Write Secure Connections Test Mode",
      [
        .handle("Connection_Handle"), .enumeration("DM1_ACL-U_Mode", N.enabled),
        .enumeration("eSCO_Loopback_Mode", N.enabled),
      ], returns: L.statusConnectionHandle),
  ]
}
