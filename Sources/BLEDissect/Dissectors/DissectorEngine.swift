/// Decodes one value with a `DissectorFormat`. Never throws: a value that ends inside a
/// field keeps the fields before it and reports `att.decoded.truncated`; bytes after the
/// last field are kept as an `_extra` field and reported as `att.decoded.extra`.
struct DissectorEngine {
  let bytes: [UInt8]
  var position = 0
  /// The raw integer of every field and bit decoded so far, by id, for `if=`, `repeat=`
  /// and `length=`; a later occurrence replaces an earlier one.
  var values: [String: Int64] = [:]
  /// Ids that `if=`, `repeat=` or `length=` name.
  let switches: Set<String>
  var diagnostic: Diagnostic?

  /// The id of the field that holds bytes after the last field.
  static let extraID = "_extra"

  static func decode(_ value: [UInt8], with format: DissectorFormat) -> DecodeResult {
    var engine = DissectorEngine(bytes: value, switches: Self.switches(in: format.fields))
    var fields = engine.decodeList(format.fields)
    if engine.diagnostic == nil, engine.position < value.count {
      let extra = Array(value[engine.position...])
      fields.append(DecodedField(id: extraID, name: "Extra bytes", value: .bytes(extra)))
      engine.diagnostic = Diagnostic(
        id: "att.decoded.extra", severity: .warning,
        "\(format.name) value has \(extra.count) byte\(extra.count == 1 ? "" : "s") after its last field, "
          + "from offset \(engine.position)")
    }
    return DecodeResult(format: format, fields: fields, diagnostic: engine.diagnostic)
  }

  static func switches(in fields: [DissectorField]) -> Set<String> {
    var result: Set<String> = []
    for field in fields {
      for condition in field.conditions { result.insert(condition.id) }
      if case .field(let id) = field.repetition { result.insert(id) }
      if case .field(let id) = field.length { result.insert(id) }
      result.formUnion(switches(in: field.children))
    }
    return result
  }

  var remaining: Int { bytes.count - position }
  var stopped: Bool { diagnostic != nil }

  mutating func decodeList(_ fields: [DissectorField]) -> [DecodedField] {
    var result: [DecodedField] = []
    for field in fields {
      if stopped { break }
      guard field.conditions.allSatisfy({ $0.holds(for: values[$0.id]) }) else { continue }
      if field.isOptional && remaining == 0 { continue }
      guard let repetition = field.repetition else {
        if let one = decodeOne(field) { result.append(one) }
        continue
      }
      let count: Int?
      switch repetition {
      case .toEnd: count = nil
      case .count(let n): count = n
      case .field(let id): count = max(0, Int(clamping: values[id] ?? 0))
      }
      var items: [DecodedField] = []
      while !stopped {
        if let count, items.count >= count { break }
        if count == nil, remaining == 0 { break }
        let start = position
        guard let item = decodeOne(field) else { break }
        items.append(item)
        // An occurrence that takes no bytes (all its members absent) would repeat forever.
        if position == start { break }
      }
      result.append(DecodedField(id: field.id, name: field.name, value: .list(items), unit: field.unit))
    }
    return result
  }

  mutating func truncated(_ field: DissectorField, needs: Int) {
    diagnostic = Diagnostic(
      id: "att.decoded.truncated", severity: .warning,
      "value ends inside \(field.name) (\(field.type.spelling)) at offset \(position): needs \(needs) "
        + "byte\(needs == 1 ? "" : "s"), \(remaining) left")
  }

  /// One occurrence of a field or group; nil when the value ended before it.
  mutating func decodeOne(_ field: DissectorField) -> DecodedField? {
    if field.type == .group {
      // Members of a repeated group are per occurrence: forget the previous one's.
      for id in Self.ids(in: field.children) { values[id] = nil }
      let children = decodeList(field.children)
      if stopped && children.isEmpty { return nil }
      return DecodedField(id: field.id, name: field.name, value: .group, children: children)
    }
    let size: Int
    if let fixed = field.type.fixedSize {
      size = fixed
    } else if let length = field.length {
      switch length {
      case .fixed(let n): size = n
      case .field(let id): size = max(0, Int(clamping: values[id] ?? 0))
      }
    } else if field.type == .uuid {
      size = remaining >= 16 ? 16 : remaining == 4 ? 4 : 2
    } else {
      size = remaining
    }
    guard remaining >= size else {
      truncated(field, needs: size)
      return nil
    }
    let chunk = bytes[position..<position + size]
    position += size
    var decoded = DecodedField(id: field.id, name: field.name, value: .group, unit: field.unit)
    if field.type.isNumeric { decoded.hexDigits = 2 * size }
    switch field.type {
    case .unsigned(let n, let bigEndian), .signed(let n, let bigEndian):
      var raw: UInt64 = 0
      for (index, byte) in chunk.enumerated() {
        raw |= UInt64(byte) << (8 * UInt64(bigEndian ? n - 1 - index : index))
      }
      var integer = Int64(bitPattern: raw)
      if case .signed = field.type, n < 8 {
        let shift = UInt64(64 - 8 * n)
        integer = Int64(bitPattern: raw << shift) >> shift
      }
      values[field.id] = integer
      decoded.raw = raw
      decoded.isHex = field.isHex
      decoded.value = number(field, integer: integer, signed: field.type != .unsigned(bytes: n, bigEndian: bigEndian))
      decoded.children = field.bits.map { decodeBits($0, of: raw) }
    case .float32:
      let float = Float(bitPattern: UInt32(littleEndian(chunk)))
      decoded.raw = littleEndian(chunk)
      // Through the shortest text of the Float, so that 36.6f reads 36.6, not 36.599998.
      decoded.value = scaled(field, Double(String(float)) ?? Double(float), exponent: 0, decimals: -1)
    case .float64:
      decoded.raw = littleEndian(chunk)
      decoded.value = scaled(field, Double(bitPattern: littleEndian(chunk)), exponent: 0, decimals: -1)
    case .sfloat, .float:
      let raw = littleEndian(chunk)
      decoded.raw = raw
      decoded.value = medical(field, raw: raw, bits: size * 8)
    case .utf8:
      // Devices often pad strings with NULs; they are not text.
      var text = Array(chunk)
      while text.last == 0 { text.removeLast() }
      decoded.value = .text(String(decoding: text, as: UTF8.self))
    case .bytes:
      decoded.value = .bytes(Array(chunk))
    case .uuid16, .uuid32, .uuid128, .uuid:
      let raw = chunk.reversed().reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
      let uuid =
        switch size {
        case 2: BluetoothUUID(uuid16: UInt16(raw))
        case 4: BluetoothUUID(uuid32: UInt32(raw))
        default: BluetoothUUID(uuid128: raw)
        }
      decoded.value = .uuid(uuid)
    case .group:
      break
    }
    return decoded
  }

  func littleEndian(_ chunk: ArraySlice<UInt8>) -> UInt64 {
    chunk.reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// An integer's value: its name, or scaled, or as it is.
  func number(_ field: DissectorField, integer: Int64, signed: Bool) -> DecodedValue {
    if let entry = field.enumeration.first(where: { $0.value == integer }) {
      return .named(raw: integer, name: entry.name)
    }
    if let table = field.names, let name = Self.name(integer, in: table) {
      return .named(raw: integer, name: name)
    }
    if field.scale != nil || field.exponent != 0 || field.offset != nil {
      return scaled(field, Double(integer), exponent: 0, decimals: 0)
    }
    return signed ? .signed(integer) : .unsigned(UInt64(bitPattern: integer))
  }

  static func name(_ value: Int64, in table: DissectorNameTable) -> String? {
    guard let value = UInt16(exactly: value) else { return nil }
    switch table {
    case .appearance: return AssignedNumbers.appearance(value)
    case .company: return AssignedNumbers.company(value)
    }
  }

  /// `value × scale × 10^(exponent + exp) + offset`, computed as one division so that
  /// decimal scales give the closest double.
  func scaled(_ field: DissectorField, _ value: Double, exponent: Int, decimals: Int) -> DecodedValue {
    let power = exponent + field.exponent
    var numerator = value * Double(field.scale?.numerator ?? 1)
    var denominator = Double(field.scale?.denominator ?? 1)
    if power > 0 { numerator *= Self.powerOfTen(power) } else { denominator *= Self.powerOfTen(-power) }
    var result = numerator / denominator
    if let offset = field.offset { result += offset }
    guard decimals >= 0 else { return .real(result, decimals: -1) }
    // Decimals from the resolution: all of them when it has few (0.01 → 2, 1/8 → 3,
    // 10^-5 → 5), else one past its first significant digit (1/1024 → 5).
    let resolution =
      Double(field.scale?.numerator.magnitude ?? 1) / denominator
      * (power > 0 ? Self.powerOfTen(power) : 1)
    var places = 0
    var first: Int?
    var scaledResolution = resolution
    while places < 15, (scaledResolution - scaledResolution.rounded()).magnitude > 1e-9 * max(1, scaledResolution) {
      scaledResolution *= 10
      places += 1
      if first == nil, scaledResolution >= 1 { first = places }
    }
    if places > 6, let first { places = first + 1 }
    return .real(result, decimals: places)
  }

  static func powerOfTen(_ n: Int) -> Double {
    var result = 1.0
    for _ in 0..<min(n, 308) { result *= 10 }
    return result
  }

  /// IEEE 11073-20601 SFLOAT (4-bit exponent, 12-bit mantissa) and FLOAT (8-bit exponent,
  /// 24-bit mantissa), both base 10, with their special values.
  func medical(_ field: DissectorField, raw: UInt64, bits: Int) -> DecodedValue {
    let mantissaBits = bits == 16 ? 12 : 24
    let mantissaMask = (UInt64(1) << mantissaBits) - 1
    let rawMantissa = raw & mantissaMask
    let rawExponent = raw >> mantissaBits
    if rawExponent == 0 {
      let top = UInt64(1) << (mantissaBits - 1)
      let specials: [(UInt64, String)] = [
        (top - 1, "NaN"), (top, "NRes"), (top - 2, "+INFINITY"), (top + 2, "-INFINITY"), (top + 1, "Reserved"),
      ]
      if let special = specials.first(where: { $0.0 == rawMantissa }) {
        return .named(raw: Int64(raw), name: special.1)
      }
    }
    let exponentBits = bits - mantissaBits
    let exponent = Int(Int64(bitPattern: rawExponent << UInt64(64 - exponentBits)) >> UInt64(64 - exponentBits))
    let mantissa = Int64(bitPattern: rawMantissa << UInt64(64 - mantissaBits)) >> UInt64(64 - mantissaBits)
    let value = scaled(field, Double(mantissa), exponent: exponent, decimals: 0)
    return value
  }

  /// One `bit` or `bits` line of an integer.
  mutating func decodeBits(_ bits: DissectorBits, of raw: UInt64) -> DecodedField {
    let mask: UInt64 = bits.width >= 64 ? ~0 : (1 << UInt64(bits.width)) - 1
    let part = raw >> UInt64(bits.low) & mask
    values[bits.id] = Int64(bitPattern: part)
    let value: DecodedValue
    if let entry = bits.enumeration.first(where: { $0.value == Int64(bitPattern: part) }) {
      value = .named(raw: Int64(bitPattern: part), name: entry.name)
    } else if bits.width == 1 && bits.enumeration.isEmpty {
      value = .boolean(part == 1)
    } else {
      value = .unsigned(part)
    }
    return DecodedField(
      id: bits.id, name: bits.name, value: value, raw: part, hexDigits: (bits.width + 3) / 4,
      isSwitch: switches.contains(bits.id))
  }

  /// Ids of the fields and bits inside a group.
  static func ids(in fields: [DissectorField]) -> [String] {
    fields.flatMap { [$0.id] + $0.bits.map(\.id) + ids(in: $0.children) }
  }
}

extension DissectorFormat {
  /// Decodes a value with this format; nil when the format only names its UUID.
  public func decode(_ value: [UInt8]) -> DecodeResult? {
    fields.isEmpty ? nil : DissectorEngine.decode(value, with: self)
  }
}
