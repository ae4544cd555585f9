/// A Bluetooth UUID as it was carried: 16, 32 or 128 bits. The short forms are
/// aliases on the Bluetooth Base UUID 00000000-0000-1000-8000-00805F9B34FB
/// (Core 6.0, Vol 3, Part B, 2.5.1).
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
  public enum Width: Int, Hashable, Sendable {
    case bits16 = 16, bits32 = 32, bits128 = 128
  }

  /// The full 128-bit value.
  public var value: UInt128
  /// How many bits the PDU carried.
  public var width: Width

  static let base: UInt128 = 0x0000_0000_0000_1000_8000_0080_5F9B_34FB

  public init(uuid16: UInt16) {
    value = Self.base | UInt128(uuid16) << 96
    width = .bits16
  }

  public init(uuid32: UInt32) {
    value = Self.base | UInt128(uuid32) << 96
    width = .bits32
  }

  public init(uuid128: UInt128) {
    value = uuid128
    width = .bits128
  }

  /// The 16- or 32-bit alias when the value is on the Base UUID.
  public var shortValue: UInt32? {
    guard value & ((1 << 96) - 1) == Self.base else { return nil }
    return UInt32(truncatingIfNeeded: value >> 96)
  }

  /// Data-contract text: `2a37` for 16-bit and `0000fe95` for 32-bit UUIDs as carried,
  /// else the canonical 36-character lower-case form.
  public var description: String {
    // Nibbles from the most significant one the width shows, straight into the string.
    let (digits, firstShift) =
      switch width {
      case .bits16: (4, 108)
      case .bits32: (8, 124)
      case .bits128: (32, 124)
      }
    return String(unsafeUninitializedCapacity: 36) { text in
      var count = 0
      for index in 0..<digits {
        if width == .bits128 && (index == 8 || index == 12 || index == 16 || index == 20) {
          text[count] = UInt8(ascii: "-")
          count += 1
        }
        let nibble = UInt8(truncatingIfNeeded: value >> (firstShift - 4 * index)) & 0xF
        text[count] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        count += 1
      }
      return count
    }
  }
}

extension BluetoothUUID {
  /// Parses `2a37`, `0x2A37`, `0000fe95` or the 36-character form (hyphens optional),
  /// as people and the data contract write them.
  public init?(_ text: some StringProtocol) {
    var digits = Substring(text)
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    digits = Substring(digits.filter { $0 != "-" })
    guard digits.allSatisfy(\.isHexDigit) else { return nil }
    switch digits.count {
    case 4: self.init(uuid16: UInt16(digits, radix: 16)!)
    case 8: self.init(uuid32: UInt32(digits, radix: 16)!)
    case 32:
      let high = UInt64(digits.prefix(16), radix: 16)!
      let low = UInt64(digits.suffix(16), radix: 16)!
      self.init(uuid128: UInt128(high) << 64 | UInt128(low))
    default: return nil
    }
  }

  /// The shortest form that means the same UUID: a 128-bit UUID on the Base UUID
  /// becomes its 16- or 32-bit alias, so `gatt` and lookups agree however it was carried.
  public var normalized: BluetoothUUID {
    guard let short = shortValue else { return BluetoothUUID(uuid128: value) }
    return short <= 0xFFFF ? BluetoothUUID(uuid16: UInt16(short)) : BluetoothUUID(uuid32: short)
  }
}
