import BLEDissect

/// Characteristic and descriptor values decoded by a `DissectorLibrary`, as JSON
/// (`att.decoded`) and as one line of text.
extension OutputBuffer {
  /// A JSON object keyed by field id: numbers as numbers, named values as their name,
  /// flags as an object of their bits, groups as objects, repeated fields as arrays, text
  /// as strings, bytes as hex.
  ///
  ///     {"flags":{"value_16":false,"contact":"Detected","energy_present":false,"rr_present":true},
  ///      "heart_rate":72,"rr_interval":[0.7705078125,0.7822265625]}
  public mutating func appendDecodedJSON(_ fields: [DecodedField]) {
    append("{")
    var written: Set<String> = []
    for field in fields where written.insert(field.id).inserted {
      if written.count > 1 { append(",") }
      appendJSONString(field.id)
      append(":")
      appendDecodedJSONValue(field)
    }
    append("}")
  }

  mutating func appendDecodedJSONValue(_ field: DecodedField) {
    switch field.value {
    case .unsigned(let v):
      if field.children.isEmpty { appendDecimal(v) } else { appendDecodedJSON(field.children) }
    case .signed(let v): appendDecimal(Int(v))
    case .real(let v, _): appendJSONNumber(v)
    case .text(let t): appendJSONString(t)
    case .bytes(let b):
      append("\"")
      appendHexBytes(b)
      append("\"")
    case .boolean(let b): append(b ? "true" : "false")
    case .named(_, let name): appendJSONString(name)
    case .uuid(let u): appendJSONString(u.description)
    case .list(let items):
      append("[")
      for (index, item) in items.enumerated() {
        if index > 0 { append(",") }
        appendDecodedJSONValue(item)
      }
      append("]")
    case .group: appendDecodedJSON(field.children)
    }
  }

  /// A double as JSON: integral values without a fraction, others in the shortest form
  /// that reads back the same; NaN and infinities (which JSON lacks) as null.
  public mutating func appendJSONNumber(_ value: Double) {
    guard value.isFinite else { return append("null") }
    if value == value.rounded(), value.magnitude < 1e15 {
      appendDecimal(Int(value))
    } else {
      append(string: value.description)
    }
  }

  /// One line for people: `Sensor Contact Status Detected, Heart Rate Measurement Value
  /// 72 bpm, RR-Interval 0.7705 s, 0.7822 s`. Fields that only switch others on or off
  /// are left out, since what they switch shows; other flags show the bits that are set;
  /// a group reads `Time Stamp (Year 2024, Month 5, …)`.
  public mutating func appendDecodedText(_ fields: [DecodedField]) {
    var first = true
    appendDecodedParts(fields, first: &first)
  }

  mutating func appendDecodedParts(_ fields: [DecodedField], first: inout Bool) {
    func separate(_ first: inout Bool, _ out: inout OutputBuffer) {
      if !first { out.append(", ") }
      first = false
    }
    for field in fields where !field.isSwitch {
      switch field.value {
      case .group:
        separate(&first, &self)
        append(string: field.name)
        append(" (")
        var inner = true
        appendDecodedParts(field.children, first: &inner)
        append(")")
      case .list(let items):
        guard !items.isEmpty else { continue }
        separate(&first, &self)
        append(string: field.name)
        for (index, item) in items.enumerated() {
          append(index == 0 ? " " : ", ")
          if case .group = item.value {
            append("(")
            var inner = true
            appendDecodedParts(item.children, first: &inner)
            append(")")
          } else {
            appendDecodedTextValue(item)
          }
        }
      case .unsigned where !field.children.isEmpty:
        let visible = field.children.filter { !$0.isSwitch }
        let booleans = visible.filter { if case .boolean = $0.value { true } else { false } }
        // "none" only says something when the field is nothing but flags (a CCCD).
        let set = booleans.filter { $0.value == .boolean(true) }.map(\.name)
        if !set.isEmpty || (!booleans.isEmpty && booleans.count == field.children.count) {
          separate(&first, &self)
          append(string: field.name)
          append(" ")
          append(string: set.isEmpty ? "none" : set.joined(separator: "|"))
        }
        for bits in visible where booleans.allSatisfy({ $0.id != bits.id }) {
          separate(&first, &self)
          append(string: bits.name)
          append(" ")
          appendDecodedTextValue(bits)
        }
      default:
        separate(&first, &self)
        append(string: field.name)
        append(" ")
        appendDecodedTextValue(field)
      }
    }
  }

  /// A value with its unit: `72 bpm`, `0x004c`, `Chest`, `"Polar H10"`.
  mutating func appendDecodedTextValue(_ field: DecodedField) {
    var withUnit = true
    switch field.value {
    case .unsigned(let v):
      if field.isHex { appendHex(v, width: field.hexDigits) } else { appendDecimal(v) }
    case .signed(let v):
      if field.isHex, let raw = field.raw { appendHex(raw, width: field.hexDigits) } else { appendDecimal(Int(v)) }
    case .real(let v, let decimals): appendReal(v, decimals: decimals)
    case .text(let t):
      append("\"")
      append(string: t)
      append("\"")
      withUnit = false
    case .bytes(let b):
      if b.isEmpty { append("(empty)") } else { appendHexBytes(b) }
      withUnit = false
    case .boolean(let b):
      append(b ? "true" : "false")
      withUnit = false
    case .named(_, let name):
      append(string: name)
      withUnit = false
    case .uuid(let u):
      append(string: u.description)
      if let name = AssignedNumbers.name(of: u) {
        append(" (")
        append(string: name)
        append(")")
      }
      withUnit = false
    case .list, .group:
      var first = true
      appendDecodedParts([field], first: &first)
      withUnit = false
    }
    if withUnit, let unit = field.unit {
      append(" ")
      append(string: unit)
    }
  }

  /// A number with at most `decimals` decimals and no trailing zeros (`36.6`, `0.7705`);
  /// negative `decimals`: the shortest form that reads back the same.
  public mutating func appendReal(_ value: Double, decimals: Int) {
    guard value.isFinite else { return append(value.isNaN ? "NaN" : value < 0 ? "-INFINITY" : "+INFINITY") }
    var power = 1.0
    for _ in 0..<max(decimals, 0) { power *= 10 }
    guard decimals >= 0, (value * power).magnitude < 9e15 else {
      if value == value.rounded(), value.magnitude < 1e15 { return appendDecimal(Int(value)) }
      return append(string: value.description)
    }
    let scaled = Int64((value * power).rounded())
    if scaled < 0 { append("-") }
    let magnitude = scaled.magnitude
    let unit = UInt64(power)
    appendDecimal(magnitude / unit)
    var fraction = magnitude % unit
    guard fraction != 0 else { return }
    var digits = decimals
    while fraction % 10 == 0 {
      fraction /= 10
      digits -= 1
    }
    append(".")
    appendDecimal(fraction, minimumDigits: digits)
  }

  /// `{"id":…,"severity":…,"message":…}`.
  public mutating func appendDiagnosticJSON(_ diagnostic: Diagnostic) {
    append("{\"id\":")
    appendJSONString(diagnostic.id)
    append(",\"severity\":")
    appendJSONString(diagnostic.severity.rawValue)
    append(",\"message\":")
    appendJSONString(diagnostic.message)
    append("}")
  }
}
