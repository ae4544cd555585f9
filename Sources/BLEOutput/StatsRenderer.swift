import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `stats`: the counts and latency statistics of each capture.
///
/// - text: per capture, a summary line, aligned tables (opcodes, errors,
///   characteristics, connections, write→notify routes) and histograms of connect
///   latency, write→notify round trips and each request opcode's latency;
/// - json: `{"schema_version":2,"captures":[{"file","format",…,"opcodes":[…],…}]}`;
/// - ndjson: one object per table row with its `type` (`capture`, `opcode`, `error`,
///   `characteristic`, `connection`, `connect_latency`, `write_notify`, `pair`); rows
///   carry `file` when several captures are read.
///
/// Latencies are milliseconds with µs precision (`*_ms`); stats.schema.json is the contract.
public struct StatsRenderer {
  let format: RenderFormat
  let multipleFiles: Bool
  private var written = 0

  public init(format: RenderFormat, multipleFiles: Bool) {
    self.format = format
    self.multipleFiles = multipleFiles
  }

  public mutating func begin(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.appendDocumentStart(.stats, listing: "captures")
  }

  /// The statistics of one capture, once it was read to its end.
  public mutating func render(path: String, _ stats: Statistics, capture: CaptureInfo, into out: inout OutputBuffer) {
    switch format {
    case .text:
      if written > 0 { out.append("\n") }
      StatsText.append(path: path, format: capture.format, stats, damage: capture.damage, into: &out)
    case .json:
      if written > 0 { out.append(",") }
      StatsJSON.appendDocumentCapture(stats, capture: capture, into: &out)
    case .ndjson:
      StatsJSON.appendLines(stats, capture: capture, file: multipleFiles ? path : nil, into: &out)
    }
    written += 1
  }

  public mutating func finish(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.append("]}\n")
  }
}

// MARK: - JSON

/// The objects of stats.schema.json. Each row object is the same in the document and
/// on an NDJSON line, where it starts with `type` (and `file`).
enum StatsJSON {
  static func appendDocumentCapture(_ stats: Statistics, capture: CaptureInfo, into out: inout OutputBuffer) {
    out.append("{")
    appendCapture(stats, capture: capture, into: &out)
    func rows<T>(_ key: StaticString, _ items: [T], _ body: (T, inout OutputBuffer) -> Void) {
      out.append(key)
      for (index, item) in items.enumerated() {
        out.append(index == 0 ? "{" : ",{")
        body(item, &out)
      }
      out.append("]")
    }
    rows(",\"opcodes\":[", stats.opcodes, appendOpcode)
    rows(",\"errors\":[", stats.errors, appendError)
    rows(",\"characteristics\":[", stats.characteristics, appendCharacteristic)
    rows(",\"connections\":[", stats.connections, appendConnection)
    out.append(",\"connect_latency\":{")
    appendConnectLatency(stats, into: &out)
    out.append(",\"write_notify\":{")
    appendWriteNotify(stats, into: &out)
    rows(",\"pairs\":[", stats.pairs, appendPair)
    out.append(",\"security\":{")
    appendSecurity(stats, into: &out)
    out.append("}")
  }

  static func appendLines(_ stats: Statistics, capture: CaptureInfo, file: String?, into out: inout OutputBuffer) {
    out.append("{\"type\":\"capture\",")
    appendCapture(stats, capture: capture, into: &out)
    out.append("}\n")
    func lines<T>(_ type: StaticString, _ items: [T], _ body: (T, inout OutputBuffer) -> Void) {
      for item in items {
        out.append("{\"type\":\"")
        out.append(type)
        out.append("\",")
        if let file {
          out.append("\"file\":")
          out.appendJSONString(file)
          out.append(",")
        }
        body(item, &out)
        out.append("\n")
      }
    }
    lines("opcode", stats.opcodes, appendOpcode)
    lines("error", stats.errors, appendError)
    lines("characteristic", stats.characteristics, appendCharacteristic)
    lines("connection", stats.connections, appendConnection)
    lines("connect_latency", [stats], appendConnectLatency)
    lines("write_notify", [stats], appendWriteNotify)
    lines("pair", stats.pairs, appendPair)
    lines("security", [stats], appendSecurity)
  }

  /// The capture's own fields, without the braces' opening.
  static func appendCapture(_ stats: Statistics, capture: CaptureInfo, into out: inout OutputBuffer) {
    var k = JSONKeys()
    capture.appendFields(&k, into: &out)
    if stats.dropped > 0 {
      out.append(",\"dropped\":")
      out.appendDecimal(stats.dropped)
    }
    out.append(",\"duration_ms\":")
    appendMilliseconds(stats.durationMicroseconds, into: &out)
    out.append(",\"att_pdus\":")
    out.appendDecimal(stats.attPDUs)
    if stats.llPackets > 0 {
      out.append(",\"ll\":{\"packets\":")
      out.appendDecimal(stats.llPackets)
      out.append(",\"crc_bad\":")
      out.appendDecimal(stats.llCRCBad)
      out.append(",\"retransmissions\":")
      out.appendDecimal(stats.llRetransmissions)
      out.append("}")
    }
    out.append(",\"transaction_counts\":")
    appendTransactions(stats.transactions, into: &out)
  }

  // Rows: each appends its fields and the closing brace.

  static func appendOpcode(_ row: OpcodeStats, into out: inout OutputBuffer) {
    out.append("\"opcode\":")
    out.appendDecimal(Int(row.opcode.rawValue))
    out.append(",\"name\":")
    out.appendJSONString(row.opcode.name)
    out.append(",\"count\":")
    out.appendDecimal(row.count)
    out.append(",\"value_bytes\":")
    out.appendDecimal(row.valueBytes)
    out.append(",\"transaction_counts\":")
    if let transactions = row.transactions { appendTransactions(transactions, into: &out) } else { out.append("null") }
    out.append("}")
  }

  static func appendError(_ row: ErrorStats, into out: inout OutputBuffer) {
    out.append("\"request_opcode\":")
    out.appendDecimal(Int(row.request.rawValue))
    out.append(",\"request\":")
    out.appendJSONString(row.request.name)
    out.append(",\"error\":")
    out.appendDecimal(Int(row.code.rawValue))
    out.append(",\"error_name\":")
    out.appendJSONString(row.code.name)
    out.append(",\"count\":")
    out.appendDecimal(row.count)
    out.append("}")
  }

  static func appendCharacteristic(_ row: CharacteristicStats, into out: inout OutputBuffer) {
    var k = JSONKeys()
    k.peer("peer", row.key.peer, type: row.peerType, peerName: row.peerName, into: &out)
    k.integer("value_handle", row.key.valueHandle, into: &out)
    k.attribute(row.attribute, into: &out)
    if row.attribute == nil {
      // Known by its UUID alone (an imported database, a value seen before discovery).
      k.uuid("characteristic_uuid", row.key.uuid, into: &out)
    }
    k.integer("reads", row.reads, into: &out)
    k.integer("write_requests", row.writeRequests, into: &out)
    k.integer("write_commands", row.writeCommands, into: &out)
    k.integer("prepare_writes", row.prepareWrites, into: &out)
    k.integer("cccd_writes", row.cccdWrites, into: &out)
    k.integer("notifications", row.notifications, into: &out)
    k.integer("indications", row.indications, into: &out)
    k.integer("error_count", row.errors, into: &out)
    k.integer("value_bytes", row.valueBytes, into: &out)
    k.key("transaction_counts", into: &out)
    if let transactions = row.transactions { appendTransactions(transactions, into: &out) } else { out.append("null") }
    out.append("}")
  }

  static func appendConnection(_ row: ConnectionStats, into out: inout OutputBuffer) {
    out.append("\"id\":")
    out.appendDecimal(row.ref.id)
    out.append(",\"adapter\":")
    if let adapter = row.ref.adapter { out.appendDecimal(Int(adapter)) } else { out.append("null") }
    out.append(",\"handle\":")
    out.appendDecimal(Int(row.ref.handle))
    out.append(",\"peer\":")
    out.appendPeerJSON(row.ref.peer, type: row.ref.peerType, name: row.peerName)
    out.append(",\"role\":")
    appendOptionalString(row.ref.roleName, into: &out)
    out.append(",\"connect_latency_ms\":")
    if let latency = row.connectLatencyMicroseconds {
      appendMilliseconds(latency, into: &out)
    } else {
      out.append("null")
    }
    out.append(",\"duration_ms\":")
    appendMilliseconds(row.durationMicroseconds, into: &out)
    out.append(",\"att_pdus\":")
    out.appendDecimal(row.attPDUs)
    out.append(",\"value_bytes\":")
    out.appendDecimal(row.valueBytes)
    out.append(",\"transaction_counts\":")
    appendTransactions(row.transactions, into: &out)
    out.append(",\"pair_count\":")
    out.appendDecimal(row.pairs)
    out.append(",\"rtt\":")
    appendSummary(row.rtt, into: &out)
    out.append(",\"disconnect\":")
    if let disconnect = row.disconnect {
      out.append("{\"reason\":")
      out.appendDecimal(Int(disconnect.reason))
      out.append(",\"reason_name\":")
      out.appendJSONString(disconnect.reasonName)
      out.append(",\"initiator\":\"")
      out.append(string: disconnect.initiator.rawValue)
      out.append("\"}")
    } else {
      out.append("null")
    }
    out.append("}")
  }

  static func appendConnectLatency(_ stats: Statistics, into out: inout OutputBuffer) {
    out.append("\"attempts\":{")
    for (index, entry) in stats.attempts.enumerated() {
      if index > 0 { out.append(",") }
      out.append("\"")
      out.append(string: entry.outcome)
      out.append("\":")
      out.appendDecimal(entry.count)
    }
    out.append("},\"latency_stats\":")
    appendSummary(stats.connectLatency, into: &out)
    out.append(",\"histogram\":")
    appendHistogram(stats.connectHistogram, into: &out)
    out.append("}")
  }

  static func appendWriteNotify(_ stats: Statistics, into out: inout OutputBuffer) {
    out.append("\"pair_count\":")
    out.appendDecimal(stats.rttHistogram.total)
    out.append(",\"rtt\":")
    appendSummary(stats.rtt, into: &out)
    out.append(",\"histogram\":")
    appendHistogram(stats.rttHistogram, into: &out)
    out.append("}")
  }

  static func appendPair(_ row: PairStats, into out: inout OutputBuffer) {
    var k = JSONKeys()
    k.peer("peer", row.write.peer, type: nil, peerName: nil, into: &out)
    k.integer("write_handle", row.write.valueHandle, into: &out)
    k.attribute(row.writeAttribute, prefix: "write_", into: &out)
    k.integer("notify_handle", row.notify.valueHandle, into: &out)
    k.attribute(row.notifyAttribute, prefix: "notify_", into: &out)
    k.key("rtt", into: &out)
    appendSummary(row.rtt, into: &out)
    out.append("}")
  }

  // MARK: Values

  static func appendTransactions(_ stats: TransactionStats, into out: inout OutputBuffer) {
    let outcomes = stats.outcomes
    out.append("{\"count\":")
    out.appendDecimal(outcomes.total)
    for (key, value) in [
      (",\"ok\":", outcomes.ok), (",\"error\":", outcomes.error), (",\"timeout\":", outcomes.timeout),
      (",\"unanswered\":", outcomes.unanswered),
    ] as [(StaticString, Int)] {
      out.append(key)
      out.appendDecimal(value)
    }
    out.append(",\"latency_stats\":")
    appendSummary(stats.latency, into: &out)
    out.append(",\"histogram\":")
    appendHistogram(stats.histogram, into: &out)
    out.append("}")
  }

  static func appendSummary(_ summary: LatencySummary?, into out: inout OutputBuffer) {
    guard let summary else { return out.append("null") }
    out.append("{\"count\":")
    out.appendDecimal(summary.count)
    for (key, value) in [
      (",\"min_ms\":", summary.min), (",\"median_ms\":", summary.median), (",\"p95_ms\":", summary.p95),
      (",\"max_ms\":", summary.max),
    ] as [(StaticString, Int64)] {
      out.append(key)
      appendMilliseconds(value, into: &out)
    }
    out.append("}")
  }

  /// `[{"from_ms":1,"to_ms":2,"count":3},…]`, from the first bucket with a value to the last.
  static func appendHistogram(_ histogram: Histogram, into out: inout OutputBuffer) {
    out.append("[")
    for (index, bucket) in histogram.buckets.enumerated() {
      out.append(index == 0 ? "{\"from_ms\":" : ",{\"from_ms\":")
      if let lower = bucket.lower { appendMilliseconds(lower, into: &out) } else { out.append("null") }
      out.append(",\"to_ms\":")
      if let upper = bucket.upper { appendMilliseconds(upper, into: &out) } else { out.append("null") }
      out.append(",\"count\":")
      out.appendDecimal(bucket.count)
      out.append("}")
    }
    out.append("]")
  }

  /// Milliseconds with µs precision: `20.489`, `4002.829`, `30`.
  static func appendMilliseconds(_ microseconds: Int64, into out: inout OutputBuffer) {
    out.appendMeasure(Double(microseconds) / 1000)
  }

  static func appendOptionalString(_ text: String?, into out: inout OutputBuffer) {
    if let text { out.appendJSONString(text) } else { out.append("null") }
  }
}

// MARK: - Text

/// The text form of `stats`:
///
///     # ios-central.btsnoop: btsnoop, datalink 1002 (H4)
///     # 412 records in 45.2 s, 158 ATT PDUs, 60 transactions (49 ok, 11 error), …
///
///     ATT opcodes
///       opcode  name                    PDUs  bytes  transactions  min ms  median ms  p95 ms  max ms
///       0x0a    Read Request              10      0  8 ok, 2 error  29.871     30.004  60.012  60.012
///     …
///     Connect latency: 2 connections, min 20.489 ms, median 20.489 ms, p95 4002.829 ms, max 4002.829 ms
///          20–50 ms  ████████████████████████████████████████  1
///       …
enum StatsText {
  static func append(
    path: String, format: String, _ stats: Statistics, damage: CaptureDamage?, into out: inout OutputBuffer
  ) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    out.append("\n# ")
    out.append(string: summaryLine(stats))
    if let damage { out.append(string: ", damaged at offset \(damage.offset)") }
    out.append("\n")
    opcodeTable(stats)?.append(title: "ATT opcodes", into: &out)
    errorTable(stats)?.append(title: "ATT Error Responses", into: &out)
    characteristicTable(stats)?.append(title: "Characteristic values", into: &out)
    connectionTable(stats)?.append(title: "Connections", into: &out)
    pairTable(stats)?.append(title: "Write → notify routes", into: &out)
    appendSecurity(stats.security, into: &out)
    if let latency = stats.connectLatency {
      let count = "\(latency.count) connection\(latency.count == 1 ? "" : "s")"
      appendHistogram("Connect latency", count, latency, stats.connectHistogram, into: &out)
    }
    if let rtt = stats.rtt {
      let count = "\(rtt.count) pair\(rtt.count == 1 ? "" : "s")"
      appendHistogram("Write → notify round trip", count, rtt, stats.rttHistogram, into: &out)
    }
    // One answer needs no histogram: the table has it.
    for row in stats.opcodes {
      guard let transactions = row.transactions, let latency = transactions.latency, latency.count > 1 else {
        continue
      }
      let count = "\(latency.count) answered"
      appendHistogram(row.opcode.name + " latency", count, latency, transactions.histogram, into: &out)
    }
  }

  static func summaryLine(_ stats: Statistics) -> String {
    var parts = [
      "\(stats.records) record\(stats.records == 1 ? "" : "s") in \(seconds(stats.durationMicroseconds)) s",
      "\(stats.attPDUs) ATT PDU\(stats.attPDUs == 1 ? "" : "s")",
    ]
    let transactions = stats.transactions.outcomes
    parts.append(
      "\(transactions.total) transaction\(transactions.total == 1 ? "" : "s")"
        + (transactions.total > 0 ? " (\(outcomes(transactions)))" : ""))
    // A connection that failed to be established never carried anything: counted apart.
    let established = stats.connections.count - stats.failedToEstablish
    parts.append(
      "\(established) connection\(established == 1 ? "" : "s")"
        + (stats.failedToEstablish > 0 ? " (\(stats.failedToEstablish) more failed to be established)" : ""))
    if !stats.attempts.isEmpty {
      let total = stats.attempts.reduce(0) { $0 + $1.count }
      let each = stats.attempts.map { "\($0.count) " + String($0.outcome.map { $0 == "_" ? " " : $0 }) }
      parts.append("\(total) connection attempt\(total == 1 ? "" : "s") (\(each.joined(separator: ", ")))")
    }
    parts.append("\(stats.rttHistogram.total) write→notify pair\(stats.rttHistogram.total == 1 ? "" : "s")")
    if stats.dropped > 0 {
      parts.append("\(stats.dropped) record\(stats.dropped == 1 ? "" : "s") dropped by the capture source")
    }
    if stats.llPackets > 0 {
      parts.append(
        "\(stats.llPackets) LL packets (\(stats.llCRCBad) with a bad CRC, \(stats.llRetransmissions) "
          + "retransmission\(stats.llRetransmissions == 1 ? "" : "s"), "
          + "left out of the ATT counts)")
    }
    return parts.joined(separator: ", ")
  }

  /// `8 ok, 2 error`: the outcomes that happened.
  static func outcomes(_ counts: OutcomeCounts) -> String {
    let all = [
      ("ok", counts.ok), ("error", counts.error), ("timeout", counts.timeout), ("unanswered", counts.unanswered),
    ]
    return all.filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
  }

  static let latencyHeaders = ["min ms", "median ms", "p95 ms", "max ms"]

  static func latencyCells(_ summary: LatencySummary?) -> [String] {
    guard let summary else { return ["", "", "", ""] }
    return [summary.min, summary.median, summary.p95, summary.max].map(milliseconds)
  }

  static func opcodeTable(_ stats: Statistics) -> TextTable? {
    guard !stats.opcodes.isEmpty else { return nil }
    var table = TextTable(
      headers: ["opcode", "name", "PDUs", "value bytes", "transactions"] + latencyHeaders,
      rightAligned: [2, 3, 5, 6, 7, 8])
    for row in stats.opcodes {
      table.rows.append(
        [
          "0x" + hex(row.opcode.rawValue), row.opcode.name, "\(row.count)", "\(row.valueBytes)",
          row.transactions.map { outcomes($0.outcomes) } ?? "",
        ] + latencyCells(row.transactions?.latency))
    }
    return table
  }

  static func errorTable(_ stats: Statistics) -> TextTable? {
    guard !stats.errors.isEmpty else { return nil }
    var table = TextTable(headers: ["request", "error", "count"], rightAligned: [2])
    for row in stats.errors {
      table.rows.append([
        "0x" + hex(row.request.rawValue) + " " + row.request.name, "0x" + hex(row.code.rawValue) + " " + row.code.name,
        "\(row.count)",
      ])
    }
    return table
  }

  static func characteristicTable(_ stats: Statistics) -> TextTable? {
    guard !stats.characteristics.isEmpty else { return nil }
    var table = TextTable(
      headers: [
        "peer", "handle", "characteristic", "reads", "write req", "write cmd", "long", "cccd", "notify", "indicate",
        "errors", "value bytes",
      ] + latencyHeaders,
      rightAligned: Set(3...15))
    for row in stats.characteristics {
      table.rows.append(
        [
          row.peerName ?? row.key.peer?.description ?? "-", "0x" + hex(row.key.valueHandle),
          characteristic(row.key, row.attribute?.characteristicName), "\(row.reads)", "\(row.writeRequests)",
          "\(row.writeCommands)", "\(row.prepareWrites)", "\(row.cccdWrites)", "\(row.notifications)",
          "\(row.indications)", "\(row.errors)", "\(row.valueBytes)",
        ] + latencyCells(row.transactions?.latency))
    }
    return table
  }

  /// `Heart Rate Measurement (2a37)`, the UUID alone when it has no name, `-` when unknown.
  static func characteristic(_ key: CharacteristicKey, _ name: String?) -> String {
    let uuid = key.uuid?.normalized.description
    switch (name, uuid) {
    case (let name?, let uuid?) where name != uuid: return "\(name) (\(uuid))"
    case (_, let uuid?): return uuid
    case (let name?, nil): return name
    case (nil, nil): return "-"
    }
  }

  static func connectionTable(_ stats: Statistics) -> TextTable? {
    guard !stats.connections.isEmpty else { return nil }
    var table = TextTable(
      headers: ["id", "handle", "peer", "role", "connect ms", "duration s", "PDUs", "transactions"] + latencyHeaders
        + ["pairs", "ended"],
      rightAligned: [0, 4, 5, 6, 8, 9, 10, 11, 12])
    for row in stats.connections {
      table.rows.append(
        [
          "\(row.ref.id)", "0x" + hex(row.ref.handle), row.peerName ?? row.ref.peer?.description ?? "-",
          row.ref.roleName ?? "-",
          row.connectLatencyMicroseconds.map(milliseconds) ?? "-", seconds(row.durationMicroseconds), "\(row.attPDUs)",
          outcomes(row.transactions.outcomes),
        ] + latencyCells(row.transactions.latency) + [
          "\(row.pairs)", row.disconnect.map { "\($0.initiator.rawValue): \($0.reasonName)" } ?? "-",
        ])
    }
    return table
  }

  static func pairTable(_ stats: Statistics) -> TextTable? {
    guard !stats.pairs.isEmpty else { return nil }
    var table = TextTable(
      headers: ["write", "notify", "pairs"] + latencyHeaders, rightAligned: [2, 3, 4, 5, 6])
    for row in stats.pairs {
      table.rows.append(
        [
          "0x" + hex(row.write.valueHandle) + " " + characteristic(row.write, row.writeAttribute?.characteristicName),
          "0x" + hex(row.notify.valueHandle) + " "
            + characteristic(row.notify, row.notifyAttribute?.characteristicName),
          "\(row.rtt.count)",
        ] + latencyCells(row.rtt))
    }
    return table
  }

  // MARK: Histograms

  static let barWidth = 40
  /// Eighths of a block, for the bar's last character.
  static let partialBlocks = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

  static func appendHistogram(
    _ title: String, _ count: String, _ summary: LatencySummary, _ histogram: Histogram,
    into out: inout OutputBuffer
  ) {
    out.append("\n")
    out.append(string: title)
    out.append(string: ": \(count), min \(milliseconds(summary.min)), median \(milliseconds(summary.median)), ")
    out.append(string: "p95 \(milliseconds(summary.p95)), max \(milliseconds(summary.max)) ms\n")
    let buckets = histogram.buckets
    let labels = buckets.map { label($0) }
    let labelWidth = labels.map(\.count).max() ?? 0
    let largest = buckets.map(\.count).max() ?? 0
    for (bucket, label) in zip(buckets, labels) {
      var line = "  " + String(repeating: " ", count: labelWidth - label.count) + label + "  "
      let bar = self.bar(bucket.count, of: largest)
      line += bar + String(repeating: " ", count: barWidth - bar.count) + "  \(bucket.count)\n"
      out.append(string: line)
    }
  }

  /// `count` of `largest` as a bar of `barWidth` blocks, in eighths; a bucket that holds
  /// anything gets at least ▏.
  static func bar(_ count: Int, of largest: Int) -> String {
    guard count > 0, largest > 0 else { return "" }
    let eighths = max(1, (count * barWidth * 8 + largest / 2) / largest)
    return String(repeating: "█", count: eighths / 8) + partialBlocks[eighths % 8]
  }

  /// `< 0.1 ms`, `0.1–0.2 ms`, `20–50 ms`, `500–1000 ms`, `1–2 s`, `≥ 100 s`.
  static func label(_ bucket: Histogram.Bucket) -> String {
    func text(_ microseconds: Int64, in unit: Int64) -> String { measureText(Double(microseconds) / Double(unit)) }
    switch (bucket.lower, bucket.upper) {
    case (nil, let upper?): return "< " + text(upper, in: 1000) + " ms"
    case (let lower?, nil): return "≥ " + text(lower, in: 1_000_000) + " s"
    case (let lower?, let upper?) where upper <= 1_000_000:
      return text(lower, in: 1000) + "–" + text(upper, in: 1000) + " ms"
    case (let lower?, let upper?): return text(lower, in: 1_000_000) + "–" + text(upper, in: 1_000_000) + " s"
    case (nil, nil): return "all"
    }
  }

  // MARK: Numbers

  /// Milliseconds with three decimals, so that columns line up: `20.489`, `30.000`.
  static func milliseconds(_ microseconds: Int64) -> String {
    fixedPointText(microseconds, scale: 1000, digits: 3)
  }

  /// Seconds with three decimals.
  static func seconds(_ microseconds: Int64) -> String {
    fixedPointText(microseconds / 1000, scale: 1000, digits: 3)
  }
}

/// Aligned columns with a title: numbers right-aligned, text left-aligned, two spaces
/// between columns, none after the last.
struct TextTable {
  var headers: [String]
  var rightAligned: Set<Int>
  var rows: [[String]] = []

  func append(title: String, into out: inout OutputBuffer) {
    var widths = headers.map(\.count)
    for row in rows {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    out.append("\n")
    out.append(string: title)
    out.append("\n")
    for row in [headers] + rows {
      var line = ""
      for (index, cell) in row.enumerated() {
        let padding = String(repeating: " ", count: widths[index] - cell.count)
        line += "  " + (rightAligned.contains(index) ? padding + cell : cell + padding)
      }
      while line.last == " " { line.removeLast() }
      out.append(string: line)
      out.append("\n")
    }
  }
}
