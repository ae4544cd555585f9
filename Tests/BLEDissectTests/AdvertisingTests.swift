import BLECapture
import Testing

@testable import BLEDissect

/// Parses advertising data (AD structures from offset 0).
func parseAD(_ hex: String, isCut: Bool = false) -> (structures: [ADStructure], diagnostics: [Diagnostic]) {
  let bytes = bytesFromHex(hex)
  return bytes.withUnsafeBytes { raw in
    var c = ByteCursor(raw.bytes, layer: .adv)
    var diagnostics: [Diagnostic] = []
    let structures = ADStructure.parseAll(&c, isCut: isCut, diagnostics: &diagnostics)
    return (structures, diagnostics)
  }
}

func bytesFromHex(_ hex: String) -> [UInt8] {
  let digits = Array(hex.filter { !$0.isWhitespace })
  return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// Decodes one HCI event packet (event code, length, parameters) as a record, in
/// order, through the record decoder: what `show` and `devices` see.
func decodeEvents(_ packets: [String], adapter: UInt16? = nil) -> [DecodedRecord] {
  var decoder = RecordDecoder()
  return packets.enumerated().map { index, hex in
    let bytes = bytesFromHex(hex)
    return bytes.withUnsafeBufferPointer { buffer in
      let record = Record(
        frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 100_000), direction: .received,
        adapter: adapter, kind: .hci(H4.event), bytes: buffer, originalLength: bytes.count, fileOffset: 0)
      return decoder.decode(record)
    }
  }
}

/// One AD structure per row of the AD type table, written as btmon prints it, with
/// the value it decodes to (byte ranges count from the length octet at 0).
struct ADFixture: CustomTestStringConvertible, Sendable {
  var hex: String
  var value: ADValue
  var testDescription: String { hex }
  var code: UInt8 { bytesFromHex(hex)[1] }
}

let adFixtures: [ADFixture] = [
  // Flags: 0x06 LE General Discoverable Mode, BR/EDR Not Supported
  .init(hex: "020106", value: .flags(ADFlags(rawValue: 0x06))),
  // 16-bit Service UUIDs (partial): Heart Rate (0x180d)
  .init(hex: "03020d18", value: .serviceUUIDs([BluetoothUUID(uuid16: 0x180D)], complete: false)),
  // 16-bit Service UUIDs (complete): Unknown (0xff00), Heart Rate (0x180d)
  .init(
    hex: "050300ff0d18",
    value: .serviceUUIDs([BluetoothUUID(uuid16: 0xFF00), BluetoothUUID(uuid16: 0x180D)], complete: true)),
  // 32-bit Service UUIDs (partial): 0x0000fe95
  .init(hex: "050495fe0000", value: .serviceUUIDs([BluetoothUUID(uuid32: 0xFE95)], complete: false)),
  // 32-bit Service UUIDs (complete): 0x12345678
  .init(hex: "050578563412", value: .serviceUUIDs([BluetoothUUID(uuid32: 0x1234_5678)], complete: true)),
  // 128-bit Service UUIDs (partial): 6e400001-b5a3-f393-e0a9-e50e24dcca9e (Nordic UART)
  .init(
    hex: "11069ecadc240ee5a9e093f3a3b50100406e",
    value: .serviceUUIDs([BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!], complete: false)),
  // 128-bit Service UUIDs (complete): the same
  .init(
    hex: "11079ecadc240ee5a9e093f3a3b50100406e",
    value: .serviceUUIDs([BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!], complete: true)),
  // Name (short): HR
  .init(hex: "03084852", value: .name("HR")),
  // Name (complete): Mhealth2-5C54
  .init(hex: "0e094d6865616c7468322d35433534", value: .name("Mhealth2-5C54")),
  // TX power: 4 dBm
  .init(hex: "020a04", value: .txPower(4)),
  // Class of Device: 0x240404
  .init(hex: "040d040424", value: .bytes(ByteRange(start: 2, count: 3))),
  // Simple Pairing Hash C-192: 16 octets
  .init(hex: "110e" + String(repeating: "11", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // Simple Pairing Randomizer R-192: 16 octets
  .init(hex: "110f" + String(repeating: "22", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // Device ID: source 0x0002 (USB), vendor 0x1d6b, product 0x0246, version 0x0537
  .init(hex: "0910" + "02006b1d46023705", value: .bytes(ByteRange(start: 2, count: 8))),
  // Security Manager OOB Flags: 0x01
  .init(hex: "021101", value: .bytes(ByteRange(start: 2, count: 1))),
  // Peripheral Conn. Interval: 0x000c - 0x0018 (15.00 msec - 30.00 msec)
  .init(hex: "05120c001800", value: .connectionIntervalRange(ConnectionIntervalRange(minimum: 0x0C, maximum: 0x18))),
  // Service Solicitation 16-bit: Heart Rate (0x180d)
  .init(hex: "03140d18", value: .solicitationUUIDs([BluetoothUUID(uuid16: 0x180D)])),
  // Service Solicitation 128-bit: 6e400001-b5a3-f393-e0a9-e50e24dcca9e
  .init(
    hex: "11159ecadc240ee5a9e093f3a3b50100406e",
    value: .solicitationUUIDs([BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!])),
  // Service Data 16-bit: UUID 0xfeaa, data 10eb
  .init(hex: "0516aafe10eb", value: .serviceData(BluetoothUUID(uuid16: 0xFEAA), ByteRange(start: 4, count: 2))),
  // Public Target Address: D4:36:39:67:A2:61
  .init(hex: "071761a2673936d4", value: .targetAddresses([DeviceAddress("D4:36:39:67:A2:61")!])),
  // Random Target Address: C7:3A:5B:11:E0:42
  .init(hex: "071842e0115b3ac7", value: .targetAddresses([DeviceAddress("C7:3A:5B:11:E0:42")!])),
  // Appearance: Heart Rate Sensor: Heart Rate Belt (0x0341)
  .init(hex: "03194103", value: .appearance(0x0341)),
  // Advertising Interval: 0x00a0 (100 ms)
  .init(hex: "031aa000", value: .advertisingInterval(AdvertisingInterval(raw: 0xA0))),
  // LE Bluetooth Device Address: C7:3A:5B:11:E0:42 (Random)
  .init(hex: "081b42e0115b3ac701", value: .deviceAddress(DeviceAddress("C7:3A:5B:11:E0:42")!, random: true)),
  // LE Role: Only Peripheral Role supported (0x00)
  .init(hex: "021c00", value: .leRole(0)),
  // Simple Pairing Hash C-256
  .init(hex: "111d" + String(repeating: "33", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // Simple Pairing Randomizer R-256
  .init(hex: "111e" + String(repeating: "44", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // Service Solicitation 32-bit: 0x0000fe95
  .init(hex: "051f95fe0000", value: .solicitationUUIDs([BluetoothUUID(uuid32: 0xFE95)])),
  // Service Data 32-bit: UUID 0x0000fe95, data 01
  .init(hex: "062095fe000001", value: .serviceData(BluetoothUUID(uuid32: 0xFE95), ByteRange(start: 6, count: 1))),
  // Service Data 128-bit: 6e400001-…, data 0102
  .init(
    hex: "13219ecadc240ee5a9e093f3a3b50100406e0102",
    value: .serviceData(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!, ByteRange(start: 18, count: 2))),
  // LE Secure Connections Confirmation Value
  .init(hex: "1122" + String(repeating: "55", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // LE Secure Connections Random Value
  .init(hex: "1123" + String(repeating: "66", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // URI: https: //example.com
  .init(hex: "0f2417" + "2f2f6578616d706c652e636f6d", value: .uri("https://example.com")),
  // Indoor Positioning: flags 0x00
  .init(hex: "022500", value: .bytes(ByteRange(start: 2, count: 1))),
  // Transport Discovery Data: org 0x01, flags 0x00, length 0
  .init(hex: "0426010000", value: .bytes(ByteRange(start: 2, count: 3))),
  // LE Supported Features: 0x01 (LE Encryption)
  .init(hex: "022701", value: .leSupportedFeatures(ByteRange(start: 2, count: 1))),
  // Channel Map Update Indication: map ff ff ff ff 1f, instant 0x0010
  .init(hex: "0828ffffffff1f1000", value: .bytes(ByteRange(start: 2, count: 7))),
  // PB-ADV: link 0x00000001, transaction 0, payload 03
  .init(hex: "072901000000" + "0003", value: .bytes(ByteRange(start: 2, count: 6))),
  // Mesh Message: NID/IVI 0x68 + 4 octets
  .init(hex: "062a6801020304", value: .bytes(ByteRange(start: 2, count: 5))),
  // Mesh Beacon: unprovisioned device beacon type 0x00 + UUID
  .init(hex: "122b00" + String(repeating: "77", count: 16), value: .bytes(ByteRange(start: 2, count: 17))),
  // BIGInfo: 4 octets (kept raw)
  .init(hex: "052c01020304", value: .bytes(ByteRange(start: 2, count: 4))),
  // Broadcast_Code: 16 octets
  .init(hex: "112d" + String(repeating: "88", count: 16), value: .bytes(ByteRange(start: 2, count: 16))),
  // Resolvable Set Identifier: 6 octets
  .init(hex: "072e010203040506", value: .bytes(ByteRange(start: 2, count: 6))),
  // Advertising Interval - long: 0x010000 (40.96 s)
  .init(hex: "042f000001", value: .advertisingInterval(AdvertisingInterval(raw: 0x01_0000))),
  // Broadcast_Name: Lobby
  .init(hex: "06304c6f626279", value: .name("Lobby")),
  // Encrypted Advertising Data: randomizer + payload + MIC (kept raw)
  .init(hex: "0631aabbccddee", value: .bytes(ByteRange(start: 2, count: 5))),
  // Periodic Advertising Response Timing Information (kept raw)
  .init(hex: "033201ff", value: .bytes(ByteRange(start: 2, count: 2))),
  // Electronic Shelf Label (kept raw)
  .init(hex: "033401ff", value: .bytes(ByteRange(start: 2, count: 2))),
  // 3D Information Data: flags 0x01, path loss threshold 0x06
  .init(hex: "033d0106", value: .bytes(ByteRange(start: 2, count: 2))),
  // Company: Apple, Inc. (76), Data: 0215…
  .init(hex: "05ff4c000215", value: .manufacturerData(company: 0x004C, ByteRange(start: 4, count: 2))),
]

@Suite("AD types and structures")
struct ADStructureTests {
  @Test("the AD type table: unique codes, every row has a fixture")
  func tableIsComplete() {
    let codes = ADType.table.map(\.code)
    #expect(Set(codes).count == codes.count)
    #expect(Set(adFixtures.map(\.code)) == Set(codes))
  }

  @Test("names are Assigned Numbers' verbatim")
  func names() {
    #expect(ADType.flags.name == "Flags")
    #expect(ADType.completeUUIDs16.name == "Complete List of 16-bit Service or Service Class UUIDs")
    #expect(ADType.serviceData16.name == "Service Data - 16-bit UUID")
    #expect(ADType.manufacturerSpecificData.name == "Manufacturer Specific Data")
    #expect(ADType(rawValue: 0x3A).name == "Unknown (0x3a)")
  }

  @Test("each AD type row decodes its fixture", arguments: adFixtures)
  func row(_ fixture: ADFixture) {
    let result = parseAD(fixture.hex)
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    #expect(result.structures.count == 1)
    #expect(result.structures.first?.type.rawValue == fixture.code)
    #expect(result.structures.first?.value == fixture.value)
    #expect(result.structures.first?.data == ByteRange(start: 2, count: bytesFromHex(fixture.hex).count - 2))
  }

  @Test func unknownTypeIsKeptAsBytes() {
    // Unknown AD type 0x3a, data 0102
    let result = parseAD("033a0102")
    #expect(result.structures.first?.value == .bytes(ByteRange(start: 2, count: 2)))
    #expect(result.diagnostics.isEmpty)
  }

  @Test func zeroLengthEndsTheData() {
    // Flags 0x06, then a zero length and padding
    let result = parseAD("020106 00 0000ff")
    #expect(result.structures.map(\.type) == [.flags])
    #expect(result.diagnostics.isEmpty)
  }

  @Test func lengthPastTheEndIsDecodedAsFarAsItGoes() {
    // Complete Local Name, length 9 but only "Cut" (3 octets) follows
    let result = parseAD("020106 0909 437574")
    #expect(result.structures.map(\.value) == [.flags(ADFlags(rawValue: 6)), .name("Cut")])
    #expect(result.diagnostics.map(\.id) == ["adv.ad.truncated"])
    #expect(result.diagnostics.first?.message == "AD structure at offset 3 has length 9, only 4 bytes left")
  }

  @Test func cutBySourceIsNotMalformed() {
    let result = parseAD("0909437574", isCut: true)
    #expect(result.structures.map(\.value) == [.name("Cut")])
    #expect(result.diagnostics.isEmpty)
  }

  @Test(
    "a size the type does not allow",
    arguments: [
      // TX power with two octets
      ("03 0a 0400", "Tx Power Level at offset 0 has 2 data bytes, needs exactly 1"),
      // 16-bit UUID list of three octets
      (
        "04 03 0d18ff",
        "Complete List of 16-bit Service or Service Class UUIDs at offset 0 has 3 data bytes, needs at least 0, a multiple of 2"
      ),
      // Manufacturer data with one octet
      ("02 ff 4c", "Manufacturer Specific Data at offset 0 has 1 data byte, needs at least 2"),
    ])
  func lengthInvalid(hex: String, message: String) {
    let result = parseAD(hex)
    #expect(result.diagnostics.map(\.id) == ["adv.ad.length.invalid"])
    #expect(result.diagnostics.first?.message == message)
    #expect(result.structures.count == 1)
  }

  @Test func uuidListKeepsWholeUUIDs() {
    let result = parseAD("04030d18ff")
    #expect(result.structures.first?.value == .serviceUUIDs([BluetoothUUID(uuid16: 0x180D)], complete: true))
  }

  @Test func nameStopsAtNUL() {
    // Complete Local Name "Abc" padded with two NULs
    #expect(parseAD("0609416263 0000").structures.first?.value == .name("Abc"))
  }

  @Test func flagNames() {
    #expect(ADFlags(rawValue: 0x06).setNames == ["LE General Discoverable Mode", "BR/EDR Not Supported"])
    #expect(ADFlags(rawValue: 0x21).setNames == ["LE Limited Discoverable Mode", "bit 5"])
  }
}

@Suite("beacons")
struct BeaconTests {
  func beacon(_ hex: String) -> Beacon? {
    let bytes = bytesFromHex(hex)
    let structures = parseAD(hex).structures
    return bytes.withUnsafeBytes { Beacon.recognise(structures, in: $0) }
  }

  @Test func iBeacon() {
    // Flags 0x06; Company: Apple, Inc. (76) Type: iBeacon (2) UUID e2c56db5-dffb-48d2-b060-d0f5a71096e0
    //   Version: 1.450 (major 0x0001, minor 0x01c2), TX power: -59 dB
    let found = beacon("020106 1aff4c000215e2c56db5dffb48d2b060d0f5a71096e0000101c2c5")
    #expect(
      found
        == .iBeacon(
          uuid: BluetoothUUID("e2c56db5-dffb-48d2-b060-d0f5a71096e0")!, major: 1, minor: 450, measuredPower: -59))
  }

  @Test func appleDataThatIsNotIBeacon() {
    // Company: Apple, Inc. (76), type 0x10 (Nearby Info)
    #expect(beacon("07ff4c0010020b00") == nil)
  }

  @Test func eddystoneUID() {
    // Service Data (UUID 0xfeaa): frame 0x00, tx -20, namespace 00112233445566778899, instance aabbccddeeff, RFU 0000
    let found = beacon("0303aafe 1716aafe00ec00112233445566778899aabbccddeeff0000")
    #expect(
      found
        == .eddystoneUID(
          namespace: bytesFromHex("00112233445566778899"), instance: bytesFromHex("aabbccddeeff"), txPower: -20))
  }

  @Test func eddystoneURL() {
    // Service Data (UUID 0xfeaa): frame 0x10, tx -21, scheme 03 (https://), "ex.am/p0"
    #expect(beacon("0e16aafe10eb0365782e616d2f7030") == .eddystoneURL(url: "https://ex.am/p0", txPower: -21))
    // scheme 00 (http://www.), "goo", 0x07 (.com)
    #expect(beacon("0a16aafe10f400676f6f07") == .eddystoneURL(url: "http://www.goo.com", txPower: -12))
  }

  @Test func eddystoneTLM() {
    // frame 0x20, version 0, 3000 mV, 22.5 °C (0x1680), 1234 PDUs, 5678.9 s (56789 × 0.1 s)
    let found = beacon("1116aafe20000bb81680000004d20000ddd5")
    #expect(
      found == .eddystoneTLM(batteryMillivolts: 3000, temperature: 22.5, advertisingCount: 1234, uptimeTenths: 56789))
    // temperature 0x8000: not supported
    #expect(
      beacon("1116aafe20000bb88000000004d20000ddd5")
        == .eddystoneTLM(batteryMillivolts: 3000, temperature: nil, advertisingCount: 1234, uptimeTenths: 56789))
  }

  @Test func eddystoneEID() {
    #expect(
      beacon("0d16aafe30f60102030405060708") == .eddystoneEID(eid: bytesFromHex("0102030405060708"), txPower: -10))
  }

  @Test func exposureNotification() {
    // Service Data (UUID 0xfd6f): RPI 000102…0f, AEM a0a1a2a3
    let found = beacon("03036ffd 17166ffd000102030405060708090a0b0c0d0e0fa0a1a2a3")
    #expect(
      found
        == .exposureNotification(
          rpi: bytesFromHex("000102030405060708090a0b0c0d0e0f"), metadata: bytesFromHex("a0a1a2a3")))
  }

  @Test func unknownManufacturerDataIsNoBeacon() {
    #expect(beacon("05ff59000102") == nil)
  }
}

@Suite("advertising reports")
struct AdvertisingReportTests {
  @Test(
    "PDU type names",
    arguments: [
      (AdvertisingReport.Kind.legacy, UInt16(0x00), "ADV_IND"), (.legacy, 0x01, "ADV_DIRECT_IND"),
      (.legacy, 0x02, "ADV_SCAN_IND"), (.legacy, 0x03, "ADV_NONCONN_IND"), (.legacy, 0x04, "SCAN_RSP"),
      (.legacy, 0x05, "RESERVED_0x05"), (.directed, 0x01, "ADV_DIRECT_IND"), (.extended, 0x13, "ADV_IND"),
      (.extended, 0x15, "ADV_DIRECT_IND"), (.extended, 0x12, "ADV_SCAN_IND"), (.extended, 0x10, "ADV_NONCONN_IND"),
      (.extended, 0x1B, "SCAN_RSP"), (.extended, 0x1A, "SCAN_RSP"), (.extended, 0x8013, "ADV_IND"),
      (.extended, 0x00, "EXT_ADV"), (.extended, 0x01, "EXT_ADV"), (.extended, 0x21, "EXT_ADV"),
      (.extended, 0x0B, "EXT_SCAN_RSP"), (.periodic, 0, "PERIODIC"),
    ])
  func pduType(kind: AdvertisingReport.Kind, eventType: UInt16, name: String) {
    #expect(AdvertisingReport.pduType(kind: kind, eventType: eventType) == name)
  }

  @Test func legacyReport() {
    // > HCI Event: LE Meta Event (0x3e) plen 39
    //       LE Advertising Report (0x02)
    //         Num reports: 1
    //         Event type: Connectable undirected - ADV_IND (0x00)
    //         Address type: Public (0x00)
    //         Address: D4:36:39:67:A2:61
    //         Data length: 27
    //         Flags: 0x06, Name (complete): Mhealth2-5C54, 16-bit Service UUIDs (complete): 0xff00 0x180d
    //         TX power: 4 dBm
    //         RSSI: -58 dBm (0xc6)
    let decoded = decodeEvents([
      "3e27 02 01 00 00 61a2673936d4 1b 0201060e094d6865616c7468322d35433534050300ff0d18020a04 c6"
    ])[0]
    let report = decoded.advertising?.first
    #expect(decoded.diagnostics.isEmpty)
    #expect(report?.pduType == "ADV_IND")
    #expect(report?.address == DeviceAddress("D4:36:39:67:A2:61"))
    #expect(report?.addressType == .public)
    #expect(report?.rssi == -58)
    #expect(report?.data == ByteRange(start: 13, count: 27))
    #expect(report?.structures.map(\.type) == [.flags, .completeLocalName, .completeUUIDs16, .txPowerLevel])
  }

  @Test func twoReportsInOneEvent() {
    // LE Advertising Report, Num reports 2: ADV_NONCONN_IND C7:3A:5B:11:E0:42 (random) no data,
    // RSSI -70; SCAN_RSP D4:36:39:67:A2:61 Tx Power 4, RSSI 127 (not available)
    let decoded = decodeEvents(["3e19 02 02 03 01 42e0115b3ac7 00 ba 04 00 61a2673936d4 03 020a04 7f"])[0]
    let reports = decoded.advertising ?? []
    #expect(reports.map(\.pduType) == ["ADV_NONCONN_IND", "SCAN_RSP"])
    #expect(reports.map(\.rssi) == [-70, nil])
    #expect(reports.last?.structures.map(\.value) == [.txPower(4)])
  }

  @Test func directedReport() {
    // LE Directed Advertising Report: ADV_DIRECT_IND, public D4:36:39:67:A2:61 → random 4D:C1:64:29:99:6D, RSSI -55
    let decoded = decodeEvents(["3e12 0b 01 01 00 61a2673936d4 01 6d992964c14d c9"])[0]
    let report = decoded.advertising?.first
    #expect(report?.pduType == "ADV_DIRECT_IND")
    #expect(report?.directAddress == DeviceAddress("4D:C1:64:29:99:6D"))
    #expect(report?.directAddressType == .random)
    #expect(report?.rssi == -55)
  }

  /// An LE Extended Advertising Report of one report.
  func extended(eventType: UInt16, address: String = "aafb0d948170", sid: UInt8 = 3, data: String) -> String {
    let body = bytesFromHex(data)
    let parameters =
      "0d 01 " + String(format16: eventType) + " 01 " + address + " 01 02 " + String(format8: sid)
      + " 05 c3 0000 00 000000000000 "
      + String(format8: UInt8(body.count)) + data
    let length = bytesFromHex(parameters).count
    return "3e" + String(format8: UInt8(length)) + parameters
  }

  @Test func extendedReportWithLegacyBit() {
    let decoded = decodeEvents([extended(eventType: 0x0013, sid: 0xFF, data: "020106")])[0]
    let report = decoded.advertising?.first
    #expect(report?.pduType == "ADV_IND")
    #expect(report?.sid == nil)
    #expect(report?.txPower == 5)
    #expect(report?.rssi == -61)
    #expect(report?.address?.randomKind == .resolvable)
  }

  @Test("extended data in several reports is reassembled; the last report holds it", arguments: [1, 2, 3])
  func extendedReassembly(pieces: Int) {
    // Name (complete): "Lab Sensor 42" + 16-bit UUIDs 0x181a 0x180f, split into `pieces` reports
    let data = bytesFromHex("0e094c61622053656e736f72203432 0502 1a180f18")
    let size = (data.count + pieces - 1) / pieces
    var packets: [String] = []
    for start in stride(from: 0, to: data.count, by: size) {
      let chunk = data[start..<min(data.count, start + size)].map { String(format8: $0) }.joined()
      let last = start + size >= data.count
      packets.append(extended(eventType: last ? 0x0001 : 0x0021, data: chunk))
    }
    let decoded = decodeEvents(packets)
    for record in decoded.dropLast() {
      #expect(record.advertising?.first?.isFragment == true)
      #expect(record.advertising?.first?.structures.isEmpty == true)
    }
    let report = decoded.last?.advertising?.first
    #expect(report?.isFragment == false)
    #expect(report?.fragments == packets.count)
    // A report that holds all its data is not copied.
    #expect(report?.reassembled == (packets.count > 1 ? data : nil))
    #expect(
      report?.structures.map(\.value) == [
        .name("Lab Sensor 42"),
        .serviceUUIDs([BluetoothUUID(uuid16: 0x181A), BluetoothUUID(uuid16: 0x180F)], complete: false),
      ])
    #expect(decoded.allSatisfy { $0.diagnostics.isEmpty })
  }

  @Test func interleavedAdvertisersReassembleApart() {
    let decoded = decodeEvents([
      extended(eventType: 0x0021, address: "010000000000", data: "0409414243"),
      extended(eventType: 0x0021, address: "020000000000", data: "0409585958"),
      extended(eventType: 0x0001, address: "010000000000", data: "020a04"),
      extended(eventType: 0x0001, address: "020000000000", data: "020a08"),
    ])
    #expect(decoded[2].advertising?.first?.structures.map(\.value) == [.name("ABC"), .txPower(4)])
    #expect(decoded[3].advertising?.first?.structures.map(\.value) == [.name("XYX"), .txPower(8)])
  }

  @Test func truncatedDataStatusIsNoted() {
    // Data_Status 0b10: incomplete, truncated
    let decoded = decodeEvents([extended(eventType: 0x0041, data: "0409414243")])[0]
    #expect(decoded.diagnostics.map(\.id) == ["adv.data.truncated"])
    #expect(decoded.advertising?.first?.dataStatus == .truncated)
  }

  @Test func chainLongerThanTheLimitIsDropped() {
    // Nine reports of 200 octets: the ninth takes the data past 1650 octets.
    let chunk = String(repeating: "00", count: 200)
    var packets = Array(repeating: extended(eventType: 0x0021, data: chunk), count: 9)
    packets.append(extended(eventType: 0x0001, data: "020a04"))
    let decoded = decodeEvents(packets)
    #expect(decoded[7].diagnostics.isEmpty)
    #expect(decoded[8].diagnostics.map(\.id) == ["adv.reassembly.limit"])
    // The chain is gone: the last report starts afresh.
    #expect(decoded[9].advertising?.first?.structures.map(\.value) == [.txPower(4)])
  }

  @Test func periodicReportTakesTheSyncsAdvertiser() {
    // LE Periodic Advertising Sync Established [v1]: Success, handle 0x0001, SID 3, random 70:81:94:0D:FB:AA,
    //   PHY 2M, interval 80, accuracy 0x05
    // LE Periodic Advertising Report [v1]: handle 0x0001, TX 5, RSSI -62, CTE 0xff, complete, Service Data 0x1234 010203
    let decoded = decodeEvents([
      "3e10 0e 00 0100 03 01 aafb0d948170 02 5000 05",
      "3e0f 0f 0100 05 c2 ff 00 07 061634120102 03",
    ])
    let report = decoded[1].advertising?.first
    #expect(report?.pduType == "PERIODIC")
    #expect(report?.address == DeviceAddress("70:81:94:0D:FB:AA"))
    #expect(report?.syncHandle == 1)
    #expect(report?.rssi == -62)
    #expect(report?.structures.first?.type == .serviceData16)
  }

  @Test func cutReportKeepsWhatIsThere() {
    // LE Advertising Report whose data length says 27 but the packet ends after 5 data octets
    let decoded = decodeEvents(["3e27 02 01 00 00 61a2673936d4 1b 0201060309"])[0]
    #expect(decoded.advertising?.first?.isCut == true)
    #expect(decoded.advertising?.first?.structures.first?.type == .flags)
    #expect(decoded.advertising?.first?.rssi == nil)
  }

  @Test func randomKinds() {
    #expect(DeviceAddress("C7:3A:5B:11:E0:42")!.randomKind == .static)
    #expect(DeviceAddress("70:81:94:0D:FB:AA")!.randomKind == .resolvable)
    #expect(DeviceAddress("3A:01:02:03:04:05")!.randomKind == .nonResolvable)
  }
}

@Suite("AES-128 and ah")
struct AES128Tests {
  @Test func fips197AppendixC1() {
    // FIPS-197 C.1: AES-128, key 000102…0f, plaintext 00112233…ff
    let out = AES128.encrypt(
      key: bytesFromHex("000102030405060708090a0b0c0d0e0f"), block: bytesFromHex("00112233445566778899aabbccddeeff"))
    #expect(out == bytesFromHex("69c4e0d86a7b0430d8cdb78070b4c55a"))
  }

  @Test func fips197AppendixB() {
    // FIPS-197 B: key 2b7e1516 28aed2a6 abf71588 09cf4f3c, input 3243f6a8 885a308d 313198a2 e0370734
    let out = AES128.encrypt(
      key: bytesFromHex("2b7e151628aed2a6abf7158809cf4f3c"), block: bytesFromHex("3243f6a8885a308d313198a2e0370734"))
    #expect(out == bytesFromHex("3925841d02dc09fbdc118597196a0b32"))
  }

  @Test func ahSampleData() {
    // Core 6.0, Vol 3, Part H, D.7: IRK ec0234a3 57c8ad05 341010a6 0a397d9b, prand 708194 → ah 0dfbaa
    let irk = bytesFromHex("ec0234a357c8ad05341010a60a397d9b")
    #expect(AES128.ah(irk: irk, prand: 0x70_8194) == 0x0D_FBAA)
    #expect(AES128.resolves(DeviceAddress("70:81:94:0D:FB:AA")!, irk: irk))
    #expect(!AES128.resolves(DeviceAddress("70:81:94:0D:FB:AB")!, irk: irk))
  }
}

extension String {
  init(format8 value: UInt8) {
    let digits = String(value, radix: 16)
    self = digits.count == 1 ? "0" + digits : digits
  }

  /// Little-endian, as HCI carries it.
  init(format16 value: UInt16) {
    self = String(format8: UInt8(value & 0xFF)) + String(format8: UInt8(value >> 8))
  }
}
