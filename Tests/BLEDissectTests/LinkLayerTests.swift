import BLECapture
import Testing

@testable import BLEDissect

/// Decodes `packets` of one link type in order, 7.5 ms apart unless a time is given.
private func decodeAll(_ packets: [[UInt8]], _ type: LinkType, times: [Int64]? = nil) -> [DecodedRecord] {
  var decoder = RecordDecoder()
  var results: [DecodedRecord] = []
  for (index, bytes) in packets.enumerated() {
    bytes.withUnsafeBufferPointer { buffer in
      let record = Record(
        frame: index + 1, timestamp: Timestamp(unixMicroseconds: times?[index] ?? Int64(index) * 7_500),
        direction: nil, adapter: nil, kind: .linkLayer(type), bytes: buffer, originalLength: bytes.count, fileOffset: 0)
      results.append(decoder.decode(record))
    }
  }
  return results
}

private func decodeOne(_ bytes: [UInt8], _ type: LinkType) -> DecodedRecord { decodeAll([bytes], type)[0] }

/// An LL packet as DLT 251 carries it: access address, header, payload, CRC (computed).
private func air(_ accessAddress: UInt32, _ pdu: [UInt8], crcInit: UInt32 = 0x555555) -> [UInt8] {
  let crc = pdu.withUnsafeBytes { LLCRC.compute($0, initial: crcInit) }
  return withUnsafeBytes(of: accessAddress.littleEndian, Array.init) + pdu
    + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16)]
}

@Suite("link layer: sniffer headers")
struct LLRadioHeaderTests {
  @Test func nordicVersion3Advertising() throws {
    // nRF Sniffer for Bluetooth LE, Header Version 3, Packet counter 9, Packet ID 2
    //   Flags 0x01 (CRC OK, LE 1M), Channel Index 37, RSSI -24 dBm, Timestamp 40273360 µs
    // Bluetooth Low Energy Link Layer, Access Address 0x8e89bed6
    //   PDU Type ADV_NONCONN_IND, TxAdd Random, Length 37
    //   Advertising Address 14:ac:ca:5b:84:ad; Manufacturer Specific, Microsoft (0x0006)
    //   CRC 0xeabe4c (Tesi_BLE__capture.pcap frame 1)
    let bytes: [UInt8] = [
      0x00, 0x38, 0x00, 0x03, 0x09, 0x00, 0x02, 0x0a, 0x01, 0x25, 0x18, 0x00, 0x00, 0xd0, 0x85, 0x66, 0x02, 0xd6,
      0xbe, 0x89, 0x8e, 0x42, 0x25, 0xad, 0x84, 0x5b, 0xca, 0xac, 0x14, 0x1e, 0xff, 0x06, 0x00, 0x01, 0x09, 0x20,
      0x22, 0x56, 0x60, 0xe9, 0xfc, 0x5e, 0x4c, 0x09, 0x5f, 0xdf, 0x35, 0x98, 0xe4, 0x2a, 0xa4, 0xa0, 0x00, 0x1e,
      0x3a, 0x6c, 0x01, 0xe6, 0x69, 0xed, 0x57, 0x7d, 0x32,
    ]
    let decoded = decodeOne(bytes, .nordicBLE)
    let ll = try #require(decoded.ll)
    #expect(ll.radio.version == 3)
    #expect(ll.radio.channel == 37)
    #expect(ll.radio.rssi == -24)
    #expect(ll.radio.crc == .ok)
    #expect(ll.radio.phy == 1)
    #expect(ll.accessAddress == 0x8E89_BED6)
    #expect(ll.advertising?.name == "ADV_NONCONN_IND")
    #expect(ll.advertising?.advA == DeviceAddress("14:AC:CA:5B:84:AD"))
    #expect(ll.crc == 0x32_7D57)
    let report = try #require(decoded.advertising?.first)
    #expect(report.pduType == "ADV_NONCONN_IND")
    #expect(report.rssi == -24)
    #expect(report.structures.count == 1)
    #expect(decoded.diagnostics.isEmpty)
  }

  @Test func nordicVersion2SweynTooth() throws {
    // nRF Sniffer, protocol version 2, Packet ID 0 (SweynTooth), Flags 0x01, Channel Index 0,
    // RSSI 0, Event counter 271; ADV_IND 60:f8:1d:b4:66:e1, Flags 0x06, Apple manufacturer data
    let bytes: [UInt8] = [
      0x4b, 0x27, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x00, 0x00, 0x0f, 0x01, 0x00, 0x00, 0x00, 0x00, 0xd6,
      0xbe, 0x89, 0x8e, 0x00, 0x14, 0xe1, 0x66, 0xb4, 0x1d, 0xf8, 0x60, 0x02, 0x01, 0x06, 0x0a, 0xff, 0x4c, 0x00,
      0x10, 0x05, 0x4b, 0x1c, 0x96, 0xbe, 0x02, 0x41, 0x22, 0xfd,
    ]
    let ll = try #require(decodeOne(bytes, .nordicBLE).ll)
    #expect(ll.radio.version == 2)
    #expect(ll.radio.channel == 0)
    #expect(ll.advertising?.type == .advInd)
    #expect(ll.advertising?.advA == DeviceAddress("60:F8:1D:B4:66:E1"))
  }

  @Test func nordicDecryptedDataPDU() throws {
    // nRF Sniffer v3, Packet ID 6, Flags 0x1d (CRC OK, Slave -> Master, Encrypted, MIC OK, LE 2M),
    // Channel Index 36, RSSI -35, Event counter 497; Access Address 0x50656517
    // Data Header LLID 2, NESN 1, SN 0, Length 13; L2CAP CID 0x0004
    // ATT Handle Value Notification, Handle 0x0022, Value 010000000000 (Tesi_BLE__mouse.pcapng)
    let bytes: [UInt8] = [
      0x00, 0x20, 0x00, 0x03, 0x4c, 0x19, 0x06, 0x0a, 0x1d, 0x24, 0x23, 0xf1, 0x01, 0x62, 0xb7, 0x60, 0x14, 0x17,
      0x65, 0x65, 0x50, 0x06, 0x0d, 0x09, 0x00, 0x04, 0x00, 0x1b, 0x22, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x87, 0xda, 0xed,
    ]
    let decoded = decodeOne(bytes, .nordicBLE)
    let ll = try #require(decoded.ll)
    #expect(ll.radio.direction == .peripheralToCentral)
    #expect(ll.radio.encrypted && ll.radio.decrypted)
    #expect(ll.radio.phy == 2)
    #expect(ll.radio.eventCounter == 497)
    #expect(!ll.isEncrypted)
    #expect(ll.data?.llid == .start)
    #expect(ll.data?.nesn == 1 && ll.data?.sn == 0)
    #expect(decoded.l2cap?.cid == 0x0004)
    #expect(decoded.att?.opcode == .handleValueNotification)
    #expect(decoded.att?.handle == 0x0022)
  }

  @Test func nordicEncryptedPayloadIsMarked() throws {
    // The same packet with Flags 0x15: Encrypted, MIC not OK: the sniffer could not decrypt.
    var bytes: [UInt8] = [
      0x00, 0x20, 0x00, 0x03, 0x4c, 0x19, 0x06, 0x0a, 0x15, 0x24, 0x23, 0xf1, 0x01, 0x62, 0xb7, 0x60, 0x14, 0x17,
      0x65, 0x65, 0x50, 0x06, 0x0d, 0x09, 0x00, 0x04, 0x00, 0x1b, 0x22, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x87, 0xda, 0xed,
    ]
    bytes[8] = 0x15
    let decoded = decodeOne(bytes, .nordicBLE)
    #expect(decoded.ll?.isEncrypted == true)
    #expect(decoded.l2cap == nil && decoded.att == nil)
    #expect(decoded.diagnostics.map(\.id) == ["ll.encrypted"])
  }

  @Test func phdrConnectIndWithAllParameters() throws {
    // Bluetooth Low Energy RF Info: RF Channel 37, Signal -44 dBm, Flags 0x0c03 (dewhitened,
    // signal valid, CRC checked and valid, PDU type 0, LE 1M)
    // AUX_CONNECT_REQ (on RF channel 37 = data channel 35), TxAdd Random, Length 34
    //   InitA 63:5b:46:e8:b3:81, AdvA 74:da:ea:91:47:e3; LLData: AA 0x92dda6f5,
    //   CRCInit 0x0a2f85, WinSize 2, WinOffset 1, Interval 36, Latency 0, Timeout 500,
    //   ChM ffffffff1f, Hop 6, SCA 0 (whad-client__ble_pairing.pcap frame 1)
    let bytes: [UInt8] = [
      0x25, 0xd4, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0c, 0xd6, 0xbe, 0x89, 0x8e, 0x45, 0x22, 0x81, 0xb3,
      0xe8, 0x46, 0x5b, 0x63, 0xe3, 0x47, 0x91, 0xea, 0xda, 0x74, 0xf5, 0xa6, 0xdd, 0x92, 0x85, 0x2f, 0x0a, 0x02,
      0x01, 0x00, 0x24, 0x00, 0x00, 0x00, 0xf4, 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x06, 0xec, 0x6b, 0xa9,
    ]
    let ll = try #require(decodeOne(bytes, .bluetoothLELLWithPHDR).ll)
    #expect(ll.radio.channel == 35)
    #expect(ll.radio.rssi == -44)
    #expect(ll.radio.crc == .ok)
    let advertising = try #require(ll.advertising)
    #expect(advertising.name == "AUX_CONNECT_REQ")
    #expect(advertising.initA == DeviceAddress("63:5B:46:E8:B3:81"))
    #expect(advertising.advA == DeviceAddress("74:DA:EA:91:47:E3"))
    let connect = try #require(advertising.connect)
    #expect(connect.accessAddress == 0x92DD_A6F5)
    #expect(connect.crcInit == 0x0A2F85)
    #expect(connect.windowSize == 2 && connect.windowOffset == 1)
    #expect(connect.interval == 36 && connect.intervalMilliseconds == 45)
    #expect(connect.latency == 0 && connect.timeout == 500)
    #expect(connect.channelMap == 0x1F_FFFF_FFFF && connect.hop == 6 && connect.sca == 0)
    #expect(ll.connection == 1)
  }

  @Test func phdrDirectionFromPDUType() throws {
    // Flags 0x0d03: PDU type 2, data central→peripheral; 0x0d83: type 3, peripheral→central.
    // LL_FEATURE_REQ FeatureSet ff7d000000000000 (whad frame 2), then an ATT Read By Group
    // Type Request 0x0001-0xffff Primary Service labelled peripheral→central (whad frame 13)
    let request: [UInt8] = [
      0x06, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0d, 0xf5, 0xa6, 0xdd, 0x92, 0x03, 0x09, 0x08, 0xff,
      0x7d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x55, 0x09, 0xb6,
    ]
    let att: [UInt8] = [
      0x24, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x83, 0x0d, 0xf5, 0xa6, 0xdd, 0x92, 0x0e, 0x0b, 0x07, 0x00,
      0x04, 0x00, 0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28, 0x87, 0xf7, 0xbc,
    ]
    let decoded = decodeAll([request, att], .bluetoothLELLWithPHDR)
    #expect(decoded[0].ll?.direction == .centralToPeripheral)
    #expect(decoded[0].ll?.data?.control?.opcode.name == "LL_FEATURE_REQ")
    #expect(decoded[1].ll?.direction == .peripheralToCentral)
    #expect(decoded[1].att?.opcode == .readByGroupTypeRequest)
  }

  @Test func ppiBTLE() throws {
    // PPI version 0, header length 24, DLT 147; PPI-BTLE (30006): channel 2402 MHz, RSSI avg -18
    // ADV_IND 78:c5:e5:6e:dd:e8, Flags 0x05 (crackle__pairing_and_ltk_exchange.pcap frame 1)
    let bytes: [UInt8] = [
      0x00, 0x00, 0x18, 0x00, 0x93, 0x00, 0x00, 0x00, 0x36, 0x75, 0x0c, 0x00, 0x00, 0x62, 0x09, 0x00, 0x6b, 0x36,
      0xe3, 0x00, 0xe8, 0xdc, 0xee, 0x3c, 0xd6, 0xbe, 0x89, 0x8e, 0x00, 0x09, 0xe8, 0xdd, 0x6e, 0xe5, 0xc5, 0x78,
      0x02, 0x01, 0x05, 0xc6, 0x3c, 0x96,
    ]
    let ll = try #require(decodeOne(bytes, .ppi).ll)
    #expect(ll.radio.channel == 37)
    #expect(ll.radio.rssi == -18)
    #expect(ll.radio.crc == .ok, "checked here with CRCInit 0x555555")
    #expect(ll.advertising?.advA == DeviceAddress("78:C5:E5:6E:DD:E8"))
  }

  @Test func user10IsNordicVersion1() throws {
    // Adafruit Bluefruit LE sniffer: board 0x7b, header length 6, payload length 36,
    // protocol version 1, Packet ID 6; Flags 0x01, Channel Index 37, RSSI -70
    // ADV_IND 6c:82:2b:30:1f:6e, Flags 0x06, Apple 10020b00 (watch__capture.pcap frame 1)
    let bytes: [UInt8] = [
      0x7b, 0x06, 0x24, 0x01, 0xce, 0xea, 0x06, 0x0a, 0x01, 0x25, 0x46, 0x00, 0x00, 0xca, 0x4c, 0x00, 0x00, 0xd6,
      0xbe, 0x89, 0x8e, 0x40, 0x11, 0x6e, 0x1f, 0x30, 0x2b, 0x82, 0x6c, 0x02, 0x01, 0x06, 0x07, 0xff, 0x4c, 0x00,
      0x10, 0x02, 0x0b, 0x00, 0xb9, 0xcd, 0x7d,
    ]
    let ll = try #require(decodeOne(bytes, .user10).ll)
    #expect(ll.radio.version == 1)
    #expect(ll.radio.channel == 37 && ll.radio.rssi == -70)
    #expect(ll.advertising?.advA == DeviceAddress("6C:82:2B:30:1F:6E"))
  }

  @Test func bareLinkLayerChecksCRC() throws {
    // DLT 251: ADV_IND 11:22:33:44:55:66 with no data; the CRC is checked with 0x555555.
    let good = air(0x8E89_BED6, [0x00, 0x06, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
    var bad = good
    bad[bad.count - 1] ^= 0x01
    let decoded = decodeAll([good, bad], .bluetoothLELL)
    #expect(decoded[0].ll?.radio.crc == .ok)
    #expect(decoded[1].ll?.radio.crc == .bad)
    #expect(decoded[1].diagnostics.map(\.id) == ["ll.crc.bad"])
    #expect(decoded[1].advertising == nil, "a damaged packet makes no report")
  }

  @Test(arguments: [
    ([UInt8](), "ll.truncated"),
    ([0xd6, 0xbe, 0x89, 0x8e, 0x00], "ll.truncated"),
    ([0xd6, 0xbe, 0x89, 0x8e, 0x00, 0x10, 0x01, 0x02], "ll.length.mismatch"),
  ])
  func malformedBareLinkLayer(_ bytes: [UInt8], _ id: String) {
    let decoded = decodeOne(bytes, .bluetoothLELL)
    #expect(decoded.diagnostics.map(\.id).contains(id))
  }

  @Test func nordicLegacyHeaderIsReported() {
    let decoded = decodeOne([0x00, 0xBE, 0xEF, 0x00, 0x00, 0x00, 0x00], .nordicBLE)
    #expect(decoded.diagnostics.map(\.id) == ["ll.invalid"])
    #expect(decoded.ll == nil)
  }
}

@Suite("link layer: PDU tables")
struct LLTableTests {
  @Test func controlTableIsIndexedByOpcodeWithUniqueSpecNames() {
    for (index, row) in LLControlRow.table.enumerated() {
      #expect(Int(row.opcode) == index)
      #expect(row.name.hasPrefix("LL_"))
    }
    #expect(Set(LLControlRow.table.map(\.name)).count == LLControlRow.table.count)
    #expect(LLControlOpcode(rawValue: 0x7F).name == "Unknown (0x7f)")
  }

  /// Every LL Control PDU: its parameters decode from exactly its length, and one
  /// octet less is `ll.length.invalid`.
  @Test(arguments: LLControlRow.table.map(\.opcode))
  func controlRow(_ opcode: UInt8) throws {
    let row = try #require(LLControlOpcode(rawValue: opcode).row)
    let parameters = (0..<row.length).map { UInt8(truncatingIfNeeded: $0 + 1) }
    let pdu = [0x03, UInt8(1 + row.length), opcode] + parameters
    let decoded = decodeOne(air(0x1234_5678, pdu), .bluetoothLELL)
    let control = try #require(decoded.ll?.data?.control)
    #expect(control.opcode.name == row.name)
    #expect(control.parameters.map(\.name) == row.parameters.map(\.name))
    #expect(decoded.diagnostics.isEmpty)
    if row.length > 0 {
      let short = [0x03, UInt8(row.length), opcode] + parameters.dropLast()
      let cut = decodeOne(air(0x1234_5678, short), .bluetoothLELL)
      #expect(cut.diagnostics.map(\.id) == ["ll.length.invalid"])
      #expect(cut.ll?.data?.control?.parameters.isEmpty == true)
    }
  }

  @Test func versionIndFixture() throws {
    // LL_VERSION_IND VersNr 0x09 (5.0), CompId 0x001d (Qualcomm), SubVersNr 0x02be (whad frame 7)
    let bytes: [UInt8] = [
      0x18, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0d, 0xf5, 0xa6, 0xdd, 0x92, 0x03, 0x06, 0x0c, 0x09,
      0x1d, 0x00, 0xbe, 0x02, 0x8f, 0x37, 0x7a,
    ]
    let control = try #require(decodeOne(bytes, .bluetoothLELLWithPHDR).ll?.data?.control)
    #expect(control.opcode == .versionInd)
    #expect(control.parameters.lookup("VersNr")?.value.integer == 9)
    #expect(control.parameters.lookup("CompId")?.value == .code(0x1d, hexDigits: 4, name: "Qualcomm"))
    #expect(control.parameters.lookup("SubVersNr")?.value.integer == 0x02BE)
  }

  @Test func connectionUpdateFixture() throws {
    // LL_CONNECTION_UPDATE_IND WinSize 1, WinOffset 0, Interval 6 (7.5 ms), Latency 0,
    // Timeout 500 (5000 ms), Instant 14 (whad frame 11)
    let bytes: [UInt8] = [
      0x24, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0d, 0xf5, 0xa6, 0xdd, 0x92, 0x13, 0x0c, 0x00, 0x01,
      0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x0e, 0x00, 0x4a, 0x82, 0xfc,
    ]
    let control = try #require(decodeOne(bytes, .bluetoothLELLWithPHDR).ll?.data?.control)
    #expect(control.opcode == .connectionUpdateInd)
    #expect(control.parameters.lookup("Interval")?.value == .measure(6, hexDigits: 4, value: 7.5, unit: "ms"))
    #expect(control.parameters.lookup("Timeout")?.value.integer == 500)
    #expect(control.parameters.lookup("Instant")?.value.integer == 14)
  }

  @Test func terminateIndFixture() throws {
    // nRF Sniffer v2, Flags 0x03 (CRC OK, Master -> Slave); LL_TERMINATE_IND ErrorCode 0x13
    // Remote User Terminated Connection (SweynTooth cypress capture frame 372)
    let bytes: [UInt8] = [
      0x4b, 0x15, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x03, 0x00, 0x00, 0x57, 0x00, 0x00, 0x00, 0x00, 0x00, 0x70,
      0x83, 0x32, 0x9a, 0x03, 0x02, 0x02, 0x13, 0xcf, 0x4b, 0x4a,
    ]
    let ll = try #require(decodeOne(bytes, .nordicBLE).ll)
    #expect(ll.direction == .centralToPeripheral)
    #expect(ll.data?.control?.opcode == .terminateInd)
    #expect(
      ll.data?.control?.parameters.lookup("ErrorCode")?.value
        == .code(0x13, hexDigits: 2, name: "Remote User Terminated Connection"))
  }

  @Test func lengthRspFixture() throws {
    // LL_LENGTH_RSP MaxRxOctets 251, MaxRxTime 2120 µs, MaxTxOctets 251, MaxTxTime 2120 µs
    // (Tesi_BLE__mouse.pcapng frame 990)
    let bytes: [UInt8] = [
      0x00, 0x1c, 0x00, 0x03, 0x5f, 0x16, 0x06, 0x0a, 0x11, 0x19, 0x21, 0x12, 0x00, 0x20, 0x67, 0xd5, 0x13, 0x17,
      0x65, 0x65, 0x50, 0x0b, 0x09, 0x15, 0xfb, 0x00, 0x48, 0x08, 0xfb, 0x00, 0x48, 0x08, 0x2e, 0x78, 0x05,
    ]
    let control = try #require(decodeOne(bytes, .nordicBLE).ll?.data?.control)
    #expect(control.opcode.name == "LL_LENGTH_RSP")
    #expect(control.parameters.lookup("MaxRxOctets")?.value.integer == 251)
    #expect(control.parameters.lookup("MaxTxTime")?.value.integer == 2120)
  }

  /// One fixture per advertising PDU type row: type, payload of its layout, spec name.
  struct AdvertisingFixture: Sendable, CustomTestStringConvertible {
    var type: UInt8
    var payload: [UInt8]
    var name: String
    var testDescription: String { name }
  }

  static let advA = [UInt8](repeating: 0x11, count: 6)
  static let otherA = [UInt8](repeating: 0x22, count: 6)
  static let llData: [UInt8] = [
    0x78, 0x56, 0x34, 0x12, 0x01, 0x02, 0x03, 0x02, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0xff, 0xff, 0xff,
    0xff, 0x1f, 0x25,
  ]
  static let advertisingFixtures: [AdvertisingFixture] = [
    AdvertisingFixture(type: 0x0, payload: advA + [0x02, 0x01, 0x06], name: "ADV_IND"),
    AdvertisingFixture(type: 0x1, payload: advA + otherA, name: "ADV_DIRECT_IND"),
    AdvertisingFixture(type: 0x2, payload: advA, name: "ADV_NONCONN_IND"),
    AdvertisingFixture(type: 0x3, payload: otherA + advA, name: "SCAN_REQ"),
    AdvertisingFixture(type: 0x4, payload: advA + [0x03, 0x09, 0x41, 0x42], name: "SCAN_RSP"),
    AdvertisingFixture(type: 0x5, payload: otherA + advA + llData, name: "CONNECT_IND"),
    AdvertisingFixture(type: 0x6, payload: advA, name: "ADV_SCAN_IND"),
    // Extended header length 10, AdvMode 1; flags AdvA and AuxPtr (channel 5).
    AdvertisingFixture(type: 0x7, payload: [0x4A, 0x11] + advA + [0x05, 0x00, 0x00], name: "ADV_EXT_IND"),
    AdvertisingFixture(type: 0x8, payload: [0x07, 0x01] + advA, name: "AUX_CONNECT_RSP"),
  ]

  @Test(arguments: advertisingFixtures)
  func advertisingRow(_ fixture: AdvertisingFixture) throws {
    let type = fixture.type
    let name = fixture.name
    let pdu = [type, UInt8(fixture.payload.count)] + fixture.payload
    let decoded = decodeOne(air(0x8E89_BED6, pdu), .bluetoothLELL)
    let advertising = try #require(decoded.ll?.advertising)
    #expect(advertising.name == name)
    #expect(advertising.advA == DeviceAddress(rawValue: 0x1111_1111_1111))
    #expect(decoded.diagnostics.isEmpty)
    switch advertising.type {
    case .advDirectInd: #expect(advertising.targetA == DeviceAddress(rawValue: 0x2222_2222_2222))
    case .scanReq: #expect(advertising.scanA == DeviceAddress(rawValue: 0x2222_2222_2222))
    case .connectInd:
      #expect(advertising.initA == DeviceAddress(rawValue: 0x2222_2222_2222))
      #expect(advertising.connect?.accessAddress == 0x1234_5678)
      #expect(advertising.connect?.interval == 0x18)
      #expect(advertising.connect?.hop == 5 && advertising.connect?.sca == 1)
    case .advExtInd:
      #expect(advertising.extended?.advMode == 1)
      #expect(advertising.extended?.auxChannel == 5)
    default: break
    }
    let reports = decoded.advertising ?? []
    let makesReport = [0x0, 0x1, 0x2, 0x4, 0x6, 0x7, 0x8].contains(type)
    #expect(reports.count == (makesReport ? 1 : 0))
  }

  @Test func advertisingLengthBelowItsRule() {
    // SCAN_REQ with 11 payload octets (needs 12).
    let decoded = decodeOne(air(0x8E89_BED6, [0x03, 0x0b] + [UInt8](repeating: 0, count: 11)), .bluetoothLELL)
    #expect(decoded.diagnostics.map(\.id) == ["ll.length.invalid"])
  }

  @Test func crcOfTheSpecExample() {
    // Tesi_BLE__capture.pcap frame 1: the PDU's CRC on air is 57 7d 32.
    let pdu: [UInt8] = [
      0x42, 0x25, 0xad, 0x84, 0x5b, 0xca, 0xac, 0x14, 0x1e, 0xff, 0x06, 0x00, 0x01, 0x09, 0x20, 0x22, 0x56, 0x60,
      0xe9, 0xfc, 0x5e, 0x4c, 0x09, 0x5f, 0xdf, 0x35, 0x98, 0xe4, 0x2a, 0xa4, 0xa0, 0x00, 0x1e, 0x3a, 0x6c, 0x01,
      0xe6, 0x69, 0xed,
    ]
    #expect(pdu.withUnsafeBytes { LLCRC.compute($0, initial: 0x555555) } == 0x32_7D57)
  }
}

@Suite("link layer: connections")
struct LLConnectionTests {
  static let aa: UInt32 = 0x50654A27

  /// A data PDU: LLID, NESN, SN, payload.
  static func data(_ llid: UInt8, nesn: UInt8, sn: UInt8, _ payload: [UInt8]) -> [UInt8] {
    air(aa, [llid | nesn << 2 | sn << 3, UInt8(payload.count)] + payload)
  }

  @Test func l2capReassemblyAcrossLLFragments() throws {
    // L2CAP length 7, CID 0x0004: ATT Write Request handle 0x0027 value 01020304,
    // in a start fragment (LLID 10) of 6 octets and a continuation (LLID 01) of 5.
    let start = Self.data(0b10, nesn: 0, sn: 0, [0x07, 0x00, 0x04, 0x00, 0x12, 0x27])
    let next = Self.data(0b01, nesn: 0, sn: 1, [0x00, 0x01, 0x02, 0x03, 0x04])
    let decoded = decodeAll([start, next], .bluetoothLELL)
    #expect(decoded[0].att == nil)
    #expect(decoded[1].att?.opcode == .writeRequest)
    #expect(decoded[1].att?.handle == 0x0027)
    #expect(decoded[1].l2cap?.fragments == 2)
  }

  @Test func retransmissionIsMarkedAndLeftOutOfReassembly() throws {
    // The central sends SN 0 twice; the peripheral's NESN 0 asks for it again in between.
    let write = Self.data(0b10, nesn: 0, sn: 0, [0x03, 0x00, 0x04, 0x00, 0x52, 0x27, 0x00])
    let nak = Self.data(0b01, nesn: 0, sn: 0, [])
    let again = Self.data(0b10, nesn: 0, sn: 0, [0x03, 0x00, 0x04, 0x00, 0x52, 0x27, 0x00])
    let decoded = decodeAll([write, nak, again], .bluetoothLELL, times: [0, 230, 7_500])
    #expect(decoded[1].ll?.direction == .peripheralToCentral)
    #expect(decoded[2].ll?.direction == .centralToPeripheral)
    #expect(decoded[2].ll?.isRetransmission == true)
    #expect(decoded[2].diagnostics.map(\.id) == ["ll.retransmission"])
    #expect(decoded[2].att?.opcode == .writeCommand, "still decoded, as it holds a whole PDU")
  }

  @Test func acknowledgedSequenceNumberIsNewDataAgain() throws {
    // The peripheral sends SN 0 and the central acknowledges it (NESN 1); the peripheral's
    // SN 1 is lost to the sniffer (a bad CRC), the central acknowledges that too (NESN 0);
    // the peripheral's next SN 0 is new data, not a retransmission (Tesi_BLE__mouse.pcapng
    // #1912–#1914).
    let poll = Self.data(0b01, nesn: 0, sn: 0, [])
    let first = Self.data(0b10, nesn: 1, sn: 0, [0x03, 0x00, 0x04, 0x00, 0x1b, 0x22, 0x00])
    let ack = Self.data(0b01, nesn: 1, sn: 1, [])
    let ackOfMissed = Self.data(0b01, nesn: 0, sn: 0, [])
    let next = Self.data(0b10, nesn: 1, sn: 0, [0x03, 0x00, 0x04, 0x00, 0x1b, 0x22, 0x01])
    let decoded = decodeAll(
      [poll, first, ack, ackOfMissed, next], .bluetoothLELL, times: [0, 230, 7_500, 15_000, 15_230])
    #expect(decoded.map { $0.ll?.direction == .centralToPeripheral } == [true, false, true, true, false])
    #expect(decoded[4].ll?.isRetransmission == false)
    #expect(decoded[4].diagnostics.isEmpty)
    #expect(decoded[4].att?.opcode == .handleValueNotification)
  }

  @Test func payloadsAfterStartEncReqAreEncrypted() throws {
    // LL_START_ENC_REQ from the peripheral, then an encrypted 9-octet PDU.
    let start = Self.data(0b11, nesn: 0, sn: 0, [0x05])
    let ciphertext = Self.data(0b10, nesn: 1, sn: 0, [0x9a, 0x12, 0x44, 0x01, 0x77, 0x10, 0x2e, 0x3f, 0x90])
    let decoded = decodeAll([start, ciphertext], .bluetoothLELL)
    #expect(decoded[0].ll?.data?.control?.opcode == .startEncReq)
    #expect(decoded[1].ll?.isEncrypted == true)
    #expect(decoded[1].l2cap == nil)
  }

  @Test func directionFromTheConnectionEvent() throws {
    // CONNECT_IND with interval 24 (30 ms); then the central at its anchor, the peripheral
    // 230 µs later, and a packet 30.3 ms after the anchor: the peripheral answering a
    // central packet the sniffer missed.
    let connect: [UInt8] =
      [0x05, 0x22] + [UInt8](repeating: 0x22, count: 6) + [UInt8](repeating: 0x11, count: 6)
      + [0x27, 0x4a, 0x65, 0x50, 0x01, 0x02, 0x03, 0x02, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00]
      + [0xff, 0xff, 0xff, 0xff, 0x1f, 0x25]
    let packets = [
      air(0x8E89_BED6, connect), Self.data(0b01, nesn: 0, sn: 0, []), Self.data(0b01, nesn: 1, sn: 0, []),
      Self.data(0b01, nesn: 1, sn: 1, []), Self.data(0b01, nesn: 0, sn: 1, []),
    ]
    let decoded = decodeAll(
      packets, .bluetoothLELL, times: [0, 1_250_000, 1_250_230, 1_280_000, 1_310_300])
    #expect(decoded[1].ll?.direction == .centralToPeripheral)
    #expect(decoded[2].ll?.direction == .peripheralToCentral)
    #expect(decoded[3].ll?.direction == .centralToPeripheral)
    #expect(decoded[4].ll?.direction == .peripheralToCentral)
    #expect(Set(decoded[1...].map(\.ll?.connection)) == [1])
  }
}
