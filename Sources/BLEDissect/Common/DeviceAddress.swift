/// A 48-bit Bluetooth device address (BD_ADDR). HCI carries it least significant
/// byte first; it prints most significant first, `D4:36:39:67:A2:61`.
public struct DeviceAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The address in the low 48 bits.
  public var rawValue: UInt64

  public init(rawValue: UInt64) {
    self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
  }

  /// Parses `AA:BB:CC:DD:EE:FF` (either case); nil for anything else.
  public init?(_ text: some StringProtocol) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 6 else { return nil }
    var value: UInt64 = 0
    for part in parts {
      guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
      value = value << 8 | UInt64(byte)
    }
    self.init(rawValue: value)
  }

  public var description: String {
    var text = ""
    text.reserveCapacity(17)
    for index in (0..<6).reversed() {
      let byte = UInt8(truncatingIfNeeded: rawValue >> (UInt64(index) * 8))
      text += hexUpper(byte)
      if index > 0 { text += ":" }
    }
    return text
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

func hexUpper(_ byte: UInt8) -> String {
  let digits: [Character] = Array("0123456789ABCDEF")
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
