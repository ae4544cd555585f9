import BLEAnalysis
import BLECapture
import BLEDissect

/// `show -T fields -e NAME…`, as tshark prints fields: one line per record, one
/// tab-separated column per field of the filter catalog (the names `--filter` accepts),
/// the values of a field with several joined by commas, an absent field empty.
///
///     frame  ts                 att.opcode  att.handle
///     30     1715679003.250000  18          15
public struct FieldsShowRenderer: ShowRenderer {
  public let fields: [String]
  private let kinds: [FilterFieldKind?]

  public init(fields: [String]) {
    self.fields = fields
    kinds = fields.map { RecordFilter.catalog.kind(of: $0) }
  }

  public mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {}

  public mutating func render(
    _ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer
  ) {
    let input = FilterInput(record: record, analyzed: analyzed)
    for (index, field) in fields.enumerated() {
      if index > 0 { out.append(0x09) }
      let values = RecordFilter.catalog.values(of: field, in: input) ?? []
      for (position, value) in values.enumerated() {
        if position > 0 { out.append(",") }
        out.append(string: Self.text(value, kinds[index]))
      }
    }
    out.append(0x0A)
  }

  public mutating func endCapture(_ summary: CaptureSummary, capture: CaptureInfo, into out: inout OutputBuffer) {}

  public mutating func finish(into out: inout OutputBuffer) {}

  /// A value as a column: integers in decimal, decimals (kept in millionths) with six
  /// places, addresses `AA:BB:CC:DD:EE:FF`, bytes in lower-case hex, booleans and
  /// presence as tshark prints them (1, 0), text with tabs and line breaks escaped.
  static func text(_ value: FilterValue, _ kind: FilterFieldKind?) -> String {
    switch value {
    case .integer(let number) where kind == .decimal:
      let sign = number < 0 ? "-" : ""
      let magnitude = number.magnitude
      let fraction = String(magnitude % 1_000_000)
      return sign + "\(magnitude / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    case .integer(let number): return String(number)
    case .string(let text):
      return text.replacing("\\", with: "\\\\").replacing("\t", with: "\\t").replacing("\n", with: "\\n")
        .replacing("\r", with: "\\r")
    case .address(let address): return address.description
    case .bytes(let octets): return octets.map { hex($0) }.joined()
    case .bool(let flag): return flag ? "1" : "0"
    }
  }
}

/// `show -q`: each capture's header and summary line, without its records.
public struct SummaryOnlyShowRenderer: ShowRenderer {
  private var inner: any ShowRenderer

  public init(_ inner: any ShowRenderer) {
    self.inner = inner
  }

  public mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    out.append(0x0A)
  }

  public mutating func render(
    _ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer
  ) {}

  public mutating func endCapture(_ summary: CaptureSummary, capture: CaptureInfo, into out: inout OutputBuffer) {
    inner.endCapture(summary, capture: capture, into: &out)
  }

  public mutating func finish(into out: inout OutputBuffer) {
    inner.finish(into: &out)
  }
}
