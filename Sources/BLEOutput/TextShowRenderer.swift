import BLEAnalysis
import BLECapture
import BLEDissect

/// One aligned line per record:
///
///       frame      time (s)  dir  adapter  type         detail
///           1      0.000000  tx   -        command      opcode 0x0c03
struct TextShowRenderer: ShowRenderer {
  let verbose: Bool

  init(verbose: Bool) {
    self.verbose = verbose
  }

  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    out.append("\n  frame      time (s)  dir  adapter  type         detail\n")
  }

  mutating func render(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer) {
    let decoded = analyzed.decoded
    if record.frame >= 0 {
      out.appendDecimal(UInt64(record.frame), width: 7)
    } else {
      let mark = out.count
      out.appendDecimal(record.frame)
      out.padLeft(from: mark, width: 7)
    }
    out.append("  ")
    JSONRecord.appendSeconds(record.timestamp.unixMicroseconds - start.unixMicroseconds, width: 12, into: &out)
    out.append("  ")
    switch record.direction {
    case .sent: out.append("tx ")
    case .received: out.append("rx ")
    case nil: out.append("-  ")
    }
    out.append("  ")
    var mark = out.count
    if let adapter = record.adapter {
      out.append("hci")
      out.appendDecimal(Int(adapter))
      out.padRight(from: mark, width: 7)
    } else {
      out.append("-      ")
    }
    out.append("  ")
    mark = out.count
    if let name = decoded.staticTypeName { out.append(name) } else { out.append(string: decoded.typeName) }
    out.padRight(from: mark, width: 11)
    out.append("  ")
    RecordLine.appendDetail(record, analyzed, into: &out)
    if record.isCutBySource {
      out.append("  [cut by capture source: ")
      out.appendDecimal(record.bytes.count)
      out.append(" of ")
      out.appendDecimal(record.originalLength)
      out.append(" bytes]")
    }
    for diagnostic in decoded.diagnostics where diagnostic.id != "capture.cut" {
      out.append("  ! ")
      out.append(string: diagnostic.id)
      out.append(": ")
      out.append(string: diagnostic.message)
    }
    out.append(0x0A)
    if verbose {
      out.appendFieldTree(analyzed.fieldTree(record), indent: 11)
    }
  }

  mutating func endCapture(_ summary: CaptureSummary, damage: CaptureDamage?, into out: inout OutputBuffer) {
    out.append("# ")
    out.appendDecimal(summary.records)
    out.append(summary.records == 1 ? " record in " : " records in ")
    JSONRecord.appendSeconds(summary.durationMicroseconds, into: &out)
    out.append(" s")
    for (name, count) in summary.byType.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
      out.append(", ")
      out.appendDecimal(count)
      out.append(" ")
      out.append(string: name)
    }
    if summary.cutBySource > 0 {
      out.append("; ")
      out.appendDecimal(summary.cutBySource)
      out.append(" cut by the capture source")
    }
    if summary.dropped > 0 {
      out.append("; ")
      out.appendDecimal(summary.dropped)
      out.append(" dropped by the capture source")
    }
    if let damage {
      out.append("; damaged: ")
      out.append(string: damage.description)
    }
    out.append(0x0A)
  }

  mutating func finish(into out: inout OutputBuffer) {}
}
