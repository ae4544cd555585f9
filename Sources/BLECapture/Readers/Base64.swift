/// Base64 decoding that skips line breaks and other whitespace (btsnooz sections
/// are wrapped at 128 characters).
enum Base64 {
  private static let table: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, char) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
      table[Int(char)] = UInt8(index)
    }
    return table
  }()

  /// Decodes until `=` or the end; returns nil at a character outside the alphabet.
  static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var output: [UInt8] = []
    output.reserveCapacity(text.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for char in text {
      if char == UInt8(ascii: "=") { break }
      if char == 0x0A || char == 0x0D || char == 0x20 || char == 0x09 { continue }
      let value = table[Int(char)]
      guard value != 0xFF else { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    return output
  }
}
