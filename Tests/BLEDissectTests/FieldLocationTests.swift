import Testing

@testable import BLEDissect

/// Where fields are: the byte ranges `redact` rewrites, from the decoders themselves.
@Suite("Field locations")
struct FieldLocationTests {
  private func locations(_ type: HCIPacketType, _ packet: [UInt8]) -> [(String, Range<Int>)] {
    packet.withUnsafeBytes { HCIParameters.locations(of: type, in: $0).map { ($0.parameter.name, $0.range) } }
  }

  private func range(_ name: String, _ found: [(String, Range<Int>)]) -> [Range<Int>] {
    found.filter { $0.0 == name }.map(\.1)
  }

  // LE Meta Event: LE Advertising Report, two reports
  //   Event 0x3e, length 0x1c, Subevent 0x02, Num_Reports 2
  //   Report[0]: Event_Type 0x00, Address_Type 0x00, Address 11:22:33:44:55:66,
  //              Data_Length 3, Data 02 01 06, RSSI -60
  //   Report[1]: Event_Type 0x04, Address_Type 0x01, Address C0:01:02:03:04:05,
  //              Data_Length 0, RSSI -70
  @Test func advertisingReportAddressesAndData() {
    let packet: [UInt8] = [
      0x3e, 0x1c, 0x02, 0x02,
      0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x03, 0x02, 0x01, 0x06, 0xc4,
      0x04, 0x01, 0x05, 0x04, 0x03, 0x02, 0x01, 0xc0, 0x00, 0xba,
    ]
    let found = locations(.event, packet)
    #expect(range("Address", found) == [6..<12, 19..<25])
    // Data: the significant octets after Data_Length (none for the second report).
    #expect(range("Data", found) == [13..<16, 26..<26])
  }

  // Command Complete (Read BD_ADDR): Num_HCI_Command_Packets 1, Command_Opcode 0x1009,
  // Status 0x00, BD_ADDR 00:1A:7D:DA:71:13 — the return parameters are located too.
  @Test func commandCompleteReturnParameters() {
    let packet: [UInt8] = [0x0e, 0x0a, 0x01, 0x09, 0x10, 0x00, 0x13, 0x71, 0xda, 0x7d, 0x1a, 0x00]
    #expect(range("BD_ADDR", locations(.event, packet)) == [6..<12])
  }

  // LE Enable Encryption: Connection_Handle 0x0040, Random_Number (8),
  // Encrypted_Diversifier (2), Long_Term_Key (16).
  @Test func leEnableEncryptionKeys() {
    let packet: [UInt8] = [0x19, 0x20, 0x1c, 0x40, 0x00] + [UInt8](1...8) + [0x34, 0x12] + [UInt8](0x10...0x1f)
    let found = locations(.command, packet)
    #expect(range("Random_Number", found) == [5..<13])
    #expect(range("Encrypted_Diversifier", found) == [13..<15])
    #expect(range("Long_Term_Key", found) == [15..<31])
  }

  // A record cut inside Peer_Address locates what is whole and stops.
  @Test func truncatedStopsAtTheCut() {
    // LE Connection Complete: Status, Connection_Handle, Role, Peer_Address_Type, 3 of 6 address octets.
    let packet: [UInt8] = [0x3e, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x61, 0xa2, 0x67]
    let found = locations(.event, packet)
    #expect(range("Peer_Address_Type", found) == [7..<8])
    #expect(range("Peer_Address", found).isEmpty)
  }

  // Monitor NEW_INDEX: type 0 (primary), bus 1 (USB), bdaddr 00:1A:7D:DA:71:13, "hci0".
  @Test func monitorNewIndex() {
    let payload: [UInt8] = [0x00, 0x01, 0x13, 0x71, 0xda, 0x7d, 0x1a, 0x00] + Array("hci0".utf8) + [0, 0, 0, 0]
    let layout = MonitorRecordLayout.layout(for: .newIndex)!
    let found = payload.withUnsafeBytes { HCIParameters.locations(of: layout, in: $0, from: 0) }
    #expect(found.first { $0.parameter.name == "BD_ADDR" }?.range == 2..<8)
  }

  /// A PDU whose octets change keeps its CRC's verdict: a good CRC stays good, a bad
  /// one stays bad by the same amount.
  @Test(arguments: [0x555555 as UInt32, 0x0a2f85, 0x123456])
  func crcMovesWithTheChange(_ initial: UInt32) {
    let old: [UInt8] = [0x40, 0x0b] + [0x61, 0xa2, 0x67, 0x39, 0x36, 0xd4] + [0x02, 0x01, 0x06]
    var new = old
    new.replaceSubrange(2..<8, with: [0x01, 0x00, 0x00, 0x00, 0x00, 0xc0])
    let good = old.withUnsafeBytes { LLCRC.compute($0, initial: initial) }
    let expected = new.withUnsafeBytes { LLCRC.compute($0, initial: initial) }
    #expect(LLCRC.updated(good, from: old, to: new) == expected)
    #expect(LLCRC.updated(good ^ 0x000100, from: old, to: new) == expected ^ 0x000100)
  }
}
