import BLEAnalysis

/// vendor.schema.json, derived from the protocols' field tables: one `$defs` entry per
/// protocol object of show's record. A test keeps the file equal to `text`
/// (`BLEANALYZE_RECORD=1` rewrites it), so the schema cannot drift from the tables.
public enum VendorSchema {
  public static var text: String {
    var lines = [
      "{",
      "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",",
      "  \"$id\": \"urn:bleanalyze:schema:vendor:\(schemaVersion)\",",
      "  \"title\": \"bleanalyze protocols over GATT\",",
      "  \"description\": \(quoted("The objects show's record carries for the protocols run over GATT characteristics (mcumgr, Nordic DFU, Nordic UART, HID over GATT, Apple ANCS and AMS), generated from their field tables. Each field's description names its filter field. Part of the data contract of schema_version \(schemaVersion): names are stable and extra fields are welcome.")),",
      "  \"$defs\": {",
    ]
    for (tableIndex, table) in VendorFieldTable.all.enumerated() {
      lines.append("    \(quoted(table.name)): {")
      lines.append("      \"description\": \(quoted(table.description)),")
      lines.append("      \"type\": \"object\",")
      lines.append("      \"properties\": {")
      // Fields whose keys share a prefix (`progress.offset`) form one nested object.
      var groups: [(key: String, fields: [VendorField])] = []
      for field in table.fields {
        let parts = field.key.split(separator: ".", maxSplits: 1)
        let key = String(parts[0])
        if parts.count == 2, let last = groups.last, last.key == key, last.fields.first?.key.contains(".") == true {
          groups[groups.count - 1].fields.append(field)
        } else {
          groups.append((key, [field]))
        }
      }
      for (groupIndex, group) in groups.enumerated() {
        let comma = groupIndex == groups.count - 1 ? "" : ","
        if group.fields.count == 1, !group.fields[0].key.contains(".") {
          lines.append("        \(quoted(group.key)): \(property(group.fields[0]))\(comma)")
          continue
        }
        lines.append("        \(quoted(group.key)): {")
        lines.append("          \"type\": \"object\",")
        lines.append("          \"properties\": {")
        for (index, field) in group.fields.enumerated() {
          let name = String(field.key.split(separator: ".", maxSplits: 1).last ?? "")
          lines.append("            \(quoted(name)): \(property(field))\(index == group.fields.count - 1 ? "" : ",")")
        }
        lines.append("          }")
        lines.append("        }\(comma)")
      }
      lines.append("      }")
      lines.append("    }\(tableIndex == VendorFieldTable.all.count - 1 ? "" : ",")")
    }
    lines += ["  }", "}", ""]
    return lines.joined(separator: "\n")
  }

  private static func property(_ field: VendorField) -> String {
    var description = field.label
    if let filter = field.filter { description += ". Filter: \(filter)" }
    let type: String =
      switch field.kind {
      case .integer: "\"type\": \"integer\""
      case .decimal: "\"type\": \"number\""
      case .string: "\"type\": \"string\""
      case .bool: "\"type\": \"boolean\""
      case .bytes: "\"type\": \"string\", \"pattern\": \"^([0-9a-f]{2})*$\""
      case .strings: "\"type\": \"array\", \"items\": { \"type\": \"string\" }"
      case .integers: "\"type\": \"array\", \"items\": { \"type\": \"integer\" }"
      case .cbor:
        "\"$comment\": \"CBOR as JSON: text-keyed maps as objects, byte strings as {\\\"$bytes\\\": hex}, tags as {\\\"$tag\\\": n, \\\"value\\\": …}\""
      }
    return "{ \"description\": \(quoted(description)), \(type) }"
  }

  private static func quoted(_ text: String) -> String {
    var out = "\""
    for character in text.unicodeScalars {
      switch character {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      default: out.unicodeScalars.append(character)
      }
    }
    return out + "\""
  }
}
