/// A bounded CBOR decoder (RFC 8949, section 3): definite and indefinite lengths,
/// tags, simple values and floats, for the bodies of mcumgr messages.
///
/// Every data item starts with an initial byte:
///
///     7   5 4             0
///     +-----+---------------+------------------------------+
///     | MT  | additional AI | argument (0, 1, 2, 4, 8 B)   |
///     +-----+---------------+------------------------------+
///
/// AI 0–23 is the argument itself, 24–27 say how many big-endian bytes follow it,
/// 31 opens an indefinite-length string, array or map (closed by the break 0xFF).
/// Hostile input is bounded: nesting stops at `maximumDepth`, and a declared length is
/// checked against the bytes left before anything is allocated, so a 5-byte item
/// cannot claim 2^64 entries. Errors carry the offset of the item at fault.
public struct CBORDecoder {
  /// How deep arrays, maps and tags may nest.
  public static let maximumDepth = 16

  /// Decodes one data item from `bytes` (the whole of them: bytes after it are an
  /// error). `base` is the offset of `bytes[0]` in the message, for error offsets.
  public static func decode(_ bytes: [UInt8], base: Int = 0) throws(DecodeError) -> CBORValue {
    var decoder = CBORDecoder(bytes: bytes, base: base)
    let value = try decoder.item(depth: 0)
    guard decoder.position == bytes.count else {
      throw decoder.invalid("\(bytes.count - decoder.position) bytes after the first data item", at: decoder.position)
    }
    return value
  }

  let bytes: [UInt8]
  let base: Int
  var position = 0

  private func invalid(_ why: String, at position: Int) -> DecodeError {
    DecodeError(.invalid(why), at: base + position, layer: .cbor)
  }

  private func truncated(_ needed: Int, at position: Int) -> DecodeError {
    DecodeError(.truncated(needed: needed, available: bytes.count - position), at: base + position, layer: .cbor)
  }

  /// The big-endian argument after an initial byte whose additional information is
  /// 24–27; nil for AI 31 (indefinite).
  private mutating func argument(_ info: UInt8, at start: Int) throws(DecodeError) -> UInt64? {
    switch info {
    case 0..<24: return UInt64(info)
    case 24...27:
      let count = 1 << Int(info - 24)
      guard bytes.count - position >= count else { throw truncated(count, at: position) }
      var value: UInt64 = 0
      for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
      position += count
      return value
    case 31: return nil
    default: throw invalid("reserved additional information \(info)", at: start)
    }
  }

  /// A length that must fit in what is left, `unit` bytes at least per element.
  private func length(_ value: UInt64, unit: Int, at start: Int) throws(DecodeError) -> Int {
    let left = UInt64(bytes.count - position)
    guard value <= left / UInt64(unit) else {
      throw invalid("a length of \(value) with \(left) bytes left", at: start)
    }
    return Int(value)
  }

  private mutating func item(depth: Int) throws(DecodeError) -> CBORValue {
    let start = position
    guard position < bytes.count else { throw truncated(1, at: position) }
    let initial = bytes[position]
    position += 1
    let major = initial >> 5
    let info = initial & 0x1F
    if major == 7 { return try simple(info, at: start) }
    let argument = try argument(info, at: start)
    switch major {
    case 0:
      guard let argument else { throw invalid("an indefinite-length integer", at: start) }
      return .unsigned(argument)
    case 1:
      guard let argument else { throw invalid("an indefinite-length integer", at: start) }
      return .negative(argument)
    case 2, 3:
      let data = try string(major: major, argument, at: start)
      if major == 2 { return .bytes(data) }
      guard let text = String(validating: data, as: UTF8.self) else {
        throw invalid("a text string that is not UTF-8", at: start)
      }
      return .text(text)
    case 4:
      guard depth < Self.maximumDepth else { throw invalid("nesting deeper than \(Self.maximumDepth)", at: start) }
      var items: [CBORValue] = []
      if let argument {
        let count = try length(argument, unit: 1, at: start)
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try item(depth: depth + 1)) }
      } else {
        while try !atBreak() { items.append(try item(depth: depth + 1)) }
      }
      return .array(items)
    case 5:
      guard depth < Self.maximumDepth else { throw invalid("nesting deeper than \(Self.maximumDepth)", at: start) }
      var entries: [CBORMapEntry] = []
      if let argument {
        let count = try length(argument, unit: 2, at: start)
        entries.reserveCapacity(count)
        for _ in 0..<count {
          entries.append(CBORMapEntry(key: try item(depth: depth + 1), value: try item(depth: depth + 1)))
        }
      } else {
        while try !atBreak() {
          entries.append(CBORMapEntry(key: try item(depth: depth + 1), value: try item(depth: depth + 1)))
        }
      }
      return .map(entries)
    default:  // 6
      guard let argument else { throw invalid("an indefinite-length tag", at: start) }
      guard depth < Self.maximumDepth else { throw invalid("nesting deeper than \(Self.maximumDepth)", at: start) }
      return .tagged(argument, try item(depth: depth + 1))
    }
  }

  /// Consumes the break (0xFF) that ends an indefinite-length item, if it is next.
  private mutating func atBreak() throws(DecodeError) -> Bool {
    guard position < bytes.count else { throw truncated(1, at: position) }
    guard bytes[position] == 0xFF else { return false }
    position += 1
    return true
  }

  /// The content of a byte or text string: definite, or indefinite chunks of
  /// definite strings of the same major type.
  private mutating func string(major: UInt8, _ argument: UInt64?, at start: Int) throws(DecodeError) -> [UInt8] {
    if let argument {
      let count = try length(argument, unit: 1, at: start)
      defer { position += count }
      return Array(bytes[position..<position + count])
    }
    var data: [UInt8] = []
    while try !atBreak() {
      let chunk = position
      let initial = bytes[position]
      position += 1
      guard initial >> 5 == major, initial & 0x1F != 31,
        let size = try self.argument(initial & 0x1F, at: chunk)
      else {
        throw invalid("an indefinite-length string chunk of another kind (0x\(hex(initial)))", at: chunk)
      }
      let count = try length(size, unit: 1, at: chunk)
      data += bytes[position..<position + count]
      position += count
    }
    return data
  }

  /// Major type 7: false, true, null, undefined, other simple values and floats.
  private mutating func simple(_ info: UInt8, at start: Int) throws(DecodeError) -> CBORValue {
    switch info {
    case 20: return .bool(false)
    case 21: return .bool(true)
    case 22: return .null
    case 23: return .undefined
    case 0..<20: return .simple(info)
    case 24:
      guard let value = try argument(info, at: start) else { return .undefined }
      // Simple values below 32 must use the one-byte form (RFC 8949, 3.3).
      guard value >= 32 else { throw invalid("a two-byte simple value \(value) below 32", at: start) }
      return .simple(UInt8(value))
    case 25:
      guard let bits = try argument(info, at: start) else { return .undefined }
      return .float(Self.half(UInt16(bits)))
    case 26:
      guard let bits = try argument(info, at: start) else { return .undefined }
      return .float(Double(Float(bitPattern: UInt32(bits))))
    case 27:
      guard let bits = try argument(info, at: start) else { return .undefined }
      return .float(Double(bitPattern: bits))
    case 31: throw invalid("a break outside an indefinite-length item", at: start)
    default: throw invalid("reserved additional information \(info)", at: start)
    }
  }

  /// IEEE 754 binary16 (RFC 8949, Appendix D).
  static func half(_ bits: UInt16) -> Double {
    let exponent = Int(bits >> 10 & 0x1F)
    let mantissa = Double(bits & 0x3FF)
    let magnitude: Double =
      switch exponent {
      case 0: mantissa * 0x1p-24
      case 31: mantissa == 0 ? .infinity : .nan
      default: (1 + mantissa / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
      }
    return bits & 0x8000 != 0 ? -magnitude : magnitude
  }
}
