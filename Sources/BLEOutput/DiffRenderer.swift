import BLEAnalysis

/// Renders `diff`: text, a line per change grouped by what changed (the GATT database is
/// always named, changed or not); json, `{"schema_version":2,"a":{…},"b":{…},
/// "gatt_unchanged":…,"changes":[…],"regressions":n}`.
public enum DiffRenderer {
  public struct Side {
    public var label: String
    public var captures: Int

    public init(label: String, captures: Int) {
      self.label = label
      self.captures = captures
    }
  }

  public static func render(
    _ diff: FleetDiff, a: Side, b: Side, format: RenderFormat, into out: inout OutputBuffer
  ) {
    switch format {
    case .text:
      for (name, side) in [("a", a), ("b", b)] {
        out.append(string: "\(name): \(side.label) (\(side.captures) capture\(side.captures == 1 ? "" : "s"))\n")
      }
      if diff.gattUnchanged {
        out.append(
          string: "gatt: unchanged (\(diff.services) services, \(diff.characteristics) characteristics)\n")
      }
      if diff.changes.isEmpty {
        out.append("no difference\n")
        return
      }
      var table = TextTable(headers: ["what", "subject", "a", "b", "change", ""], rightAligned: [4])
      for change in diff.changes {
        table.rows.append([
          change.category.rawValue, change.subject, change.before, change.after, percent(change.relative),
          change.regression ? "REGRESSION" : "",
        ])
      }
      table.append(title: "changes:", into: &out)
      let regressions = diff.regressions.count
      if regressions > 0 { out.append(string: "\n\(regressions) regression\(regressions == 1 ? "" : "s")\n") }
    case .json, .ndjson:
      out.append("{\"schema_version\":")
      out.appendDecimal(schemaVersion)
      for (key, side) in [("a", a), ("b", b)] as [(StaticString, Side)] {
        out.append(",\"")
        out.append(key)
        out.append("\":{\"label\":")
        out.appendJSONString(side.label)
        out.append(",\"captures\":")
        out.appendDecimal(side.captures)
        out.append("}")
      }
      out.append(",\"gatt_unchanged\":")
      out.append(diff.gattUnchanged ? "true" : "false")
      out.append(",\"services\":")
      out.appendDecimal(diff.services)
      out.append(",\"characteristics\":")
      out.appendDecimal(diff.characteristics)
      out.append(",\"changes\":[")
      for (index, change) in diff.changes.enumerated() {
        if index > 0 { out.append(",") }
        var k = JSONKeys()
        out.append("{")
        k.string("category", change.category.rawValue, into: &out)
        k.string("subject", change.subject, into: &out)
        k.string("a", change.before, into: &out)
        k.string("b", change.after, into: &out)
        k.key("relative", into: &out)
        if let relative = change.relative, relative.isFinite {
          out.appendMeasure((relative * 10000).rounded() / 10000)
        } else {
          out.append("null")
        }
        k.bool("regression", change.regression, into: &out)
        out.append("}")
      }
      out.append("],\"regressions\":")
      out.appendDecimal(diff.regressions.count)
      out.append("}\n")
    }
  }

  /// `+25%`, `-3.5%`, `new`.
  static func percent(_ relative: Double?) -> String {
    guard let relative else { return "" }
    guard relative.isFinite else { return "new" }
    let value = (relative * 1000).rounded() / 10
    let text = value == value.rounded() ? String(Int(value)) : String(value)
    return (value > 0 ? "+" : "") + text + "%"
  }
}
