import Foundation
import Testing

/// `live --metrics` scraped by a real Prometheus (Debian's `prometheus`, installed by
/// `.ci/deps --oracles`) while a capture streams into a followed file: what Prometheus
/// stores must agree with what `stats` and `timeline` count on the same capture, the
/// exposition must pass `promtool check metrics`, and every query of the Grafana dashboard
/// in Samples/ must name a metric scraped and be one Prometheus accepts.
/// Debian's prometheus and promtool, and python3 to drive them.
let prometheusAvailable = ["/usr/bin/prometheus", "/usr/bin/promtool", "/usr/bin/python3"].allSatisfy {
  FileManager.default.isExecutableFile(atPath: $0)
}

@Suite(
  "Prometheus metrics from live",
  .serialized,
  .enabled(if: prometheusAvailable, "prometheus, promtool or python3 missing; skipping the Prometheus test"),
  .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
struct PrometheusTests {
  static let dashboard = Paths.samples.appending(path: "grafana-dashboard.json")

  /// `python3 -c harness BLEANALYZE CAPTURE DIR DASHBOARD EXPECTED`: follows a file with
  /// `live --metrics 127.0.0.1:0`, starts Prometheus on it (1 s scrape interval, config and
  /// storage in DIR), appends CAPTURE to the file in four pieces a second apart, then polls
  /// the queries of EXPECTED (a JSON object query → value) until all hold or 90 s pass.
  /// Prints a JSON object: `values` (query → last value), `exposition` (the last scrape of
  /// /metrics), `promtool` ([status, output]), `dashboard` (expr → Prometheus's error or
  /// null).
  static let harness = """
    import json, os, re, signal, socket, subprocess, sys, time, urllib.parse, urllib.request
    binary, capture, folder, dashboard, expected = sys.argv[1:6]
    expected = json.loads(expected)
    followed = os.path.join(folder, "followed.btsnoop")
    data = open(capture, "rb").read()
    pieces = [data[:len(data) // 4], data[len(data) // 4:len(data) // 2], data[len(data) // 2:3 * len(data) // 4], data[3 * len(data) // 4:]]
    open(followed, "wb").write(pieces[0])
    stderr = open(os.path.join(folder, "live.stderr"), "w+")
    live = subprocess.Popen([binary, "live", "--follow", followed, "--metrics", "127.0.0.1:0", "--format", "ndjson"],
                            stdout=subprocess.DEVNULL, stderr=stderr)
    prometheus = None
    result = {"values": {}, "exposition": "", "promtool": [None, ""], "dashboard": {}}
    def get(url):
        with urllib.request.urlopen(url, timeout=5) as response: return response.read().decode()
    try:
        address = None
        for _ in range(100):
            stderr.seek(0)
            found = re.search(r"metrics on http://([0-9.]+:[0-9]+)/metrics", stderr.read())
            if found: address = found.group(1); break
            time.sleep(0.1)
        if address is None: sys.exit("live did not say where its metrics are")
        probe = socket.socket(); probe.bind(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()
        config = os.path.join(folder, "prometheus.yml")
        open(config, "w").write("global:\\n  scrape_interval: 1s\\n  evaluation_interval: 1s\\n"
            "scrape_configs:\\n  - job_name: bleanalyze\\n    static_configs:\\n      - targets: ['%s']\\n" % address)
        prometheus = subprocess.Popen(["prometheus", "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(folder, "data"),
            "--web.listen-address=127.0.0.1:%d" % port], stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "prometheus.log"), "w"))
        for piece in pieces[1:]:
            time.sleep(1)
            with open(followed, "ab") as file: file.write(piece)
        api = "http://127.0.0.1:%d/api/v1/query?query=" % port
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                for query in expected:
                    answer = json.loads(get(api + urllib.parse.quote(query)))["data"]["result"]
                    result["values"][query] = float(answer[0]["value"][1]) if answer else None
                if all(result["values"].get(q) == v for q, v in expected.items()): break
            except Exception as error:
                result["error"] = str(error)
            time.sleep(1)
        result["exposition"] = get("http://%s/metrics" % address)
        check = subprocess.run(["promtool", "check", "metrics"], input=result["exposition"], capture_output=True, text=True)
        result["promtool"] = [check.returncode, check.stdout + check.stderr]
        def exprs(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "expr" and isinstance(value, str): yield value
                    else: yield from exprs(value)
            elif isinstance(node, list):
                for value in node: yield from exprs(value)
        for expr in exprs(json.load(open(dashboard))):
            query = expr.replace("$__rate_interval", "1m").replace("$__interval", "1m")
            try:
                answer = json.loads(get(api + urllib.parse.quote(query)))
                result["dashboard"][expr] = None if answer.get("status") == "success" else answer.get("error")
            except Exception as error:
                result["dashboard"][expr] = str(error)
    finally:
        live.send_signal(signal.SIGINT)
        if prometheus: prometheus.terminate()
        for process in (live, prometheus):
            if process:
                try: process.wait(timeout=10)
                except subprocess.TimeoutExpired: process.kill()
    print(json.dumps(result))
    """

  /// Captures with requests, errors, indications, a cancelled attempt and a link loss
  /// (ios-central), notifications and reconnections (android-central), and real phones
  /// with several peers.
  @Test(
    "Prometheus stores what stats and timeline count",
    arguments: [
      "synthetic/ios-central.btsnoop", "synthetic/android-central.btsnoop", "real/AndroidPad__btsnoop_hci.btsnoop",
      "real/fossibot-bluetooth__btsnoop_hci.btsnoop", "real/bluethooth_light_controll__btsnoop_hci.btsnoop",
    ])
  func scraped(_ name: String) throws {
    let capture = Paths.captures.appending(path: name).path
    let stats = runRaw(["stats", "--format", "json", capture])
    let statsDocument = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
    let captureStats = try #require((statsDocument["captures"] as? [[String: Any]])?.first)
    let requests = try #require((captureStats["transaction_counts"] as? [String: Any])?["count"] as? Int)
    let timeline = runRaw(["timeline", "--format", "json", capture])
    let timelineDocument = try #require(try JSONSerialization.jsonObject(with: timeline.stdout) as? [String: Any])
    let connections = try #require(timelineDocument["connections"] as? [Any]).count
    let attempts = try #require(timelineDocument["connection_attempts"] as? [[String: Any]])
    let failedAttempts = attempts.count { !["connected", "pending"].contains($0["outcome"] as? String ?? "") }
    #expect(requests > 0 && connections > 0)
    // The value bytes of the opcodes that carry a value throughput counts (ATT values: write
    // commands and requests, prepared writes, notifications, indications, read responses).
    let valueOpcodes: Set<Int> = [0x52, 0xd2, 0x12, 0x16, 0x1b, 0x1d, 0x0b, 0x0d]
    let opcodes = try #require(captureStats["opcodes"] as? [[String: Any]])
    let valueBytes = opcodes.filter { valueOpcodes.contains($0["opcode"] as? Int ?? -1) }.reduce(0) {
      $0 + ($1["value_bytes"] as? Int ?? 0)
    }

    let expected: [String: Double] = [
      "sum(bleanalyze_att_requests_total)": Double(requests),
      "sum(bleanalyze_att_request_duration_seconds_count)": Double(requests),
      #"sum(bleanalyze_connections_total{outcome=~"connected|already_up"})"#: Double(connections),
      #"sum(bleanalyze_connections_total{outcome=~"cancelled|failed|timed_out"})"#: Double(failedAttempts),
      "sum(bleanalyze_records_total)": Double(try #require(captureStats["record_count"] as? Int)),
      "sum(bleanalyze_payload_bytes_total)": Double(valueBytes),
    ]
    let folder = Paths.scratchFile("prometheus")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let arguments = [
      Paths.binary.path, capture, folder.path, Self.dashboard.path,
      String(decoding: try JSONSerialization.data(withJSONObject: expected), as: UTF8.self),
    ]
    let output = execute(Schemas.python3, ["-c", Self.harness] + arguments, timeLimit: 180)
    #expect(output.status == 0, "\(output.stderr)")
    let result = try #require(
      try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], "\(output.stderr)")
    let values = result["values"] as? [String: Any] ?? [:]
    for (query, value) in expected {
      #expect(values[query] as? Double == value, "\(name): \(query) is \(values[query] ?? "absent"), expected \(value)")
    }
    let promtool = result["promtool"] as? [Any] ?? []
    #expect(promtool.first as? Int == 0, "promtool check metrics: \(promtool.last ?? "")")

    // Every metric the dashboard queries was scraped; every query is valid PromQL.
    let exposition = result["exposition"] as? String ?? ""
    var scraped: Set<String> = []
    for line in exposition.split(separator: "\n") where line.hasPrefix("# TYPE ") {
      let parts = line.split(separator: " ")
      scraped.insert(String(parts[2]))
      if parts[3] == "histogram" { for suffix in ["_bucket", "_sum", "_count"] { scraped.insert(parts[2] + suffix) } }
    }
    let dashboard = result["dashboard"] as? [String: Any] ?? [:]
    #expect(dashboard.count >= 8, "expected the dashboard's queries")
    for (expr, error) in dashboard {
      #expect(error is NSNull, "\(expr): \(error)")
      for metric in expr.matches(of: /bleanalyze_[a-z0-9_]+/) {
        #expect(scraped.contains(String(metric.output)), "\(expr): \(metric.output) was not scraped")
      }
    }
  }
}
