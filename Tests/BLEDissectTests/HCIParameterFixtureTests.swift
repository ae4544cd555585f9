import Testing

@testable import BLEDissect

/// Whole packets with their decode written above them the way btmon prints it.
@Suite struct HCIParameterFixtureTests {
  private let peer = DeviceAddress(rawValue: 0xD436_3967_A261)

  // < HCI Command: LE Create Connection (0x08|0x000d) plen 25
  //         Scan interval: 60.000 msec (0x0060)
  //         Scan window: 30.000 msec (0x0030)
  //         Filter policy: Accept list is not used (0x00)
  //         Peer address type: Public (0x00)
  //         Peer address: D4:36:39:67:A2:61
  //         Own address type: Random (0x01)
  //         Min connection interval: 30.00 msec (0x0018)
  //         Max connection interval: 50.00 msec (0x0028)
  //         Connection latency: 0 (0x0000)
  //         Supervision timeout: 420 msec (0x002a)
  //         Min connection length: 0.000 msec (0x0000)
  //         Max connection length: 0.000 msec (0x0000)
  @Test func leCreateConnection() {
    let packet: [UInt8] = [
      0x0D, 0x20, 0x19, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x01,
      0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let result = HCITestDecode.command(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(
      result.fields.map(\.name) == [
        "LE_Scan_Interval", "LE_Scan_Window", "Initiator_Filter_Policy", "Peer_Address_Type", "Peer_Address",
        "Own_Address_Type", "Connection_Interval_Min", "Connection_Interval_Max", "Max_Latency",
        "Supervision_Timeout", "Min_CE_Length", "Max_CE_Length",
      ])
    #expect(result.value("LE_Scan_Interval") == .measure(0x60, hexDigits: 4, value: 60, unit: "ms"))
    #expect(result.value("Peer_Address") == .address(peer))
    #expect(result.value("Peer_Address_Type") == .code(0, hexDigits: 2, name: "Public Device Address"))
    #expect(result.value("Own_Address_Type") == .code(1, hexDigits: 2, name: "Random Device Address"))
    #expect(result.value("Connection_Interval_Max") == .measure(0x28, hexDigits: 4, value: 50, unit: "ms"))
    #expect(result.value("Supervision_Timeout") == .measure(0x2A, hexDigits: 4, value: 420, unit: "ms"))
    #expect(
      HCIParameters.summary(commandOpcode: 0x200D) == ["Peer_Address", "Peer_Address_Type", "Initiator_Filter_Policy"])
  }

  // < HCI Command: LE Extended Create Connection (0x08|0x0043) plen 42
  //         Filter policy: Accept list is not used (0x00)
  //         Own address type: Random (0x01)
  //         Peer address type: Random (0x01)
  //         Peer address: D4:36:39:67:A2:61
  //         Initiating PHYs: 0x05
  //         Entry 0: LE 1M
  //           Scan interval: 60.000 msec (0x0060)
  //           Scan window: 60.000 msec (0x0060)
  //           Min connection interval: 30.00 msec (0x0018)
  //           Max connection interval: 30.00 msec (0x0018)
  //           Connection latency: 0 (0x0000)
  //           Supervision timeout: 2000 msec (0x00c8)
  //           Min connection length: 0.000 msec (0x0000)
  //           Max connection length: 0.000 msec (0x0000)
  //         Entry 1: LE Coded
  //           Scan interval: 180.000 msec (0x0120)
  //           (same connection parameters)
  @Test func leExtendedCreateConnection() {
    let phy1M: [UInt8] = [
      0x60, 0x00, 0x60, 0x00, 0x18, 0x00, 0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let phyCoded: [UInt8] = [0x20, 0x01] + phy1M.dropFirst(2)
    let header: [UInt8] = [0x43, 0x20, 0x2A, 0x00, 0x01, 0x01, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x05]
    let result = HCITestDecode.command(header + phy1M + phyCoded)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("Initiating_PHYs") == .flags(5, hexDigits: 2, names: ["LE 1M", "LE Coded"]))
    #expect(result.groups == ["Initiating_PHY[0]", "Initiating_PHY[1]"])
    let coded = result.fields.lookup("Initiating_PHY[1]")
    #expect(coded?.lookup("Scan_Interval")?.value == .measure(0x120, hexDigits: 4, value: 180, unit: "ms"))
    #expect(coded?.lookup("Supervision_Timeout")?.value == .measure(0xC8, hexDigits: 4, value: 2000, unit: "ms"))
    #expect(result.value("Peer_Address") == .address(peer))
  }

  // < HCI Command: LE Extended Create Connection [v2] (0x08|0x0085) plen 28: one LE 1M entry
  //         Advertising handle: 0x01, Subevent: 0x02
  @Test func leExtendedCreateConnectionV2() {
    let parameters: [UInt8] =
      [0x01, 0x02, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x01]
      + [0x60, 0x00, 0x60, 0x00, 0x18, 0x00, 0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00]
    let result = HCITestDecode.command([0x85, 0x20, UInt8(parameters.count)] + parameters)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.integer("Advertising_Handle") == 1)
    #expect(result.integer("Subevent") == 2)
    #expect(result.groups == ["Initiating_PHY[0]"])
  }

  // < HCI Command: Disconnect (0x01|0x0006) plen 3
  //         Handle: 64
  //         Reason: Remote User Terminated Connection (0x13)
  @Test func disconnect() {
    let result = HCITestDecode.command([0x06, 0x04, 0x03, 0x40, 0x00, 0x13])
    #expect(result.error == nil)
    #expect(result.value("Connection_Handle") == .unsigned(0x40, hexDigits: 4))
    #expect(result.value("Reason") == .code(0x13, hexDigits: 2, name: "Remote User Terminated Connection"))
    #expect(HCIParameters.summary(commandOpcode: 0x0406) == ["Connection_Handle", "Reason"])
  }

  // < HCI Command: LE Set Scan Enable (0x08|0x000c) plen 2
  //         Scanning: Enabled (0x01)
  //         Filter duplicates: Disabled (0x00)
  @Test func leSetScanEnable() {
    let result = HCITestDecode.command([0x0C, 0x20, 0x02, 0x01, 0x00])
    #expect(result.value("LE_Scan_Enable") == .code(1, hexDigits: 2, name: "Enabled"))
    #expect(result.value("Filter_Duplicates") == .code(0, hexDigits: 2, name: "Disabled"))
    #expect(HCIParameters.summary(commandOpcode: 0x200C) == ["LE_Scan_Enable", "Filter_Duplicates"])
  }

  // < HCI Command: LE Set Advertising Data (0x08|0x0008) plen 32
  //         Length: 3
  //         Flags: 0x06 (LE General Discoverable Mode, BR/EDR Not Supported)
  //         (28 octets of padding)
  @Test func leSetAdvertisingDataShowsTheSignificantPart() {
    let packet: [UInt8] = [0x08, 0x20, 0x20, 0x03, 0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28)
    let result = HCITestDecode.command(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.integer("Advertising_Data_Length") == 3)
    #expect(result.value("Advertising_Data") == .bytes([0x02, 0x01, 0x06]))
  }

  // < HCI Command: LE Set Extended Scan Parameters (0x08|0x0041) plen 13
  //         Own address type: Random (0x01)
  //         Filter policy: Accept all advertisement (0x00)
  //         PHYs: 0x05
  //         Entry 0: LE 1M
  //           Type: Active (0x01)
  //           Interval: 11.250 msec (0x0012)
  //           Window: 11.250 msec (0x0012)
  //         Entry 1: LE Coded
  //           Type: Passive (0x00)
  //           Interval: 33.750 msec (0x0036)
  //           Window: 33.750 msec (0x0036)
  @Test func leSetExtendedScanParameters() {
    let packet: [UInt8] = [
      0x41, 0x20, 0x0D, 0x01, 0x00, 0x05, 0x01, 0x12, 0x00, 0x12, 0x00, 0x00, 0x36, 0x00, 0x36, 0x00,
    ]
    let result = HCITestDecode.command(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.groups == ["Scanning_PHY[0]", "Scanning_PHY[1]"])
    let coded = result.fields.lookup("Scanning_PHY[1]")
    #expect(coded?.lookup("Scan_Type")?.value == .code(0, hexDigits: 2, name: "Passive"))
    #expect(coded?.lookup("Scan_Interval")?.value == .measure(0x36, hexDigits: 4, value: 33.75, unit: "ms"))
  }

  // > HCI Event: LE Meta Event (0x3e) plen 19
  //       LE Connection Complete (0x01)
  //         Status: Success (0x00)
  //         Handle: 64
  //         Role: Peripheral (0x01)
  //         Peer address type: Public (0x00)
  //         Peer address: D4:36:39:67:A2:61
  //         Connection interval: 50.00 msec (0x0028)
  //         Connection latency: 0 (0x0000)
  //         Supervision timeout: 5000 msec (0x01f4)
  //         Central clock accuracy: 0x05
  @Test func leConnectionComplete() {
    let packet: [UInt8] = [
      0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x28, 0x00, 0x00, 0x00,
      0xF4, 0x01, 0x05,
    ]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("Subevent_Code") == .code(1, hexDigits: 2, name: "LE Connection Complete"))
    #expect(result.value("Status") == .code(0, hexDigits: 2, name: "Success"))
    #expect(result.integer("Connection_Handle") == 0x40)
    #expect(result.value("Role") == .code(1, hexDigits: 2, name: "Peripheral"))
    #expect(result.value("Peer_Address") == .address(peer))
    #expect(result.value("Connection_Interval") == .measure(0x28, hexDigits: 4, value: 50, unit: "ms"))
    #expect(result.integer("Peripheral_Latency") == 0)
    #expect(result.value("Supervision_Timeout") == .measure(0x1F4, hexDigits: 4, value: 5000, unit: "ms"))
    #expect(result.value("Central_Clock_Accuracy") == .code(5, hexDigits: 2, name: "50 ppm"))
    #expect(
      HCIParameters.summary(event: 0x3E, subevent: 0x01) == ["Status", "Connection_Handle", "Role", "Peer_Address"])
  }

  // > HCI Event: LE Meta Event (0x3e) plen 34
  //       LE Enhanced Connection Complete (0x29)
  //         Status: Success (0x00)
  //         Handle: 64
  //         Role: Central (0x00)
  //         Peer address type: Resolved Random (0x03)
  //         Peer address: D4:36:39:67:A2:61
  //         Local resolvable private address: 4C:11:22:33:44:55
  //         Peer resolvable private address: 6A:11:22:33:44:66
  //         Connection interval: 30.00 msec (0x0018)
  //         Connection latency: 4 (0x0004)
  //         Supervision timeout: 720 msec (0x0048)
  //         Central clock accuracy: 0x00
  //         Advertising handle: 0xff
  //         Sync handle: 0xffff
  @Test func leEnhancedConnectionCompleteV2() {
    let packet: [UInt8] = [
      0x3E, 0x22, 0x29, 0x00, 0x40, 0x00, 0x00, 0x03, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4,
      0x55, 0x44, 0x33, 0x22, 0x11, 0x4C, 0x66, 0x44, 0x33, 0x22, 0x11, 0x6A,
      0x18, 0x00, 0x04, 0x00, 0x48, 0x00, 0x00, 0xFF, 0xFF, 0xFF,
    ]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("Subevent_Code") == .code(0x29, hexDigits: 2, name: "LE Enhanced Connection Complete [v2]"))
    #expect(result.value("Role") == .code(0, hexDigits: 2, name: "Central"))
    #expect(result.value("Peer_Address_Type") == .code(3, hexDigits: 2, name: "Random (static) Identity Address"))
    #expect(result.value("Local_Resolvable_Private_Address") == .address(DeviceAddress(rawValue: 0x4C11_2233_4455)))
    #expect(result.value("Peer_Resolvable_Private_Address") == .address(DeviceAddress(rawValue: 0x6A11_2233_4466)))
    #expect(result.integer("Peripheral_Latency") == 4)
    #expect(result.value("Supervision_Timeout") == .measure(0x48, hexDigits: 4, value: 720, unit: "ms"))
    #expect(result.value("Advertising_Handle") == .unsigned(0xFF, hexDigits: 2))
    #expect(result.value("Sync_Handle") == .unsigned(0xFFFF, hexDigits: 4))
  }

  // > HCI Event: LE Meta Event (0x3e) plen 25
  //       LE Advertising Report (0x02)
  //         Num reports: 2
  //         Event type: Connectable undirected - ADV_IND (0x00)
  //         Address type: Random (0x01)
  //         Address: D4:36:39:67:A2:61 (Static)
  //         Data length: 3
  //         Flags: 0x06
  //         RSSI: -60 dBm (0xc4)
  //         Event type: Scan response - SCAN_RSP (0x04)
  //         Address type: Random (0x01)
  //         Address: D4:36:39:67:A2:61 (Static)
  //         Data length: 0
  //         RSSI: -65 dBm (0xbf)
  @Test func leAdvertisingReportWithTwoReports() {
    let address: [UInt8] = [0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4]
    let packet: [UInt8] =
      [0x3E, 0x19, 0x02, 0x02]
      + [0x00, 0x01] + address + [0x03, 0x02, 0x01, 0x06, 0xC4]
      + [0x04, 0x01] + address + [0x00, 0xBF]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.integer("Num_Reports") == 2)
    #expect(result.groups == ["Report[0]", "Report[1]"])
    let first = result.fields.lookup("Report[0]")
    #expect(first?.lookup("Event_Type")?.value == .code(0, hexDigits: 2, name: "ADV_IND"))
    #expect(first?.lookup("Address_Type")?.value == .code(1, hexDigits: 2, name: "Random Device Address"))
    #expect(first?.lookup("Data")?.value == .bytes([0x02, 0x01, 0x06]))
    #expect(first?.lookup("RSSI")?.value == .measure(0xC4, hexDigits: 2, value: -60, unit: "dBm"))
    let second = result.fields.lookup("Report[1]")
    #expect(second?.lookup("Event_Type")?.value == .code(4, hexDigits: 2, name: "SCAN_RSP"))
    #expect(second?.lookup("Data")?.value == .bytes([]))
    #expect(second?.lookup("RSSI")?.value == .measure(0xBF, hexDigits: 2, value: -65, unit: "dBm"))
  }

  // > HCI Event: LE Meta Event (0x3e) plen 29
  //       LE Extended Advertising Report (0x0d)
  //         Num reports: 1
  //         Entry 0
  //           Event type: 0x0013
  //             Props: 0x0013
  //               Connectable
  //               Scannable
  //               Use legacy advertising PDUs
  //             Data status: Complete
  //           Legacy PDU Type: ADV_IND (0x0013)
  //           Address type: Public (0x00)
  //           Address: D4:36:39:67:A2:61
  //           Primary PHY: LE 1M
  //           Secondary PHY: No packets
  //           SID: no ADI field (0xff)
  //           TX power: 127 dBm
  //           RSSI: -75 dBm (0xb5)
  //           Periodic advertising interval: 0.00 msec (0x0000)
  //           Direct address type: Public (0x00)
  //           Direct address: 00:00:00:00:00:00
  //           Data length: 0x03
  //           Flags: 0x06
  @Test func leExtendedAdvertisingReport() {
    let packet: [UInt8] =
      [0x3E, 0x1D, 0x0D, 0x01, 0x13, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x01, 0x00, 0xFF, 0x7F, 0xB5]
      + [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x02, 0x01, 0x06]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    let report = result.fields.lookup("Report[0]")
    #expect(
      report?.lookup("Event_Type")?.value
        == .flags(0x13, hexDigits: 4, names: ["Connectable", "Scannable", "Legacy"]))
    #expect(report?.lookup("Address")?.value == .address(peer))
    #expect(report?.lookup("Primary_PHY")?.value == .code(1, hexDigits: 2, name: "LE 1M"))
    #expect(
      report?.lookup("Secondary_PHY")?.value
        == .code(0, hexDigits: 2, name: "No packets on the secondary advertising physical channel"))
    #expect(report?.lookup("Advertising_SID")?.value == .unsigned(0xFF, hexDigits: 0))
    #expect(report?.lookup("TX_Power")?.value == .code(0x7F, hexDigits: 2, name: "Not available"))
    #expect(report?.lookup("RSSI")?.value == .measure(0xB5, hexDigits: 2, value: -75, unit: "dBm"))
    #expect(report?.lookup("Data_Length")?.value == .unsigned(3, hexDigits: 0))
    #expect(report?.lookup("Data")?.value == .bytes([0x02, 0x01, 0x06]))
  }

  // > HCI Event: LE Meta Event (0x3e) plen 11
  //       LE Data Length Change (0x07)
  //         Handle: 64
  //         Max TX octets: 251
  //         Max TX time: 2120
  //         Max RX octets: 251
  //         Max RX time: 2120
  @Test func leDataLengthChange() {
    let packet: [UInt8] = [0x3E, 0x0B, 0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.integer("Connection_Handle") == 0x40)
    #expect(result.value("Max_TX_Octets") == .unsigned(251, hexDigits: 0))
    #expect(result.value("Max_TX_Time") == .measure(2120, hexDigits: 4, value: 2120, unit: "µs"))
    #expect(result.integer("Max_RX_Octets") == 251)
    #expect(result.integer("Max_RX_Time") == 2120)
  }

  // > HCI Event: LE Meta Event (0x3e) plen 6
  //       LE PHY Update Complete (0x0c)
  //         Status: Success (0x00)
  //         Handle: 64
  //         TX PHY: LE 2M (0x02)
  //         RX PHY: LE 2M (0x02)
  @Test func lePHYUpdateComplete() {
    let result = HCITestDecode.event([0x3E, 0x06, 0x0C, 0x00, 0x40, 0x00, 0x02, 0x02])
    #expect(result.error == nil)
    #expect(result.value("TX_PHY") == .code(2, hexDigits: 2, name: "LE 2M"))
    #expect(result.value("RX_PHY") == .code(2, hexDigits: 2, name: "LE 2M"))
    #expect(HCIParameters.summary(event: 0x3E, subevent: 0x0C) == ["Status", "Connection_Handle", "TX_PHY", "RX_PHY"])
  }

  // > HCI Event: LE Meta Event (0x3e) plen 10
  //       LE Connection Update Complete (0x03)
  //         Status: Success (0x00)
  //         Handle: 64
  //         Connection interval: 30.00 msec (0x0018)
  //         Connection latency: 0 (0x0000)
  //         Supervision timeout: 2000 msec (0x00c8)
  @Test func leConnectionUpdateComplete() {
    let result = HCITestDecode.event([0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 0x18, 0x00, 0x00, 0x00, 0xC8, 0x00])
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("Connection_Interval") == .measure(0x18, hexDigits: 4, value: 30, unit: "ms"))
    #expect(result.integer("Peripheral_Latency") == 0)
    #expect(result.value("Supervision_Timeout") == .measure(0xC8, hexDigits: 4, value: 2000, unit: "ms"))
  }

  // > HCI Event: LE Meta Event (0x3e) plen 13
  //       LE Long Term Key Request (0x05)
  //         Handle: 64
  //         Random number: 0x0807060504030201
  //         Encrypted diversifier: 0xbeef
  @Test func leLongTermKeyRequest() {
    let packet: [UInt8] = [0x3E, 0x0D, 0x05, 0x40, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xEF, 0xBE]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.integer("Connection_Handle") == 0x40)
    #expect(result.value("Random_Number") == .unsigned(0x0807_0605_0403_0201, hexDigits: 16))
    #expect(result.value("Encrypted_Diversifier") == .unsigned(0xBEEF, hexDigits: 4))
  }

  // > HCI Event: Disconnect Complete (0x05) plen 4
  //         Status: Success (0x00)
  //         Handle: 64
  //         Reason: Remote User Terminated Connection (0x13)
  @Test func disconnectionComplete() {
    let result = HCITestDecode.event([0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("Status") == .code(0, hexDigits: 2, name: "Success"))
    #expect(result.integer("Connection_Handle") == 0x40)
    #expect(result.value("Reason") == .code(0x13, hexDigits: 2, name: "Remote User Terminated Connection"))
    #expect(HCIParameters.summary(event: 0x05, subevent: nil) == ["Status", "Connection_Handle", "Reason"])
  }

  // > HCI Event: Encryption Change (0x08) plen 4
  //         Status: Success (0x00)
  //         Handle: 64
  //         Encryption: Enabled with AES-CCM (0x01)
  // > HCI Event: Encryption Change [v2] (0x59) plen 5
  //         (same) Key size: 16
  @Test func encryptionChange() {
    let v1 = HCITestDecode.event([0x08, 0x04, 0x00, 0x40, 0x00, 0x01])
    #expect(v1.error == nil)
    #expect(v1.unparsed == nil)
    #expect(v1.integer("Connection_Handle") == 0x40)
    #expect(v1.value("Encryption_Enabled") == .code(1, hexDigits: 2, name: "On (E0 for BR/EDR, AES-CCM for LE)"))
    let v2 = HCITestDecode.event([0x59, 0x05, 0x00, 0x40, 0x00, 0x01, 0x10])
    #expect(v2.error == nil)
    #expect(v2.integer("Encryption_Enabled") == 1)
    #expect(v2.integer("Encryption_Key_Size") == 16)
  }

  // > HCI Event: Command Complete (0x0e) plen 7
  //       LE Read Buffer Size (0x08|0x0002) ncmd 1
  //         Status: Success (0x00)
  //         Data packet length: 251
  //         Num data packets: 15
  @Test func commandCompleteForLEReadBufferSize() {
    let result = HCITestDecode.event([0x0E, 0x07, 0x01, 0x02, 0x20, 0x00, 0xFB, 0x00, 0x0F])
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(
      result.fields.map(\.name) == [
        "Num_HCI_Command_Packets", "Command_Opcode", "Status", "LE_ACL_Data_Packet_Length",
        "Total_Num_LE_ACL_Data_Packets",
      ])
    #expect(result.value("Command_Opcode") == .code(0x2002, hexDigits: 4, name: "LE Read Buffer Size [v1]"))
    #expect(result.integer("LE_ACL_Data_Packet_Length") == 251)
    #expect(result.integer("Total_Num_LE_ACL_Data_Packets") == 15)
    #expect(HCIParameters.summary(event: 0x0E, subevent: nil) == ["Command_Opcode"])
    #expect(
      HCIParameters.summary(returnParametersOf: 0x2002)
        == ["Status", "LE_ACL_Data_Packet_Length", "Total_Num_LE_ACL_Data_Packets"])
  }

  // > HCI Event: Command Complete (0x0e) plen 10
  //       Read BD ADDR (0x04|0x0009) ncmd 1
  //         Status: Success (0x00)
  //         Address: D4:36:39:67:A2:61
  // > HCI Event: Command Complete (0x0e) plen 6
  //       Vendor (0x3f|0x000c) ncmd 1
  //         Status: Success (0x00)
  //         02 03
  // > HCI Event: Command Complete (0x0e) plen 3
  //       NOP (0x00|0x0000) ncmd 1
  // > HCI Event: Command Complete (0x0e) plen 4
  //       NOP (0x00|0x0000) ncmd 1
  //         Status: Success (0x00)
  // > HCI Event: Command Complete (0x0e) plen 4
  //       LE Read Buffer Size (0x08|0x0002) ncmd 1
  //         Status: Unknown HCI Command (0x01)
  @Test func commandCompleteForOtherCommands() {
    let bdAddr = HCITestDecode.event([0x0E, 0x0A, 0x01, 0x09, 0x10, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4])
    #expect(bdAddr.error == nil)
    #expect(bdAddr.value("BD_ADDR") == .address(peer))
    let vendor = HCITestDecode.event([0x0E, 0x06, 0x01, 0x0C, 0xFC, 0x00, 0x02, 0x03])
    #expect(vendor.error == nil)
    #expect(vendor.value("Command_Opcode") == .code(0xFC0C, hexDigits: 4, name: "Vendor (0xfc0c)"))
    #expect(vendor.integer("Status") == 0)
    #expect(vendor.value("Return_Parameters") == .bytes([0x02, 0x03]))
    let nop = HCITestDecode.event([0x0E, 0x03, 0x01, 0x00, 0x00])
    #expect(nop.error == nil)
    #expect(nop.fields.map(\.name) == ["Num_HCI_Command_Packets", "Command_Opcode"])
    #expect(nop.value("Command_Opcode") == .code(0, hexDigits: 4, name: "No Operation"))
    let nopWithStatus = HCITestDecode.event([0x0E, 0x04, 0x01, 0x00, 0x00, 0x00])
    #expect(nopWithStatus.error == nil)
    #expect(nopWithStatus.unparsed == nil)
    #expect(nopWithStatus.integer("Status") == 0)
    let failed = HCITestDecode.event([0x0E, 0x04, 0x01, 0x02, 0x20, 0x01])
    #expect(failed.error == nil)
    #expect(failed.value("Status") == .code(1, hexDigits: 2, name: "Unknown HCI Command"))
    let cut = HCITestDecode.event([0x0E, 0x04, 0x01, 0x02, 0x20, 0x00])
    #expect(cut.error?.offset == 6)
  }

  // > HCI Event: Command Complete (0x0e) plen 12
  //       Read Local Version Information (0x04|0x0001) ncmd 1
  //         Status: Success (0x00)
  //         HCI version: Bluetooth 5.3 (0x0c) - Revision 8870 (0x22a6)
  //         LMP version: Bluetooth 5.3 (0x0c) - Subversion 8870 (0x22a6)
  //         Manufacturer: Intel Corp. (2)
  @Test func commandCompleteForReadLocalVersionInformation() {
    let packet: [UInt8] = [0x0E, 0x0C, 0x01, 0x01, 0x10, 0x00, 0x0C, 0xA6, 0x22, 0x0C, 0x02, 0x00, 0xA6, 0x22]
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.value("HCI_Version") == .code(0x0C, hexDigits: 2, name: "Bluetooth Core Specification 5.3"))
    #expect(result.value("Company_Identifier") == .unsigned(2, hexDigits: 4))
  }

  // > HCI Event: Command Status (0x0f) plen 4
  //       LE Create Connection (0x08|0x000d) ncmd 1
  //         Status: Success (0x00)
  @Test func commandStatus() {
    let result = HCITestDecode.event([0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20])
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.fields.map(\.name) == ["Status", "Num_HCI_Command_Packets", "Command_Opcode"])
    #expect(result.value("Command_Opcode") == .code(0x200D, hexDigits: 4, name: "LE Create Connection"))
    #expect(HCIParameters.summary(event: 0x0F, subevent: nil) == ["Command_Opcode", "Status"])
  }

  // > HCI Event: Number of Completed Packets (0x13) plen 9
  //         Num handles: 2
  //         Handle: 64
  //         Count: 1
  //         Handle: 65
  //         Count: 3
  @Test func numberOfCompletedPacketsWithTwoHandles() {
    let result = HCITestDecode.event([0x13, 0x09, 0x02, 0x40, 0x00, 0x01, 0x00, 0x41, 0x00, 0x03, 0x00])
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    #expect(result.groups == ["Handle[0]", "Handle[1]"])
    let second = result.fields.lookup("Handle[1]")
    #expect(second?.lookup("Connection_Handle")?.value == .unsigned(0x41, hexDigits: 4))
    #expect(second?.lookup("Num_Completed_Packets")?.value == .unsigned(3, hexDigits: 0))
  }

  // > HCI Event: Vendor (0xff) plen 4
  //         aa bb cc dd
  @Test func vendorEventKeepsItsBytes() {
    let result = HCITestDecode.event([0xFF, 0x04, 0xAA, 0xBB, 0xCC, 0xDD])
    #expect(result.error == nil)
    #expect(result.fields == [Field("Parameters", .bytes([0xAA, 0xBB, 0xCC, 0xDD]))])
    #expect(HCIEventCode(rawValue: 0xFF).name == "Vendor Specific")
  }

  // > HCI Event: LE Meta Event (0x3e) plen 19, cut after two octets of the peer address
  //       LE Connection Complete (0x01)
  //         Status: Success (0x00)
  //         Handle: 64
  //         Role: Peripheral (0x01)
  //         Peer address type: Public (0x00)
  //         Peer address: (2 of 6 octets)
  @Test func truncatedEventKeepsWhatWasReadAndSaysWhere() {
    let result = HCITestDecode.event([0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x61, 0xA2])
    #expect(result.fields.map(\.name) == ["Subevent_Code", "Status", "Connection_Handle", "Role", "Peer_Address_Type"])
    #expect(result.error?.offset == 8)
    #expect(result.error?.kind == .truncated(needed: 6, available: 2))
    let diagnostics = HCIParameters.diagnostics(error: result.error, fields: result.fields)
    #expect(diagnostics.map(\.id) == ["hci.parameters.truncated"])
  }

  // > HCI Event: LE Meta Event (0x3e) plen 25, cut inside the second advertising report
  @Test func truncatedArrayKeepsThePartialGroup() {
    let address: [UInt8] = [0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4]
    let packet: [UInt8] = [0x3E, 0x19, 0x02, 0x02, 0x00, 0x01] + address + [0x00, 0xC4] + [0x04, 0x01, 0x61]
    let result = HCITestDecode.event(packet)
    #expect(result.groups == ["Report[0]", "Report[1]"])
    #expect(result.fields.lookup("Report[1]")?.children.map(\.name) == ["Event_Type", "Address_Type"])
    #expect(result.error?.offset == 16)
  }

  // > HCI Event: Disconnect Complete (0x05) plen 5: one octet too many
  @Test func extraOctetsBecomeUnparsed() {
    let result = HCITestDecode.event([0x05, 0x05, 0x00, 0x40, 0x00, 0x13, 0x99])
    #expect(result.error == nil)
    #expect(result.unparsed?.value == .bytes([0x99]))
    let diagnostics = HCIParameters.diagnostics(error: result.error, fields: result.fields)
    #expect(diagnostics.map(\.id) == ["hci.parameters.extra"])
  }

  // > HCI Event: LE Meta Event (0x3e) plen 3: unknown subevent 0x36
  @Test func unknownSubeventKeepsItsBytes() {
    let result = HCITestDecode.event([0x3E, 0x03, 0x36, 0x01, 0x02])
    #expect(result.error == nil)
    #expect(result.value("Subevent_Code") == .code(0x36, hexDigits: 2, name: "Unknown (0x36)"))
    #expect(result.value("Parameters") == .bytes([0x01, 0x02]))
  }

  @Test func emptyLEMetaIsTruncated() {
    let result = HCITestDecode.event([0x3E, 0x00])
    #expect(result.fields.isEmpty)
    #expect(result.error?.offset == 2)
  }

  // > HCI Event: Remote Name Request Complete (0x07) plen 255
  //         Status: Success (0x00)
  //         Address: D4:36:39:67:A2:61
  //         Name: Pixel 8
  @Test func remoteNameIsText() {
    let name = Array("Pixel 8".utf8)
    let packet: [UInt8] =
      [0x07, 0xFF, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4] + name
      + [UInt8](repeating: 0, count: 248 - name.count)
    let result = HCITestDecode.event(packet)
    #expect(result.error == nil)
    #expect(result.value("Remote_Name") == .text("Pixel 8"))
  }
}
