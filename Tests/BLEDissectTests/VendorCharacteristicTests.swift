import Testing

@testable import BLEDissect

/// The one check every PDU pays: which vendor characteristic its attribute is, if any.
@Suite struct VendorCharacteristicTests {
  static let rows: [(uuid: String, role: VendorCharacteristic)] = [
    ("DA2E7828-FBCE-4E01-AE9E-261174997C48", .mcumgr),
    ("8EC90001-F315-4F60-9FB8-838830DAEA50", .secureDFUControlPoint),
    ("8EC90002-F315-4F60-9FB8-838830DAEA50", .secureDFUPacket),
    ("8EC90003-F315-4F60-9FB8-838830DAEA50", .buttonlessDFU), ("8EC90004-F315-4F60-9FB8-838830DAEA50", .buttonlessDFU),
    ("00001531-1212-EFDE-1523-785FEABCD123", .legacyDFUControlPoint),
    ("00001532-1212-EFDE-1523-785FEABCD123", .legacyDFUPacket),
    ("6E400002-B5A3-F393-E0A9-E50E24DCCA9E", .nusRX), ("6E400003-B5A3-F393-E0A9-E50E24DCCA9E", .nusTX),
    ("00002A4A-0000-1000-8000-00805F9B34FB", .hidInformation), ("00002A4B-0000-1000-8000-00805F9B34FB", .hidReportMap),
    ("00002A4C-0000-1000-8000-00805F9B34FB", .hidControlPoint), ("00002A4D-0000-1000-8000-00805F9B34FB", .hidReport),
    ("00002A4E-0000-1000-8000-00805F9B34FB", .hidProtocolMode),
    ("00002A22-0000-1000-8000-00805F9B34FB", .hidBootKeyboardInput),
    ("00002A32-0000-1000-8000-00805F9B34FB", .hidBootKeyboardOutput),
    ("00002A33-0000-1000-8000-00805F9B34FB", .hidBootMouseInput),
    ("9FBF120D-6301-42D9-8C58-25E699A21DBD", .ancsNotificationSource),
    ("69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9", .ancsControlPoint),
    ("22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB", .ancsDataSource),
    ("9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2", .amsRemoteCommand),
    ("2F7CABCE-808D-411F-9A0C-BB92BA96C102", .amsEntityUpdate),
    ("C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7", .amsEntityAttribute),
  ]

  static func uuid(_ text: String) -> BluetoothUUID {
    BluetoothUUID(uuid128: UInt128(text.filter(\.isHexDigit), radix: 16)!)
  }

  @Test(arguments: rows)
  func row(_ row: (uuid: String, role: VendorCharacteristic)) {
    #expect(VendorCharacteristic(uuid: Self.uuid(row.uuid), characteristic: nil) == row.role)
  }

  @Test func everyRoleIsReached() {
    let roles = Set(Self.rows.map(\.role) + [.hidReportReference])
    #expect(roles == Set(VendorCharacteristic.allCases))
  }

  @Test func othersAreNone() {
    let report = Self.uuid("00002A4D-0000-1000-8000-00805F9B34FB")
    let reference = BluetoothUUID(uuid16: 0x2908)
    #expect(VendorCharacteristic(uuid: reference, characteristic: report) == .hidReportReference)
    // A Report Reference of another characteristic (Battery Level, in a HID service).
    #expect(VendorCharacteristic(uuid: reference, characteristic: BluetoothUUID(uuid16: 0x2A19)) == nil)
    for other in [
      BluetoothUUID(uuid16: 0x2A37), BluetoothUUID(uuid16: 0x2902), BluetoothUUID(uuid16: 0x1531),
      // The top 32 bits of a vendor UUID, the rest not.
      Self.uuid("DA2E7828-0000-1000-8000-00805F9B34FB"), Self.uuid("8EC90001-F315-4F60-9FB8-838830DAEA51"),
    ] {
      #expect(VendorCharacteristic(uuid: other, characteristic: nil) == nil, "\(other)")
    }
    #expect(VendorCharacteristic(uuid: nil, characteristic: nil) == nil)
  }
}
