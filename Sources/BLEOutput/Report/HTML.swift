/// HTML for `report`: escaped text, and sortable tables.
///
/// Every text that comes from a capture (names, values, UUID names from dissectors) goes
/// through `appendHTML`, which escapes the five characters that could end an element or
/// an attribute value; the report never writes such text unescaped.
extension OutputBuffer {
  /// Text for an element's content or a quoted attribute value.
  mutating func appendHTML(_ text: borrowing String) {
    let appended: Void? = text.utf8.withContiguousStorageIfAvailable { appendHTML(raw: UnsafeRawBufferPointer($0)) }
    if appended == nil { appendHTML(raw: Array(text.utf8)) }
  }

  mutating func appendHTML(raw bytes: [UInt8]) {
    bytes.withUnsafeBytes { appendHTML(raw: $0) }
  }

  /// UTF-8 bytes; runs that need no escape go in one copy.
  mutating func appendHTML(raw: UnsafeRawBufferPointer) {
    var runStart = 0
    for (index, byte) in raw.enumerated() {
      let escape: StaticString
      switch byte {
      case UInt8(ascii: "&"): escape = "&amp;"
      case UInt8(ascii: "<"): escape = "&lt;"
      case UInt8(ascii: ">"): escape = "&gt;"
      case UInt8(ascii: "\""): escape = "&quot;"
      case UInt8(ascii: "'"): escape = "&#39;"
      default: continue
      }
      append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[runStart..<index]))
      append(escape)
      runStart = index + 1
    }
    append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[runStart...]))
  }

  /// `<tag>text</tag>`, the text escaped.
  mutating func appendElement(_ tag: StaticString, _ text: String, class name: StaticString? = nil) {
    append("<")
    append(tag)
    if let name {
      append(" class=\"")
      append(name)
      append("\"")
    }
    append(">")
    appendHTML(text)
    append("</")
    append(tag)
    append(">")
  }
}

/// A table whose columns sort when their header's button is pressed (the report's
/// script; without it the table reads as it is). A numeric column sorts by each cell's
/// `data-v`, the number behind the text it shows.
struct HTMLTable {
  struct Column {
    var title: String
    var numeric = false
  }

  let columns: [Column]
  /// Rows shown at most; the rest are counted in a note under the table.
  let limit: Int

  init(_ columns: [Column], limit: Int = 500) {
    self.columns = columns
    self.limit = limit
  }

  init(_ titles: [String], numeric: Set<Int> = [], limit: Int = 500) {
    self.init(titles.enumerated().map { Column(title: $0.element, numeric: numeric.contains($0.offset)) }, limit: limit)
  }

  /// The table with `rows`, each a list of cells (text, and a sort value for numeric
  /// columns); `more` says where the rows left out are.
  func append(
    caption: String, rows: [[Cell]], total: Int? = nil, more: String, into out: inout OutputBuffer
  ) {
    out.append("<div class=\"table\"><table class=\"sortable\"><caption>")
    out.appendHTML(caption)
    out.append("</caption><thead><tr>")
    for column in columns {
      out.append(column.numeric ? "<th class=\"n\" aria-sort=\"none\">" : "<th aria-sort=\"none\">")
      out.append("<button type=\"button\">")
      out.appendHTML(column.title)
      out.append("</button></th>")
    }
    out.append("</tr></thead><tbody>")
    for row in rows.prefix(limit) {
      out.append("<tr>")
      for cell in row { cell.append(into: &out) }
      out.append("</tr>")
    }
    out.append("</tbody></table>")
    let count = total ?? rows.count
    if count > min(rows.count, limit) {
      out.append("<p class=\"note\">")
      out.appendHTML("\(min(rows.count, limit)) of \(count) rows; \(more)")
      out.append("</p>")
    }
    out.append("</div>")
  }

  /// One cell: its text, the number it sorts by, and how it looks.
  struct Cell: ExpressibleByStringLiteral {
    var text: String
    var value: Double? = nil
    var error = false

    init(_ text: String, value: Double? = nil, error: Bool = false) {
      self.text = text
      self.value = value
      self.error = error
    }

    init(stringLiteral text: String) { self.init(text) }

    init(_ number: Int) { self.init(String(number), value: Double(number)) }

    /// Milliseconds with three decimals; empty when unknown.
    init(milliseconds microseconds: Int64?) {
      self.init(microseconds.map { StatsText.milliseconds($0) } ?? "", value: microseconds.map { Double($0) / 1000 })
    }

    func append(into out: inout OutputBuffer) {
      out.append("<td")
      if error { out.append(" class=\"err\"") }
      if let value {
        out.append(" data-v=\"")
        out.append(string: ReportNumber.text(value))
        out.append("\"")
      }
      out.append(">")
      out.appendHTML(text)
      out.append("</td>")
    }
  }
}

/// Numbers written into the report's markup: SVG coordinates and sort values.
enum ReportNumber {
  /// At most three decimals, no trailing zeros: `12`, `12.5`, `0.125`.
  static func text(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let scaled = (value * 1000).rounded()
    guard scaled.magnitude < 9e15 else { return String(Int64(value.rounded())) }
    let milli = Int64(scaled)
    let whole = milli.magnitude / 1000
    var fraction = String(milli.magnitude % 1000)
    fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
    while fraction.last == "0" { fraction.removeLast() }
    return (milli < 0 ? "-" : "") + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
  }

  /// One decimal, for coordinates: `12.5`.
  static func coordinate(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let tenths = Int64((value * 10).rounded())
    let text = String(tenths.magnitude / 10) + (tenths.magnitude % 10 == 0 ? "" : ".\(tenths.magnitude % 10)")
    return (tenths < 0 ? "-" : "") + text
  }
}
