import BLEAnalysis
import BLEDissect

/// Show's renderings of the protocols over GATT: one JSON object per protocol and the
/// `-v` group, both from the protocol's field table, and the words after the ATT part
/// of the text line.
enum VendorRendering {
  // MARK: - JSON

  /// `,"mcumgr":{"version":1,…,"progress":{"offset":320,…}}` for each record.
  static func appendJSON(_ records: [VendorRecord], into out: inout OutputBuffer) {
    for record in records {
      let table = VendorFieldTable.of(record)
      out.append(",\"")
      out.append(string: table.name)
      out.append("\":{")
      var first = true
      // The open nested object (`progress`), and whether it has a member yet.
      var group: Substring?
      var groupFirst = true
      for field in table.fields {
        guard let value = field.read(record) else { continue }
        let parts = field.key.split(separator: ".", maxSplits: 1)
        let prefix = parts.count == 2 ? parts[0] : nil
        if prefix != group, group != nil {
          out.append("}")
          group = nil
        }
        if let prefix, group == nil {
          if !first { out.append(",") }
          first = false
          out.appendJSONString(String(prefix))
          out.append(":{")
          group = prefix
          groupFirst = true
        }
        if group != nil {
          if !groupFirst { out.append(",") }
          groupFirst = false
        } else {
          if !first { out.append(",") }
          first = false
        }
        out.appendJSONString(String(parts.last ?? ""))
        out.append(":")
        appendJSONValue(value, into: &out)
      }
      if group != nil { out.append("}") }
      out.append("}")
    }
  }

  static func appendJSONValue(_ value: VendorValue, into out: inout OutputBuffer) {
    switch value {
    case .integer(let n): out.appendDecimal(Int(n))
    case .decimal(let d):
      if d.isFinite { out.appendMeasure(d) } else { out.append("null") }
    case .string(let s): out.appendJSONString(s)
    case .bool(let b): out.append(b ? "true" : "false")
    case .bytes(let b):
      out.append("\"")
      out.appendHexBytes(b)
      out.append("\"")
    case .strings(let list): appendJSONArray(list, into: &out) { $1.appendJSONString($0) }
    case .integers(let list): appendJSONArray(list, into: &out) { $1.appendDecimal(Int($0)) }
    case .cbor(let item): appendCBOR(item, into: &out)
    }
  }

  private static func appendJSONArray<T>(
    _ items: [T], into out: inout OutputBuffer, _ item: (T, inout OutputBuffer) -> Void
  ) {
    out.append("[")
    for (index, element) in items.enumerated() {
      if index > 0 { out.append(",") }
      item(element, &out)
    }
    out.append("]")
  }

  /// A CBOR item as JSON: maps with text keys as objects (other keys as their JSON
  /// text), byte strings as `{"$bytes":"hex"}`, tags as `{"$tag":n,"value":…}`,
  /// undefined and non-finite floats as null.
  static func appendCBOR(_ item: CBORValue, into out: inout OutputBuffer) {
    switch item {
    case .unsigned(let n): out.appendDecimal(n)
    case .negative(let n):
      appendNegative(n, into: &out)
    case .bytes(let bytes):
      out.append("{\"$bytes\":\"")
      out.appendHexBytes(bytes)
      out.append("\"}")
    case .text(let text): out.appendJSONString(text)
    case .array(let items): appendJSONArray(items, into: &out) { appendCBOR($0, into: &$1) }
    case .map(let entries):
      out.append("{")
      for (index, entry) in entries.enumerated() {
        if index > 0 { out.append(",") }
        out.appendJSONString(entry.key.text ?? cborKeyText(entry.key))
        out.append(":")
        appendCBOR(entry.value, into: &out)
      }
      out.append("}")
    case .tagged(let tag, let value):
      out.append("{\"$tag\":")
      out.appendDecimal(tag)
      out.append(",\"value\":")
      appendCBOR(value, into: &out)
      out.append("}")
    case .bool(let value): out.append(value ? "true" : "false")
    case .null, .undefined: out.append("null")
    case .simple(let value): out.appendDecimal(Int(value))
    case .float(let value):
      if value.isFinite { out.append(string: "\(value)") } else { out.append("null") }
    }
  }

  /// A map key that is not text, as a JSON member name: its text form in `-v`.
  static func cborKeyText(_ key: CBORValue) -> String {
    var out = OutputBuffer(fd: -1, flushThreshold: 256)
    appendCBORText(key, limit: 64, into: &out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  /// −1 − n, which may be −2^64.
  static func appendNegative(_ n: UInt64, into out: inout OutputBuffer) {
    out.append("-")
    if n == .max { out.append("18446744073709551616") } else { out.appendDecimal(n + 1) }
  }

  // MARK: - -v

  /// One group per record: `mcumgr` with a line per field, a CBOR body as a subtree.
  static func fields(_ records: [VendorRecord]) -> [Field] {
    records.map { record in
      let table = VendorFieldTable.of(record)
      var children: [Field] = []
      for field in table.fields {
        guard let value = field.read(record) else { continue }
        switch value {
        case .cbor(let item): children.append(Field(field.label, .none, children: cborFields(item)))
        default: children.append(Field(field.label, fieldValue(value, key: field.key)))
        }
      }
      return Field.group(table.name, children)
    }
  }

  /// A decimal's unit, from its key: `latency_ms`, `progress.percent`, `progress.rate_kbps`.
  private static func unit(_ key: String) -> String {
    key.hasSuffix("_ms") ? "ms" : key.hasSuffix("percent") ? "%" : key.hasSuffix("_kbps") ? "kB/s" : ""
  }

  private static func fieldValue(_ value: VendorValue, key: String) -> FieldValue {
    switch value {
    case .integer(let n): .signed(n)
    // The raw number is in thousandths of the unit (µs for a latency, as the ATT fields' are).
    case .decimal(let d):
      .measure(d.isFinite ? UInt64(clamping: Int64((d * 1000).rounded())) : 0, hexDigits: 0, value: d, unit: unit(key))
    case .string(let s): .text(s)
    case .bool(let b): .text(b ? "true" : "false")
    case .bytes(let b): .bytes(b)
    case .strings(let list): .text(list.joined(separator: ", "))
    case .integers(let list): .text(list.map(String.init).joined(separator: ", "))
    case .cbor(let item): .text(cborKeyText(item))
    }
  }

  private static func cborFields(_ item: CBORValue) -> [Field] {
    switch item {
    case .map(let entries):
      entries.map { entry in
        let name = entry.key.text ?? cborKeyText(entry.key)
        switch entry.value {
        case .map, .array: return Field(name, .none, children: cborFields(entry.value))
        default: return Field(name, cborScalar(entry.value))
        }
      }
    case .array(let items):
      items.enumerated().map { index, element in
        switch element {
        case .map, .array: Field("[\(index)]", .none, children: cborFields(element))
        default: Field("[\(index)]", cborScalar(element))
        }
      }
    default: [Field("value", cborScalar(item))]
    }
  }

  /// A CBOR item that is not a map or array, as a field value: numbers as numbers, byte
  /// strings as bytes, text as text, the rest in CBOR's diagnostic words.
  private static func cborScalar(_ item: CBORValue) -> FieldValue {
    switch item {
    case .unsigned(let n): .unsigned(n, hexDigits: 0)
    case .negative(let n) where n < UInt64(Int64.max): .signed(-1 - Int64(n))
    case .bytes(let bytes): .bytes(bytes)
    case .text(let text): .text(text)
    default: .text(cborKeyText(item))
    }
  }

  // MARK: - Text

  /// The words after the ATT part of show's line: ` · mcumgr image upload rsp seq 50 off 320 …`.
  static func appendText(_ records: [VendorRecord], into out: inout OutputBuffer) {
    for record in records {
      out.append(" · ")
      switch record {
      case .mcumgr(let r): VendorText.appendMCUmgr(r, into: &out)
      case .dfu(let r): VendorText.appendDFU(r, into: &out)
      case .nus(let r): VendorText.appendNUS(r, into: &out)
      case .hid(let r): VendorText.appendHID(r, into: &out)
      case .ancs(let r): VendorText.appendANCS(r, into: &out)
      case .ams(let r): VendorText.appendAMS(r, into: &out)
      }
    }
  }

  /// `[a, b, …]`: items apart with commas, cut with `…` once past `limit` characters.
  private static func appendList<T>(
    _ items: [T], _ open: StaticString, _ close: StaticString, limit: Int, into out: inout OutputBuffer,
    _ item: (T, inout OutputBuffer) -> Void
  ) {
    let start = out.count
    out.append(open)
    for (index, element) in items.enumerated() {
      if index > 0 { out.append(", ") }
      if out.count - start > limit {
        out.append("…")
        break
      }
      item(element, &out)
    }
    out.append(close)
  }

  /// A CBOR item in few characters: `{off 320, data (320 bytes)}`, `"hello"`, `h'0a1b'`.
  static func appendCBORText(_ item: CBORValue, limit: Int, into out: inout OutputBuffer) {
    switch item {
    case .unsigned(let n): out.appendDecimal(n)
    case .negative(let n):
      appendNegative(n, into: &out)
    case .bytes(let bytes):
      if bytes.count <= 8 {
        out.append("h'")
        out.appendHexBytes(bytes)
        out.append("'")
      } else {
        out.append("(")
        out.appendDecimal(bytes.count)
        out.append(" bytes)")
      }
    case .text(let text): VendorText.appendQuoted(text, limit: 48, into: &out)
    case .array(let items):
      appendList(items, "[", "]", limit: limit, into: &out) { element, out in
        appendCBORText(element, limit: limit, into: &out)
      }
    case .map(let entries):
      appendList(entries, "{", "}", limit: limit, into: &out) { entry, out in
        if let key = entry.key.text {
          out.append(string: key)
        } else {
          appendCBORText(entry.key, limit: 16, into: &out)
        }
        out.append(" ")
        appendCBORText(entry.value, limit: limit, into: &out)
      }
    case .tagged(let tag, let value):
      out.appendDecimal(tag)
      out.append("(")
      appendCBORText(value, limit: limit, into: &out)
      out.append(")")
    case .bool(let value): out.append(value ? "true" : "false")
    case .null: out.append("null")
    case .undefined: out.append("undefined")
    case .simple(let value):
      out.append("simple(")
      out.appendDecimal(Int(value))
      out.append(")")
    case .float(let value): out.append(string: "\(value)")
    }
  }
}
