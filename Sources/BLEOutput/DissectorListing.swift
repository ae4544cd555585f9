import BLEDissect

/// `bleanalyze dissectors`: each format as the dissector text that defines it (which
/// parses back to the same format) or as JSON.
extension OutputBuffer {
  /// The header line with the source as a comment, then the fields, two spaces per level.
  public mutating func appendDissectorDefinition(_ format: DissectorFormat) {
    append(string: format.kind.rawValue)
    append(" ")
    append(string: format.uuid.description)
    append(" ")
    appendQuoted(format.name)
    append("  # ")
    append(string: format.source)
    append("\n")
    appendDissectorFields(format.fields, indent: 2)
  }

  mutating func appendDissectorFields(_ fields: [DissectorField], indent: Int) {
    for field in fields {
      append(contentsOf: indent)
      let mark = count
      if field.type == .group {
        append("group ")
        append(string: field.id)
        append(" ")
        appendQuoted(field.name)
        let attributes = field.attributesText.dropFirst("group".count)
        append(string: String(attributes))
      } else {
        append("field ")
        append(string: field.id)
        append(" ")
        append(string: field.type.spelling)
        append(" ")
        appendQuoted(field.name)
        let attributes = field.attributesText.dropFirst(field.type.spelling.count)
        append(string: String(attributes))
      }
      appendEnumeration(field.enumeration, indent: indent + 2, lineStart: mark - indent)
      append("\n")
      for bits in field.bits {
        append(contentsOf: indent + 2)
        let bitsMark = count
        append(string: bits.positionText)
        append(" ")
        append(string: bits.id)
        append(" ")
        appendQuoted(bits.name)
        appendEnumeration(bits.enumeration, indent: indent + 4, lineStart: bitsMark - indent - 2)
        append("\n")
      }
      appendDissectorFields(field.children, indent: indent + 2)
    }
  }

  /// ` 0=Other 1=Chest`, continued on indented lines of up to 100 characters.
  mutating func appendEnumeration(_ values: [DissectorEnumValue], indent: Int, lineStart: Int) {
    var start = lineStart
    for entry in values {
      let text = "\(entry.value)=" + DissectorField.quotedIfNeeded(entry.name)
      if count - start + 1 + text.count > 100 {
        append("\n")
        start = count
        append(contentsOf: indent)
        append(string: text)
      } else {
        append(" ")
        append(string: text)
      }
    }
  }

  /// `"Heart Rate"` with `"` and `\` escaped.
  mutating func appendQuoted(_ text: String) {
    append("\"")
    for character in text {
      if character == "\"" || character == "\\" { append("\\") }
      append(string: String(character))
    }
    append("\"")
  }

  /// `{"uuid":"2a37","kind":"characteristic","name":…,"builtin":true,"path":…,"line":3,"fields":[…]}`.
  public mutating func appendDissectorJSON(_ format: DissectorFormat) {
    append("{\"uuid\":")
    appendJSONString(format.uuid.description)
    append(",\"kind\":")
    appendJSONString(format.kind.rawValue)
    append(",\"name\":")
    appendJSONString(format.name)
    append(",\"builtin\":")
    append(format.isBuiltin ? "true" : "false")
    append(",\"source\":")
    appendJSONString(format.source)
    append(",\"path\":")
    appendJSONString(format.isBuiltin ? "Dissectors/" + format.path : format.path)
    append(",\"line\":")
    appendDecimal(format.line)
    append(",\"fields\":")
    appendDissectorFieldsJSON(format.fields)
    append("}")
  }

  mutating func appendDissectorFieldsJSON(_ fields: [DissectorField]) {
    append("[")
    for (index, field) in fields.enumerated() {
      if index > 0 { append(",") }
      append("{\"id\":")
      appendJSONString(field.id)
      append(",\"name\":")
      appendJSONString(field.name)
      append(",\"type\":")
      appendJSONString(field.type.spelling)
      if let unit = field.unit {
        append(",\"unit\":")
        appendJSONString(unit)
      }
      if let scale = field.scale {
        append(",\"scale\":")
        appendJSONString(scale.description)
      }
      if field.exponent != 0 {
        append(",\"exp\":")
        appendDecimal(field.exponent)
      }
      if let offset = field.offset {
        append(",\"offset\":")
        appendJSONNumber(offset)
      }
      if field.isHex { append(",\"hex\":true") }
      if let names = field.names {
        append(",\"names\":")
        appendJSONString(names.rawValue)
      }
      if let length = field.length {
        append(",\"length\":")
        switch length {
        case .fixed(let n): appendDecimal(n)
        case .field(let id): appendJSONString(id)
        }
      }
      if !field.conditions.isEmpty {
        append(",\"if\":[")
        for (index, condition) in field.conditions.enumerated() {
          if index > 0 { append(",") }
          appendJSONString(condition.description)
        }
        append("]")
      }
      if field.isOptional { append(",\"optional\":true") }
      if let repetition = field.repetition {
        append(",\"repeat\":")
        switch repetition {
        case .toEnd: append("true")
        case .count(let n): appendDecimal(n)
        case .field(let id): appendJSONString(id)
        }
      }
      appendEnumerationJSON(field.enumeration)
      if !field.bits.isEmpty {
        append(",\"bits\":[")
        for (index, bits) in field.bits.enumerated() {
          if index > 0 { append(",") }
          append("{\"low\":")
          appendDecimal(bits.low)
          append(",\"high\":")
          appendDecimal(bits.high)
          append(",\"id\":")
          appendJSONString(bits.id)
          append(",\"name\":")
          appendJSONString(bits.name)
          appendEnumerationJSON(bits.enumeration)
          append("}")
        }
        append("]")
      }
      if !field.children.isEmpty {
        append(",\"fields\":")
        appendDissectorFieldsJSON(field.children)
      }
      append("}")
    }
    append("]")
  }

  /// `,"values":{"0":"Other","1":"Chest"}`, nothing when there are none.
  mutating func appendEnumerationJSON(_ values: [DissectorEnumValue]) {
    guard !values.isEmpty else { return }
    append(",\"values\":{")
    for (index, entry) in values.enumerated() {
      if index > 0 { append(",") }
      appendJSONString(String(entry.value))
      append(":")
      appendJSONString(entry.name)
    }
    append("}")
  }
}
