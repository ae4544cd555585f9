/// The one pcapng detail libpcap does not report: the timestamp resolution of the
/// first Interface Description Block (option `if_tsresol`, code 9).
enum PcapngOptions {
  static func firstInterfaceResolution(_ bytes: UnsafeBufferPointer<UInt8>) -> TimestampResolution? {
    guard bytes.count >= 12 else { return nil }
    // The Section Header Block's byte-order magic tells how to read the rest.
    let bigEndian = bytes.bigEndian32(at: 8) == 0x1A2B_3C4D
    func u32(_ at: Int) -> Int { Int(bigEndian ? bytes.bigEndian32(at: at) : bytes.littleEndian32(at: at)) }
    func u16(_ at: Int) -> Int { Int(bigEndian ? bytes.bigEndian16(at: at) : bytes.littleEndian16(at: at)) }
    var block = 0
    while block + 12 <= bytes.count {
      let type = u32(block)
      let length = u32(block + 4)
      guard length >= 12, block + length <= bytes.count else { return nil }
      if type == 1 {
        var option = block + 16
        while option + 4 <= block + length - 4 {
          let code = u16(option)
          let size = u16(option + 2)
          if code == 0 { break }
          if code == 9, size >= 1, option + 4 < bytes.count {
            let value = bytes[option + 4]
            // High bit clear: 10^-value seconds; set: 2^-value.
            let digits = value & 0x80 == 0 ? Int(value) : Int(Double(value & 0x7F) * 0.30103)
            return digits > 6 ? .nanoseconds : .microseconds
          }
          option += 4 + (size + 3) & ~3
        }
        return .microseconds
      }
      block += length
    }
    return nil
  }
}
