private typealias L = HCILayout
private typealias N = HCIValueNames

extension HCICommandTable {
  /// LE Controller commands, OGF 0x08 (Core 6.0, Vol 4, Part E, 7.8).
  static let leController: [HCICommandRow] = [
    .le(0x0001, "LE Set Event Mask", [.hex64("LE_Event_Mask")], returns: L.status),
    .le(
      0x0002, "LE Read Buffer Size [v1]", [],
      returns: [.status, .uint16("LE_ACL_Data_Packet_Length"), .uint8("Total_Num_LE_ACL_Data_Packets")],
      returnSummary: ["Status", "LE_ACL_Data_Packet_Length", "Total_Num_LE_ACL_Data_Packets"]),
    .le(0x0003, "LE Read Local Supported Features Page 0", [], returns: [.status, .hex64("LE_Features")]),
    .le(0x0005, "LE Set Random Address", [.address("Random_Address")], returns: L.status),
    .le(
      0x0006, "LE Set Advertising Parameters",
      [
        .interval("Advertising_Interval_Min", .slots), .interval("Advertising_Interval_Max", .slots),
        .enumeration("Advertising_Type", N.advertisingType),
        .enumeration("Own_Address_Type", N.ownAddressType), .addressType("Peer_Address_Type"),
        .address("Peer_Address"), .flags("Advertising_Channel_Map", N.advertisingChannelMap),
        .enumeration("Advertising_Filter_Policy", N.advertisingFilterPolicy),
      ], returns: L.status,
      summary: ["Advertising_Type", "Advertising_Interval_Min", "Advertising_Interval_Max"]),
    .le(
      0x0007, "LE Read Advertising Physical Channel Tx Power", [],
      returns: [.status, .txPower("TX_Power_Level")], returnSummary: ["Status", "TX_Power_Level"]),
    .le(
      0x0008, "LE Set Advertising Data",
      [.lengthPrefixed("Advertising_Data", lengthName: "Advertising_Data_Length", padTo: 31)], returns: L.status,
      summary: ["Advertising_Data_Length"]),
    .le(
      0x0009, "LE Set Scan Response Data",
      [.lengthPrefixed("Scan_Response_Data", lengthName: "Scan_Response_Data_Length", padTo: 31)],
      returns: L.status, summary: ["Scan_Response_Data_Length"]),
    .le(0x000A, "LE Set Advertising Enable", [.enumeration("Advertising_Enable", N.enabled)], returns: L.status),
    .le(
      0x000B, "LE Set Scan Parameters",
      [
        .enumeration("LE_Scan_Type", N.scanType), .interval("LE_Scan_Interval", .slots),
        .interval("LE_Scan_Window", .slots), .enumeration("Own_Address_Type", N.ownAddressType),
        .enumeration("Scanning_Filter_Policy", N.scanningFilterPolicy),
      ], returns: L.status, summary: ["LE_Scan_Type", "LE_Scan_Interval", "LE_Scan_Window"]),
    .le(
      0x000C, "LE Set Scan Enable",
      [.enumeration("LE_Scan_Enable", N.enabled), .enumeration("Filter_Duplicates", N.enabled)],
      returns: L.status, summary: ["LE_Scan_Enable", "Filter_Duplicates"]),
    .le(
      0x000D, "LE Create Connection",
      [
        .interval("LE_Scan_Interval", .slots), .interval("LE_Scan_Window", .slots),
        .enumeration("Initiator_Filter_Policy", N.initiatorFilterPolicy), .addressType("Peer_Address_Type"),
        .address("Peer_Address"), .enumeration("Own_Address_Type", N.ownAddressType),
        .interval("Connection_Interval_Min", .ms1_25), .interval("Connection_Interval_Max", .ms1_25),
        .uint16("Max_Latency"), .interval("Supervision_Timeout", .ms10), .interval("Min_CE_Length", .slots),
        .interval("Max_CE_Length", .slots),
      ], summary: ["Peer_Address", "Peer_Address_Type", "Initiator_Filter_Policy"]),
    .le(0x000E, "LE Create Connection Cancel", [], returns: L.status),
    .le(
      0x000F, "LE Read Filter Accept List Size", [], returns: [.status, .uint8("Filter_Accept_List_Size")],
      returnSummary: ["Status", "Filter_Accept_List_Size"]),
    .le(0x0010, "LE Clear Filter Accept List", [], returns: L.status),
    .le(0x0011, "LE Add Device To Filter Accept List", L.leAddress, returns: L.status, summary: ["Address"]),
    .le(0x0012, "LE Remove Device From Filter Accept List", L.leAddress, returns: L.status, summary: ["Address"]),
    .le(
      0x0013, "LE Connection Update",
      [
        .handle("Connection_Handle"), .interval("Connection_Interval_Min", .ms1_25),
        .interval("Connection_Interval_Max", .ms1_25), .uint16("Max_Latency"),
        .interval("Supervision_Timeout", .ms10), .interval("Min_CE_Length", .slots),
        .interval("Max_CE_Length", .slots),
      ], summary: ["Connection_Handle", "Connection_Interval_Min", "Connection_Interval_Max"]),
    .le(0x0014, "LE Set Host Channel Classification", [.bytes("Channel_Map", 5)], returns: L.status),
    .le(
      0x0015, "LE Read Channel Map", L.connectionHandle,
      returns: [.status, .handle("Connection_Handle"), .bytes("Channel_Map", 5)]),
    .le(0x0016, "LE Read Remote Features Page 0", L.connectionHandle),
    .le(
      0x0017, "LE Encrypt", [.bytes("Key", 16), .bytes("Plaintext_Data", 16)],
      returns: [.status, .bytes("Encrypted_Data", 16)]),
    .le(0x0018, "LE Rand", [], returns: [.status, .hex64("Random_Number")]),
    .le(
      0x0019, "LE Enable Encryption",
      [
        .handle("Connection_Handle"), .hex64("Random_Number"), .hex16("Encrypted_Diversifier"),
        .bytes("Long_Term_Key", 16),
      ], summary: ["Connection_Handle"]),
    .le(
      0x001A, "LE Long Term Key Request Reply", [.handle("Connection_Handle"), .bytes("Long_Term_Key", 16)],
      returns: L.statusConnectionHandle, summary: ["Connection_Handle"],
      returnSummary: ["Status", "Connection_Handle"]),
    .le(
      0x001B, "LE Long Term Key Request Negative Reply", L.connectionHandle, returns: L.statusConnectionHandle,
      returnSummary: ["Status", "Connection_Handle"]),
    .le(0x001C, "LE Read Supported States", [], returns: [.status, .hex64("LE_States")]),
    .le(0x001D, "LE Receiver Test [v1]", [.uint8("RX_Channel")], returns: L.status),
    .le(
      0x001E, "LE Transmitter Test [v1]", [.uint8("TX_Channel"), .uint8("Test_Data_Length"), .hex8("Packet_Payload")],
      returns: L.status),
    .le(
      0x001F, "LE Test End", [], returns: [.status, .uint16("Num_Packets")],
      returnSummary: ["Status", "Num_Packets"]),
    .le(
      0x0020, "LE Remote Connection Parameter Request Reply",
      [
        .handle("Connection_Handle"), .interval("Interval_Min", .ms1_25), .interval("Interval_Max", .ms1_25),
        .uint16("Max_Latency"), .interval("Timeout", .ms10), .interval("Min_CE_Length", .slots),
        .interval("Max_CE_Length", .slots),
      ], returns: L.statusConnectionHandle, summary: ["Connection_Handle", "Interval_Min", "Interval_Max"]),
    .le(
      0x0021, "LE Remote Connection Parameter Request Negative Reply",
      [.handle("Connection_Handle"), .reason("Reason")], returns: L.statusConnectionHandle),
    .le(
      0x0022, "LE Set Data Length",
      [.handle("Connection_Handle"), .uint16("TX_Octets"), .interval("TX_Time", .us)],
      returns: L.statusConnectionHandle, summary: ["Connection_Handle", "TX_Octets", "TX_Time"]),
    .le(
      0x0023, "LE Read Suggested Default Data Length", [],
      returns: [.status, .uint16("Suggested_Max_TX_Octets"), .interval("Suggested_Max_TX_Time", .us)],
      returnSummary: ["Status", "Suggested_Max_TX_Octets", "Suggested_Max_TX_Time"]),
    .le(
      0x0024, "LE Write Suggested Default Data Length",
      [.uint16("Suggested_Max_TX_Octets"), .interval("Suggested_Max_TX_Time", .us)], returns: L.status),
    .le(0x0025, "LE Read Local P-256 Public Key", []),
    .le(0x0026, "LE Generate DHKey [v1]", [.bytes("Key_X_Coordinate", 32), .bytes("Key_Y_Coordinate", 32)]),
    .le(
      0x0027, "LE Add Device To Resolving List",
      L.peerIdentity + [.bytes("Peer_IRK", 16), .bytes("Local_IRK", 16)], returns: L.status,
      summary: ["Peer_Identity_Address"]),
    .le(
      0x0028, "LE Remove Device From Resolving List", L.peerIdentity, returns: L.status,
      summary: ["Peer_Identity_Address"]),
    .le(0x0029, "LE Clear Resolving List", [], returns: L.status),
    .le(
      0x002A, "LE Read Resolving List Size", [], returns: [.status, .uint8("Resolving_List_Size")],
      returnSummary: ["Status", "Resolving_List_Size"]),
    .le(
      0x002B, "LE Read Peer Resolvable Address", L.peerIdentity,
      returns: [.status, .address("Peer_Resolvable_Address")], summary: ["Peer_Identity_Address"]),
    .le(
      0x002C, "LE Read Local Resolvable Address", L.peerIdentity,
      returns: [.status, .address("Local_Resolvable_Address")], summary: ["Peer_Identity_Address"]),
    .le(
      0x002D, "LE Set Address Resolution Enable", [.enumeration("Address_Resolution_Enable", N.enabled)],
      returns: L.status),
    .le(0x002E, "LE Set Resolvable Private Address Timeout", [.interval("RPA_Timeout", .s)], returns: L.status),
    .le(
      0x002F, "LE Read Maximum Data Length", [],
      returns: [
        .status, .uint16("Supported_Max_TX_Octets"), .interval("Supported_Max_TX_Time", .us),
        .uint16("Supported_Max_RX_Octets"), .interval("Supported_Max_RX_Time", .us),
      ]),
    .le(
      0x0030, "LE Read PHY", L.connectionHandle,
      returns: [
        .status, .handle("Connection_Handle"), .enumeration("TX_PHY", N.phy), .enumeration("RX_PHY", N.phy),
      ], returnSummary: ["Status", "TX_PHY", "RX_PHY"]),
    .le(
      0x0031, "LE Set Default PHY",
      [.flags("All_PHYs", N.allPHYs), .flags("TX_PHYs", N.phyBits), .flags("RX_PHYs", N.phyBits)],
      returns: L.status, summary: ["TX_PHYs", "RX_PHYs"]),
    .le(
      0x0032, "LE Set PHY",
      [
        .handle("Connection_Handle"), .flags("All_PHYs", N.allPHYs), .flags("TX_PHYs", N.phyBits),
        .flags("RX_PHYs", N.phyBits), .enumeration("PHY_Options", bytes: 2, N.phyOptions),
      ], summary: ["Connection_Handle", "TX_PHYs", "RX_PHYs"]),
    .le(
      0x0033, "LE Receiver Test [v2]",
      [.uint8("RX_Channel"), .enumeration("PHY", N.phy), .uint8("Modulation_Index")], returns: L.status),
    .le(
      0x0034, "LE Transmitter Test [v2]",
      [.uint8("TX_Channel"), .uint8("Test_Data_Length"), .hex8("Packet_Payload"), .enumeration("PHY", N.testPHY)],
      returns: L.status),
    .le(
      0x0035, "LE Set Advertising Set Random Address", [.hex8("Advertising_Handle"), .address("Random_Address")],
      returns: L.status),
    .le(
      0x0036, "LE Set Extended Advertising Parameters [v1]", L.extendedAdvertisingParameters,
      returns: [.status, .txPower("Selected_TX_Power")],
      summary: ["Advertising_Handle", "Advertising_Event_Properties", "Primary_Advertising_Interval_Min"],
      returnSummary: ["Status", "Selected_TX_Power"]),
    .le(
      0x0037, "LE Set Extended Advertising Data",
      [
        .hex8("Advertising_Handle"), .enumeration("Operation", N.operation),
        .enumeration("Fragment_Preference", N.fragmentPreference),
        .lengthPrefixed("Advertising_Data", lengthName: "Advertising_Data_Length"),
      ], returns: L.status, summary: ["Advertising_Handle", "Operation", "Advertising_Data_Length"]),
    .le(
      0x0038, "LE Set Extended Scan Response Data",
      [
        .hex8("Advertising_Handle"), .enumeration("Operation", N.operation),
        .enumeration("Fragment_Preference", N.fragmentPreference),
        .lengthPrefixed("Scan_Response_Data", lengthName: "Scan_Response_Data_Length"),
      ], returns: L.status, summary: ["Advertising_Handle", "Operation", "Scan_Response_Data_Length"]),
    .le(
      0x0039, "LE Set Extended Advertising Enable",
      [
        .enumeration("Enable", N.enabled), .uint8("Num_Sets"),
        .repeated(
          countFrom: "Num_Sets", item: "Set",
          [.hex8("Advertising_Handle"), .interval("Duration", .ms10), .uint8("Max_Extended_Advertising_Events")]),
      ], returns: L.status, summary: ["Enable", "Num_Sets"]),
    .le(
      0x003A, "LE Read Maximum Advertising Data Length", [],
      returns: [.status, .uint16("Max_Advertising_Data_Length")]),
    .le(
      0x003B, "LE Read Number of Supported Advertising Sets", [],
      returns: [.status, .uint8("Num_Supported_Advertising_Sets")]),
    .le(0x003C, "LE Remove Advertising Set", [.hex8("Advertising_Handle")], returns: L.status),
    .le(0x003D, "LE Clear Advertising Sets", [], returns: L.status),
    .le(
      0x003E, "LE Set Periodic Advertising Parameters [v1]",
      [
        .hex8("Advertising_Handle"), .interval("Periodic_Advertising_Interval_Min", .ms1_25),
        .interval("Periodic_Advertising_Interval_Max", .ms1_25),
        .flags("Periodic_Advertising_Properties", bytes: 2, N.periodicAdvertisingProperties),
      ], returns: L.status),
    .le(
      0x003F, "LE Set Periodic Advertising Data",
      [
        .hex8("Advertising_Handle"), .enumeration("Operation", N.operation),
        .lengthPrefixed("Advertising_Data", lengthName: "Advertising_Data_Length"),
      ], returns: L.status),
    .le(
      0x0040, "LE Set Periodic Advertising Enable",
      [.flags("Enable", ["Enable", "Include ADI"]), .hex8("Advertising_Handle")], returns: L.status),
    .le(
      0x0041, "LE Set Extended Scan Parameters",
      [
        .enumeration("Own_Address_Type", N.ownAddressType),
        .enumeration("Scanning_Filter_Policy", N.scanningFilterPolicy), .flags("Scanning_PHYs", N.phyBits),
        .repeated(
          countFrom: "Scanning_PHYs", item: "Scanning_PHY", perBit: true,
          [
            .enumeration("Scan_Type", N.scanType), .interval("Scan_Interval", .slots),
            .interval("Scan_Window", .slots),
          ]),
      ], returns: L.status, summary: ["Scanning_PHYs", "Scan_Type", "Scan_Interval", "Scan_Window"]),
    .le(
      0x0042, "LE Set Extended Scan Enable",
      [
        .enumeration("Enable", N.enabled), .enumeration("Filter_Duplicates", N.filterDuplicates),
        .interval("Duration", .ms10), .interval("Period", .s1_28),
      ], returns: L.status, summary: ["Enable", "Filter_Duplicates"]),
    .le(
      0x0043, "LE Extended Create Connection [v1]",
      [
        .enumeration("Initiator_Filter_Policy", N.initiatorFilterPolicy),
        .enumeration("Own_Address_Type", N.ownAddressType), .addressType("Peer_Address_Type"),
        .address("Peer_Address"), .flags("Initiating_PHYs", N.phyBits),
        .repeated(countFrom: "Initiating_PHYs", item: "Initiating_PHY", perBit: true, L.initiatingPHY),
      ], summary: ["Peer_Address", "Peer_Address_Type", "Initiating_PHYs"]),
    .le(
      0x0044, "LE Periodic Advertising Create Sync",
      [
        .flags("Options", N.periodicSyncOptions), .uint8("Advertising_SID"),
        .addressType("Advertiser_Address_Type"), .address("Advertiser_Address"), .uint16("Skip"),
        .interval("Sync_Timeout", .ms10), .flags("Sync_CTE_Type", N.syncCTETypeBits),
      ], summary: ["Advertiser_Address", "Advertising_SID"]),
    .le(0x0045, "LE Periodic Advertising Create Sync Cancel", [], returns: L.status),
    .le(0x0046, "LE Periodic Advertising Terminate Sync", [.handle("Sync_Handle")], returns: L.status),
    .le(0x0047, "LE Add Device To Periodic Advertiser List", L.advertiser, returns: L.status),
    .le(0x0048, "LE Remove Device From Periodic Advertiser List", L.advertiser, returns: L.status),
    .le(0x0049, "LE Clear Periodic Advertiser List", [], returns: L.status),
    .le(
      0x004A, "LE Read Periodic Advertiser List Size", [],
      returns: [.status, .uint8("Periodic_Advertiser_List_Size")]),
    .le(
      0x004B, "LE Read Transmit Power", [], returns: [.status, .txPower("Min_TX_Power"), .txPower("Max_TX_Power")]),
    .le(
      0x004C, "LE Read RF Path Compensation", [],
      returns: [.status, .int16("RF_TX_Path_Compensation_Value"), .int16("RF_RX_Path_Compensation_Value")]),
    .le(
      0x004D, "LE Write RF Path Compensation",
      [.int16("RF_TX_Path_Compensation_Value"), .int16("RF_RX_Path_Compensation_Value")], returns: L.status),
    .le(
      0x004E, "LE Set Privacy Mode", L.peerIdentity + [.enumeration("Privacy_Mode", N.privacyMode)],
      returns: L.status, summary: ["Peer_Identity_Address", "Privacy_Mode"]),
    .le(
      0x004F, "LE Receiver Test [v3]",
      [
        .uint8("RX_Channel"), .enumeration("PHY", N.phy), .uint8("Modulation_Index"),
        .uint8("Expected_CTE_Length"), .enumeration("Expected_CTE_Type", N.cteType), .uint8("Slot_Durations"),
        .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: L.status),
    .le(
      0x0050, "LE Transmitter Test [v3]",
      [
        .uint8("TX_Channel"), .uint8("Test_Data_Length"), .hex8("Packet_Payload"),
        .enumeration("PHY", N.testPHY), .uint8("CTE_Length"), .enumeration("CTE_Type", N.cteType),
        .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: L.status),
    .le(
      0x0051, "LE Set Connectionless CTE Transmit Parameters",
      [
        .hex8("Advertising_Handle"), .uint8("CTE_Length"), .enumeration("CTE_Type", N.cteType),
        .uint8("CTE_Count"), .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: L.status),
    .le(
      0x0052, "LE Set Connectionless CTE Transmit Enable",
      [.hex8("Advertising_Handle"), .enumeration("CTE_Enable", N.enabled)], returns: L.status),
    .le(
      0x0053, "LE Set Connectionless IQ Sampling Enable",
      [
        .handle("Sync_Handle"), .enumeration("Sampling_Enable", N.enabled), .uint8("Slot_Durations"),
        .uint8("Max_Sampled_CTEs"), .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: [.status, .handle("Sync_Handle")]),
    .le(
      0x0054, "LE Set Connection CTE Receive Parameters",
      [
        .handle("Connection_Handle"), .enumeration("Sampling_Enable", N.enabled), .uint8("Slot_Durations"),
        .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: L.statusConnectionHandle),
    .le(
      0x0055, "LE Set Connection CTE Transmit Parameters",
      [
        .handle("Connection_Handle"), .flags("CTE_Types", N.cteTypeBits),
        .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"),
      ], returns: L.statusConnectionHandle),
    .le(
      0x0056, "LE Connection CTE Request Enable",
      [
        .handle("Connection_Handle"), .enumeration("Enable", N.enabled), .uint16("CTE_Request_Interval"),
        .uint8("Requested_CTE_Length"), .enumeration("Requested_CTE_Type", N.cteType),
      ], returns: L.statusConnectionHandle),
    .le(
      0x0057, "LE Connection CTE Response Enable",
      [.handle("Connection_Handle"), .enumeration("Enable", N.enabled)], returns: L.statusConnectionHandle),
    .le(
      0x0058, "LE Read Antenna Information", [],
      returns: [
        .status, .hex8("Supported_Switching_Sampling_Rates"), .uint8("Num_Antennae"),
        .uint8("Max_Switching_Pattern_Length"), .uint8("Max_CTE_Length"),
      ]),
    .le(
      0x0059, "LE Set Periodic Advertising Receive Enable",
      [.handle("Sync_Handle"), .flags("Enable", N.periodicReceiveEnable)], returns: L.status),
    .le(
      0x005A, "LE Periodic Advertising Sync Transfer",
      [.handle("Connection_Handle"), .hex16("Service_Data"), .handle("Sync_Handle")],
      returns: L.statusConnectionHandle),
    .le(
      0x005B, "LE Periodic Advertising Set Info Transfer",
      [.handle("Connection_Handle"), .hex16("Service_Data"), .hex8("Advertising_Handle")],
      returns: L.statusConnectionHandle),
    .le(
      0x005C, "LE Set Periodic Advertising Sync Transfer Parameters",
      [
        .handle("Connection_Handle"), .enumeration("Mode", N.syncTransferMode), .uint16("Skip"),
        .interval("Sync_Timeout", .ms10), .flags("CTE_Type", N.syncCTETypeBits),
      ], returns: L.statusConnectionHandle),
    .le(
      0x005D, "LE Set Default Periodic Advertising Sync Transfer Parameters",
      [
        .enumeration("Mode", N.syncTransferMode), .uint16("Skip"), .interval("Sync_Timeout", .ms10),
        .flags("CTE_Type", N.syncCTETypeBits),
      ], returns: L.status),
    .le(
      0x005E, "LE Generate DHKey [v2]",
      [.bytes("Key_X_Coordinate", 32), .bytes("Key_Y_Coordinate", 32), .enumeration("Key_Type", N.dhKeyType)],
      summary: ["Key_Type"]),
    .le(
      0x005F, "LE Modify Sleep Clock Accuracy", [.enumeration("Action", N.sleepClockAction)], returns: L.status),
    .le(
      0x0060, "LE Read Buffer Size [v2]", [],
      returns: [
        .status, .uint16("LE_ACL_Data_Packet_Length"), .uint8("Total_Num_LE_ACL_Data_Packets"),
        .uint16("ISO_Data_Packet_Length"), .uint8("Total_Num_ISO_Data_Packets"),
      ], returnSummary: ["Status", "LE_ACL_Data_Packet_Length", "Total_Num_LE_ACL_Data_Packets"]),
    .le(
      0x0061, "LE Read ISO TX Sync", L.connectionHandle,
      returns: [
        .status, .handle("Connection_Handle"), .uint16("Packet_Sequence_Number"),
        .interval("TX_Time_Stamp", .us, bytes: 4), .interval("Time_Offset", .us, bytes: 3),
      ]),
    .le(
      0x0062, "LE Set CIG Parameters",
      [
        .hex8("CIG_ID"), .interval("SDU_Interval_C_To_P", .us, bytes: 3),
        .interval("SDU_Interval_P_To_C", .us, bytes: 3), .enumeration("Worst_Case_SCA", N.sleepClockAccuracy),
        .enumeration("Packing", N.packing), .enumeration("Framing", N.framing),
        .interval("Max_Transport_Latency_C_To_P", .ms), .interval("Max_Transport_Latency_P_To_C", .ms),
        .uint8("CIS_Count"),
        .repeated(
          countFrom: "CIS_Count", item: "CIS",
          [
            .hex8("CIS_ID"), .uint16("Max_SDU_C_To_P"), .uint16("Max_SDU_P_To_C"),
            .flags("PHY_C_To_P", N.phyBits), .flags("PHY_P_To_C", N.phyBits), .uint8("RTN_C_To_P"),
            .uint8("RTN_P_To_C"),
          ]),
      ], returns: HCILayout.cigReturn, summary: ["CIG_ID", "CIS_Count"]),
    .le(
      0x0063, "LE Set CIG Parameters Test",
      [
        .hex8("CIG_ID"), .interval("SDU_Interval_C_To_P", .us, bytes: 3),
        .interval("SDU_Interval_P_To_C", .us, bytes: 3), .uint8("FT_C_To_P"), .uint8("FT_P_To_C"),
        .interval("ISO_Interval", .ms1_25), .enumeration("Worst_Case_SCA", N.sleepClockAccuracy),
        .enumeration("Packing", N.packing), .enumeration("Framing", N.framing), .uint8("CIS_Count"),
        .repeated(
          countFrom: "CIS_Count", item: "CIS",
          [
            .hex8("CIS_ID"), .uint8("NSE"), .uint16("Max_SDU_C_To_P"), .uint16("Max_SDU_P_To_C"),
            .uint16("Max_PDU_C_To_P"), .uint16("Max_PDU_P_To_C"), .flags("PHY_C_To_P", N.phyBits),
            .flags("PHY_P_To_C", N.phyBits), .uint8("BN_C_To_P"), .uint8("BN_P_To_C"),
          ]),
      ], returns: HCILayout.cigReturn, summary: ["CIG_ID", "CIS_Count"]),
    .le(
      0x0064, "LE Create CIS",
      [
        .uint8("CIS_Count"),
        .repeated(
          countFrom: "CIS_Count", item: "CIS",
          [.handle("CIS_Connection_Handle"), .handle("ACL_Connection_Handle")]),
      ], summary: ["CIS_Count", "CIS_Connection_Handle", "ACL_Connection_Handle"]),
    .le(0x0065, "LE Remove CIG", [.hex8("CIG_ID")], returns: [.status, .hex8("CIG_ID")]),
    .le(0x0066, "LE Accept CIS Request", L.connectionHandle),
    .le(
      0x0067, "LE Reject CIS Request", [.handle("Connection_Handle"), .reason("Reason")],
      returns: L.statusConnectionHandle),
    .le(
      0x0068, "LE Create BIG",
      [
        .hex8("BIG_Handle"), .hex8("Advertising_Handle"), .uint8("Num_BIS"),
        .interval("SDU_Interval", .us, bytes: 3), .uint16("Max_SDU"), .interval("Max_Transport_Latency", .ms),
        .uint8("RTN"), .flags("PHY", N.phyBits), .enumeration("Packing", N.packing),
        .enumeration("Framing", N.framing), .enumeration("Encryption", N.enabled), .bytes("Broadcast_Code", 16),
      ], summary: ["BIG_Handle", "Advertising_Handle", "Num_BIS"]),
    .le(
      0x0069, "LE Create BIG Test",
      [
        .hex8("BIG_Handle"), .hex8("Advertising_Handle"), .uint8("Num_BIS"),
        .interval("SDU_Interval", .us, bytes: 3), .interval("ISO_Interval", .ms1_25), .uint8("NSE"),
        .uint16("Max_SDU"), .uint16("Max_PDU"), .flags("PHY", N.phyBits), .enumeration("Packing", N.packing),
        .enumeration("Framing", N.framing), .uint8("BN"), .uint8("IRC"), .uint8("PTO"),
        .enumeration("Encryption", N.enabled), .bytes("Broadcast_Code", 16),
      ], summary: ["BIG_Handle", "Advertising_Handle", "Num_BIS"]),
    .le(0x006A, "LE Terminate BIG", [.hex8("BIG_Handle"), .reason("Reason")]),
    .le(
      0x006B, "LE BIG Create Sync",
      [
        .hex8("BIG_Handle"), .handle("Sync_Handle"), .enumeration("Encryption", N.enabled),
        .bytes("Broadcast_Code", 16), .uint8("MSE"), .interval("BIG_Sync_Timeout", .ms10),
        .lengthPrefixed("BIS", lengthName: "Num_BIS"),
      ], summary: ["BIG_Handle", "Sync_Handle", "Num_BIS"]),
    .le(0x006C, "LE BIG Terminate Sync", [.hex8("BIG_Handle")], returns: [.status, .hex8("BIG_Handle")]),
    .le(0x006D, "LE Request Peer SCA", L.connectionHandle),
    .le(
      0x006E, "LE Setup ISO Data Path",
      [
        .handle("Connection_Handle"), .enumeration("Data_Path_Direction", N.dataPathDirection),
        .hex8("Data_Path_ID"), .bytes("Codec_ID", 5), .interval("Controller_Delay", .us, bytes: 3),
        .lengthPrefixed("Codec_Configuration", lengthName: "Codec_Configuration_Length"),
      ], returns: L.statusConnectionHandle, summary: ["Connection_Handle", "Data_Path_Direction", "Data_Path_ID"]),
    .le(
      0x006F, "LE Remove ISO Data Path",
      [
        .handle("Connection_Handle"),
        .flags("Data_Path_Direction", ["Input (Host to Controller)", "Output (Controller to Host)"]),
      ], returns: L.statusConnectionHandle),
    .le(
      0x0070, "LE ISO Transmit Test",
      [.handle("Connection_Handle"), .enumeration("Payload_Type", N.isoPayloadType)],
      returns: L.statusConnectionHandle),
    .le(
      0x0071, "LE ISO Receive Test", [.handle("Connection_Handle"), .enumeration("Payload_Type", N.isoPayloadType)],
      returns: L.statusConnectionHandle),
    .le(0x0072, "LE ISO Read Test Counters", L.connectionHandle, returns: HCILayout.isoTestCounters),
    .le(0x0073, "LE ISO Test End", L.connectionHandle, returns: HCILayout.isoTestCounters),
    .le(
      0x0074, "LE Set Host Feature [v1]", [.uint8("Bit_Number"), .enumeration("Bit_Value", N.enabled)],
      returns: L.status),
    .le(
      0x0075, "LE Read ISO Link Quality", L.connectionHandle,
      returns: [
        .status, .handle("Connection_Handle"), .uint32("TX_UnACKed_Packets"), .uint32("TX_Flushed_Packets"),
        .uint32("TX_Last_Subevent_Packets"), .uint32("Retransmitted_Packets"), .uint32("CRC_Error_Packets"),
        .uint32("RX_Unreceived_Packets"), .uint32("Duplicate_Packets"),
      ]),
    .le(
      0x0076, "LE Enhanced Read Transmit Power Level",
      [.handle("Connection_Handle"), .enumeration("PHY", N.transmitPowerPHY)],
      returns: [
        .status, .handle("Connection_Handle"), .enumeration("PHY", N.transmitPowerPHY),
        .txPower("Current_TX_Power_Level"), .txPower("Max_TX_Power_Level"),
      ], returnSummary: ["Status", "Current_TX_Power_Level"]),
    .le(
      0x0077, "LE Read Remote Transmit Power Level",
      [.handle("Connection_Handle"), .enumeration("PHY", N.transmitPowerPHY)]),
    .le(
      0x0078, "LE Set Path Loss Reporting Parameters",
      [
        .handle("Connection_Handle"), .interval("High_Threshold", .dB, bytes: 1),
        .interval("High_Hysteresis", .dB, bytes: 1), .interval("Low_Threshold", .dB, bytes: 1),
        .interval("Low_Hysteresis", .dB, bytes: 1), .uint16("Min_Time_Spent"),
      ], returns: L.statusConnectionHandle),
    .le(
      0x0079, "LE Set Path Loss Reporting Enable", [.handle("Connection_Handle"), .enumeration("Enable", N.enabled)],
      returns: L.statusConnectionHandle),
    .le(
      0x007A, "LE Set Transmit Power Reporting Enable",
      [
        .handle("Connection_Handle"), .enumeration("Local_Enable", N.enabled),
        .enumeration("Remote_Enable", N.enabled),
      ], returns: L.statusConnectionHandle),
    .le(
      0x007B, "LE Transmitter Test [v4]",
      [
        .uint8("TX_Channel"), .uint8("Test_Data_Length"), .hex8("Packet_Payload"),
        .enumeration("PHY", N.testPHY), .uint8("CTE_Length"), .enumeration("CTE_Type", N.cteType),
        .lengthPrefixed("Antenna_IDs", lengthName: "Switching_Pattern_Length"), .int8("TX_Power_Level"),
      ], returns: L.status),
    .le(
      0x007C, "LE Set Data Related Address Changes",
      [.hex8("Advertising_Handle"), .flags("Change_Reasons", N.dataRelatedAddressChanges)], returns: L.status),
    .le(
      0x007D, "LE Set Default Subrate", HCILayout.subrate, returns: L.status, summary: ["Subrate_Min", "Subrate_Max"]),
    .le(
      0x007E, "LE Subrate Request", [.handle("Connection_Handle")] + HCILayout.subrate,
      summary: ["Connection_Handle", "Subrate_Min", "Subrate_Max"]),
    .le(
      0x007F, "LE Set Extended Advertising Parameters [v2]",
      L.extendedAdvertisingParameters + [
        .enumeration("Primary_Advertising_PHY_Options", N.advertisingPHYOptions),
        .enumeration("Secondary_Advertising_PHY_Options", N.advertisingPHYOptions),
      ], returns: [.status, .txPower("Selected_TX_Power")],
      summary: ["Advertising_Handle", "Advertising_Event_Properties", "Primary_Advertising_Interval_Min"],
      returnSummary: ["Status", "Selected_TX_Power"]),
    .le(
      0x0080, "LE Set Decision Data",
      [
        .hex8("Advertising_Handle"), .hex8("Decision_Type_Flags"),
        .lengthPrefixed("Decision_Data", lengthName: "Decision_Data_Length"),
      ], returns: L.status),
    .le(
      0x0081, "LE Set Decision Instructions",
      [
        .uint8("Num_Tests"),
        .repeated(
          countFrom: "Num_Tests", item: "Test",
          [.hex8("Test_Flags"), .hex8("Test_Field"), .bytes("Test_Parameters", 16)]),
      ], returns: L.status),
    .le(
      0x0082, "LE Set Periodic Advertising Subevent Data",
      [
        .hex8("Advertising_Handle"), .uint8("Num_Subevents"),
        .repeated(
          countFrom: "Num_Subevents", item: "Subevent_Data",
          [
            .uint8("Subevent"), .uint8("Response_Slot_Start"), .uint8("Response_Slot_Count"),
            .lengthPrefixed("Subevent_Data", lengthName: "Subevent_Data_Length"),
          ]),
      ], returns: [.status, .hex8("Advertising_Handle")]),
    .le(
      0x0083, "LE Set Periodic Advertising Response Data",
      [
        .handle("Sync_Handle"), .uint16("Request_Event"), .uint8("Request_Subevent"), .uint8("Response_Subevent"),
        .uint8("Response_Slot"), .lengthPrefixed("Response_Data", lengthName: "Response_Data_Length"),
      ], returns: [.status, .handle("Sync_Handle")]),
    .le(
      0x0084, "LE Set Periodic Sync Subevent",
      [
        .handle("Sync_Handle"),
        .flags("Periodic_Advertising_Properties", bytes: 2, N.periodicAdvertisingProperties),
        .lengthPrefixed("Subevent", lengthName: "Num_Subevents"),
      ], returns: [.status, .handle("Sync_Handle")]),
    .le(
      0x0085, "LE Extended Create Connection [v2]",
      [
        .hex8("Advertising_Handle"), .uint8("Subevent"),
        .enumeration("Initiator_Filter_Policy", N.initiatorFilterPolicy),
        .enumeration("Own_Address_Type", N.ownAddressType), .addressType("Peer_Address_Type"),
        .address("Peer_Address"), .flags("Initiating_PHYs", N.phyBits),
        .repeated(countFrom: "Initiating_PHYs", item: "Initiating_PHY", perBit: true, L.initiatingPHY),
      ], summary: ["Peer_Address", "Peer_Address_Type", "Initiating_PHYs"]),
    .le(
      0x0086, "LE Set Periodic Advertising Parameters [v2]",
      [
        .hex8("Advertising_Handle"), .interval("Periodic_Advertising_Interval_Min", .ms1_25),
        .interval("Periodic_Advertising_Interval_Max", .ms1_25),
        .flags("Periodic_Advertising_Properties", bytes: 2, N.periodicAdvertisingProperties),
        .uint8("Num_Subevents"), .interval("Subevent_Interval", .ms1_25, bytes: 1),
        .interval("Response_Slot_Delay", .ms1_25, bytes: 1),
        .interval("Response_Slot_Spacing", .ms0_125, bytes: 1), .uint8("Num_Response_Slots"),
      ], returns: [.status, .hex8("Advertising_Handle")]),
    .le(
      0x0087, "LE Read All Local Supported Features", [],
      returns: [.status, .uint8("Max_Page"), .bytes("LE_Features", 248)]),
    .le(0x0088, "LE Read All Remote Features", [.handle("Connection_Handle"), .uint8("Pages_Requested")]),
    .le(0x0089, "LE CS Read Local Supported Capabilities", [], returns: [.status] + L.csCapabilities),
    .le(0x008A, "LE CS Read Remote Supported Capabilities", L.connectionHandle),
    .le(
      0x008B, "LE CS Write Cached Remote Supported Capabilities", [.handle("Connection_Handle")] + L.csCapabilities,
      returns: L.statusConnectionHandle, summary: ["Connection_Handle"]),
    .le(0x008C, "LE CS Security Enable", L.connectionHandle),
    .le(
      0x008D, "LE CS Set Default Settings",
      [
        .handle("Connection_Handle"), .flags("Role_Enable", N.csRoleBits), .hex8("CS_SYNC_Antenna_Selection"),
        .int8("Max_TX_Power"),
      ], returns: L.statusConnectionHandle, summary: ["Connection_Handle", "Role_Enable"]),
    .le(0x008E, "LE CS Read Remote FAE Table", L.connectionHandle),
    .le(
      0x008F, "LE CS Write Cached Remote FAE Table", [.handle("Connection_Handle"), .bytes("Remote_FAE_Table", 72)],
      returns: L.statusConnectionHandle),
    .le(
      0x0090, "LE CS Create Config",
      [.handle("Connection_Handle"), .uint8("Config_ID"), .uint8("Create_Context")] + HCILayout.csConfig,
      summary: ["Connection_Handle", "Config_ID"]),
    .le(0x0091, "LE CS Remove Config", [.handle("Connection_Handle"), .uint8("Config_ID")]),
    .le(0x0092, "LE CS Set Channel Classification", [.bytes("Channel_Classification", 10)], returns: L.status),
    .le(
      0x0093, "LE CS Set Procedure Parameters",
      [
        .handle("Connection_Handle"), .uint8("Config_ID"), .interval("Max_Procedure_Len", .slots),
        .uint16("Min_Procedure_Interval"), .uint16("Max_Procedure_Interval"), .uint16("Max_Procedure_Count"),
        .interval("Min_Subevent_Len", .us, bytes: 3), .interval("Max_Subevent_Len", .us, bytes: 3),
        .uint8("Tone_Antenna_Config_Selection"), .enumeration("PHY", N.testPHY), .int8("Tx_Power_Delta"),
        .hex8("Preferred_Peer_Antenna"), .hex8("SNR_Control_Initiator"), .hex8("SNR_Control_Reflector"),
      ], returns: L.statusConnectionHandle, summary: ["Connection_Handle", "Config_ID"]),
    .le(
      0x0094, "LE CS Procedure Enable",
      [.handle("Connection_Handle"), .uint8("Config_ID"), .enumeration("Enable", N.enabled)],
      summary: ["Connection_Handle", "Config_ID", "Enable"]),
    .le(
      0x0095, "LE CS Test",
      [
        .uint8("Main_Mode_Type"), .uint8("Sub_Mode_Type"), .uint8("Main_Mode_Repetition"), .uint8("Mode_0_Steps"),
        .enumeration("Role", N.csRole), .hex8("RTT_Type"), .enumeration("CS_SYNC_PHY", N.csSyncPHY),
        .hex8("CS_SYNC_Antenna_Selection"), .interval("Subevent_Len", .us, bytes: 3),
        .interval("Subevent_Interval", .slots), .uint8("Max_Num_Subevents"), .int8("Transmit_Power_Level"),
        .uint8("T_IP1_Time"), .uint8("T_IP2_Time"), .uint8("T_FCS_Time"), .uint8("T_PM_Time"), .uint8("T_SW_Time"),
        .uint8("Tone_Antenna_Config_Selection"), .hex8("Reserved"), .hex8("SNR_Control_Initiator"),
        .hex8("SNR_Control_Reflector"), .hex16("DRBG_Nonce"), .uint8("Channel_Map_Repetition"),
        .hex16("Override_Config"),
        .lengthPrefixed("Override_Parameters_Data", lengthName: "Override_Parameters_Length"),
      ], returns: L.status, summary: ["Main_Mode_Type", "Sub_Mode_Type", "Role"]),
    .le(0x0096, "LE CS Test End", []),
    .le(
      0x0097, "LE Set Host Feature [v2]", [.uint16("Bit_Number"), .enumeration("Bit_Value", N.enabled)],
      returns: L.status),
    .le(
      0x0098, "LE Add Device To Monitored Advertisers List",
      L.leAddress + [.int8("RSSI_Threshold_Low"), .int8("RSSI_Threshold_High"), .uint8("Timeout")],
      returns: L.status, summary: ["Address"]),
    .le(
      0x0099, "LE Remove Device From Monitored Advertisers List", L.leAddress, returns: L.status,
      summary: ["Address"]),
    .le(0x009A, "LE Clear Monitored Advertisers List", [], returns: L.status),
    .le(
      0x009B, "LE Read Monitored Advertisers List Size", [],
      returns: [.status, .uint8("Monitored_Advertisers_List_Size")]),
    .le(0x009C, "LE Enable Monitoring Advertisers", [.enumeration("Enable", N.enabled)], returns: L.status),
    .le(
      0x009D, "LE Frame Space Update",
      [
        .handle("Connection_Handle"), .interval("Frame_Space_Min", .us), .interval("Frame_Space_Max", .us),
        .flags("PHYs", N.phyBits), .flags("Spacing_Types", bytes: 2, N.spacingTypes),
      ], summary: ["Connection_Handle", "Frame_Space_Min", "Frame_Space_Max"]),
  ]
}

extension HCILayout {
  static let cigReturn: [HCIParameter] = [
    .status, .hex8("CIG_ID"), .uint8("CIS_Count"),
    .repeated(countFrom: "CIS_Count", item: "CIS", [.handle("Connection_Handle")]),
  ]

  static let isoTestCounters: [HCIParameter] = [
    .status, .handle("Connection_Handle"), .uint32("Received_SDU_Count"), .uint32("Missed_SDU_Count"),
    .uint32("Failed_SDU_Count"),
  ]

  static let subrate: [HCIParameter] = [
    .uint16("Subrate_Min"), .uint16("Subrate_Max"), .uint16("Max_Latency"), .uint16("Continuation_Number"),
    .interval("Supervision_Timeout", .ms10),
  ]

  /// The configuration LE CS Create Config sets and LE CS Config Complete reports,
  /// from Main_Mode_Type to the reserved octet.
  static let csConfig: [HCIParameter] = [
    .uint8("Main_Mode_Type"), .uint8("Sub_Mode_Type"), .uint8("Min_Main_Mode_Steps"), .uint8("Max_Main_Mode_Steps"),
    .uint8("Main_Mode_Repetition"), .uint8("Mode_0_Steps"), .enumeration("Role", HCIValueNames.csRole),
    .hex8("RTT_Type"), .enumeration("CS_SYNC_PHY", HCIValueNames.csSyncPHY), .bytes("Channel_Map", 10),
    .uint8("Channel_Map_Repetition"), .uint8("Channel_Selection_Type"), .uint8("Ch3c_Shape"), .uint8("Ch3c_Jump"),
    .hex8("Reserved"),
  ]
}
