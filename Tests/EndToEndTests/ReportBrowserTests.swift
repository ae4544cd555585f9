import Foundation
import Testing

/// `report` opened in headless Chromium, offline, and read through its DOM
/// (ReportDOM/report_dom.py drives Chromium over the DevTools protocol on a pipe): no
/// console error, no request leaves the file, the counts shown equal `app`, `timeline`
/// and `devices` JSON, every chart has its text alternative, tables sort, steps take the
/// keyboard, and a screenshot is not blank.
@Suite("report in headless Chromium")
struct ReportBrowserTests {
  static let chromium: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for directory in path.split(separator: ":").map(String.init) + ["/usr/bin"] {
      let url = URL(fileURLWithPath: directory).appending(path: "chromium")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
  }()

  static let script = Paths.packageRoot.appending(path: "Tests/EndToEndTests/ReportDOM/report_dom.py")

  /// Five real captures of different formats and sizes.
  static let real = [
    "bluethooth_light_controll__btsnoop_hci.btsnoop", "AndroidPad__btsnoop_hci.btsnoop",
    "Tesi_BLE__Lv4_passkey.pcapng", "watch__capture.pcap", "crackle__pairing_and_ltk_exchange.pcap",
  ]

  /// Every capture in ../shared/captures/synthetic, and the real ones.
  static let captures: [String] = {
    let synthetic = Paths.captures.appending(path: "synthetic")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: synthetic.path)) ?? []
    return names.filter { !$0.hasSuffix(".json") }.sorted().map { "synthetic/" + $0 } + real.map { "real/" + $0 }
  }()

  static let available = sharedAvailable && chromium != nil

  /// The report of `capture` as the DOM shows it (one JSON object).
  static func open(_ report: URL, screenshot: URL? = nil) throws -> [String: Any] {
    var arguments = [script.path, "--chromium", chromium?.path ?? "chromium"]
    if let screenshot { arguments += ["--screenshot", screenshot.path] }
    let output = execute(URL(fileURLWithPath: "/usr/bin/python3"), arguments + [report.path], timeLimit: 120)
    #expect(output.status == 0, "report_dom.py: \(output.stderr)")
    let line = try #require(lines(output.text).first, "report_dom.py printed nothing: \(output.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  static func json(_ arguments: [String]) throws -> [String: Any] {
    let output = runRaw(arguments + ["--format", "json"])
    #expect(output.status == 0 || output.status == 3, "\(arguments): \(output.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
  }

  @Test(
    "offline: no error, no request; counts equal app, timeline and devices JSON; charts have text; not blank",
    .enabled(
      if: available,
      "skipping the report's browser test: needs ../shared/captures and Debian's chromium (.ci/deps --oracles)"),
    arguments: captures)
  func opensAndAgrees(_ name: String) throws {
    let capture = Paths.captures.appending(path: name)
    let html = Paths.scratchFile("report.html")
    defer { try? FileManager.default.removeItem(at: html) }
    let made = runRaw(["report", capture.path, "-o", html.path])
    #expect(made.status == 0 || made.status == 3, "\(name): \(made.stderr)")
    let size = (try? FileManager.default.attributesOfItem(atPath: html.path)[.size] as? Int) ?? 0
    #expect(size > 0 && size < 2_000_000, "\(name): report of \(size) bytes")

    let page = try Self.open(html)
    #expect((page["console_errors"] as? [String])?.isEmpty == true, "\(name): \(page["console_errors"] ?? "")")
    #expect((page["requests"] as? [String])?.isEmpty == true, "\(name): requests \(page["requests"] ?? "")")
    #expect((page["external"] as? [Any])?.isEmpty == true, "\(name): external references \(page["external"] ?? "")")
    #expect(page["scripts"] as? Int == 0, "\(name): a script with src")
    #expect(page["blank"] as? Bool == false, "\(name): the screenshot is blank")
    #expect(page["printRules"] as? Bool == true, "\(name): no print style")
    #expect(page["sorts"] as? Bool != false, "\(name): a numeric column did not sort")
    #expect(page["keyboard"] as? Bool != false, "\(name): ArrowDown did not move to the next step")

    let section = try #require((page["captures"] as? [[String: Any]])?.first, "\(name): no capture section")
    let app = try #require(try Self.json(["app", capture.path])["calls"] as? [[String: Any]])
    let timeline = try Self.json(["timeline", capture.path])
    let devices = try #require(try Self.json(["devices", capture.path])["devices"] as? [Any])
    let expected = [
      "calls": app.count, "connections": (timeline["connections"] as? [Any])?.count ?? -1,
      "errors": app.count { $0["result"] as? String != "ok" }, "advertisers": devices.count,
    ]
    let data = section["data"] as? [String: String] ?? [:]
    let shown = (section["shown"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int }
    for (key, count) in expected.sorted(by: { $0.key < $1.key }) {
      #expect(Int(data[key] ?? "") == count, "\(name): data-\(key) \(data[key] ?? "none"), JSON \(count)")
    }
    #expect(
      shown == [expected["calls"], expected["connections"], expected["errors"], expected["advertisers"]],
      "\(name): shown \(shown)")

    // Every call is in the sequence diagram, folded or left out with a count.
    let steps = section["steps"] as? [[String: Any]] ?? []
    let drawn = steps.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }
    #expect(drawn + (section["omitted"] as? Int ?? 0) == app.count, "\(name): \(drawn) calls drawn")
    for step in steps where step["error"] as? Bool == true {
      #expect(step["redArrow"] as? Bool == true && step["marked"] as? Bool == true, "\(name): error step \(step)")
    }

    let charts = section["charts"] as? [[String: Any]] ?? []
    #expect(section["svgsOutsideCharts"] as? Int == 0)
    for chart in charts {
      let label = "\(name): chart \(chart["kind"] ?? "") \(chart["title"] ?? "")"
      #expect(chart["role"] as? String == "img", "\(label)")
      #expect(chart["labelled"] as? Bool == true, "\(label): no text alternative")
      #expect((chart["caption"] as? String)?.isEmpty == false, "\(label): no caption")
    }
  }

  @Test(
    "android-central: the sequence diagram shows the truth's calls in order, per connection",
    .enabled(
      if: available,
      "skipping the report's browser test: needs ../shared/captures and Debian's chromium (.ci/deps --oracles)"))
  func androidCentralSequence() throws {
    let (url, truth) = try syntheticTruth("android-central.btsnoop")
    let html = Paths.scratchFile("report.html")
    defer { try? FileManager.default.removeItem(at: html) }
    #expect(runRaw(["report", "--api", "android", url.path, "-o", html.path]).status == 0)
    let page = try Self.open(html)
    let section = try #require((page["captures"] as? [[String: Any]])?.first)
    let steps = section["steps"] as? [[String: Any]] ?? []
    let api = try #require(truth["api"] as? [[String: Any]])
    // A call that caused nothing on the wire cannot be seen in it.
    let onWire = api.filter { $0["on_wire"] as? Bool != false }
      .sorted { ($0["start_us"] as? Int ?? 0) < ($1["start_us"] as? Int ?? 0) }
    var handles: [Int?] = []
    for entry in onWire where !handles.contains(entry["handle"] as? Int) { handles.append(entry["handle"] as? Int) }
    for handle in handles {
      let expected = onWire.filter { $0["handle"] as? Int == handle }.map { $0["call"] as? String ?? "" }
      let shown = steps.filter { $0["handle"] as? Int == handle }.flatMap { step in
        Array(repeating: step["call"] as? String ?? "", count: step["count"] as? Int ?? 1)
      }.filter { !AppTruthTests.unrecordedKinds.contains($0) }
      #expect(shown == expected, "connection handle \(handle.map(String.init) ?? "none")")
    }
  }

  /// Writes Samples/report-screenshot.png (the README's picture) from a real capture's
  /// report, with BLEANALYZE_RECORD=1.
  @Test(
    "README's screenshot of a real report",
    .enabled(if: available && recordingGolden, "BLEANALYZE_RECORD=1 writes Samples/report-screenshot.png"))
  func screenshot() throws {
    // Relative to the package root, where the binary runs: the title shows it as written.
    let capture = "../shared/captures/real/Projet_RP__ble_capture.btsnoop"
    let html = Paths.scratchFile("report.html")
    defer { try? FileManager.default.removeItem(at: html) }
    #expect(runRaw(["report", "--api", "android", capture, "-o", html.path]).status == 0)
    let page = try Self.open(html, screenshot: Paths.samples.appending(path: "report-screenshot.png"))
    #expect(page["blank"] as? Bool == false)
  }
}

@Suite("report --redact")
struct ReportRedactTests {
  static func counts(_ html: URL) throws -> String {
    let text = try String(contentsOf: html, encoding: .utf8)
    let start = try #require(text.range(of: "data-calls="))
    return String(text[start.lowerBound...].prefix { $0 != ">" })
  }

  @Test(
    "android-central: no original address or advertised name is left; the counts are those of the redacted capture's",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func redacted() throws {
    let (url, truth) = try syntheticTruth("android-central.btsnoop")
    let html = Paths.scratchFile("report.html")
    let plain = Paths.scratchFile("plain.html")
    let redacted = Paths.scratchFile("redacted.btsnoop")
    defer { for file in [html, plain, redacted] { try? FileManager.default.removeItem(at: file) } }
    #expect(runRaw(["report", "--redact", url.path, "-o", html.path]).status == 0)
    let text = try String(contentsOf: html, encoding: .utf8)
    let advertisers = try #require(truth["advertisers"] as? [[String: Any]])
    for advertiser in advertisers {
      if let address = advertiser["address"] as? String { #expect(!text.contains(address), "\(address) left") }
      if let name = advertiser["name"] as? String, !name.isEmpty { #expect(!text.contains(name), "\(name) left") }
    }
    #expect(runRaw(["redact", url.path, redacted.path]).status == 0)
    #expect(runRaw(["report", redacted.path, "-o", plain.path]).status == 0)
    #expect(try Self.counts(html) == Self.counts(plain))
  }

  @Test("--redact reads each capture twice, so not stdin: a usage error")
  func redactStdin() {
    let output = execute(Paths.binary, ["report", "--redact", "-", "-o", Paths.scratchFile("report.html").path])
    #expect(output.status == 1)
    #expect(output.stderr.contains("not -"))
  }
}
