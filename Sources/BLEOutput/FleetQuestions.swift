import BLEAnalysis

/// The standard questions over a fleet's tables (Samples/fleet/questions.sql, embedded):
/// what `bleanalyze fleet report` runs with DuckDB.
public enum FleetQuestions {
  /// The SQL file's text.
  public static var sql: String { String(decoding: PackageResources.questions_sql, as: UTF8.self) }

  /// Each question: its name, what it answers and its statement (without the semicolon).
  public static var questions: [(name: String, title: String, statement: String)] {
    var found: [(name: String, title: String, statement: String)] = []
    var current: (name: String, title: String, lines: [Substring])?
    func close() {
      guard let question = current else { return }
      var statement = question.lines.joined(separator: "\n")
      while let last = statement.last, last == ";" || last.isWhitespace { statement.removeLast() }
      found.append((question.name, question.title, statement))
      current = nil
    }
    for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("-- question: ") {
        close()
        let rest = line.dropFirst("-- question: ".count)
        let parts = rest.split(separator: ":", maxSplits: 1)
        current = (String(parts[0]), parts.count > 1 ? parts[1].trimmingPrefix(" ").description : "", [])
      } else if current != nil, !line.hasPrefix("--") {
        current?.lines.append(line)
      }
    }
    close()
    return found
  }
}

/// One question's answer: its columns and rows, or the error that kept it from running.
public struct FleetAnswer: Sendable {
  public var name: String
  public var title: String
  public var columns: [String] = []
  public var rows: [[JSONValue]] = []
  public var error: String?

  public init(name: String, title: String) {
    self.name = name
    self.title = title
  }
}

/// Renders `fleet report`: text, a table per question; json,
/// `{"schema_version":2,"engine":…,"questions":[{"name","title","columns","rows","error"}]}`.
public enum FleetReportRenderer {
  public static func render(
    _ answers: [FleetAnswer], engine: String, format: RenderFormat, into out: inout OutputBuffer
  ) {
    switch format {
    case .text:
      out.append(string: "# \(engine)\n")
      for answer in answers {
        if let error = answer.error {
          out.append(string: "\n\(answer.title)\n  not answered: \(error)\n")
          continue
        }
        let numeric = Set(
          answer.columns.indices.filter { index in answer.rows.contains { $0[index].number != nil } })
        var table = TextTable(headers: answer.columns, rightAligned: numeric)
        table.rows = answer.rows.map { $0.map(cell) }
        if table.rows.isEmpty {
          out.append(string: "\n\(answer.title)\n  (no rows)\n")
        } else {
          table.append(title: answer.title, into: &out)
        }
      }
    case .json, .ndjson:
      if format == .json {
        out.append("{\"schema_version\":")
        out.appendDecimal(schemaVersion)
        out.append(",\"engine\":")
        out.appendJSONString(engine)
        out.append(",\"questions\":[")
      }
      for (index, answer) in answers.enumerated() {
        if format == .json, index > 0 { out.append(",") }
        var k = JSONKeys()
        out.append("{")
        k.string("name", answer.name, into: &out)
        k.string("title", answer.title, into: &out)
        k.key("columns", into: &out)
        out.append("[")
        for (c, column) in answer.columns.enumerated() {
          if c > 0 { out.append(",") }
          out.appendJSONString(column)
        }
        out.append("]")
        k.key("rows", into: &out)
        out.append("[")
        for (r, row) in answer.rows.enumerated() {
          out.append(r == 0 ? "[" : ",[")
          for (c, value) in row.enumerated() {
            if c > 0 { out.append(",") }
            appendJSON(value, into: &out)
          }
          out.append("]")
        }
        out.append("]")
        k.string("error", answer.error, into: &out)
        out.append(format == .json ? "}" : "}\n")
      }
      if format == .json { out.append("]}\n") }
    }
  }

  static func cell(_ value: JSONValue) -> String {
    switch value {
    case .null: "-"
    case .bool(let flag): flag ? "true" : "false"
    case .number(let number):
      number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .string(let text): text
    case .array, .object: "…"
    }
  }

  static func appendJSON(_ value: JSONValue, into out: inout OutputBuffer) {
    switch value {
    case .null: out.append("null")
    case .bool(let flag): out.append(flag ? "true" : "false")
    case .number(let number):
      if number == number.rounded() && abs(number) < 1e15 {
        out.appendDecimal(Int(number))
      } else {
        out.append(string: String(number))
      }
    case .string(let text): out.appendJSONString(text)
    case .array(let items):
      out.append("[")
      for (i, item) in items.enumerated() {
        if i > 0 { out.append(",") }
        appendJSON(item, into: &out)
      }
      out.append("]")
    case .object(let fields):
      out.append("{")
      for (i, key) in fields.keys.sorted().enumerated() {
        if i > 0 { out.append(",") }
        out.appendJSONString(key)
        out.append(":")
        appendJSON(fields[key]!, into: &out)
      }
      out.append("}")
    }
  }
}
