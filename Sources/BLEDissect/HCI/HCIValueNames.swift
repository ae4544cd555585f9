/// Names of coded parameter values shared by several commands and events (Core 6.0,
/// Vol 4, Part E, 7). Value names are short forms of the spec's descriptions.
enum HCIValueNames {
  static let enabled: [UInt64: String] = [0: "Disabled", 1: "Enabled"]
  static let role: [UInt64: String] = [0: "Central", 1: "Peripheral"]

  /// LE address types, as peer, identity, advertiser and report parameters use them.
  static let addressType: [UInt64: String] = [
    0x00: "Public Device Address",
    0x01: "Random Device Address",
    0x02: "Public Identity Address",
    0x03: "Random (static) Identity Address",
    0xFE: "Unresolved Resolvable Private Address",
    0xFF: "Anonymous",
  ]

  static let ownAddressType: [UInt64: String] = [
    0x00: "Public Device Address",
    0x01: "Random Device Address",
    0x02: "Resolvable Private Address or Public",
    0x03: "Resolvable Private Address or Random",
  ]

  static let advertisingType: [UInt64: String] = [
    0x00: "ADV_IND",
    0x01: "ADV_DIRECT_IND (high duty cycle)",
    0x02: "ADV_SCAN_IND",
    0x03: "ADV_NONCONN_IND",
    0x04: "ADV_DIRECT_IND (low duty cycle)",
  ]

  static let reportEventType: [UInt64: String] = [
    0x00: "ADV_IND",
    0x01: "ADV_DIRECT_IND",
    0x02: "ADV_SCAN_IND",
    0x03: "ADV_NONCONN_IND",
    0x04: "SCAN_RSP",
  ]

  static let directedReportEventType: [UInt64: String] = [0x01: "ADV_DIRECT_IND"]

  static let extendedReportEventType = [
    "Connectable", "Scannable", "Directed", "Scan Response", "Legacy",
    "Incomplete, more data to come", "Incomplete, data truncated",
  ]

  static let advertisingEventProperties = [
    "Connectable", "Scannable", "Directed", "High Duty Cycle Directed Connectable", "Legacy PDUs",
    "Anonymous", "Include TX Power",
  ]

  static let advertisingChannelMap = ["Channel 37", "Channel 38", "Channel 39"]

  static let advertisingFilterPolicy: [UInt64: String] = [
    0x00: "Scan and connection requests from all devices",
    0x01: "Scan requests from the Filter Accept List only",
    0x02: "Connection requests from the Filter Accept List only",
    0x03: "Scan and connection requests from the Filter Accept List only",
  ]

  static let scanType: [UInt64: String] = [0: "Passive", 1: "Active"]

  static let scanningFilterPolicy: [UInt64: String] = [
    0x00: "Basic unfiltered",
    0x01: "Basic filtered",
    0x02: "Extended unfiltered",
    0x03: "Extended filtered",
  ]

  static let initiatorFilterPolicy: [UInt64: String] = [
    0x00: "Filter Accept List not used",
    0x01: "Filter Accept List used",
    0x02: "Decision PDUs",
    0x03: "Filter Accept List and decision PDUs",
  ]

  static let filterDuplicates: [UInt64: String] = [
    0: "Disabled", 1: "Enabled", 2: "Enabled, reset for each scan period",
  ]

  static let phy: [UInt64: String] = [0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE Coded"]

  static let secondaryPHY: [UInt64: String] = [
    0x00: "No packets on the secondary advertising physical channel",
    0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE Coded",
  ]

  /// PHYs in CS and test commands: coded S=8 and S=2 separately.
  static let testPHY: [UInt64: String] = [
    0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE Coded S=8", 0x04: "LE Coded S=2",
  ]

  static let phyBits = ["LE 1M", "LE 2M", "LE Coded"]
  static let allPHYs = ["No TX PHY preference", "No RX PHY preference"]
  static let phyOptions: [UInt64: String] = [0: "No preferred coding", 1: "S=2 coding", 2: "S=8 coding"]

  static let clockAccuracy: [UInt64: String] = [
    0x00: "500 ppm", 0x01: "250 ppm", 0x02: "150 ppm", 0x03: "100 ppm",
    0x04: "75 ppm", 0x05: "50 ppm", 0x06: "30 ppm", 0x07: "20 ppm",
  ]

  static let sleepClockAccuracy: [UInt64: String] = [
    0x00: "251 ppm to 500 ppm", 0x01: "151 ppm to 250 ppm", 0x02: "101 ppm to 150 ppm",
    0x03: "76 ppm to 100 ppm", 0x04: "51 ppm to 75 ppm", 0x05: "31 ppm to 50 ppm",
    0x06: "21 ppm to 30 ppm", 0x07: "0 ppm to 20 ppm",
  ]

  static let channelSelectionAlgorithm: [UInt64: String] = [
    0x00: "LE Channel Selection Algorithm #1",
    0x01: "LE Channel Selection Algorithm #2",
  ]

  static let encryptionEnabled: [UInt64: String] = [
    0x00: "Off",
    0x01: "On (E0 for BR/EDR, AES-CCM for LE)",
    0x02: "On (AES-CCM for BR/EDR)",
  ]

  static let connectionLinkType: [UInt64: String] = [0x00: "SCO", 0x01: "ACL", 0x02: "eSCO"]
  static let overflowLinkType: [UInt64: String] = [0x00: "Synchronous", 0x01: "ACL", 0x02: "ISO"]

  static let scanEnable: [UInt64: String] = [
    0x00: "No scans enabled",
    0x01: "Inquiry Scan enabled, Page Scan disabled",
    0x02: "Inquiry Scan disabled, Page Scan enabled",
    0x03: "Inquiry Scan enabled, Page Scan enabled",
  ]

  /// HCI and LMP/LL versions (Assigned Numbers, Core Specification Version).
  static let version: [UInt64: String] = [
    0x00: "Bluetooth Core Specification 1.0b",
    0x01: "Bluetooth Core Specification 1.1",
    0x02: "Bluetooth Core Specification 1.2",
    0x03: "Bluetooth Core Specification 2.0 + EDR",
    0x04: "Bluetooth Core Specification 2.1 + EDR",
    0x05: "Bluetooth Core Specification 3.0 + HS",
    0x06: "Bluetooth Core Specification 4.0",
    0x07: "Bluetooth Core Specification 4.1",
    0x08: "Bluetooth Core Specification 4.2",
    0x09: "Bluetooth Core Specification 5.0",
    0x0A: "Bluetooth Core Specification 5.1",
    0x0B: "Bluetooth Core Specification 5.2",
    0x0C: "Bluetooth Core Specification 5.3",
    0x0D: "Bluetooth Core Specification 5.4",
    0x0E: "Bluetooth Core Specification 6.0",
  ]

  static let dataStatus: [UInt64: String] = [
    0x00: "Complete",
    0x01: "Incomplete, more data to come",
    0x02: "Incomplete, data truncated, no more to come",
    0xFF: "Failed to receive an AUX_SYNC_SUBEVENT_RSP PDU",
  ]

  static let operation: [UInt64: String] = [
    0x00: "Intermediate fragment",
    0x01: "First fragment",
    0x02: "Last fragment",
    0x03: "Complete data",
    0x04: "Unchanged data",
  ]

  static let fragmentPreference: [UInt64: String] = [
    0x00: "The Controller may fragment all data",
    0x01: "The Controller should not fragment",
  ]

  static let cteType: [UInt64: String] = [
    0x00: "AoA Constant Tone Extension",
    0x01: "AoD Constant Tone Extension with 1 µs slots",
    0x02: "AoD Constant Tone Extension with 2 µs slots",
    0xFF: "No Constant Tone Extension",
  ]

  static let cteTypeBits = ["AoA", "AoD 1 µs", "AoD 2 µs"]

  static let syncCTETypeBits = [
    "Do not sync to AoA", "Do not sync to AoD 1 µs", "Do not sync to AoD 2 µs", "Do not sync to type 3",
    "Do not sync without CTE",
  ]

  static let periodicSyncOptions = [
    "Use the Periodic Advertiser List", "Reporting initially disabled", "Duplicate filtering initially enabled",
  ]

  static let periodicAdvertisingProperties = ["", "", "", "", "", "", "Include TX Power"]

  static let periodicReceiveEnable = ["Reporting enabled", "Duplicate filtering enabled"]

  static let syncTransferMode: [UInt64: String] = [
    0x00: "No attempt to synchronize",
    0x01: "Synchronize, reports disabled",
    0x02: "Synchronize, reports enabled, duplicate filtering disabled",
    0x03: "Synchronize, reports enabled, duplicate filtering enabled",
  ]

  static let privacyMode: [UInt64: String] = [0x00: "Network Privacy Mode", 0x01: "Device Privacy Mode"]

  static let currentMode: [UInt64: String] = [0x00: "Active Mode", 0x01: "Hold Mode", 0x02: "Sniff Mode"]

  static let keyType: [UInt64: String] = [
    0x00: "Combination Key",
    0x03: "Debug Combination Key",
    0x04: "Unauthenticated Combination Key generated from P-192",
    0x05: "Authenticated Combination Key generated from P-192",
    0x06: "Changed Combination Key",
    0x07: "Unauthenticated Combination Key generated from P-256",
    0x08: "Authenticated Combination Key generated from P-256",
  ]

  static let ioCapability: [UInt64: String] = [
    0x00: "DisplayOnly", 0x01: "DisplayYesNo", 0x02: "KeyboardOnly", 0x03: "NoInputNoOutput",
  ]

  static let authenticationRequirements: [UInt64: String] = [
    0x00: "MITM Protection Not Required - No Bonding",
    0x01: "MITM Protection Required - No Bonding",
    0x02: "MITM Protection Not Required - Dedicated Bonding",
    0x03: "MITM Protection Required - Dedicated Bonding",
    0x04: "MITM Protection Not Required - General Bonding",
    0x05: "MITM Protection Required - General Bonding",
  ]

  static let dataPathDirection: [UInt64: String] = [
    0x00: "Input (Host to Controller)", 0x01: "Output (Controller to Host)",
  ]

  static let packing: [UInt64: String] = [0x00: "Sequential", 0x01: "Interleaved"]
  static let framing: [UInt64: String] = [0x00: "Unframed", 0x01: "Framed"]

  static let isoPayloadType: [UInt64: String] = [
    0x00: "Zero length", 0x01: "Variable length", 0x02: "Maximum length",
  ]

  static let transmitPowerReportingReason: [UInt64: String] = [
    0x00: "Local transmit power changed",
    0x01: "Remote transmit power changed",
    0x02: "LE Read Remote Transmit Power Level command completed",
  ]

  static let transmitPowerPHY: [UInt64: String] = [
    0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE Coded S=8", 0x04: "LE Coded S=2",
  ]

  static let zoneEntered: [UInt64: String] = [0x00: "Low zone", 0x01: "Middle zone", 0x02: "High zone"]

  static let sleepClockAction: [UInt64: String] = [
    0x00: "Switch to a more accurate clock", 0x01: "Switch to a less accurate clock",
  ]

  static let dhKeyType: [UInt64: String] = [
    0x00: "Use the generated private key", 0x01: "Use the debug private key",
  ]

  static let whichClock: [UInt64: String] = [0x00: "Local Clock", 0x01: "Piconet Clock"]

  static let csRole: [UInt64: String] = [0x00: "Initiator", 0x01: "Reflector"]
  static let csRoleBits = ["Initiator", "Reflector"]
  static let csConfigAction: [UInt64: String] = [0x00: "Removed", 0x01: "Created"]
  static let csState: [UInt64: String] = [0x00: "Disabled", 0x01: "Enabled"]

  static let csDoneStatus: [UInt64: String] = [
    0x00: "All results complete", 0x01: "Partial results, more to follow", 0x0F: "Aborted",
  ]

  static let frameSpaceInitiator: [UInt64: String] = [
    0x00: "Local Host", 0x01: "Local Controller", 0x02: "Peer",
  ]

  static let spacingTypes = ["T_IFS_ACL_CP", "T_IFS_ACL_PC", "T_MCES", "T_IFS_CIS", "T_MSS_CIS"]

  static let dataRelatedAddressChanges = [
    "Change on advertising data change", "Change on scan response data change",
  ]

  static let advertisingPHYOptions: [UInt64: String] = [
    0x00: "No preferred coding", 0x01: "Prefer S=2 coding", 0x02: "Prefer S=8 coding",
    0x03: "Require S=2 coding", 0x04: "Require S=8 coding",
  ]

  static let csSyncPHY: [UInt64: String] = [0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE 2M 2BT"]

  static let keypressNotification: [UInt64: String] = [
    0x00: "Passkey entry started", 0x01: "Passkey digit entered", 0x02: "Passkey digit erased",
    0x03: "Passkey cleared", 0x04: "Passkey entry completed",
  ]

  static let airMode: [UInt64: String] = [
    0x00: "µ-law log", 0x01: "A-law log", 0x02: "CVSD", 0x03: "Transparent Data",
  ]

  static let pageScanRepetitionMode: [UInt64: String] = [0x00: "R0", 0x01: "R1", 0x02: "R2"]
}
