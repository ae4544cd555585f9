extension [DecodedField] {
  /// The decoded value as the `show -v` tree: `Heart Rate Measurement Value: 0x48 (72 bpm)`,
  /// `Flags: 0x16 (RR-Interval Present)` with a line per bit, one line per repeated element.
  public var fieldTree: [Field] { map(\.field) }
}

extension DecodedField {
  /// This field as a node of the `show -v` tree.
  public var field: Field {
    let digits = max(hexDigits, 1)
    switch value {
    case .unsigned(let v):
      if !children.isEmpty {
        let set = children.compactMap { $0.value == .boolean(true) ? $0.name : nil }
        return Field(name, .flags(v, hexDigits: digits, names: set), children: children.fieldTree)
      }
      if let unit { return Field(name, .measure(v, hexDigits: digits, value: Double(v), unit: unit)) }
      return Field(name, .unsigned(v, hexDigits: isHex ? digits : 0))
    case .signed(let v):
      if let unit, let raw { return Field(name, .measure(raw, hexDigits: digits, value: Double(v), unit: unit)) }
      return Field(name, .signed(v))
    case .real(let v, _):
      guard let raw else { return Field(name, .text(unit.map { "\(v) \($0)" } ?? "\(v)")) }
      return Field(name, .measure(raw, hexDigits: digits, value: v, unit: unit ?? ""))
    case .text(let t): return Field(name, .text(t))
    case .bytes(let b): return Field(name, .bytes(b))
    case .boolean(let b): return Field(name, .unsigned(b ? 1 : 0, hexDigits: 0))
    case .named(let rawValue, let text):
      return Field(
        name, .code(raw ?? UInt64(bitPattern: rawValue), hexDigits: digits, name: text), children: children.fieldTree)
    case .uuid(let u): return Field(name, .uuid(u))
    case .list(let items): return .group(name, items.fieldTree)
    case .group: return .group(name, children.fieldTree)
    }
  }

}
