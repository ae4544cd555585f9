import BLEDissect

extension OutputBuffer {
  /// `D4:36:39:67:A2:61`, written in place.
  public mutating func appendAddress(_ address: DeviceAddress) {
    withUnsafeTemporaryAllocation(byteCount: 17, alignment: 1) { buffer in
      address.write(into: buffer)
      append(contentsOf: UnsafeRawBufferPointer(buffer))
    }
  }

  /// Bytes as contiguous lower-case hex (`0a1b2c`).
  public mutating func appendHexBytes(_ bytes: some Sequence<UInt8>) {
    let contiguous: Void? = bytes.withContiguousStorageIfAvailable { appendHexBytes(UnsafeRawBufferPointer($0)) }
    guard contiguous == nil else { return }
    for byte in bytes {
      append(Self.hexDigit(UInt64(byte >> 4)))
      append(Self.hexDigit(UInt64(byte)))
    }
  }

  /// A physical value with up to three decimals and no trailing zeros (`30`, `7.5`, `0.625`).
  public mutating func appendMeasure(_ value: Double) {
    guard value.isFinite else { return append("nan") }
    let thousandths = Int64((value * 1000).rounded())
    if thousandths < 0 { append(UInt8(ascii: "-")) }
    let magnitude = thousandths.magnitude
    appendDecimal(magnitude / 1000)
    var fraction = magnitude % 1000
    guard fraction != 0 else { return }
    var digits = 3
    while fraction % 10 == 0 {
      fraction /= 10
      digits -= 1
    }
    append(UInt8(ascii: "."))
    appendDecimal(fraction, minimumDigits: digits)
  }

  /// How a field's value reads in text: `0x0018 (30 ms)`, `0x13 (Remote User
  /// Terminated Connection)`, `D4:36:39:67:A2:61`, `0a1b`.
  public mutating func appendFieldValue(_ value: FieldValue) {
    switch value {
    case .none: break
    case .unsigned(let v, let digits):
      if digits > 0 { appendHex(v, width: digits) } else { appendDecimal(v) }
    case .signed(let v): appendDecimal(Int(v))
    case .code(let v, let digits, let name):
      appendHex(v, width: digits)
      append(" (")
      append(string: name)
      append(")")
    case .flags(let v, let digits, let names):
      appendHex(v, width: digits)
      if !names.isEmpty {
        append(" (")
        append(string: names.joined(separator: ", "))
        append(")")
      }
    case .measure(let raw, let digits, let v, let unit):
      // A measure with no wire encoding of its own (hexDigits 0) shows only its value.
      if digits > 0 {
        appendHex(raw, width: digits)
        append(" (")
      }
      appendMeasure(v)
      append(" ")
      append(string: unit)
      if digits > 0 { append(")") }
    case .address(let a): appendAddress(a)
    case .uuid(let u): append(string: u.description)
    case .bytes(let b): b.isEmpty ? append("(empty)") : appendHexBytes(b)
    case .text(let t):
      append(UInt8(ascii: "\""))
      append(string: t)
      append(UInt8(ascii: "\""))
    }
  }

  /// The tree of `show -v`, one field per line, two spaces per level.
  public mutating func appendFieldTree(_ fields: [Field], indent: Int) {
    for field in fields {
      append(contentsOf: indent)
      append(string: field.name)
      if field.value != .none {
        append(": ")
        appendFieldValue(field.value)
      }
      append(0x0A)
      appendFieldTree(field.children, indent: indent + 2)
    }
  }

  /// The tree as JSON: `[{"name":…,"value":…,"text":…,"fields":[…]}]`. `value` is the
  /// number (or address, UUID, hex, string); `text` the rendering when it says more.
  public mutating func appendFieldTreeJSON(_ fields: [Field]) {
    append("[")
    for (index, field) in fields.enumerated() {
      if index > 0 { append(",") }
      append("{\"name\":")
      appendJSONString(field.name)
      switch field.value {
      case .none: break
      case .unsigned(let v, _):
        append(",\"value\":")
        appendDecimal(v)
      case .signed(let v):
        append(",\"value\":")
        appendDecimal(Int(v))
      case .code(let v, _, _), .flags(let v, _, _), .measure(let v, _, _, _):
        append(",\"value\":")
        appendDecimal(v)
        append(",\"text\":\"")
        appendFieldValue(field.value)
        append("\"")
      case .address(let a):
        append(",\"value\":")
        appendJSONString(a.description)
      case .uuid(let u):
        append(",\"value\":")
        appendJSONString(u.description)
      case .bytes(let b):
        append(",\"value\":\"")
        appendHexBytes(b)
        append("\"")
      case .text(let t):
        append(",\"value\":")
        appendJSONString(t)
      }
      if !field.children.isEmpty {
        append(",\"fields\":")
        appendFieldTreeJSON(field.children)
      }
      append("}")
    }
    append("]")
  }

  mutating func append(contentsOf spaces: Int) {
    for _ in 0..<spaces { append(UInt8(ascii: " ")) }
  }
}

/// `appendMeasure` as a string: `30`, `7.5`, `0.625`.
func measureText(_ value: Double) -> String {
  var out = OutputBuffer(fd: -1, flushThreshold: 64)
  out.appendMeasure(value)
  return String(decoding: out.bytes, as: UTF8.self)
}

/// `value / scale` with exactly `digits` decimals (`scale` is 10^digits): `3.624707`, `30.000`.
func fixedPointText(_ value: Int64, scale: Int64, digits: Int) -> String {
  let fraction = String(value.magnitude % UInt64(scale))
  return (value < 0 ? "-" : "") + "\(value.magnitude / UInt64(scale))."
    + String(repeating: "0", count: digits - fraction.count) + fraction
}
