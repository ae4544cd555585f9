import BLEAnalysis
import BLEDissect

/// `live --metrics`: the Prometheus text exposition format, version 0.0.4
/// (`Content-Type: text/plain; version=0.0.4`), one `# HELP` and `# TYPE` per metric.
///
/// Every label value comes from a bounded set: `type` the data-contract record types,
/// `opcode` an ATT opcode's spec name (256 at most), `outcome` a fixed list, `reason` an
/// HCI error code's spec name (256 at most), `initiator` `DisconnectInitiator`, `direction` and
/// `op` `PayloadDirection` and `PayloadOperation`.
public enum PrometheusRenderer {
  /// What `Content-Type` the exposition goes with.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// Every metric, in the order they are written: its name (the raw value), type and help
  /// are declared here once.
  public enum Metric: String, CaseIterable, Sendable {
    case records = "bleanalyze_records_total"
    case droppedRecords = "bleanalyze_dropped_records_total"
    case attRequests = "bleanalyze_att_requests_total"
    case attRequestDuration = "bleanalyze_att_request_duration_seconds"
    case connections = "bleanalyze_connections_total"
    case connectDuration = "bleanalyze_connect_duration_seconds"
    case disconnections = "bleanalyze_disconnections_total"
    case connectionsOpen = "bleanalyze_connections_open"
    case advertisingReports = "bleanalyze_advertising_reports_total"
    case payloadBytes = "bleanalyze_payload_bytes_total"

    public var type: String {
      switch self {
      case .attRequestDuration, .connectDuration: "histogram"
      case .connectionsOpen: "gauge"
      default: "counter"
      }
    }

    public var help: String {
      switch self {
      case .records: "Records read, by data-contract type (command, event, acl, ...)."
      case .droppedRecords: "Records the source lost (monitor socket drops)."
      case .attRequests:
        "ATT requests and indications (stats' transactions), by request opcode and outcome (ok, error, timeout, unanswered)."
      case .attRequestDuration:
        "Time from an ATT request or indication to its answer, or until it was given up, by request opcode."
      case .connections:
        "Connections by outcome: connected, already_up (up before the capture began), and the Create Connection attempts that ended cancelled, failed or timed_out."
      case .connectDuration: "Time from a Create Connection to its Connection Complete, for attempts that connected."
      case .disconnections: "Disconnections by HCI reason and initiator."
      case .connectionsOpen: "Connections up now."
      case .advertisingReports: "Advertising reports received."
      case .payloadBytes:
        "Payload bytes (ATT values, L2CAP CoC SDUs) by direction (tx, rx) and operation (write_cmd, write_req, write_long, notify, indicate, read, coc), as throughput counts them."
      }
    }

    /// The labels whose values are show's fields (``ShowField`` ids): a record's `type`
    /// is its `hci.type`, a request's `opcode` the `att.name` of its opcode.
    public var fields: [String: String] {
      switch self {
      case .records: ["type": "hci.type"]
      case .attRequests: ["opcode": "att.name", "outcome": "att.outcome"]
      case .attRequestDuration: ["opcode": "att.name"]
      default: [:]
      }
    }
  }

  /// Outcomes `bleanalyze_connections_total` always has, at 0 until one happens.
  static let connectionOutcomes = [
    ConnectionAttempt.Outcome.connected.rawValue, LiveMetrics.alreadyUp, ConnectionAttempt.Outcome.cancelled.rawValue,
    ConnectionAttempt.Outcome.failed.rawValue, ConnectionAttempt.Outcome.timedOut.rawValue,
  ]

  public static func render(_ metrics: LiveMetrics, summary: CaptureSummary, into out: inout OutputBuffer) {
    for metric in Metric.allCases {
      let name = metric.rawValue
      out.append("# HELP ")
      out.append(string: name)
      out.append(" ")
      out.append(string: metric.help)
      out.append("\n# TYPE ")
      out.append(string: name)
      out.append(" ")
      out.append(string: metric.type)
      out.append("\n")
      switch metric {
      case .records:
        samples(name, summary.byType.map { ([("type", $0.key)], $0.value) }, into: &out)
      case .droppedRecords:
        sample(name, [], summary.dropped, into: &out)
      case .attRequests:
        let rows = metrics.requests.map { key, count in
          ([("opcode", ATTOpcode(rawValue: key.opcode).name), ("outcome", key.outcome.rawValue)], count)
        }
        samples(name, rows, into: &out)
      case .attRequestDuration:
        for (opcode, durations) in metrics.requestDurations.sorted(by: { $0.key < $1.key }) {
          histogram(name, [("opcode", ATTOpcode(rawValue: opcode).name)], durations, into: &out)
        }
      case .connections:
        for outcome in connectionOutcomes {
          sample(name, [("outcome", outcome)], metrics.connections[outcome] ?? 0, into: &out)
        }
      case .connectDuration:
        histogram(name, [], metrics.connectDurations, into: &out)
      case .disconnections:
        let rows = metrics.disconnections.map { key, count in
          ([("reason", HCIStatusCode(rawValue: key.reason).name), ("initiator", key.initiator.rawValue)], count)
        }
        samples(name, rows, into: &out)
      case .connectionsOpen:
        sample(name, [], metrics.connectionsOpen, into: &out)
      case .advertisingReports:
        sample(name, [], metrics.advertisingReports, into: &out)
      case .payloadBytes:
        let rows = metrics.payloadBytes.map { key, bytes in
          ([("direction", key.direction.rawValue), ("op", key.operation.rawValue)], bytes)
        }
        samples(name, rows, into: &out)
      }
    }
  }

  /// One sample per row, in the order of their label values.
  static func samples(_ name: String, _ rows: [([(String, String)], Int)], into out: inout OutputBuffer) {
    for (labels, count) in rows.sorted(by: { $0.0.map(\.1).lexicographicallyPrecedes($1.0.map(\.1)) }) {
      sample(name, labels, count, into: &out)
    }
  }

  /// `name{label="value",…} count`.
  static func sample(
    _ name: String, _ labels: [(String, String)], _ count: Int, suffix: StaticString = "", into out: inout OutputBuffer
  ) {
    head(name, labels, suffix: suffix, into: &out)
    out.appendDecimal(count)
    out.append("\n")
  }

  static func head(_ name: String, _ labels: [(String, String)], suffix: StaticString, into out: inout OutputBuffer) {
    out.append(string: name)
    out.append(suffix)
    guard !labels.isEmpty else { return out.append(" ") }
    out.append("{")
    for (index, (label, value)) in labels.enumerated() {
      if index > 0 { out.append(",") }
      out.append(string: label)
      out.append("=\"")
      for byte in value.utf8 {
        switch byte {
        case UInt8(ascii: "\\"): out.append("\\\\")
        case UInt8(ascii: "\""): out.append("\\\"")
        case UInt8(ascii: "\n"): out.append("\\n")
        default: out.append(byte)
        }
      }
      out.append("\"")
    }
    out.append("} ")
  }

  /// The buckets of `stats`' histograms (`Histogram.bounds`), cumulative, then `+Inf`,
  /// `_sum` and `_count`. A value exactly on a bound counts in the bucket above it.
  static func histogram(
    _ name: String, _ labels: [(String, String)], _ durations: LiveMetrics.Durations, into out: inout OutputBuffer
  ) {
    var cumulative = 0
    for (index, bound) in Histogram.bounds.enumerated() {
      cumulative += durations.histogram.counts[index]
      var bucketLabels = labels
      bucketLabels.append(("le", seconds(bound)))
      sample(name, bucketLabels, cumulative, suffix: "_bucket", into: &out)
    }
    sample(name, labels + [("le", "+Inf")], durations.histogram.total, suffix: "_bucket", into: &out)
    head(name, labels, suffix: "_sum", into: &out)
    out.append(string: seconds(durations.sumMicroseconds))
    out.append("\n")
    sample(name, labels, durations.histogram.total, suffix: "_count", into: &out)
  }

  /// Microseconds as seconds in decimal, exactly: 1500 → `0.0015`.
  static func seconds(_ microseconds: Int64) -> String {
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    var fraction = String(magnitude % 1_000_000)
    fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return sign + String(magnitude / 1_000_000) + (fraction.isEmpty ? "" : "." + fraction)
  }
}
