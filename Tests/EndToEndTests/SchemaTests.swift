import Foundation
import Testing

// The published JSON Schemas of `show` (Sources/BLEOutput/Schemas) against what `show` writes,
// checked by python3's `jsonschema` (Debian python3-jsonschema, installed by
// `.ci/deps --oracles`); the tests are skipped without it.

/// Where the schemas are.
enum Schemas {
  static let folder = Paths.packageRoot.appending(path: "Sources/BLEOutput/Schemas")
  /// One record: a line of `show --format ndjson`.
  static let record = folder.appending(path: "show-record.schema.json")
  /// The document of `show --format json`.
  static let document = folder.appending(path: "show.schema.json")
  static let gatt = folder.appending(path: "gatt.schema.json")
  static let timeline = folder.appending(path: "timeline.schema.json")
  static let app = folder.appending(path: "app.schema.json")
  static let appLine = folder.appending(path: "app-line.schema.json")
  static let throughput = folder.appending(path: "throughput.schema.json")
  static let throughputLine = folder.appending(path: "throughput-line.schema.json")
  /// `bleanalyze dissectors` in every format.
  static let dissectors = folder.appending(path: "dissectors.schema.json")

  static let python3 = URL(fileURLWithPath: "/usr/bin/python3")

  /// What both validators begin with: the imports, the URN fix and `close`.
  static let prelude = """
    import json, pathlib, sys, urllib.parse
    import jsonschema
    from jsonschema import Draft202012Validator as V

    # The schemas' ids are URNs. jsonschema before 4.18 (RefResolver, Debian 12) joins a
    # "#/$defs/…" reference to its urn: base only when urllib counts urn as hierarchical.
    if "urn" not in urllib.parse.uses_relative: urllib.parse.uses_relative.append("urn")

    def close(schema):
        if isinstance(schema, dict):
            if "properties" in schema: schema.setdefault("additionalProperties", False)
            for value in schema.values(): close(value)
        elif isinstance(schema, list):
            for value in schema: close(value)

    """

  /// `python3 -c validator SCHEMA [FILE]`: checks every `*.schema.json` next to SCHEMA against
  /// the draft 2020-12 meta-schema, then validates each line of FILE (one JSON value per
  /// line) against SCHEMA, the others serving its `$ref`s. Prints one line per failure and
  /// exits 1 if there was any. Our own output is held to the schemas closed
  /// (`additionalProperties: false` wherever `properties` are listed), so that every key
  /// `show` writes is documented; the published schemas stay open, as extra fields are
  /// welcome. Works with jsonschema 4.10 (Debian 12, `RefResolver`) and later (`referencing`).
  static let validator =
    prelude + """
      failures = 0
      target = pathlib.Path(sys.argv[1])
      store = {}
      for path in sorted(target.parent.glob("*.schema.json")):
          schema = json.loads(path.read_text())
          try:
              V.check_schema(schema)
          except jsonschema.SchemaError as error:
              failures += 1
              print(f"{path.name}: not a valid draft 2020-12 schema: {error.message}")
          close(schema)
          store[schema["$id"]] = schema
      schema = store[json.loads(target.read_text())["$id"]]
      try:
          from referencing import Registry, Resource
          resources = [(uri, Resource.from_contents(contents)) for uri, contents in store.items()]
          validator = V(schema, registry=Registry().with_resources(resources))
      except ImportError:
          validator = V(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
      for number, line in enumerate(open(sys.argv[2]) if len(sys.argv) > 2 else [], 1):
          for error in validator.iter_errors(json.loads(line)):
              failures += 1
              place = "/".join(map(str, error.absolute_path)) or "(top)"
              print(f"line {number}: {place}: {error.message[:300]}")
              if failures >= 20: sys.exit("too many failures; stopping")
      sys.exit(1 if failures else 0)
      """

  /// Runs the validator on `lines` (written to a scratch file), or on the schemas alone.
  static func validate(_ lines: Data?, against schema: URL) -> Output {
    guard let lines else { return execute(python3, ["-c", validator, schema.path]) }
    let file = Paths.scratchFile("schema-input.ndjson")
    defer { try? FileManager.default.removeItem(at: file) }
    do {
      try lines.write(to: file)
    } catch {
      return Output(status: 127, stdout: Data(), stderr: "could not write \(file.path): \(error)")
    }
    return execute(python3, ["-c", validator, schema.path, file.path])
  }
}

/// `/usr/bin/python3` can `import jsonschema`.
let jsonschemaAvailable = execute(Schemas.python3, ["-c", "import jsonschema"]).status == 0

/// Every sample capture, by file name.
func sampleCaptureNames() -> [String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: Paths.samples.path)) ?? []
  return names.filter { name in [".btsnoop", ".pcap", ".pcapng", ".pklg"].contains { name.hasSuffix($0) } }.sorted()
}

@Suite(
  "JSON Schemas of show",
  .enabled(if: jsonschemaAvailable, "python3 -c 'import jsonschema' failed; skipping schema tests"))
struct SchemaTests {
  @Test("the schemas are valid draft 2020-12 schemas")
  func schemasAreValid() {
    #expect(FileManager.default.fileExists(atPath: Schemas.record.path))
    #expect(FileManager.default.fileExists(atPath: Schemas.document.path))
    let result = Schemas.validate(nil, against: Schemas.document)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("every NDJSON record of show on the samples validates", arguments: sampleCaptureNames(), [false, true])
  func samplesValidate(_ name: String, verbose: Bool) {
    let output = runRaw(["show", "--format", "ndjson"] + (verbose ? ["-v"] : []) + ["Samples/\(name)"])
    // Unreadable samples (exit 2) print nothing; a damaged one (exit 3) prints what it could.
    #expect([0, 2, 3].contains(output.status), "exit status; stderr: \(output.stderr)")
    let result = Schemas.validate(output.stdout, against: Schemas.record)
    #expect(result.status == 0, "\(name)\(verbose ? " -v" : ""):\n\(result.text)\(result.stderr)")
  }

  @Test(
    "records of a sniffer capture (ll) validate",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func snifferCaptureValidates() {
    let output = runRaw([
      "show", "--format", "ndjson", "-v", Paths.captures.appending(path: "real/Tesi_BLE__capture.pcap").path,
    ])
    #expect(output.status == 0, "exit status; stderr: \(output.stderr)")
    #expect(output.text.contains("\"ll\":{"), "expected link-layer records")
    let result = Schemas.validate(output.stdout, against: Schemas.record)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("the --format json document validates", arguments: [false, true])
  func documentValidates(verbose: Bool) {
    let output = runRaw(
      ["show", "--format", "json"] + (verbose ? ["-v"] : [])
        + ["Samples/hr-sensor-monitor.btsnoop", "Samples/cut-off.btsnoop", "Samples/hr-sensor.pklg"])
    #expect(output.status == 3, "exit status (cut-off.btsnoop is damaged); stderr: \(output.stderr)")
    #expect(lines(output.text).count == 1, "the document is one line")
    let result = Schemas.validate(output.stdout, against: Schemas.document)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("gatt --format json and ndjson validate", arguments: ["json", "ndjson"])
  func gattValidates(format: String) {
    var files = ["Samples/hr-sensor.btsnoop"]
    if sharedAvailable {
      files += syntheticCaptures().filter { !$0.hasPrefix("scale") }.map {
        Paths.captures.appending(path: "synthetic/\($0)").path
      }
    }
    for file in files {
      let output = runRaw(["gatt", "--format", format, file])
      #expect(output.status == 0, "\(file): \(output.stderr)")
      #expect(output.text.contains("\"characteristics\":[{"), "\(file): expected a database")
      // NDJSON lines are peers: wrap each into a document to validate it.
      let documents =
        format == "json"
        ? output.text.trimmingCharacters(in: .newlines)
        : lines(output.text).map { #"{"peers":["# + $0 + #"],"captures":[]}"# }.joined(separator: "\n")
      let result = Schemas.validate(Data((documents + "\n").utf8), against: Schemas.gatt)
      #expect(result.status == 0, "\(file):\n\(result.text)\(result.stderr)")
    }
  }

  @Test("timeline --format json and ndjson validate", arguments: ["json", "ndjson"])
  func timelineValidates(format: String) throws {
    var files = ["Samples/hr-sensor.btsnoop"]
    if sharedAvailable {
      files += syntheticCaptures().filter { !$0.hasPrefix("scale") }.map {
        Paths.captures.appending(path: "synthetic/\($0)").path
      }
    }
    for file in files {
      let output = runRaw(["timeline", "--format", format, file])
      #expect(output.status == 0, "\(file): \(output.stderr)")
      #expect(output.text.contains("\"complete_frame\":"), "\(file): expected a connection")
      var document = output.text.trimmingCharacters(in: .newlines)
      if format == "ndjson" {
        // Lines go back into the document's arrays by their type.
        var arrays: [String: [String]] = [
          "connection": [], "attempt": [], "transaction": [], "pair": [], "capture": [],
        ]
        for line in lines(output.text) {
          let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
          arrays[object["type"] as? String ?? "", default: []].append(line)
        }
        document =
          #"{"$schema":"urn:bleanalyze:schema:timeline:2","schema_version":2,"connections":["#
          + arrays["connection"]!.joined(separator: ",")
          + #"],"connection_attempts":["# + arrays["attempt"]!.joined(separator: ",") + #"],"transactions":["#
          + arrays["transaction"]!.joined(separator: ",") + #"],"pairs":["# + arrays["pair"]!.joined(separator: ",")
          + #"],"captures":["#
          + arrays["capture"]!.map { $0.replacingOccurrences(of: #"{"type":"capture","#, with: "{") }
          .joined(separator: ",") + "]}"
      }
      let result = Schemas.validate(Data((document + "\n").utf8), against: Schemas.timeline)
      #expect(result.status == 0, "\(file):\n\(result.text)\(result.stderr)")
    }
  }

  @Test("app --format json and ndjson validate", arguments: ["json", "ndjson"], [false, true])
  func appValidates(format: String, android: Bool) {
    var files = ["Samples/hr-sensor.btsnoop", "Samples/secure-sensor.btsnoop", "Samples/scanner.btsnoop"]
    if sharedAvailable {
      files += [
        "synthetic/ios-central.btsnoop", "synthetic/android-central.btsnoop", "real/AndroidPad__btsnoop_hci.btsnoop",
      ]
      .map { Paths.captures.appending(path: $0).path }
    }
    for file in files {
      let output = runRaw(["app", "--format", format] + (android ? ["--api", "android"] : []) + [file])
      #expect(output.status == 0, "\(file): \(output.stderr)")
      #expect(output.text.contains("\"call\":"), "\(file): expected calls")
      let result = Schemas.validate(output.stdout, against: format == "json" ? Schemas.app : Schemas.appLine)
      #expect(result.status == 0, "\(file):\n\(result.text)\(result.stderr)")
    }
  }

  @Test("throughput --format json and ndjson validate", arguments: ["json", "ndjson"])
  func throughputValidates(format: String) {
    var files = ["Samples/hr-sensor.btsnoop", "Samples/cut-off.btsnoop", "Samples/air-sensor.pcap"]
    if sharedAvailable {
      files += syntheticCaptures().filter { !$0.hasPrefix("scale") }.map { "synthetic/\($0)" }.map {
        Paths.captures.appending(path: $0).path
      }
      files.append(Paths.captures.appending(path: "real/blefun__btsnoop_hci.btsnoop").path)
    }
    let output = runRaw(["throughput", "--format", format] + files)
    // cut-off.btsnoop is damaged (exit 3); everything before the damage is still there.
    #expect(output.status == 3, "stderr: \(output.stderr)")
    if sharedAvailable { #expect(output.text.contains("\"binding\":\"host_buffers\""), "expected transfers") }
    let result = Schemas.validate(
      output.stdout, against: format == "json" ? Schemas.throughput : Schemas.throughputLine)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("a throughput transfer that breaks the contract is rejected")
  func badTransferIsRejected() {
    let line =
      #"{"type":"transfer","conn":{"id":1,"handle":64,"peer":null},"attr_handle":67,"op":"write_cmd","direction":"up"}"#
    let result = Schemas.validate(Data((line + "\n").utf8), against: Schemas.throughputLine)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
  }

  @Test("an app call that breaks the contract is rejected")
  func badAppCallIsRejected() {
    let call =
      #"{"call":"frobnicate","conn":null,"client":"local","attr_handle":null,"uuid":null,"name":null,"status":"ok","outcome":null,"error":null,"start_ts":1,"end_ts":1,"duration_ms":0,"frames":[1,1],"requests":[1],"responses":[]}"#
    let result = Schemas.validate(Data((call + "\n").utf8), against: Schemas.appLine)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
    #expect(result.text.contains("line 1: call:"), "\(result.text)\(result.stderr)")
  }

  /// Records that break the contract, each with the place the validator must name.
  static let badRecords: [(record: String, place: String)] = [
    (#"{"frame":1,"ts":0.5,"dir":"up","adapter":null,"length":3}"#, "line 1: dir:"),
    (
      #"{"frame":1,"ts":0.5,"dir":"rx","adapter":null,"length":3,"conn":{"id":1,"handle":64,"peer":"d4:36:39:67:a2:61"}}"#,
      "line 1: conn/peer:"
    ),
    (#"{"frame":1,"ts":0.5,"dir":"rx","length":3}"#, "'adapter' is a required property"),
    (
      #"{"frame":1,"ts":0.5,"dir":"rx","adapter":null,"length":3,"att":{"opcode":1,"name":"x","value":"0A"}}"#,
      "att/value:"
    ),
    (
      #"{"frame":1,"ts":0.5,"dir":"rx","adapter":null,"length":3,"att":{"opcode":1,"name":"x","frobnicate":1}}"#,
      "'frobnicate' was unexpected"
    ),
    (
      #"{"frame":1,"ts":0.5,"dir":null,"adapter":null,"length":3,"diagnostics":[{"id":"Capture Cut","severity":"info","message":"x"}]}"#,
      "diagnostics/0/id:"
    ),
    (
      #"{"frame":1,"ts":0.5,"dir":null,"adapter":null,"length":3,"fields":[{"name":"a","fields":[{"name":"b","value":1.5}]}]}"#,
      "fields/0/fields/0/value:"
    ),
  ]

  @Test("a record that breaks the contract is rejected", arguments: badRecords)
  func badRecordIsRejected(record: String, place: String) {
    let result = Schemas.validate(Data((record + "\n").utf8), against: Schemas.record)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
    #expect(result.text.contains(place), "\(result.text)\(result.stderr)")
  }

  @Test("a document whose record breaks the contract is rejected (the $ref is followed)")
  func badDocumentIsRejected() {
    let document =
      #"{"schema_version":2,"captures":[{"file":"a","format":"b","records":[{"frame":1,"ts":0,"dir":"up","adapter":null,"length":0}],"record_count":1,"first_ts":0,"last_ts":0,"damage":null,"sources":[]}]}"#
    let result = Schemas.validate(Data((document + "\n").utf8), against: Schemas.document)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
    #expect(result.text.contains("line 1: captures/0/records/0/dir:"), "\(result.text)\(result.stderr)")
  }

  @Test(
    "dissectors output validates: the listing, its NDJSON lines, decodes",
    arguments: [
      ["--format", "json"], ["--format", "ndjson"], ["--dissectors", "Samples", "--format", "ndjson"],
      ["--format", "json", "--decode", "2a37", "164803032103"], ["--format", "json", "--decode", "2a19", "6401"],
      ["--format", "ndjson", "--decode", "2a1c", "066f0100ffe80705180c1e0003"],
      ["--format", "json", "--decode", "2a36", "00a000ff07ff07"],
      [
        "--dissectors", "Samples", "--format", "json", "--decode", "7b3c0003-1b2a-4c5d-8e9f-a0b1c2d3e4f5",
        "030100000000",
      ],
    ])
  func dissectorsValidate(arguments: [String]) {
    let output = runRaw(["dissectors"] + arguments)
    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(!output.stdout.isEmpty)
    let result = Schemas.validate(output.stdout, against: Schemas.dissectors)
    #expect(result.status == 0, "\(arguments):\n\(result.text)\(result.stderr)")
  }

  @Test("a dissectors document that breaks the schema is rejected")
  func badDissectorsDocumentIsRejected() {
    let document =
      #"{"schema_version":2,"formats":[{"uuid":"2A37","kind":"characteristic","name":"x","builtin":true,"source":"s","path":"p","line":1,"fields":[]}]}"#
    let result = Schemas.validate(Data((document + "\n").utf8), against: Schemas.dissectors)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
  }

  @Test("a good record passes (so the rejections above are about the record)")
  func goodRecordPasses() {
    let record =
      #"{"frame":1,"ts":0.5,"dir":"rx","adapter":0,"length":3,"conn":{"id":1,"handle":64,"peer":{"address":"D4:36:39:67:A2:61","type":"public","name":null}}}"#
    let result = Schemas.validate(Data((record + "\n").utf8), against: Schemas.record)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }
}
