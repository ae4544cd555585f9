/// The characteristics (and the one descriptor) whose values carry a protocol that
/// Vendor/ decodes, by UUID: the one check a PDU about any other attribute pays.
public enum VendorCharacteristic: UInt8, Hashable, Sendable, CaseIterable {
  /// mcumgr (DA2E7828-…), in service 8D53DC1D-….
  case mcumgr
  /// Nordic Secure DFU control point, packet, and Buttonless DFU (without and with bonds).
  case secureDFUControlPoint, secureDFUPacket, buttonlessDFU
  /// Nordic legacy DFU control point and packet.
  case legacyDFUControlPoint, legacyDFUPacket
  /// Nordic UART Service: RX (the central writes), TX (the peripheral notifies).
  case nusRX, nusTX
  /// HID over GATT (HID Service 1.0).
  case hidInformation, hidReportMap, hidControlPoint, hidReport, hidProtocolMode
  case hidBootKeyboardInput, hidBootKeyboardOutput, hidBootMouseInput
  /// The Report Reference descriptor (0x2908) of a Report characteristic.
  case hidReportReference
  /// Apple Notification Center Service.
  case ancsNotificationSource, ancsControlPoint, ancsDataSource
  /// Apple Media Service.
  case amsRemoteCommand, amsEntityUpdate, amsEntityAttribute

  /// Which protocol the characteristic belongs to: the name of its object in JSON and
  /// of its filter fields.
  public var protocolName: StaticString {
    switch self {
    case .mcumgr: "mcumgr"
    case .secureDFUControlPoint, .secureDFUPacket, .buttonlessDFU, .legacyDFUControlPoint, .legacyDFUPacket: "dfu"
    case .nusRX, .nusTX: "nus"
    case .hidInformation, .hidReportMap, .hidControlPoint, .hidReport, .hidProtocolMode, .hidBootKeyboardInput,
      .hidBootKeyboardOutput, .hidBootMouseInput, .hidReportReference:
      "hid"
    case .ancsNotificationSource, .ancsControlPoint, .ancsDataSource: "ancs"
    case .amsRemoteCommand, .amsEntityUpdate, .amsEntityAttribute: "ams"
    }
  }

  private static let base: UInt128 = 0x0000_0000_0000_1000_8000_0080_5F9B_34FB
  private static func sig(_ uuid16: UInt128) -> UInt128 { base | uuid16 << 96 }

  /// The characteristic UUIDs, as `BluetoothUUID.value` holds them.
  static let byUUID: [UInt128: VendorCharacteristic] = [
    0xDA2E_7828_FBCE_4E01_AE9E_2611_7499_7C48: .mcumgr,
    0x8EC9_0001_F315_4F60_9FB8_8388_30DA_EA50: .secureDFUControlPoint,
    0x8EC9_0002_F315_4F60_9FB8_8388_30DA_EA50: .secureDFUPacket,
    0x8EC9_0003_F315_4F60_9FB8_8388_30DA_EA50: .buttonlessDFU,
    0x8EC9_0004_F315_4F60_9FB8_8388_30DA_EA50: .buttonlessDFU,
    0x0000_1531_1212_EFDE_1523_785F_EABC_D123: .legacyDFUControlPoint,
    0x0000_1532_1212_EFDE_1523_785F_EABC_D123: .legacyDFUPacket,
    0x6E40_0002_B5A3_F393_E0A9_E50E_24DC_CA9E: .nusRX,
    0x6E40_0003_B5A3_F393_E0A9_E50E_24DC_CA9E: .nusTX,
    sig(0x2A4A): .hidInformation, sig(0x2A4B): .hidReportMap, sig(0x2A4C): .hidControlPoint,
    sig(0x2A4D): .hidReport, sig(0x2A4E): .hidProtocolMode, sig(0x2A22): .hidBootKeyboardInput,
    sig(0x2A32): .hidBootKeyboardOutput, sig(0x2A33): .hidBootMouseInput,
    0x9FBF_120D_6301_42D9_8C58_25E6_99A2_1DBD: .ancsNotificationSource,
    0x69D1_D8F3_45E1_49A8_9821_9BBD_FDAA_D9D9: .ancsControlPoint,
    0x22EA_C6E9_24D6_4BB5_BE44_B36A_CE7C_7BFB: .ancsDataSource,
    0x9B3C_81D8_57B1_4A8A_B8DF_0E56_F7CA_51C2: .amsRemoteCommand,
    0x2F7C_ABCE_808D_411F_9A0C_BB92_BA96_C102: .amsEntityUpdate,
    0xC6B2_F38C_23AB_46D8_A6AB_A3A8_70BB_D5D7: .amsEntityAttribute,
  ]

  static let report = sig(0x2A4D)

  /// The protocol role of an attribute of type `uuid` inside characteristic
  /// `characteristic`: a characteristic value above, or a Report's Report Reference.
  /// Most attributes are none of these, and are told so by a few comparisons of the
  /// UUID's top 32 bits, before any table is looked at.
  public init?(uuid: BluetoothUUID?, characteristic: BluetoothUUID?) {
    guard let value = uuid?.value else { return nil }
    let top = UInt32(truncatingIfNeeded: value >> 96)
    if value & Self.lowBits == Self.base {
      // A SIG UUID: HID's characteristics (0x2A22, 0x2A32, 0x2A33, 0x2A4A–0x2A4E) and 0x2908.
      switch top {
      case 0x2A22, 0x2A32, 0x2A33, 0x2A4A...0x2A4E: break
      case 0x2908:
        guard characteristic?.value == Self.report else { return nil }
        self = .hidReportReference
        return
      default: return nil
      }
    } else {
      switch top {
      case 0xDA2E_7828, 0x8EC9_0001...0x8EC9_0004, 0x0000_1531, 0x0000_1532, 0x6E40_0002, 0x6E40_0003, 0x9FBF_120D,
        0x69D1_D8F3, 0x22EA_C6E9, 0x9B3C_81D8, 0x2F7C_ABCE, 0xC6B2_F38C:
        break
      default: return nil
      }
    }
    guard let role = Self.byUUID[value] else { return nil }
    self = role
  }

  /// The 96 bits the Bluetooth Base UUID fixes.
  private static let lowBits: UInt128 = (1 << 96) - 1
}
