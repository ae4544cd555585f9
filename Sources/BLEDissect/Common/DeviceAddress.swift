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
    String(unsafeUninitializedCapacity: 17) { buffer in
      write(into: UnsafeMutableRawBufferPointer(buffer))
      return 17
    }
  }

  /// Writes the 17 ASCII bytes of `description` at the start of `buffer`.
  public func write(into buffer: UnsafeMutableRawBufferPointer) {
    for index in 0..<6 {
      let byte = Int(truncatingIfNeeded: rawValue >> (UInt64(5 - index) * 8)) & 0xFF
      buffer[index * 3] = Self.upperHexDigits[byte >> 4]
      buffer[index * 3 + 1] = Self.upperHexDigits[byte & 0xF]
      if index < 5 { buffer[index * 3 + 2] = UInt8(ascii: ":") }
    }
  }

  static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
