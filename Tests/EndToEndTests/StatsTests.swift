import Foundation
import Testing

/// `stats --format ndjson` parsed: the rows of each type, in order.
struct StatsRows {
  var rows: [[String: Any]] = []

  init(_ stdout: Data, sourceLocation: SourceLocation = #_sourceLocation) {
    forEachLine(stdout) { line in
      guard let row = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], row["type"] is String
      else {
        Issue.record("not a stats row: \(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
        return
      }
      rows.append(row)
    }
  }

  func of(_ type: String) -> [[String: Any]] { rows.filter { $0["type"] as? String == type } }

  /// Opcode PDU counts keyed like the truth files: "0x1B".
  var opcodeCounts: [String: Int] {
    Dictionary(
      uniqueKeysWithValues: of("opcode").map { (hexKey($0["opcode"]), $0["count"] as? Int ?? -1) })
  }

  /// Error Responses keyed "0x08/0x0A" (Request Opcode In Error / Error Code).
  var errorCounts: [String: Int] {
    Dictionary(
      uniqueKeysWithValues: of("error").map {
        (hexKey($0["request_opcode"]) + "/" + hexKey($0["error"]), $0["count"] as? Int ?? -1)
      })
  }
}

/// `0x1B` for 27.
func hexKey(_ value: Any?) -> String {
  (value as? Int).map { "0x" + String(format: "%02X", $0) } ?? "?"
}

/// A `*_ms` number in µs, exactly (the values are printed with µs precision).
func microseconds(ms value: Any?) -> Int64? {
  (value as? NSNumber).map { Int64(($0.doubleValue * 1000).rounded()) }
}

/// Opcodes that open an ATT transaction: requests and the indication.
let transactionOpcodes: Set<String> = [
  "0x02", "0x04", "0x06", "0x08", "0x0A", "0x0C", "0x0E", "0x10", "0x12", "0x16", "0x18", "0x20", "0x1D",
]

@Suite("stats: counts and latencies against the truth and tshark")
struct StatsTests {
  @Test(
    "per-opcode counts, transactions, errors and connect latency equal .truth.json",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func truth(_ name: String) throws {
    let (url, truth) = try syntheticTruth(name)
    let output = runRaw(["stats", "--format", "ndjson", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let stats = StatsRows(output.stdout)

    let att = try #require(truth["att"] as? [String: Any])
    let byOpcode = (att["by_opcode"] as? [String: [String: Any]] ?? [:]).mapValues { $0["count"] as? Int ?? -1 }
    #expect(!byOpcode.isEmpty)
    #expect(stats.opcodeCounts == byOpcode, "ATT PDUs per opcode")

    let capture = try #require(stats.of("capture").first)
    #expect(capture["att_pdus"] as? Int == att["total_pdus"] as? Int)
    let transactions = try #require(capture["transaction_counts"] as? [String: Any])
    let expectedTransactions = byOpcode.filter { transactionOpcodes.contains($0.key) }.values.reduce(0, +)
    #expect(transactions["count"] as? Int == expectedTransactions, "requests and indications")
    let errorResponses = byOpcode["0x01"] ?? 0
    #expect(transactions["error"] as? Int == errorResponses, "transactions answered by an Error Response")
    // Per request opcode: the answered ones have a latency.
    for row in stats.of("opcode") where transactionOpcodes.contains(hexKey(row["opcode"])) {
      let opcodeTransactions = try #require(row["transaction_counts"] as? [String: Any], "\(hexKey(row["opcode"]))")
      #expect(opcodeTransactions["count"] as? Int == row["count"] as? Int, "\(hexKey(row["opcode"])) transactions")
    }

    var truthErrors: [String: Int] = [:]
    for entry in att["errors_by_request_and_code"] as? [[String: Any]] ?? [] {
      let key = "\(entry["request_opcode"] ?? "?")/\(entry["error_code"] ?? "?")"
      truthErrors[key, default: 0] += entry["count"] as? Int ?? -1
    }
    #expect(stats.errorCounts == truthErrors, "Error Responses per request and code")

    // Connect latency: exactly the truth connections' connect_latency_ms, in µs.
    let connections = truth["connections"] as? [[String: Any]] ?? []
    let latencies = connections.compactMap { microseconds(ms: $0["connect_latency_ms"]) }
    let connect = try #require(stats.of("connect_latency").first)
    if latencies.isEmpty {
      #expect(connect["latency_stats"] is NSNull, "no connect latency without a Create Connection")
    } else {
      let summary = try #require(connect["latency_stats"] as? [String: Any])
      #expect(summary["count"] as? Int == latencies.count)
      #expect(microseconds(ms: summary["min_ms"]) == latencies.min())
      #expect(microseconds(ms: summary["max_ms"]) == latencies.max())
      let histogram = try #require(connect["histogram"] as? [[String: Any]])
      #expect(histogram.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == latencies.count)
    }
    // Each connection row carries its own, in the truth's order.
    let rows = stats.of("connection")
    #expect(rows.count == connections.count)
    #expect(
      rows.map { microseconds(ms: $0["connect_latency_ms"]) }
        == connections.map { microseconds(ms: $0["connect_latency_ms"]) })
  }

  static let realCaptures = [
    "horizon-74-at-ble__btsnoop_hci.btsnoop", "ble-pcap-analyzer__hci.pcap", "Projet_RP__ble_capture.btsnoop",
  ]

  @Test(
    "per-opcode and per-error counts equal tshark's",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    arguments: realCaptures)
  func tshark(_ name: String) {
    let url = Paths.captures.appending(path: "real/\(name)")
    var opcodes: [String: Int] = [:]
    var errors: [String: Int] = [:]
    tsharkFields(url, ["btatt.opcode", "btatt.req_opcode_in_error", "btatt.error_code"]) { columns in
      guard columns.count == 3 else { return }
      for opcode in columns[0].split(separator: ",") {
        opcodes[hexKey(number(opcode)), default: 0] += 1
      }
      if let request = number(columns[1]), let code = number(columns[2]) {
        errors[hexKey(request) + "/" + hexKey(code), default: 0] += 1
      }
    }
    let output = runRaw(["stats", "--format", "ndjson", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let stats = StatsRows(output.stdout)
    #expect(!opcodes.isEmpty)
    #expect(stats.opcodeCounts == opcodes, "ATT PDUs per opcode")
    #expect(stats.errorCounts == errors, "Error Responses per request and code")
    let capture = stats.of("capture").first
    #expect(capture?["att_pdus"] as? Int == opcodes.values.reduce(0, +))
  }

  @Test("text: tables, and histograms drawn with blocks")
  func text() {
    checkGolden(["stats", "Samples/hr-sensor.btsnoop"], golden: "stats-hr-sensor.txt")
    let output = run(["stats", "Samples/secure-sensor.btsnoop", "Samples/hr-sensor.btsnoop"])
    #expect(output.status == 0)
    #expect(output.stdout.contains("# Samples/secure-sensor.btsnoop: "))
    #expect(output.stdout.contains("\n\n# Samples/hr-sensor.btsnoop: "), "a blank line between captures")
    #expect(output.stdout.contains("Connect latency: 1 connection, min 9.452"))
    #expect(output.stdout.contains("  5–10 ms  ████████████████████████████████████████  1\n"))
  }

  @Test("a capture without ATT still has its capture row; damage is reported")
  func damaged() throws {
    let output = runRaw(["stats", "--format", "json", "Samples/cut-off.btsnoop"])
    #expect(output.status == 3, "stderr: \(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let capture = try #require((document["captures"] as? [[String: Any]])?.first)
    #expect((capture["damage"] as? [String: Any])?["offset"] as? Int == 370)
    let empty = runRaw(["stats", "--format", "ndjson", "Samples/header-only.btsnoop"])
    #expect(empty.status == 0, "stderr: \(empty.stderr)")
    let rows = StatsRows(empty.stdout)
    #expect(rows.of("capture").first?["record_count"] as? Int == 0)
    #expect(
      rows.rows.map { $0["type"] as? String ?? "" } == ["capture", "connect_latency", "write_notify", "security"])
  }
}

@Suite(
  "JSON Schemas of stats",
  .enabled(if: jsonschemaAvailable, "python3 -c 'import jsonschema' failed; skipping schema tests"))
struct StatsSchemaTests {
  static let document = Schemas.folder.appending(path: "stats.schema.json")
  static let line = Schemas.folder.appending(path: "stats-line.schema.json")

  /// Samples, and the synthetic and some real captures when ../shared is there.
  static func captures() -> [String] {
    var paths = ["Samples/hr-sensor.btsnoop", "Samples/secure-sensor.btsnoop", "Samples/scanner.btsnoop"]
    if sharedAvailable {
      paths += syntheticCaptures().filter { !$0.hasPrefix("scale") }.map {
        Paths.captures.appending(path: "synthetic/\($0)").path
      }
      paths += StatsTests.realCaptures.map { Paths.captures.appending(path: "real/\($0)").path }
    }
    return paths
  }

  @Test("the --format json document validates")
  func documentValidates() {
    let output = runRaw(["stats", "--format", "json"] + Self.captures())
    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(lines(output.text).count == 1, "the document is one line")
    let result = Schemas.validate(output.stdout, against: Self.document)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("every --format ndjson line validates, with file when several captures are read")
  func linesValidate() {
    let output = runRaw(["stats", "--format", "ndjson"] + Self.captures())
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let rows = StatsRows(output.stdout)
    #expect(rows.of("capture").count == Self.captures().count)
    #expect(rows.of("opcode").allSatisfy { $0["file"] is String })
    let result = Schemas.validate(output.stdout, against: Self.line)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  /// Rows that break the contract, each with the place the validator must name.
  static let badRows: [(row: String, place: String)] = [
    (#"{"type":"opcode","opcode":300,"name":"x","count":1,"value_bytes":0,"transaction_counts":null}"#, "opcode"),
    (#"{"type":"frobnicate","count":1}"#, "line 1"),
    (
      #"{"type":"pair","write_handle":1,"write_uuid":"FF02","write_name":null,"notify_handle":2,"notify_uuid":"ff01","notify_name":null,"rtt":null}"#,
      "line 1"
    ),
    (
      #"{"type":"connect_latency","attempts":{"connected":1},"latency_stats":{"count":1,"min_ms":1,"median_ms":1,"p95_ms":1},"histogram":[]}"#,
      "line 1"
    ),
  ]

  @Test("a row that breaks the contract is rejected", arguments: badRows)
  func badRowIsRejected(row: String, place: String) {
    let result = Schemas.validate(Data((row + "\n").utf8), against: Self.line)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
    #expect(result.text.contains(place), "\(result.text)\(result.stderr)")
  }

  @Test("a good row passes (so the rejections above are about the row)")
  func goodRowPasses() {
    let row =
      #"{"type":"connect_latency","attempts":{"connected":1},"latency_stats":{"count":1,"min_ms":1,"median_ms":1,"p95_ms":1,"max_ms":1},"histogram":[{"from_ms":1,"to_ms":2,"count":1}]}"#
    let result = Schemas.validate(Data((row + "\n").utf8), against: Self.line)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }
}

/// Connections that complete but fail to be established are not counted as connected.
@Suite("stats: connections that failed to be established")
struct StatsEstablishmentTests {
  /// HCI LE Create Connection to D4:36:39:67:A2:61 (scan interval 0x60, window 0x30,
  /// interval 0x18-0x28, latency 0, timeout 0x48) and its Command Status.
  static let create: [([UInt8], UInt32)] = [
    (
      [
        0x01, 0x0D, 0x20, 0x19, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x00, 0x18,
        0x00,
        0x28, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00,
      ], 2
    ),
    ([0x04, 0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20], 3),
  ]

  /// Disconnection Complete: status 0, handle 0x0040, `reason`.
  static func disconnection(_ reason: UInt8) -> ([UInt8], UInt32) { ([0x04, 0x05, 0x04, 0x00, 0x40, 0x00, reason], 3) }

  /// Attempt 1 completes (hr-sensor's LE Connection Complete, interval 30 ms) and ends 1 ms
  /// later with Connection Failed to be Established (0x3E), well within its first
  /// connection events; attempt 2 completes and ends by the remote user (0x13); attempt 3's
  /// LE Connection Complete itself reports 0x3E.
  @Test("a completion that ends with 0x3E in its first events is failed to establish, not connected")
  func failedToEstablish() throws {
    var failedComplete = ReadingCaptures.connectionComplete
    failedComplete[4] = 0x3E
    let capture = try ReadingCaptures.capture(
      Self.create + [(ReadingCaptures.connectionComplete, 3), Self.disconnection(0x3E)] + Self.create + [
        (ReadingCaptures.connectionComplete, 3), Self.disconnection(0x13),
      ] + Self.create + [(failedComplete, 3)])
    let text = run(["stats", capture.path])
    #expect(
      text.stdout.contains(
        "1 connection (1 more failed to be established), 3 connection attempts (1 connected, 1 failed to establish, 1 timed out)"
      ), "\(text.stdout)")
    let rows = StatsRows(runRaw(["stats", "--format", "ndjson", capture.path]).stdout)
    let attempts = rows.of("connect_latency").first?["attempts"] as? [String: Int]
    #expect(attempts == ["connected": 1, "failed_to_establish": 1, "timed_out": 1])
  }
}
