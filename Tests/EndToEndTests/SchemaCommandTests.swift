import Foundation
import Testing

/// `bleanalyze schema COMMAND [--ndjson]` against what COMMAND writes, on every shared
/// capture: the printed schema alone (with the schemas it refers to embedded) must validate
/// the `--format json` document and every `--format ndjson` line.
@Suite(
  "bleanalyze schema validates every command's output",
  .enabled(if: jsonschemaAvailable, "python3 -c 'import jsonschema' failed; skipping schema tests"))
struct SchemaCommandTests {
  static let commands = ["show", "timeline", "stats", "gatt", "devices", "app"]

  /// `python3 -c validator SCHEMA DATA [SCHEMA DATA…]`: each SCHEMA (a file, no others
  /// beside it) held closed as in SchemaTests, and each line of its DATA validated. Lines are
  /// all validated up to 2,000; past that, only the first three lines of each shape (the keys
  /// at every depth and the JSON types of the values), which keeps a 50,000-record capture
  /// to seconds.
  static let validator =
    Schemas.prelude + """
      def shape(value):
          if isinstance(value, dict): return "{" + ",".join(k + ":" + shape(v) for k, v in sorted(value.items())) + "}"
          if isinstance(value, list): return "[" + "|".join(sorted({shape(v) for v in value})) + "]"
          return type(value).__name__

      failures = 0
      arguments = sys.argv[1:]
      for schema_path, data_path in zip(arguments[0::2], arguments[1::2]):
          schema = json.load(open(schema_path))
          V.check_schema(schema)
          close(schema)
          validator = V(schema)
          seen = {}
          for number, line in enumerate(open(data_path), 1):
              value = json.loads(line)
              if number > 2000:
                  key = shape(value)
                  seen[key] = seen.get(key, 0) + 1
                  if seen[key] > 3: continue
              for error in validator.iter_errors(value):
                  failures += 1
                  place = "/".join(map(str, error.absolute_path)) or "(top)"
                  print(f"{data_path.rsplit('-', 1)[-1]} line {number}: {place}: {error.message[:300]}")
                  if failures >= 20: sys.exit("too many failures; stopping")
      sys.exit(1 if failures else 0)
      """

  /// The printed schemas, written once: `show.json`, `show.ndjson`, …
  static let schemaFiles: URL = {
    let folder = Paths.scratch.appending(path: "printed-schemas")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for command in commands + ["dissectors"] {
      for format in ["json", "ndjson"] {
        let output = runRaw(["schema", command] + (format == "ndjson" ? ["--ndjson"] : []))
        try? output.stdout.write(to: folder.appending(path: "\(command).\(format)"))
      }
    }
    return folder
  }()

  /// Every shared capture but the benchmark one, and the samples when ../shared is absent.
  static func captures() -> [String] {
    guard sharedAvailable else { return ["Samples/hr-sensor.btsnoop", "Samples/secure-sensor.btsnoop"] }
    let real = (try? FileManager.default.contentsOfDirectory(atPath: Paths.captures.appending(path: "real").path)) ?? []
    return syntheticCaptures().filter { !$0.hasPrefix("scale") }.map { "synthetic/\($0)" }
      + real.filter { !$0.hasSuffix(".tsv") }.sorted().map { "real/\($0)" }
  }

  @Test("each schema names itself by URN and is printed whole")
  func schemasAreReachable() throws {
    for command in Self.commands + ["dissectors", "live-list", "redact-map"] {
      let output = runRaw(["schema", command])
      #expect(output.status == 0, "\(command): \(output.stderr)")
      let schema = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], "\(command)")
      #expect(schema["$id"] as? String == "urn:bleanalyze:schema:\(command):2")
      #expect(!output.text.contains("bleanalyze.invalid"), "\(command): placeholder host")
      // Every URN it refers to is embedded.
      for reference in output.text.matches(of: /"\$ref": "(urn:bleanalyze:schema:[a-z-]+:[0-9]+)/) {
        #expect(output.text.contains("\"$id\": \"\(reference.1)\""), "\(command): \(reference.1) not embedded")
      }
    }
    #expect(runRaw(["schema", "frobnicate"]).status == 1)
  }

  /// `redact --map` names its schema, and `schema redact-map` validates it.
  @Test(
    "redact --map validates against schema redact-map",
    arguments: ["Samples/hr-sensor.btsnoop", "Samples/secure-sensor.btsnoop", "Samples/vendor-gatt.btsnoop"])
  func redactMapValidates(_ sample: String) throws {
    let schema = Paths.scratchFile("redact-map-schema")
    let map = Paths.scratchFile("redact-map")
    let output = Paths.scratchFile("redacted.btsnoop")
    defer { for file in [schema, map, output] { try? FileManager.default.removeItem(at: file) } }
    try runRaw(["schema", "redact-map"]).stdout.write(to: schema)
    let result = runRaw(["redact", Paths.packageRoot.appending(path: sample).path, output.path, "--map", map.path])
    #expect(result.status == 0, "\(result.stderr)")
    let text = try String(contentsOf: map, encoding: .utf8)
    #expect(text.hasPrefix("{\"$schema\":\"urn:bleanalyze:schema:redact-map:2\",\"schema_version\":2,"))
    // The validator reads one document per line.
    let document = try JSONSerialization.jsonObject(with: Data(text.utf8))
    try JSONSerialization.data(withJSONObject: document).write(to: map)
    let validation = execute(Schemas.python3, ["-c", Self.validator, schema.path, map.path])
    #expect(validation.status == 0, "\(sample):\n\(validation.text)\(validation.stderr)")
  }

  @Test("every command's json and ndjson output validates", arguments: captures())
  func outputValidates(_ capture: String) {
    let path = sharedAvailable ? Paths.captures.appending(path: capture).path : capture
    var arguments: [String] = []
    var files: [URL] = []
    defer { for file in files { try? FileManager.default.removeItem(at: file) } }
    for command in Self.commands {
      for format in ["json", "ndjson"] {
        let output = runRaw([command, "--format", format, path])
        // A capture that cannot be read (2) prints nothing; a damaged one (3) what it could.
        #expect([0, 2, 3].contains(output.status), "\(command) \(format) \(capture): \(output.stderr)")
        if format == "json" && output.status != 2 {
          #expect(
            output.text.hasPrefix("{\"$schema\":\"urn:bleanalyze:schema:\(command):2\""),
            "\(command) \(capture): the document names its schema first")
        }
        let file = Paths.scratchFile("\(command)-\(format)")
        files.append(file)
        try? output.stdout.write(to: file)
        arguments += [Self.schemaFiles.appending(path: "\(command).\(format)").path, file.path]
      }
    }
    let result = execute(Schemas.python3, ["-c", Self.validator] + arguments)
    #expect(result.status == 0, "\(capture):\n\(result.text)\(result.stderr)")
  }
}
