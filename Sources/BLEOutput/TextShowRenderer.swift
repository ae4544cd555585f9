import BLEAnalysis
import BLECapture
import BLEDissect

/// One aligned line per record:
///
///       frame      time (s)  dir  conn                    type         detail
///           1      0.000000  tx   -                       command      Reset
///          30      0.428989  tx   #1 HR-Sensor            acl          ATT Write Request attr 0x000f …
///
/// An `adapter` column (hci0, hci1…) follows `dir` when the capture has more than one
/// adapter, or when that cannot be known before reading (live, a stream).
struct TextShowRenderer: ShowRenderer {
  let verbose: Bool
  let options: TextShowOptions
  let names: DissectorLibrary
  /// Each connection's column as last written, by connection id, kept for its next record
  /// while its name stays the same (records of several connections interleave): the
  /// name it was made with, and where its bytes are in `connColumnBytes`.
  private var connColumns: [(name: UnsafeMutableRawPointer?, start: Int, count: Int)] = []
  private var connColumnBytes: [UInt8] = []
  /// The time of the record shown before, for `-t d`.
  private var previous: Int64?
  /// The adapter column of the capture begun.
  private var showsAdapter = true
  static let connWidth = 22

  init(verbose: Bool, options: TextShowOptions = .init(), names: DissectorLibrary = .builtin) {
    self.verbose = verbose
    self.options = options
    self.names = names
  }

  mutating func adapters(_ count: () -> Int?) {
    showsAdapter = count().map { $0 > 1 } ?? true
  }

  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    previous = nil
    connColumns.removeAll(keepingCapacity: true)
    connColumnBytes.removeAll(keepingCapacity: true)
    switch options.time {
    case .relative, .delta: out.append("\n  frame      time (s)")
    case .epoch: out.append("\n  frame           time (s)")
    case .absolute: out.append("\n  frame  time (UTC)     ")
    case .absoluteWithDate: out.append("\n  frame  time (UTC)                ")
    }
    out.append(showsAdapter ? "  dir  adapter  conn" : "  dir  conn")
    out.append("                    type         detail\n")
  }

  mutating func render(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer) {
    // `analyzed.decoded` is read in place: a copy of it would cost more than the line.
    let lineStart = out.count
    if record.frame >= 0 {
      out.appendDecimal(UInt64(record.frame), width: 7)
    } else {
      let mark = out.count
      out.appendDecimal(record.frame)
      out.padLeft(from: mark, width: 7)
    }
    out.append("  ")
    appendTime(record.timestamp.unixMicroseconds, start: start.unixMicroseconds, into: &out)
    out.append("  ")
    switch record.direction {
    case .sent:
      if options.color { out.append(TextColor.sent) }
      out.append("tx ")
    case .received:
      if options.color { out.append(TextColor.received) }
      out.append("rx ")
    case nil: out.append("-  ")
    }
    if options.color && record.direction != nil { out.append(TextColor.reset) }
    out.append("  ")
    if showsAdapter {
      let mark = out.count
      if let adapter = record.adapter {
        out.append("hci")
        out.appendDecimal(Int(adapter))
        out.padRight(from: mark, width: 7)
      } else {
        out.append("-      ")
      }
      out.append("  ")
    }
    appendConnection(analyzed, into: &out)
    out.append("  ")
    let mark = out.count
    if let name = analyzed.decoded.staticTypeName {
      out.append(name)
    } else {
      out.append(string: analyzed.decoded.typeName)
    }
    out.padRight(from: mark, width: 11)
    out.append("  ")
    RecordLine.appendDetail(record, analyzed, names: names, color: options.color, into: &out)
    if record.isCutBySource {
      out.append("  [cut by capture source: ")
      out.appendDecimal(record.bytes.count)
      out.append(" of ")
      out.appendDecimal(record.originalLength)
      out.append(" bytes]")
    }
    if analyzed.decoded.hasDiagnostics {
      for diagnostic in analyzed.decoded.diagnostics where diagnostic.id != "capture.cut" {
        out.append("  ")
        if options.color {
          switch diagnostic.severity {
          case .error: out.append(TextColor.error)
          case .warning: out.append(TextColor.warning)
          case .info: out.append(TextColor.info)
          }
        }
        out.append("! ")
        out.append(string: diagnostic.id)
        out.append(": ")
        out.append(string: diagnostic.message)
        if options.color { out.append(TextColor.reset) }
      }
    }
    // A terminal's width: values cut with …; -v shows them whole.
    if let width = options.width, !verbose { out.fit(from: lineStart, width: width, color: options.color) }
    out.append(0x0A)
    if verbose {
      out.appendFieldTree(analyzed.fieldTree(record, names: names), indent: 11)
    }
    if options.hexDump { Self.appendHexDump(UnsafeRawBufferPointer(record.bytes), into: &out) }
  }

  /// The time column in the `-t` mode: seconds (relative, delta, epoch) or UTC.
  private mutating func appendTime(_ time: Int64, start: Int64, into out: inout OutputBuffer) {
    switch options.time {
    case .relative: JSONRecord.appendSeconds(time - start, width: 12, into: &out)
    case .delta:
      JSONRecord.appendSeconds(time - (previous ?? time), width: 12, into: &out)
      previous = time
    case .epoch: JSONRecord.appendSeconds(time, width: 17, into: &out)
    case .absolute: Self.appendUTC(time, date: false, into: &out)
    case .absoluteWithDate: Self.appendUTC(time, date: true, into: &out)
    }
  }

  /// `2024-05-14 09:30:00.181549` (or the time of day alone), UTC.
  static func appendUTC(_ microseconds: Int64, date: Bool, into out: inout OutputBuffer) {
    let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
    let fraction = UInt64(microseconds - seconds * 1_000_000)
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let ofDay = UInt64(seconds - days * 86_400)
    if date {
      let (year, month, day) = CivilTime.civil(fromDays: Int(days))
      out.appendDecimal(UInt64(clamping: year), minimumDigits: 4)
      out.append("-")
      out.appendDecimal(UInt64(month), minimumDigits: 2)
      out.append("-")
      out.appendDecimal(UInt64(day), minimumDigits: 2)
      out.append(" ")
    }
    out.appendDecimal(ofDay / 3600, minimumDigits: 2)
    out.append(":")
    out.appendDecimal(ofDay / 60 % 60, minimumDigits: 2)
    out.append(":")
    out.appendDecimal(ofDay % 60, minimumDigits: 2)
    out.append(".")
    out.appendDecimal(fraction, minimumDigits: 6)
  }

  /// `#1 HR-Sensor`, `#2 D4:36:39:67:A2:61`, or `-`, padded to `connWidth`; made once
  /// per connection and name.
  private mutating func appendConnection(_ analyzed: AnalyzedRecord, into out: inout OutputBuffer) {
    guard let id = analyzed.conn?.id else {
      out.append("-                     ")
      return
    }
    // The name by its identity, read without retaining it.
    let name = analyzed.peerNameReference?.toOpaque()
    if id >= 0, id < connColumns.count, connColumns[id].count > 0, connColumns[id].name == name {
      let column = connColumns[id]
      connColumnBytes.withUnsafeBytes {
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[column.start..<column.start + column.count]))
      }
      return
    }
    var text = "#\(id)"
    if let peerName = analyzed.peerName {
      text += " " + peerName.name
    } else if let peer = analyzed.conn?.peer {
      text += " " + peer.description
    }
    // A long name is cut to keep the columns after it aligned.
    if text.count > Self.connWidth { text = text.prefix(Self.connWidth - 1) + "…" }
    text += String(repeating: " ", count: Self.connWidth - text.count)
    out.append(string: text)
    guard id >= 0 else { return }
    if id >= connColumns.count {
      connColumns += repeatElement((name: nil, start: 0, count: 0), count: id + 1 - connColumns.count)
    }
    // A column made again (its name changed) leaves its old bytes behind: names change
    // a few times per connection at most.
    connColumns[id] = (name, connColumnBytes.count, text.utf8.count)
    connColumnBytes += text.utf8
  }

  /// `-x`: the record's bytes, 16 a line, offset, hex and ASCII, as tshark prints them.
  static func appendHexDump(_ bytes: UnsafeRawBufferPointer, into out: inout OutputBuffer) {
    var offset = 0
    while offset < bytes.count {
      let line = bytes[offset..<min(bytes.count, offset + 16)]
      out.append("           ")
      out.appendHexDigits(UInt64(offset), width: 4)
      out.append("  ")
      for (index, byte) in line.enumerated() {
        if index > 0 { out.append(index == 8 ? "  " : " ") }
        out.appendHexDigits(UInt64(byte), width: 2)
      }
      for index in line.count..<16 { out.append(index == 8 ? "    " : "   ") }
      out.append("   ")
      for byte in line { out.append((0x20..<0x7F).contains(byte) ? byte : UInt8(ascii: ".")) }
      out.append(0x0A)
      offset += 16
    }
  }

  mutating func endCapture(_ summary: CaptureSummary, capture: CaptureInfo, into out: inout OutputBuffer) {
    let damage = capture.damage
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
