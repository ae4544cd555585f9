import Foundation
import Testing

// `tables` over every shared capture against the single-capture commands, the DuckDB
// questions against the same facts computed from the single-capture JSON, the Spark job
// against the DuckDB path, and `diff`.

/// One `tables` run over every capture in ../shared (real, synthetic, bugreport), with
/// `timeline` and `app` on the same captures: made once, shared by the tests.
/// Unchecked: every property is a constant set once in `init` and only read after.
final class FleetFixture: @unchecked Sendable {
  let directory: URL
  let status: Int32
  let stderr: String
  /// Table name → its rows.
  let tables: [String: [[String: Any]]]
  /// The capture ids `captures` lists, in order.
  let captures: [String]
  /// `timeline --format json` and `app --format json` over the same captures.
  let timeline: [String: Any]
  let app: [String: Any]

  static let shared: FleetFixture? = sharedAvailable ? FleetFixture() : nil

  static let inputs = ["real", "synthetic", "bugreport"].map { Paths.captures.appending(path: $0).path }

  private init() {
    directory = Paths.scratchFile("tables")
    let run = execute(Paths.binary, ["tables", "--out", directory.path] + Self.inputs)
    status = run.status
    stderr = run.stderr
    tables = Self.readTables(directory)
    captures = (tables["captures"] ?? []).compactMap { $0["capture"] as? String }
    timeline = Self.json(execute(Paths.binary, ["timeline", "--format", "json"] + captures))
    app = Self.json(execute(Paths.binary, ["app", "--format", "json"] + captures))
  }

  static func readTables(_ directory: URL) -> [String: [[String: Any]]] {
    var tables: [String: [[String: Any]]] = [:]
    for name in [
      "captures", "connections", "attempts", "calls", "transactions", "pairs", "disconnections",
      "advertisers", "transfers", "gatt",
    ] {
      let data = (try? Data(contentsOf: directory.appending(path: name + ".ndjson"))) ?? Data()
      tables[name] = data.split(separator: UInt8(ascii: "\n")).compactMap {
        try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
      }
    }
    return tables
  }

  static func json(_ output: Output) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]) ?? [:]
  }

  /// How many items of `list` in `document` each file has.
  static func countByFile(_ document: [String: Any], _ list: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    for item in document[list] as? [[String: Any]] ?? [] { counts[item["file"] as? String ?? "?", default: 0] += 1 }
    return counts
  }

  /// The captures row of each capture.
  var captureRows: [String: [String: Any]] {
    Dictionary((tables["captures"] ?? []).map { ($0["capture"] as? String ?? "?", $0) }) { a, _ in a }
  }
}

@Suite(
  "fleet tables", .serialized,
  .enabled(if: sharedAvailable, "../shared/captures is absent; skipping the fleet tests"))
struct FleetTableTests {
  @Test("tables over every shared capture has the rows the single-capture commands report")
  func rowCountsMatchSingleCaptureCommands() throws {
    let fixture = try #require(FleetFixture.shared)
    #expect([0, 3].contains(fixture.status), "tables: \(fixture.stderr)")
    // Every capture of the three folders is a row (their truth files and catalogue are not).
    var expected: Set<String> = []
    for folder in FleetFixture.inputs {
      for name in try FileManager.default.contentsOfDirectory(atPath: folder)
      where !name.hasSuffix(".json") && !name.hasSuffix(".tsv") {
        expected.insert(folder + "/" + name)
      }
    }
    #expect(Set(fixture.captures) == expected)
    #expect(fixture.captures.count == expected.count, "one captures row per capture")

    let rows = fixture.captureRows
    func perCapture(_ table: String) -> [String: Int] {
      var counts: [String: Int] = [:]
      for row in fixture.tables[table] ?? [] { counts[row["capture"] as? String ?? "?", default: 0] += 1 }
      return counts
    }
    let single: [(table: String, counts: [String: Int])] = [
      ("connections", FleetFixture.countByFile(fixture.timeline, "connections")),
      ("attempts", FleetFixture.countByFile(fixture.timeline, "connection_attempts")),
      ("transactions", FleetFixture.countByFile(fixture.timeline, "transactions")),
      ("pairs", FleetFixture.countByFile(fixture.timeline, "pairs")),
      ("calls", FleetFixture.countByFile(fixture.app, "calls")),
    ]
    for (table, counts) in single {
      let tabled = perCapture(table)
      for capture in fixture.captures {
        #expect(
          tabled[capture, default: 0] == counts[capture, default: 0],
          "\(table) of \(capture): tables \(tabled[capture, default: 0]), single-capture \(counts[capture, default: 0])"
        )
        let counted = (rows[capture]?["row_counts"] as? [String: Any])?[table] as? Int
        #expect(counted == tabled[capture, default: 0], "row_counts.\(table) of \(capture)")
      }
    }
    // Nothing vanished in the sum either (the single-capture commands found rows).
    #expect((fixture.tables["calls"] ?? []).count > 1000)
    #expect((fixture.tables["connections"] ?? []).count > 100)
  }

  @Test("every row names its capture; rows validate against `schema tables`")
  func rowsFollowTheSchema() throws {
    let fixture = try #require(FleetFixture.shared)
    let ids = Set(fixture.captures)
    for (table, rows) in fixture.tables {
      for row in rows {
        #expect(ids.contains(row["capture"] as? String ?? ""), "a \(table) row without a known capture")
      }
    }
    guard schemaValidatorAvailable else { return }
    #expect(run(["schema", "tables"]).stdout.contains("urn:bleanalyze:schema:tables:2"))
    let output = execute(
      pythonOnPath, ["python3", "-c", Self.validator, Schemas.folder.path, fixture.directory.path])
    #expect(output.status == 0, "\(output.text.prefix(3000))\(output.stderr)")
    #expect(output.text.split(separator: "\n").count == 10, "\(output.text)")
  }

  /// `python3 -c validator SCHEMAS TABLES`: the rows of each table (the first 1,500) against its own
  /// definition in tables.schema.json (`#/$defs/connections`…), the schemas as published
  /// (open: extra fields welcome). Prints `TABLE N` per table, or the failures and exits 1.
  static let validator = """
    import json, os, pathlib, sys, urllib.parse
    import jsonschema
    from jsonschema import Draft202012Validator as V
    if "urn" not in urllib.parse.uses_relative: urllib.parse.uses_relative.append("urn")
    store = {}
    for path in pathlib.Path(sys.argv[1]).glob("*.schema.json"):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    failures = 0
    for table in ["captures", "connections", "attempts", "calls", "transactions", "pairs",
                  "disconnections", "advertisers", "transfers", "gatt"]:
        schema = {"$id": "urn:bleanalyze:test:" + table,
                  "$ref": "urn:bleanalyze:schema:tables:2#/$defs/" + table}
        try:
            from referencing import Registry, Resource
            resources = [(uri, Resource.from_contents(c)) for uri, c in store.items()]
            validator = V(schema, registry=Registry().with_resources(resources))
        except ImportError:
            validator = V(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
        rows = 0
        for number, line in enumerate(open(os.path.join(sys.argv[2], table + ".ndjson")), 1):
            # The first 1,500 rows of each table: enough of every kind, in seconds.
            if number > 1500: break
            rows += 1
            for error in validator.iter_errors(json.loads(line)):
                failures += 1
                place = "/".join(map(str, error.absolute_path)) or "(top)"
                if failures < 20: print(f"{table} line {number}: {place}: {error.message[:300]}")
        print(table, rows)
    sys.exit(1 if failures else 0)
    """

  @Test("phone archives are captures with their phone's cohort keys")
  func phoneArchivesAreCaptures() throws {
    let fixture = try #require(FleetFixture.shared)
    let archives = fixture.captureRows.filter { $0.key.contains("/bugreport/") }
    #expect(archives.count == 4)
    for (capture, row) in archives {
      #expect(row["open_error"] is NSNull, "\(capture): \(row["open_error"] ?? "")")
      #expect(row["platform"] as? String == (capture.contains("sysdiagnose") ? "ios" : "android"))
      #expect(row["phone_model"] is String, "\(capture)")
    }
  }

  @Test("a damaged capture and a file that is no capture are rows, not a stop")
  func damagedCaptureIsARow() throws {
    let capture = Paths.captures.appending(path: "synthetic/ios-central.btsnoop")
    let bytes = try Data(contentsOf: capture)
    let cut = Paths.scratchFile("cut.btsnoop")
    try bytes.prefix(bytes.count - 7).write(to: cut)
    let text = Paths.scratchFile("notes.btsnoop")
    try Data("not a capture\n".utf8).write(to: text)
    let out = Paths.scratchFile("tables")
    let output = execute(Paths.binary, ["tables", "--out", out.path, cut.path, text.path, capture.path])
    #expect(output.status == 3 || output.status == 2, "\(output.stderr)")
    let rows = FleetFixture.readTables(out)
    let captures = rows["captures"] ?? []
    #expect(captures.count == 3)
    let damaged = captures.first { $0["capture"] as? String == cut.path }
    #expect(damaged?["damage"] is [String: Any], "the cut capture's damage")
    #expect(((damaged?["row_counts"] as? [String: Any])?["connections"] as? Int ?? 0) > 0)
    let unreadable = captures.first { $0["capture"] as? String == text.path }
    #expect((unreadable?["open_error"] as? String)?.contains("not a capture") == true)
    #expect(captures.last?["capture"] as? String == capture.path, "the capture after them was read")
  }
}

/// The `python3 -c` JSON Schema validator exists (python3-jsonschema).
let schemaValidatorAvailable = execute(pythonOnPath, ["python3", "-c", "import jsonschema"]).status == 0

@Suite(
  "fleet questions", .serialized,
  .enabled(if: sharedAvailable, "../shared/captures is absent; skipping the fleet tests"),
  .enabled(if: duckdbAvailable, "python3 -c 'import duckdb' failed (pip install duckdb); skipping"))
struct FleetQuestionTests {
  /// `fleet report --format json` over the fixture's tables: name → (columns, rows).
  static func report(_ directory: URL) -> [String: [[String: Any]]] {
    let output = execute(Paths.binary, ["fleet", "report", directory.path, "--format", "json"])
    let document = FleetFixture.json(output)
    var answers: [String: [[String: Any]]] = [:]
    for question in document["questions"] as? [[String: Any]] ?? [] {
      let columns = question["columns"] as? [String] ?? []
      let rows = question["rows"] as? [[Any]] ?? []
      answers[question["name"] as? String ?? "?"] = rows.map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
    }
    return answers
  }

  static func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    let position = fraction * Double(sorted.count - 1)
    let below = Int(position.rounded(.down))
    let above = min(below + 1, sorted.count - 1)
    return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
  }

  static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

  /// DuckDB's rows keyed by `keys`, each with its other columns.
  static func keyed(_ rows: [[String: Any]], _ keys: [String]) -> [String: [String: Any]] {
    Dictionary(rows.map { row in (keys.map { "\(row[$0] ?? "nil")" }.joined(separator: " | "), row) }) { a, _ in a }
  }

  static func same(_ a: Any?, _ b: Double) -> Bool {
    guard let number = a as? NSNumber else { return false }
    return abs(number.doubleValue - b) < 0.0015
  }

  @Test("the DuckDB questions give what the single-capture JSON gives")
  func questionsMatchSingleCaptureJSON() throws {
    let fixture = try #require(FleetFixture.shared)
    let answers = Self.report(fixture.directory)
    let rows = fixture.captureRows
    func model(_ file: String) -> String {
      let row = rows[file]
      return row?["phone_model"] as? String ?? row?["platform"] as? String ?? "unknown"
    }
    func firmware(_ file: String) -> String { rows[file]?["peer_firmware"] as? String ?? "unknown" }
    let connections = fixture.timeline["connections"] as? [[String: Any]] ?? []

    // Connect time by phone model and by peer firmware.
    for (question, group) in [
      ("connect_time_by_phone_model", model), ("connect_time_by_peer_firmware", firmware),
    ] as [(String, (String) -> String)] {
      var latencies: [String: [Double]] = [:]
      for c in connections {
        guard let latency = c["connect_latency_ms"] as? Double else { continue }
        latencies[group(c["file"] as? String ?? ""), default: []].append(latency)
      }
      let duck = Self.keyed(answers[question] ?? [], [question.hasSuffix("model") ? "phone_model" : "peer_firmware"])
      #expect(duck.count == latencies.count, "\(question): \(duck.keys.sorted()) against \(latencies.keys.sorted())")
      for (key, values) in latencies {
        let row = duck[key]
        #expect(row?["connections"] as? Int == values.count, "\(question) \(key)")
        #expect(Self.same(row?["p50_ms"], Self.round3(Self.percentile(values, 0.5))), "\(question) \(key) p50")
        #expect(Self.same(row?["p95_ms"], Self.round3(Self.percentile(values, 0.95))), "\(question) \(key) p95")
      }
    }

    // Disconnect reasons by peer.
    var reasons: [String: Int] = [:]
    for c in connections {
      guard let disconnect = c["disconnect"] as? [String: Any] else { continue }
      let peer = (c["peer"] as? [String: Any])?["address"] as? String ?? "unknown"
      let key = [peer, disconnect["reason_name"] as? String ?? "", disconnect["initiator"] as? String ?? ""]
      reasons[key.joined(separator: " | "), default: 0] += 1
    }
    let duckReasons = Self.keyed(answers["disconnect_reasons_by_peer"] ?? [], ["peer", "reason", "initiator"])
    #expect(Set(duckReasons.keys) == Set(reasons.keys))
    for (key, count) in reasons { #expect(duckReasons[key]?["disconnections"] as? Int == count, "\(key)") }

    // p95 ATT latency per characteristic per firmware.
    var latencies: [String: [Double]] = [:]
    for t in fixture.timeline["transactions"] as? [[String: Any]] ?? [] {
      guard let latency = t["latency_ms"] as? Double else { continue }
      let key = firmware(t["file"] as? String ?? "") + " | " + (t["characteristic_uuid"] as? String ?? "-")
      latencies[key, default: []].append(latency)
    }
    let duckATT = Self.keyed(
      answers["att_latency_by_characteristic_and_firmware"] ?? [], ["peer_firmware", "characteristic"])
    #expect(Set(duckATT.keys) == Set(latencies.keys))
    for (key, values) in latencies {
      #expect(duckATT[key]?["transactions"] as? Int == values.count, "\(key)")
      #expect(Self.same(duckATT[key]?["p95_ms"], Self.round3(Self.percentile(values, 0.95))), "\(key) p95")
    }

    // Failed connects by model, and failed calls with their platform status.
    var failed: [String: Int] = [:]
    for a in fixture.timeline["connection_attempts"] as? [[String: Any]] ?? [] {
      guard let outcome = a["outcome"] as? String, outcome != "connected" else { continue }
      let key = [model(a["file"] as? String ?? ""), outcome, a["status_name"] as? String ?? "-"]
      failed[key.joined(separator: " | "), default: 0] += 1
    }
    let duckFailed = Self.keyed(answers["failed_connects_by_phone_model"] ?? [], ["phone_model", "outcome", "status"])
    #expect(Set(duckFailed.keys) == Set(failed.keys))
    for (key, count) in failed { #expect(duckFailed[key]?["attempts"] as? Int == count, "\(key)") }

    var calls: [String: Int] = [:]
    for call in fixture.app["calls"] as? [[String: Any]] ?? [] where call["result"] as? String == "error" {
      let error = call["platform_error"] as? [String: Any]
      let key = [
        model(call["file"] as? String ?? ""), call["call"] as? String ?? "",
        (error?["android"] as? Int).map(String.init) ?? "-", error?["android_name"] as? String ?? "-",
        error?["corebluetooth_name"] as? String ?? "-",
      ]
      calls[key.joined(separator: " | "), default: 0] += 1
    }
    let duckCalls = Self.keyed(
      answers["failed_calls_by_phone_model"] ?? [],
      ["phone_model", "call", "android_status", "android_name", "corebluetooth"])
    #expect(Set(duckCalls.keys) == Set(calls.keys))
    for (key, count) in calls { #expect(duckCalls[key]?["calls"] as? Int == count, "\(key)") }

    // The overview's counts.
    let overview = answers["overview"] ?? []
    #expect(overview.reduce(0) { $0 + ($1["captures"] as? Int ?? 0) } == fixture.captures.count)
    #expect(overview.reduce(0) { $0 + ($1["connections"] as? Int ?? 0) } == connections.count)
    #expect(
      overview.reduce(0) { $0 + ($1["calls"] as? Int ?? 0) } == (fixture.app["calls"] as? [Any] ?? []).count)
  }
}

extension FleetQuestionTests {
  @Test("tables --parquet writes a Parquet folder per table, which fleet report reads")
  func parquetTables() throws {
    let out = Paths.scratchFile("tables")
    let capture = Paths.captures.appending(path: "synthetic/ios-central.btsnoop").path
    let output = execute(Paths.binary, ["tables", "--parquet", "--out", out.path, capture])
    #expect(output.status == 0, "\(output.stderr)")
    for table in ["captures", "connections", "calls", "transactions"] {
      #expect(FileManager.default.fileExists(atPath: out.appending(path: "\(table)/data.parquet").path), "\(table)")
      try FileManager.default.removeItem(at: out.appending(path: table + ".ndjson"))
    }
    // Only Parquet left for those four: the answers come from it.
    let overview = Self.report(out)["overview"] ?? []
    #expect(overview.first?["captures"] as? Int == 1)
    #expect(overview.first?["connections"] as? Int == 2)
    #expect(overview.first?["calls"] as? Int == 60)
  }
}

/// pyspark imports and a Java runtime is on PATH.
let sparkAvailable =
  execute(pythonOnPath, ["python3", "-c", "import pyspark"]).status == 0
  && execute(pythonOnPath, ["java", "-version"]).status == 0

@Suite(
  "fleet on Spark", .serialized,
  .enabled(if: sharedAvailable, "../shared/captures is absent; skipping the fleet tests"),
  .enabled(if: duckdbAvailable, "python3 -c 'import duckdb' failed (pip install duckdb); skipping"),
  .enabled(
    if: sparkAvailable,
    "pyspark or java is absent (.ci/deps --oracles installs a JRE and pyspark); skipping the Spark test"))
struct FleetSparkTests {
  /// `python3 -c script NDJSON_DIR PARQUET_DIR`: for each table, `ok N` or the first rows that
  /// differ. Rows are compared as JSON with sorted keys, null members dropped (a JSON
  /// reader fills absent keys with null) and numbers as floats rounded to 6 places.
  static let compare = """
    import json, os, sys
    import duckdb
    ndjson, parquet = sys.argv[1], sys.argv[2]
    def norm(v):
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, (int, float)):
            return round(float(v), 6)
        if isinstance(v, dict):
            d = {k: norm(x) for k, x in v.items() if x is not None}
            d = {k: x for k, x in d.items() if x is not None}
            return d or None
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        return str(v)
    def canon(rows):
        return sorted(json.dumps(norm(r), sort_keys=True) for r in rows)
    for table in ["captures", "connections", "attempts", "calls", "transactions", "pairs",
                  "disconnections", "advertisers", "transfers", "gatt"]:
        path = os.path.join(ndjson, table + ".ndjson")
        mine = [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
        folder = os.path.join(parquet, table)
        if os.path.isdir(folder):
            cur = duckdb.connect().execute("SELECT * FROM read_parquet('%s/*.parquet')" % folder)
            names = [c[0] for c in cur.description]
            spark = [dict(zip(names, row)) for row in cur.fetchall()]
        else:
            spark = []
        a, b = canon(mine), canon(spark)
        if a == b:
            print("ok", table, len(a))
        else:
            extra = sorted(set(b) - set(a))[:1]
            missing = sorted(set(a) - set(b))[:1]
            print("differ", table, len(a), len(b), "tables only:", missing[:1][0][:600] if missing else "-",
                  "spark only:", extra[:1][0][:600] if extra else "-")
    """

  @Test("the Spark job in local[2] makes the tables and answers of the DuckDB path")
  func sparkMatchesDuckDB() throws {
    // The synthetic captures (but the 500k-record benchmark) and the phone archives: the
    // Spark start-up dominates; every capture is covered by the row-count test.
    let synthetic = try FileManager.default.contentsOfDirectory(
      atPath: Paths.captures.appending(path: "synthetic").path
    )
    .filter { $0.hasSuffix(".btsnoop") && !$0.hasPrefix("scale") }.sorted()
    .map { Paths.captures.appending(path: "synthetic/" + $0).path }
    let inputs = synthetic + [Paths.captures.appending(path: "bugreport").path]
    let local = Paths.scratchFile("tables")
    let tables = execute(Paths.binary, ["tables", "--out", local.path] + inputs)
    #expect([0, 3].contains(tables.status), "\(tables.stderr)")
    let parquet = Paths.scratchFile("spark")
    let spark = execute(
      pythonOnPath,
      [
        "python3", Paths.packageRoot.appending(path: "Samples/fleet/spark_tables.py").path, "--master", "local[2]",
        "--bleanalyze", Paths.binary.path, "--out", parquet.path, "--json",
      ] + inputs, timeLimit: 600)
    try #require(spark.status == 0, "spark_tables.py: \(spark.stderr.suffix(3000))")

    let compared = execute(pythonOnPath, ["python3", "-c", Self.compare, local.path, parquet.path])
    #expect(compared.status == 0, "\(compared.stderr)")
    let lines = compared.text.split(separator: "\n")
    #expect(lines.count == 10)
    for line in lines { #expect(line.hasPrefix("ok "), "\(line)") }

    // The same answers as DuckDB's over the NDJSON tables, and as DuckDB's over Spark's Parquet.
    let duck = execute(Paths.binary, ["fleet", "report", local.path, "--format", "ndjson"])
    let overParquet = execute(Paths.binary, ["fleet", "report", parquet.path, "--format", "ndjson"])
    let sparkAnswers = Self.answers(spark.stdout)
    let parquetAnswers = Self.answers(overParquet.stdout)
    #expect(sparkAnswers.count == 8)
    for (name, expected) in Self.answers(duck.stdout) {
      #expect(
        Self.same(sparkAnswers[name], expected),
        "\(name): Spark \(sparkAnswers[name].map { "\($0)" } ?? "nil"), DuckDB \(expected)")
      #expect(Self.same(parquetAnswers[name], expected), "\(name) over Spark's Parquet")
    }
  }

  typealias Answer = (columns: [String], rows: [[Any]], error: String?)

  /// Each answer's columns, rows and error, by question.
  static func answers(_ data: Data) -> [String: Answer] {
    var answers: [String: Answer] = [:]
    for line in data.split(separator: UInt8(ascii: "\n")) {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let name = object["name"] as? String
      else { continue }
      answers[name] = (
        object["columns"] as? [String] ?? [], object["rows"] as? [[Any]] ?? [], object["error"] as? String
      )
    }
    return answers
  }

  /// The same columns and rows, numbers within 0.0015 (engines round a half of the third
  /// decimal apart: Spark from the decimal text, DuckDB from the binary value).
  static func same(_ a: Answer?, _ b: Answer) -> Bool {
    guard let a, a.columns == b.columns, a.error == b.error, a.rows.count == b.rows.count else { return false }
    for (x, y) in zip(a.rows, b.rows) {
      guard x.count == y.count else { return false }
      for (u, v) in zip(x, y) {
        if let p = u as? NSNumber, let q = v as? NSNumber, !(u is Bool) {
          if abs(p.doubleValue - q.doubleValue) > 0.0015 { return false }
        } else if "\(u)" != "\(v)" {
          return false
        }
      }
    }
    return true
  }
}

@Suite(
  "diff", .serialized,
  .enabled(if: sharedAvailable, "../shared/captures is absent; skipping the diff tests"))
struct FleetDiffTests {
  static let central = Paths.captures.appending(path: "synthetic/ios-central.btsnoop")
  static let acl27 = Paths.captures.appending(path: "synthetic/ios-central-acl27.btsnoop")

  @Test("ios-central against ios-central-acl27: the buffer size and its fragmentation, an unchanged GATT")
  func bufferSizeAndFragmentation() throws {
    let output = run(["diff", Self.central.path, Self.acl27.path, "--format", "json"])
    #expect(output.status == 0, "\(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(document["gatt_unchanged"] as? Bool == true)
    let changes = document["changes"] as? [[String: Any]] ?? []
    let buffers = changes.first { $0["category"] as? String == "controller" }
    #expect(buffers?["a"] as? String == "8 × 251 octets")
    #expect(buffers?["b"] as? String == "8 × 27 octets")
    let fragmentation = changes.first { $0["category"] as? String == "fragmentation" }
    #expect((fragmentation?["a"] as? String)?.hasPrefix("0 of ") == true, "\(fragmentation ?? [:])")
    #expect((fragmentation?["b"] as? String)?.contains("largest 27 octets") == true, "\(fragmentation ?? [:])")
    #expect(!changes.contains { $0["category"] as? String == "gatt" })

    let text = run(["diff", Self.central.path, Self.acl27.path])
    #expect(text.stdout.contains("gatt: unchanged"))
    #expect(text.stdout.contains("le_buffers"))
  }

  @Test("a capture against itself: no difference, and --fail-on passes")
  func captureAgainstItself() {
    let output = run(["diff", Self.central.path, Self.central.path, "--fail-on", "latency:+20%,errors,gatt"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("no difference"))
  }

  @Test("--fail-on exits 1 on a slower connect")
  func injectedRegressionFails() throws {
    // The same capture with every record from the first LE Connection Complete on 2 s
    // later: that connect takes 2 s longer (20 ms → 2020 ms; with the other, 4 s, the
    // p50 of the two goes from 2012 to 3012 ms).
    let slower = Paths.scratchFile("slower.btsnoop")
    try Self.delayConnect(Self.central, by: 2_000_000).write(to: slower)
    let output = run(["diff", Self.central.path, slower.path, "--fail-on", "latency:+20%,errors,gatt"])
    #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
    #expect(output.stdout.contains("connect latency"))
    #expect(output.stderr.contains("regression"))
    // Without --fail-on the change is shown and the exit status is 0.
    #expect(run(["diff", Self.central.path, slower.path]).status == 0)
  }

  @Test("a directory of tables is a side like its capture")
  func tablesDirectoryIsASide() {
    let out = Paths.scratchFile("tables")
    #expect(run(["tables", "--out", out.path, Self.central.path]).status == 0)
    let output = run(["diff", out.path, Self.central.path])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("no difference"))
  }

  @Test("a --fail-on that means nothing is a usage error")
  func badFailOn() {
    let output = run(["diff", Self.central.path, Self.central.path, "--fail-on", "slowness"])
    #expect(output.status == 1)
    #expect(output.stderr.contains("latency:+N%"))
  }

  /// A btsnoop (datalink 1002, H4) capture with every record from the first LE
  /// (Enhanced) Connection Complete on moved `microseconds` later.
  ///
  ///     file header 16 bytes; each record: original length, included length (4+4),
  ///     flags (4), drops (4), timestamp (8, µs, big-endian), then the H4 packet
  static func delayConnect(_ capture: URL, by microseconds: UInt64) throws -> Data {
    var bytes = [UInt8](try Data(contentsOf: capture))
    func load32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    var offset = 16
    var shifting = false
    while offset + 24 <= bytes.count {
      let length = load32(offset + 4)
      let packet = offset + 24
      // H4 event 0x04, LE Meta 0x3E, subevent 0x01 or 0x0A.
      if !shifting, length >= 4, bytes[packet] == 0x04, bytes[packet + 1] == 0x3E,
        [0x01, 0x0A].contains(bytes[packet + 3])
      {
        shifting = true
      }
      if shifting {
        var time = bytes[offset + 16..<offset + 24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        time += microseconds
        for index in 0..<8 { bytes[offset + 23 - index] = UInt8(truncatingIfNeeded: time >> (8 * index)) }
      }
      offset = packet + length
    }
    #expect(shifting, "the capture has an LE Connection Complete")
    return Data(bytes)
  }
}
