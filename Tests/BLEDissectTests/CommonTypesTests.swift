import Testing

@testable import BLEDissect

@Suite("addresses, UUIDs and fields")
struct CommonTypesTests {
  @Test func addressPrintsMostSignificantByteFirst() throws {
    // BD_ADDR on the wire: 61 a2 67 39 36 d4
    let bytes: [UInt8] = [0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4]
    let address = try bytes.withUnsafeBytes { raw throws(DecodeError) in
      var c = ByteCursor(raw.bytes, layer: .hci)
      return try c.readAddress()
    }
    #expect(address.description == "D4:36:39:67:A2:61")
    #expect(DeviceAddress("d4:36:39:67:a2:61") == address)
    #expect(DeviceAddress("D4:36:39:67:A2") == nil)
  }

  @Test func uuidTextFollowsTheDataContract() throws {
    #expect(BluetoothUUID(uuid16: 0x2A37).description == "2a37")
    #expect(BluetoothUUID(uuid32: 0xFE95).description == "0000fe95")
    let base = BluetoothUUID(uuid128: 0x0000_2A37_0000_1000_8000_0080_5F9B_34FB)
    #expect(base.description == "00002a37-0000-1000-8000-00805f9b34fb")
    #expect(base.shortValue == 0x2A37)
    #expect(BluetoothUUID(uuid128: 0x6E40_0001_B5A3_F393_E0A9_E50E_24DC_CA9E).shortValue == nil)
  }

  @Test func lookupFindsNestedFields() {
    let tree: [Field] = [
      .group("Report[0]", [Field("Address", .address(DeviceAddress(rawValue: 1)))]),
      Field("Status", .code(0, hexDigits: 2, name: "Success")),
    ]
    #expect(tree.lookup("Address")?.value.integer == 1)
    #expect(tree.lookup("Status")?.value.integer == 0)
    #expect(tree.lookup("Missing") == nil)
  }
}

/// Found by fuzzing the pipeline: a Read By Group Type Response whose Length is below 4
/// made the UUID width negative, and reading it trapped on an empty range.
@Suite struct UUIDWidthTests {
  @Test(arguments: [-4, -1, 0, 3, 17])
  func widthsThatAreNoUUID(_ width: Int) {
    let bytes: [UInt8] = Array(repeating: 0xAB, count: 20)
    bytes.withUnsafeBytes { #expect($0.bluetoothUUID(at: 0, width: width) == nil) }
  }

  @Test func twoBytes() {
    // 0x180d, little-endian
    let bytes: [UInt8] = [0x0D, 0x18]
    bytes.withUnsafeBytes { #expect($0.bluetoothUUID(at: 0, width: 2) == BluetoothUUID(uuid16: 0x180D)) }
  }
}
