/// HCI packet indicator (Core 6.0, Vol 4, Part A, 2), as the H4 transport and the
/// capture formats use it. Unknown values survive as they are.
public struct HCIPacketType: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// HCI Command packet
  public static let command = Self(rawValue: 0x01)
  /// HCI ACL Data packet
  public static let acl = Self(rawValue: 0x02)
  /// HCI Synchronous Data packet
  public static let sco = Self(rawValue: 0x03)
  /// HCI Event packet
  public static let event = Self(rawValue: 0x04)
  /// HCI ISO Data packet
  public static let iso = Self(rawValue: 0x05)

  /// The data-contract name (`hci.type`) of each known type, by value (0 is not one).
  static let table: [String?] = [nil, "command", "acl", "sco", "event", "iso"]

  /// The known types' names, for output that appends them without a String.
  static let staticNames: [StaticString] = ["", "command", "acl", "sco", "event", "iso"]

  /// The name of a known type, nil for the others.
  public var staticName: StaticString? {
    rawValue >= 1 && Int(rawValue) < Self.staticNames.count ? Self.staticNames[Int(rawValue)] : nil
  }

  /// `command`, `acl`, `sco`, `event`, `iso`, or `unknown_0x06`.
  public var name: String {
    let known = Int(rawValue) < Self.table.count ? Self.table[Int(rawValue)] : nil
    return known ?? "unknown_0x" + hex(rawValue)
  }
}

/// Lower-case hex with every digit of the type's width (`0x` not included).
public func hex(_ value: some FixedWidthInteger) -> String {
  let digits = String(value, radix: 16)
  let width = value.bitWidth / 4
  return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
