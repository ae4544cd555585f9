/// One parameter of an HCI command, return block or event, as data: the tables in
/// `HCICommandTable` and `HCIEventTable` are lists of these, and one interpreter
/// (`decode`) turns them into `Field`s. Names are the spec's parameter names,
/// verbatim (Core 6.0, Vol 4, Part E, 7).
///
/// All multi-octet values are little-endian. Arrays (`[i]` in the spec) are laid out
/// one element after the other, each element holding all its parameters
/// (interleaved), which is how controllers send them and how btmon, Bumble and
/// Wireshark read them.
public enum HCIParameter: Sendable {
  /// Unsigned numbers shown in decimal (counts, lengths, sizes).
  case uint8(String), uint16(String), uint24(String), uint32(String)
  /// Unsigned numbers shown in hex (identifiers, masks, opaque words).
  case hex8(String), hex16(String), hex24(String), hex32(String), hex64(String)
  /// Two's complement numbers.
  case int8(String), int16(String)
  /// A connection, sync, BIG or other 16-bit handle (hex).
  case handle(String)
  /// A BD_ADDR.
  case address(String)
  /// An LE address type (`Public Device Address`, `Random Device Address`...).
  case addressType(String)
  /// A one-octet `Status` with the Controller error code's name.
  case status
  /// A one-octet error code with its name under another parameter name (`Reason`).
  case reason(String)
  /// A command opcode with the command's name.
  case opcode(String)
  /// An unsigned quantity in spec units: intervals and timeouts mostly (0.625 ms,
  /// 1.25 ms, 10 ms, µs…), rendered as a measure with its physical value.
  case interval(String, HCIUnit, bytes: Int = 2)
  /// A signed one-octet power in dBm (`TX_Power`, `RSSI`); 0x7F is "not available".
  case txPower(String)
  /// A signed one-octet RSSI in dBm; 0x7F is "not available".
  case rssi(String)
  /// A fixed number of octets kept raw (keys, maps, feature pages).
  case bytes(String, Int)
  /// A fixed number of octets holding UTF-8 text ended by a NUL or the field's end
  /// (`Local_Name`, `Remote_Name`).
  case text(String, Int)
  /// A one-octet length (`lengthName`) followed by that many octets (`name`). With
  /// `padTo`, the field always occupies `padTo` octets and only the first `length`
  /// are significant (legacy advertising data).
  case lengthPrefixed(String, lengthName: String, padTo: Int? = nil)
  /// Whatever octets are left.
  case rest(String)
  /// `count` elements of `parameters`, the count read earlier in the same block by
  /// the parameter called `countFrom`; `perBit` counts the bits set in it instead
  /// (one element per PHY in `Scanning_PHYs`). Elements become groups `item[i]`.
  case repeated(countFrom: String, item: String, perBit: Bool = false, [HCIParameter])
  /// A coded value with the names of its known values.
  case enumeration(String, bytes: Int = 1, [UInt64: String])
  /// A bit field; `bits[n]` names bit n (empty for reserved bits).
  case flags(String, bytes: Int = 1, [String])
}

/// The unit of an `HCIParameter.interval`: one step of the raw value in `unit`.
public struct HCIUnit: Hashable, Sendable {
  public var scale: Double
  public var unit: String

  public init(scale: Double, unit: String) {
    self.scale = scale
    self.unit = unit
  }

  /// 0.625 ms (a baseband slot): advertising and scan intervals, CE lengths.
  public static let slots = HCIUnit(scale: 0.625, unit: "ms")
  /// 1.25 ms: connection, periodic advertising and ISO intervals.
  public static let ms1_25 = HCIUnit(scale: 1.25, unit: "ms")
  /// 10 ms: supervision and sync timeouts, advertising durations.
  public static let ms10 = HCIUnit(scale: 10, unit: "ms")
  /// 1 ms.
  public static let ms = HCIUnit(scale: 1, unit: "ms")
  /// 0.125 ms: PAwR response slot spacing.
  public static let ms0_125 = HCIUnit(scale: 0.125, unit: "ms")
  /// 1 µs: ISO delays and latencies, packet times.
  public static let us = HCIUnit(scale: 1, unit: "µs")
  /// 1.28 s: extended scan period.
  public static let s1_28 = HCIUnit(scale: 1.28, unit: "s")
  /// 1 s.
  public static let s = HCIUnit(scale: 1, unit: "s")
  /// 1 dB (path loss).
  public static let dB = HCIUnit(scale: 1, unit: "dB")
  /// 0.3125 ms (half a slot): clock accuracy.
  public static let halfSlots = HCIUnit(scale: 0.3125, unit: "ms")
}

extension HCIParameter {
  /// The parameter's name, as a `Field` carries it.
  public var name: String {
    switch self {
    case .uint8(let n), .uint16(let n), .uint24(let n), .uint32(let n), .hex8(let n), .hex16(let n),
      .hex24(let n), .hex32(let n), .hex64(let n), .int8(let n), .int16(let n), .handle(let n),
      .address(let n), .addressType(let n), .reason(let n), .opcode(let n), .interval(let n, _, _),
      .txPower(let n), .rssi(let n), .bytes(let n, _), .text(let n, _), .lengthPrefixed(let n, _, _), .rest(let n),
      .enumeration(let n, _, _), .flags(let n, _, _):
      n
    case .status: "Status"
    case .repeated(_, let item, _, _): item
    }
  }

  /// Octets this parameter always occupies, or nil when that depends on the data.
  public var fixedSize: Int? {
    switch self {
    case .uint8, .hex8, .int8, .addressType, .status, .reason, .txPower, .rssi: 1
    case .uint16, .hex16, .int16, .handle, .opcode: 2
    case .uint24, .hex24: 3
    case .uint32, .hex32: 4
    case .hex64: 8
    case .address: 6
    case .interval(_, _, let bytes), .enumeration(_, let bytes, _), .flags(_, let bytes, _): bytes
    case .bytes(_, let count), .text(_, let count): count
    case .lengthPrefixed(_, _, let padTo): padTo.map { 1 + $0 }
    case .rest, .repeated: nil
    }
  }

  /// The fewest octets the parameter can take (arrays empty, data zero-length).
  public var minimumSize: Int {
    switch self {
    case .lengthPrefixed(_, _, let padTo): 1 + (padTo ?? 0)
    case .rest, .repeated: 0
    default: fixedSize ?? 0
    }
  }
}

extension [HCIParameter] {
  /// Octets the whole layout always occupies, or nil when it varies.
  public var fixedSize: Int? {
    var total = 0
    for parameter in self {
      guard let size = parameter.fixedSize else { return nil }
      total += size
    }
    return total
  }

  /// The fewest octets the layout can take.
  public var minimumSize: Int { reduce(0) { $0 + $1.minimumSize } }
}

// MARK: - Interpreter

extension HCIParameter {
  /// Decodes `layout` from the cursor, appending one field per parameter. Stops at
  /// the first parameter the bytes do not hold, after appending what was read.
  /// `values` remembers the integers read so far, for array counts.
  /// `sink`, when given, learns where each parameter was.
  static func decode(
    _ layout: [HCIParameter], _ c: inout ByteCursor, into fields: inout [Field], values: inout ParameterValues,
    sink: HCIParameterSink? = nil
  ) throws(DecodeError) {
    for parameter in layout {
      let start = c.offset
      try parameter.decode(&c, into: &fields, values: &values, sink: sink)
      sink?.add(parameter, from: start, to: c.offset, values: values)
    }
  }

  private func decode(
    _ c: inout ByteCursor, into fields: inout [Field], values: inout ParameterValues, sink: HCIParameterSink?
  ) throws(DecodeError) {
    if isScalar {
      let (value, counted) = try scalarValue(&c)
      if let counted { values[name] = counted }
      fields.append(Field(name, value))
      return
    }
    switch self {
    case .bytes(let name, let count):
      fields.append(Field(name, .bytes(try c.readBytes(count))))
    case .text(let name, let count):
      let octets = try c.readBytes(count)
      let end = octets.firstIndex(of: 0) ?? octets.endIndex
      fields.append(Field(name, .text(String(decoding: octets[..<end], as: UTF8.self))))
    case .lengthPrefixed(let name, let lengthName, let padTo):
      let length = Int(try c.readUInt8())
      values[lengthName] = UInt64(length)
      fields.append(Field(lengthName, .unsigned(UInt64(length), hexDigits: 0)))
      if let padTo {
        var block = try c.slice(padTo)
        fields.append(Field(name, .bytes(Array(block.readRemainingBytes().prefix(length)))))
      } else {
        fields.append(Field(name, .bytes(try c.readBytes(length))))
      }
    case .rest(let name):
      if !c.isAtEnd { fields.append(Field(name, .bytes(c.readRemainingBytes()))) }
    case .repeated(let countFrom, let item, let perBit, let parameters):
      let counted = values[countFrom] ?? 0
      let count = perBit ? counted.nonzeroBitCount : Int(clamping: counted)
      for index in 0..<count {
        let start = c.offset
        var group: [Field] = []
        do {
          try Self.decode(parameters, &c, into: &group, values: &values, sink: sink)
        } catch {
          if !group.isEmpty { fields.append(.group("\(item)[\(index)]", group)) }
          throw error
        }
        fields.append(.group("\(item)[\(index)]", group))
        // Every element takes at least one octet in the tables; stop if one did not.
        if c.offset == start { break }
      }
    case .flags(let name, let bytes, let bits):
      let raw = try Self.read(bytes, &c)
      values[name] = raw
      var set: [String] = []
      for bit in 0..<(bytes * 8) where raw >> UInt64(bit) & 1 == 1 {
        set.append(bit < bits.count && !bits[bit].isEmpty ? bits[bit] : "Bit \(bit)")
      }
      fields.append(Field(name, .flags(raw, hexDigits: bytes * 2, names: set)))
    default:
      break
    }
  }

  /// The value of a scalar parameter (`isScalar`), and the integer that later
  /// parameters may count by, when the parameter is one they can.
  public func scalarValue(_ c: inout ByteCursor) throws(DecodeError) -> (FieldValue, counted: UInt64?) {
    switch self {
    case .uint8: return try unsigned(1, hexDigits: 0, &c)
    case .uint16: return try unsigned(2, hexDigits: 0, &c)
    case .uint24: return try unsigned(3, hexDigits: 0, &c)
    case .uint32: return try unsigned(4, hexDigits: 0, &c)
    case .hex8: return try unsigned(1, hexDigits: 2, &c)
    case .hex16, .handle: return try unsigned(2, hexDigits: 4, &c)
    case .hex24: return try unsigned(3, hexDigits: 6, &c)
    case .hex32: return try unsigned(4, hexDigits: 8, &c)
    case .hex64: return try unsigned(8, hexDigits: 16, &c)
    case .int8: return (.signed(Int64(try c.readInt8())), nil)
    case .int16: return (.signed(Int64(Int16(bitPattern: try c.readUInt16()))), nil)
    case .address: return (.address(try c.readAddress()), nil)
    case .addressType: return try code(1, HCIValueNames.addressType, &c)
    case .status, .reason:
      let value = try c.readUInt8()
      return (.code(UInt64(value), hexDigits: 2, name: HCIStatusCode(rawValue: value).name), UInt64(value))
    case .opcode:
      let value = try c.readUInt16()
      return (.code(UInt64(value), hexDigits: 4, name: HCIOpcode(rawValue: value).name), UInt64(value))
    case .interval(_, let unit, let bytes):
      let raw = try Self.read(bytes, &c)
      return (.measure(raw, hexDigits: bytes * 2, value: Double(raw) * unit.scale, unit: unit.unit), raw)
    case .txPower, .rssi:
      let raw = try c.readUInt8()
      if raw == 0x7F { return (.code(0x7F, hexDigits: 2, name: "Not available"), nil) }
      return (.measure(UInt64(raw), hexDigits: 2, value: Double(Int8(bitPattern: raw)), unit: "dBm"), nil)
    case .enumeration(_, let bytes, let names): return try code(bytes, names, &c)
    case .bytes, .text, .lengthPrefixed, .rest, .repeated, .flags:
      preconditionFailure("\(name) is not a scalar parameter")
    }
  }

  private func unsigned(
    _ bytes: Int, hexDigits: Int, _ c: inout ByteCursor
  ) throws(DecodeError) -> (FieldValue, counted: UInt64?) {
    let raw = try Self.read(bytes, &c)
    return (.unsigned(raw, hexDigits: hexDigits), raw)
  }

  private func code(
    _ bytes: Int, _ names: [UInt64: String], _ c: inout ByteCursor
  ) throws(DecodeError) -> (FieldValue, counted: UInt64?) {
    let raw = try Self.read(bytes, &c)
    let text = names[raw] ?? "Unknown (0x" + hexString(raw, digits: bytes * 2) + ")"
    return (.code(raw, hexDigits: bytes * 2, name: text), raw)
  }

  /// Reads a little-endian unsigned number of 1 to 8 octets.
  private static func read(_ bytes: Int, _ c: inout ByteCursor) throws(DecodeError) -> UInt64 {
    switch bytes {
    case 1: return UInt64(try c.readUInt8())
    case 2: return UInt64(try c.readUInt16())
    case 3: return UInt64(try c.readUInt24())
    case 4: return UInt64(try c.readUInt32())
    case 8: return try c.readUInt64()
    default:
      // Other widths do not occur in the tables; read them octet by octet.
      var block = try c.slice(bytes)
      var value: UInt64 = 0
      for index in 0..<min(bytes, 8) {
        value |= UInt64(try block.readUInt8()) << UInt64(index * 8)
      }
      return value
    }
  }
}

/// Where one HCI parameter is in its record: what a tool that rewrites fields in
/// place (`redact`) needs, from the same interpreter that decodes them.
public struct HCIParameterLocation: Sendable {
  public var parameter: HCIParameter
  /// The parameter's octets, offsets in the record; for `lengthPrefixed`, the
  /// significant data after the length octet.
  public var range: Range<Int>
}

/// Collects parameter locations while a layout is decoded. Decoding without one
/// costs a nil test per parameter.
final class HCIParameterSink {
  var locations: [HCIParameterLocation] = []

  func add(_ parameter: HCIParameter, from start: Int, to end: Int, values: ParameterValues) {
    switch parameter {
    case .repeated:
      // Its elements were added one by one.
      return
    case .lengthPrefixed(_, let lengthName, _):
      let length = Int(clamping: values[lengthName] ?? 0)
      locations.append(
        HCIParameterLocation(parameter: parameter, range: start + 1..<max(start + 1, min(end, start + 1 + length))))
    default:
      locations.append(HCIParameterLocation(parameter: parameter, range: start..<end))
    }
  }
}

/// Lower-case hex of the low `digits` nibbles, zero padded.
func hexString(_ value: UInt64, digits: Int) -> String {
  let text = String(value, radix: 16)
  return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// The integers a layout has read so far, by parameter name, for the counts and
/// lengths later parameters refer to. A list searched from its end: a layout holds a
/// few of them, and hashing each name would cost more than the search.
struct ParameterValues {
  private var entries: [(name: String, value: UInt64)] = []

  subscript(name: String) -> UInt64? {
    get { entries.last { $0.name == name }?.value }
    set {
      if let newValue { entries.append((name, newValue)) }
    }
  }
}
