import BLEDissect
import Testing

@Suite struct AssignedNumbersTests {
  @Test(arguments: [
    (UInt16(0x004C), "Apple, Inc."),
    (0x0059, "Nordic Semiconductor ASA"),
    (0x00E0, "Google"),
  ])
  func company(identifier: UInt16, name: String) {
    #expect(AssignedNumbers.company(identifier) == name)
  }

  @Test(arguments: [
    (UInt16(0x0341), "Heart Rate Sensor: Heart Rate Belt"),
    (0x0340, "Heart Rate Sensor"),
    (0x037F, "Heart Rate Sensor"),  // unlisted subcategory: the category
    (0x0000, "Unknown"),
  ])
  func appearance(value: UInt16, name: String) {
    #expect(AssignedNumbers.appearance(value) == name)
  }

  @Test(arguments: [
    ("2a37", "Heart Rate Measurement", AssignedNumbers.AttributeKind.characteristic),
    ("180d", "Heart Rate", .service),
    ("2902", "Client Characteristic Configuration", .descriptor),
    ("2901", "Characteristic User Description", .descriptor),
    ("2803", "Characteristic", .declaration),
    ("0000180d-0000-1000-8000-00805f9b34fb", "Heart Rate", .service),
    ("6e400001-b5a3-f393-e0a9-e50e24dcca9e", "Nordic UART Service", .service),
  ])
  func uuidName(text: String, name: String, kind: AssignedNumbers.AttributeKind) throws {
    let uuid = try #require(BluetoothUUID(text))
    #expect(AssignedNumbers.name(of: uuid) == name)
    #expect(AssignedNumbers.kind(of: uuid) == kind)
  }

  @Test func unlistedValuesHaveNoName() throws {
    #expect(AssignedNumbers.company(0xFFFE) == nil)
    #expect(AssignedNumbers.name(of: try #require(BluetoothUUID("ff01"))) == nil)
  }

  @Test(arguments: [
    ("2a37", "2a37"), ("0x2A37", "2a37"), ("0000fe95", "0000fe95"),
    ("0000180D-0000-1000-8000-00805F9B34FB", "0000180d-0000-1000-8000-00805f9b34fb"),
    ("6e400001b5a3f393e0a9e50e24dcca9e", "6e400001-b5a3-f393-e0a9-e50e24dcca9e"),
  ])
  func parsesUUIDText(text: String, description: String) {
    #expect(BluetoothUUID(text)?.description == description)
  }

  @Test(arguments: ["", "2a3", "2a37x", "zz37", "0000180d-0000"])
  func rejectsBadUUIDText(text: String) {
    #expect(BluetoothUUID(text) == nil)
  }

  @Test func normalizedShortensBaseUUIDs() throws {
    let long = try #require(BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb"))
    #expect(long.normalized.description == "180d")
    let vendor = try #require(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
    #expect(vendor.normalized == vendor)
  }
}
