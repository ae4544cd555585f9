/// An HCI command opcode (Core 6.0, Vol 4, Part E, 5.4.1): OGF in the top 6 bits,
/// OCF in the low 10. Unknown values survive as they are.
///
///     15        10 9                   0
///     +-----------+---------------------+
///     |    OGF    |         OCF         |
///     +-----------+---------------------+
public struct HCIOpcode: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public init(ogf: UInt8, ocf: UInt16) {
    rawValue = UInt16(ogf & 0x3F) << 10 | ocf & 0x03FF
  }

  /// Opcode Group Field: 0x01 Link Control, 0x02 Link Policy, 0x03 Controller &
  /// Baseband, 0x04 Informational, 0x05 Status, 0x06 Testing, 0x08 LE Controller,
  /// 0x3F vendor specific.
  public var ogf: UInt8 { UInt8(rawValue >> 10) }
  /// OGF 0x3F: a vendor-specific command.
  public var isVendorSpecific: Bool { ogf == 0x3F }
  /// Opcode Command Field.
  public var ocf: UInt16 { rawValue & 0x03FF }

  /// Create Connection
  public static let createConnection = Self(rawValue: 0x0405)
  /// Disconnect
  public static let disconnect = Self(rawValue: 0x0406)
  /// Create Connection Cancel
  public static let createConnectionCancel = Self(rawValue: 0x0408)
  /// Reset
  public static let reset = Self(rawValue: 0x0C03)
  /// Read Buffer Size
  public static let readBufferSize = Self(rawValue: 0x1005)
  /// Read BD_ADDR
  public static let readBDADDR = Self(rawValue: 0x1009)
  /// Read RSSI
  public static let readRSSI = Self(rawValue: 0x1405)
  /// Read Encryption Key Size
  public static let readEncryptionKeySize = Self(rawValue: 0x1408)
  /// LE Read Buffer Size [v1]
  public static let leReadBufferSizeV1 = Self(rawValue: 0x2002)
  /// LE Set Scan Parameters
  public static let leSetScanParameters = Self(rawValue: 0x200B)
  /// LE Set Scan Enable
  public static let leSetScanEnable = Self(rawValue: 0x200C)
  /// LE Create Connection
  public static let leCreateConnection = Self(rawValue: 0x200D)
  /// LE Create Connection Cancel
  public static let leCreateConnectionCancel = Self(rawValue: 0x200E)
  /// LE Clear Filter Accept List
  public static let leClearFilterAcceptList = Self(rawValue: 0x2010)
  /// LE Add Device To Filter Accept List
  public static let leAddDeviceToFilterAcceptList = Self(rawValue: 0x2011)
  /// LE Remove Device From Filter Accept List
  public static let leRemoveDeviceFromFilterAcceptList = Self(rawValue: 0x2012)
  /// LE Enable Encryption
  public static let leEnableEncryption = Self(rawValue: 0x2019)
  /// LE Set Extended Scan Parameters
  public static let leSetExtendedScanParameters = Self(rawValue: 0x2041)
  /// LE Set Extended Scan Enable
  public static let leSetExtendedScanEnable = Self(rawValue: 0x2042)
  /// LE Extended Create Connection [v1]
  public static let leExtendedCreateConnectionV1 = Self(rawValue: 0x2043)
  /// LE Read Buffer Size [v2]
  public static let leReadBufferSizeV2 = Self(rawValue: 0x2060)
  /// LE Extended Create Connection [v2]
  public static let leExtendedCreateConnectionV2 = Self(rawValue: 0x2085)

  /// The spec's name: `LE Set Scan Enable`, `Vendor (0xfc0c)`, `Unknown (0x2099)`.
  /// Known names are stored strings, so this is cheap on the hot path.
  public var name: String {
    if let name = HCICommandTable.names[rawValue] { return name }
    if rawValue == 0 { return "No Operation" }
    if isVendorSpecific { return "Vendor (0x" + hex(rawValue) + ")" }
    return "Unknown (0x" + hex(rawValue) + ")"
  }
}
