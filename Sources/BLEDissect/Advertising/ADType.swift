/// The type of an AD structure (Assigned Numbers, 2.3 Common Data Types; Core
/// Specification Supplement, Part A). Unknown values survive and render as
/// `Unknown (0x3a)`.
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Flags
  public static let flags = Self(rawValue: 0x01)
  /// Incomplete List of 16-bit Service or Service Class UUIDs
  public static let incompleteUUIDs16 = Self(rawValue: 0x02)
  /// Complete List of 16-bit Service or Service Class UUIDs
  public static let completeUUIDs16 = Self(rawValue: 0x03)
  /// Incomplete List of 32-bit Service or Service Class UUIDs
  public static let incompleteUUIDs32 = Self(rawValue: 0x04)
  /// Complete List of 32-bit Service or Service Class UUIDs
  public static let completeUUIDs32 = Self(rawValue: 0x05)
  /// Incomplete List of 128-bit Service or Service Class UUIDs
  public static let incompleteUUIDs128 = Self(rawValue: 0x06)
  /// Complete List of 128-bit Service or Service Class UUIDs
  public static let completeUUIDs128 = Self(rawValue: 0x07)
  /// Shortened Local Name
  public static let shortenedLocalName = Self(rawValue: 0x08)
  /// Complete Local Name
  public static let completeLocalName = Self(rawValue: 0x09)
  /// Tx Power Level
  public static let txPowerLevel = Self(rawValue: 0x0A)
  /// Peripheral Connection Interval Range
  public static let peripheralConnectionIntervalRange = Self(rawValue: 0x12)
  /// Service Data - 16-bit UUID
  public static let serviceData16 = Self(rawValue: 0x16)
  /// Public Target Address
  public static let publicTargetAddress = Self(rawValue: 0x17)
  /// Random Target Address
  public static let randomTargetAddress = Self(rawValue: 0x18)
  /// Appearance
  public static let appearance = Self(rawValue: 0x19)
  /// Advertising Interval
  public static let advertisingInterval = Self(rawValue: 0x1A)
  /// LE Bluetooth Device Address
  public static let leBluetoothDeviceAddress = Self(rawValue: 0x1B)
  /// Service Data - 32-bit UUID
  public static let serviceData32 = Self(rawValue: 0x20)
  /// Service Data - 128-bit UUID
  public static let serviceData128 = Self(rawValue: 0x21)
  /// URI
  public static let uri = Self(rawValue: 0x24)
  /// LE Supported Features
  public static let leSupportedFeatures = Self(rawValue: 0x27)
  /// Broadcast_Name
  public static let broadcastName = Self(rawValue: 0x30)
  /// Manufacturer Specific Data
  public static let manufacturerSpecificData = Self(rawValue: 0xFF)

  /// The name from Assigned Numbers, verbatim; `Unknown (0x3a)` for others.
  public var name: String {
    if let row = Self.rowsByCode[rawValue] { return row.name }
    return "Unknown (0x" + hex(rawValue) + ")"
  }

  public var description: String { name }

  /// The row of a type this decoder knows, nil for others.
  static func row(_ code: UInt8) -> ADTypeRow? { rowsByCode[code] }

  static let rowsByCode: [UInt8: ADTypeRow] = Dictionary(uniqueKeysWithValues: table.map { ($0.code, $0) })
}
