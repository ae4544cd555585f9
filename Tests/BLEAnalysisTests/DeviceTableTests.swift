import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// Feeds H4 packets (type byte first, as hex) through the decoder and a device table.
private func table(_ packets: [String], keys: [IdentityKey] = [], limit: Int = 100_000) -> DeviceTable {
  var decoder = RecordDecoder()
  var table = DeviceTable(limit: limit, resolver: AddressResolver(keys: keys))
  for (index, hex) in packets.enumerated() {
    let digits = Array(hex.filter { !$0.isWhitespace })
    let bytes = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    bytes.dropFirst().withUnsafeBufferPointer { buffer in
      let record = Record(
        frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 100_000),
        direction: .received, adapter: nil, kind: .hci(bytes[0]),
        bytes: buffer, originalLength: buffer.count, fileOffset: 0)
      table.add(record, decoder.decode(record))
    }
  }
  return table
}

/// LE Advertising Report, one ADV_IND from `address` (written as on the wire, least
/// significant octet first) with the name "AB", RSSI -50.
private func advInd(_ wireAddress: String, addressType: String = "01") -> String {
  "04 3e 10 02 01 00 \(addressType) \(wireAddress) 04 03 09 41 42 ce"
}

@Suite("devices table")
struct DeviceTableTests {
  /// The IRK of Core 6.0, Vol 3, Part H, D.7 and an RPA it resolves (prand 708194, hash 0dfbaa).
  static let irk = "ec0234a357c8ad05341010a60a397d9b"
  static let rpa = "aafb0d948170"  // 70:81:94:0D:FB:AA on the wire

  @Test func countsAndRSSI() {
    var devices = table([advInd(Self.rpa), advInd(Self.rpa), advInd("010203040506", addressType: "00")])
    let rows = devices.devices()
    #expect(rows.count == 2)
    #expect(rows[0].reports == ["ADV_IND": 2])
    #expect(rows[0].names == ["AB"])
    #expect(rows[0].rssiMin == -50 && rows[0].rssiMax == -50 && rows[0].rssiMean == -50)
    #expect(rows[0].firstFrame == 1 && rows[0].lastFrame == 2)
    #expect(rows[0].resolvedBy == nil)
  }

  @Test func publicAndRandomAddressesAreApart() {
    var devices = table([advInd(Self.rpa, addressType: "00"), advInd(Self.rpa, addressType: "01")])
    #expect(devices.devices().map(\.addressType) == [.public, .random])
  }

  @Test func irkFromTheCommandLineResolves() {
    let key = IdentityKey(irk: IdentityKey.parseIRK(Self.irk)!, source: .commandLine)
    var devices = table([advInd(Self.rpa)], keys: [key])
    let row = devices.devices().first
    #expect(row?.resolvedBy?.source == .commandLine)
    #expect(row?.address == DeviceAddress("70:81:94:0D:FB:AA"))
  }

  @Test func irkAndIdentityFromTheCaptureMergeRows() {
    // The IRK in SMP Identity Information is least significant octet first on the wire.
    let wireIRK = String(
      stride(from: 30, through: 0, by: -2).map { index in
        Array(Self.irk)[index...index + 1]
      }.map { String($0) }.joined())
    let packets = [
      // LE Advertising Report: ADV_IND from the RPA
      advInd(Self.rpa),
      // ACL handle 0x0040: SMP Identity Information (0x08), IRK
      "02 4000 1500 1100 0600 08 \(wireIRK)",
      // ACL handle 0x0040 (same direction): SMP Identity Address Information (0x09), public 11:22:33:44:55:66
      "02 4000 0c00 0800 0600 09 00 665544332211",
      // The identity advertising under its own public address
      advInd("665544332211", addressType: "00"),
      // And another RPA of the same IRK: prand 0x4a3b2c
      advInd(rpaBytes(prand: 0x4A_3B2C)),
    ]
    var devices = table(packets)
    #expect(devices.resolver.keys.count == 1)
    #expect(devices.resolver.keys.first?.identity == DeviceAddress("11:22:33:44:55:66"))
    let rows = devices.devices()
    #expect(rows.count == 1, "\(rows.map(\.address))")
    #expect(rows.first?.address == DeviceAddress("11:22:33:44:55:66"))
    #expect(rows.first?.reports == ["ADV_IND": 3])
    #expect(rows.first?.addresses.count == 3)
    #expect(rows.first?.resolvedBy?.source == .capture(frame: 2))
  }

  /// An RPA of the test IRK with `prand`, on the wire.
  private func rpaBytes(prand: UInt32) -> String {
    let hash = AES128.ah(irk: IdentityKey.parseIRK(Self.irk)!, prand: prand)
    let value = UInt64(prand) << 24 | UInt64(hash)
    return (0..<6).map { index in
      let byte = UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8))
      return (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }.joined()
  }

  @Test func limitCountsDroppedReports() {
    var devices = table(
      [
        advInd("010000000000", addressType: "00"), advInd("020000000000", addressType: "00"),
        advInd("010000000000", addressType: "00"),
      ],
      limit: 1)
    #expect(devices.devices().count == 1)
    #expect(devices.droppedReports == 1)
  }

  @Test func intervalEstimate() {
    var device = Device(address: DeviceAddress(rawValue: 1), addressType: .public, frame: 1, time: 0)
    #expect(device.intervalEstimate == nil)
    // Gaps of one interval (100 ms + advDelay) and of two, as a scanner hears them
    device.gaps = [104_000, 107_000, 206_000, 105_000, 103_000, 211_000, 106_000]
    #expect(device.intervalEstimate == 100)
  }

  @Test(
    "IRK text",
    arguments: [
      ("ec0234a357c8ad05341010a60a397d9b", true), ("0xEC0234A357C8AD05341010A60A397D9B", true),
      ("ec:02:34:a3:57:c8:ad:05:34:10:10:a6:0a:39:7d:9b", true), ("ec0234", false),
      ("xx0234a357c8ad05341010a60a397d9b", false),
    ])
  func parseIRK(_ text: String, valid: Bool) {
    let irk = IdentityKey.parseIRK(text)
    #expect((irk != nil) == valid)
    if valid { #expect(irk?.first == 0xEC && irk?.last == 0x9B) }
  }
}
