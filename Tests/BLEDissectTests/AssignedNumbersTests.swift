import Testing

@testable import BLEDissect

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

  /// Vendor UUIDs from Dissectors/vendor-uuids/: the numbers database's, and the
  /// hand-kept rows that rename (mcumgr) or add (Silicon Labs, Matter, Espressif).
  @Test(arguments: [
    ("fe59", "Secure DFU Service", AssignedNumbers.AttributeKind.service, "nordic"),
    ("0000fe59-0000-1000-8000-00805f9b34fb", "Secure DFU Service", .service, "nordic"),
    ("6e400003-b5a3-f393-e0a9-e50e24dcca9e", "UART TX Characteristic", .characteristic, "nordic"),
    ("00001525-1212-efde-1523-785feabcd123", "Blinky LED State", .characteristic, "nordic"),
    ("ef680400-9b35-4933-9b10-52ffa9740042", "Thingy Motion Service", .service, "nordic"),
    ("7905f431-b5ce-4e99-a40f-4b1e122d00d0", "Apple Notification Center Service", .service, "apple"),
    ("fe2c1234-8366-4814-8eb0-01de32100bea", "Fast Pair Key-based Pairing", .characteristic, "google"),
    ("f000ffc1-0451-4000-b000-000000000000", "Texas Instruments Image Identify", .characteristic, "ti"),
    ("8d53dc1d-1db7-4cd3-868b-8a527460aa84", "mcumgr Service", .service, "zephyr"),
    ("da2e7828-fbce-4e01-ae9e-261174997c48", "mcumgr Characteristic", .characteristic, "zephyr"),
    ("1d14d6ee-fd63-4fa1-bfa4-8f47b42119f0", "Silicon Labs OTA Service", .service, "silabs"),
    ("984227f3-34fc-4045-a5d0-2c581f81a153", "Silicon Labs OTA Data", .characteristic, "silabs"),
    ("fff6", "Matter Commissioning Service", .service, "csa"),
    ("18ee2ef5-263d-4559-959f-4f9c429f9d12", "Matter BTP C2 (Indicate)", .characteristic, "csa"),
    ("021aff51-0382-4aea-bff4-6b3f1c5adfb4", "ESP Provisioning prov-session", .characteristic, "espressif"),
  ])
  func vendorName(text: String, name: String, kind: AssignedNumbers.AttributeKind, vendor: String) throws {
    let uuid = try #require(BluetoothUUID(text))
    #expect(AssignedNumbers.name(of: uuid) == name)
    #expect(AssignedNumbers.kind(of: uuid) == kind)
    #expect(AssignedNumbers.vendor(of: uuid) == vendor)
    #expect(DissectorLibrary.builtin.name(of: uuid) == name)
  }

  @Test func sigNumbersHaveNoVendor() throws {
    #expect(AssignedNumbers.vendor(of: try #require(BluetoothUUID("2a37"))) == nil)
    #expect(AssignedNumbers.vendor(of: try #require(BluetoothUUID("1800"))) == nil)
  }

  /// Every vendor row has a UUID, a kind, a name and a source, and names no UUID the
  /// SIG's tables list (that row would be dead: the SIG's name wins).
  @Test(arguments: AssignedNumbers.vendorTables)
  func vendorRowsAreWellFormed(file: String) throws {
    let sig = AssignedNumbers.uuidTable(
      sig: AssignedNumbers.sigTables.map { (AssignedNumbers.text(of: "assigned-numbers/" + $0.file), $0.kind) },
      vendor: [])
    var rows = 0
    AssignedNumbers.forEachRow(AssignedNumbers.text(of: "vendor-uuids/" + file)) { key, kind, name, source in
      rows += 1
      let line = [key, kind, name ?? "", source ?? ""].joined(separator: "\t")
      let uuid = BluetoothUUID(key)
      #expect(uuid != nil, "\(line)")
      #expect(AssignedNumbers.AttributeKind(rawValue: String(kind)) != nil, "\(line)")
      #expect(name?.isEmpty == false, "\(line)")
      #expect(source?.isEmpty == false && source?.contains("\t") == false, "\(line)")
      if let uuid { #expect(sig[uuid.value] == nil, "\(line) renames a SIG number") }
    }
    #expect(rows > 10)
  }

  /// The order that settles a UUID two tables name: the SIG's first, then the vendor
  /// tables in order; a row without its columns is skipped.
  @Test func sigNamesWinOverVendorNames() throws {
    let table = AssignedNumbers.uuidTable(
      sig: [("# SIG\n2a37\tHeart Rate Measurement\n", .characteristic), ("180d\tHeart Rate\n", .service)],
      vendor: [
        "2a37\tcharacteristic\tAcme Pulse\tacme\n6e400001-b5a3-f393-e0a9-e50e24dcca9e\tservice\tMine\tme\n",
        "# database\n180d\tservice\tAcme HR\tacme\n6e400001-b5a3-f393-e0a9-e50e24dcca9e\tservice\tNUS\tnordic\n"
          + "6e400002-b5a3-f393-e0a9-e50e24dcca9e\tcharacteristic\tRX\n"
          + "6e400003-b5a3-f393-e0a9-e50e24dcca9e\tgizmo\tTX\tnordic\nzz\tservice\tBad\tx\n",
      ])
    func entry(_ text: String) throws -> AssignedNumbers.UUIDEntry? { table[try #require(BluetoothUUID(text)).value] }
    #expect(try entry("2a37") == .init(kind: .characteristic, name: "Heart Rate Measurement", vendor: nil))
    #expect(try entry("0000180d-0000-1000-8000-00805f9b34fb")?.name == "Heart Rate")
    #expect(try entry("6e400001-b5a3-f393-e0a9-e50e24dcca9e") == .init(kind: .service, name: "Mine", vendor: "me"))
    #expect(try entry("6e400002-b5a3-f393-e0a9-e50e24dcca9e") == nil, "three columns")
    #expect(try entry("6e400003-b5a3-f393-e0a9-e50e24dcca9e") == nil, "unknown kind")
    #expect(table.count == 3)
  }

  /// Names in output: the SIG's, then a dissector header's (a user's file names a vendor
  /// UUID its own way), then the vendor tables'.
  @Test func dissectorHeadersRenameVendorUUIDsButNotSIGNumbers() throws {
    let library = try DissectorLibrary(adding: [
      (
        "mine.dissector",
        "service 6e400001-b5a3-f393-e0a9-e50e24dcca9e \"My Console\"\nservice 180d \"My Heart\"\n"
          + "characteristic 7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5 \"Acme Mode\"\n"
      )
    ])
    #expect(library.name(of: try #require(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))) == "My Console")
    #expect(library.name(of: try #require(BluetoothUUID("180d"))) == "Heart Rate")
    #expect(library.name(of: try #require(BluetoothUUID("7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5"))) == "Acme Mode")
    #expect(
      library.name(of: try #require(BluetoothUUID("6e400002-b5a3-f393-e0a9-e50e24dcca9e"))) == "UART RX Characteristic")
    #expect(library.name(of: try #require(BluetoothUUID("7b3c0002-1b2a-4c5d-8e9f-a0b1c2d3e4f5"))) == nil)
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
