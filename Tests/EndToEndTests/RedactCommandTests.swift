import Foundation
import Testing

/// `redact` on the samples: what it replaces, what it keeps, what it says.
@Suite("redact on the samples")
struct RedactCommandTests {
  /// Runs `redact` into scratch files; returns the output's bytes, the map and stderr
  /// with the scratch paths written OUT and MAP.
  private func redact(_ sample: String, _ format: String = "pcapng", _ extra: [String] = []) throws -> (
    output: URL, map: [String: Any], stderr: String
  ) {
    let output = Paths.scratchFile("redacted.\(format)")
    let map = Paths.scratchFile("map.json")
    let result = run(["redact", sample, output.path, "--map", map.path] + extra)
    #expect(result.status == 0, "redact \(sample): \(result.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: map)) as? [String: Any])
    let stderr = result.stderr.replacing(output.path, with: "OUT").replacing(map.path, with: "MAP")
    return (output, document, stderr)
  }

  /// No value of the show fields that hold addresses and names (RedactionFields.showFields)
  /// is left in the redacted capture, read with `show -T fields`.
  @Test(arguments: ["Samples/hr-sensor.btsnoop", "Samples/secure-sensor.btsnoop", "Samples/air-sensor.pcap"])
  func showFieldsAreReplaced(_ sample: String) throws {
    let (output, _, _) = try redact(sample)
    defer { try? FileManager.default.removeItem(at: output) }
    let fields = [
      "adv.address", "adv.name", "conn.peer.address", "conn.peer.name", "ll.adv_address", "ll.init_address",
    ]
    func values(_ file: String) -> Set<String> {
      let text = run(["show", "-T", "fields"] + fields.flatMap { ["-e", $0] } + [file]).stdout
      return Set(text.split(whereSeparator: { $0 == "\t" || $0 == "\n" || $0 == "," }).map(String.init))
    }
    let original = values(sample)
    #expect(!original.isEmpty, "\(sample) shows addresses or names")
    let left = original.intersection(values(output.path))
    #expect(left.isEmpty, "\(sample): \(left.sorted()) still in the redacted capture")
  }

  /// The `fields` of SMP in `show -v --format ndjson`, by frame.
  private func smpValues(_ file: URL) -> [Int: [String: String]] {
    var values: [Int: [String: String]] = [:]
    for line in lines(run(["show", "-v", "--format", "ndjson", "--filter", "smp", file.path]).stdout) {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let frame = object["frame"] as? Int, let tree = object["fields"] as? [[String: Any]],
        let smp = tree.first(where: { $0["name"] as? String == "SMP" })?["fields"] as? [[String: Any]]
      else { continue }
      for field in smp {
        if let name = field["name"] as? String, let value = field["value"] as? String {
          values[frame, default: [:]][name] = value
        }
      }
    }
    return values
  }

  /// secure-sensor: LE Secure Connections Numeric Comparison with its Public Keys in three
  /// ACL fragments each (#18–20, #22–24), Confirm, Random, DHKey Check, Identity
  /// Information and Identity Address Information both ways, LE Enable Encryption with
  /// EDIV, Rand and LTK.
  @Test("secure-sensor: every pairing value is filler, in every fragment; IRKs stand-ins; disclosure")
  func secureSensor() throws {
    let sample = "Samples/secure-sensor.btsnoop"
    let (output, map, stderr) = try redact(sample)
    defer { try? FileManager.default.removeItem(at: output) }
    let before = smpValues(Paths.packageRoot.appending(path: sample))
    let after = smpValues(output)
    #expect(before.keys.sorted() == after.keys.sorted(), "the same SMP frames decode")
    for (frame, fields) in before {
      for (name, value) in fields
      where ["Public Key X", "Public Key Y", "Confirm Value", "Random Value", "DHKey Check"].contains(name) {
        #expect(value.contains { $0 != "0" }, "#\(frame) \(name) was not filler before")
        #expect(
          after[frame]?[name].map { $0.allSatisfy { $0 == "0" } } == true,
          "#\(frame) \(name): \(after[frame]?[name] ?? "-")")
      }
    }
    // The IRKs become `bleanalyze-irk` and a number (least significant octet first in SMP).
    let irks = after.values.compactMap { $0["Identity Resolving Key"] }.sorted()
    #expect(irks == ["01006b72692d657a796c616e61656c62", "02006b72692d657a796c616e61656c62"])
    let addresses = try #require(map["addresses"] as? [[String: String]])
    #expect(addresses.map { $0["original"] ?? "" } == ["C0:FF:EE:12:34:56", "4D:C1:64:29:99:6D"])
    // Top two bits kept: 0b11 and 0b01.
    #expect(addresses.map { $0["redacted"] ?? "" } == ["C0:00:00:00:00:01", "40:00:00:00:00:02"])
    // No original value is left anywhere in the file.
    let bytes = try Data(contentsOf: output)
    for field in before.values.flatMap(\.values) where field.count >= 32 {
      let octets = Data(
        stride(from: 0, to: field.count, by: 2).compactMap { UInt8(field.dropFirst($0).prefix(2), radix: 16) })
      #expect(bytes.range(of: octets) == nil, "\(field) is still in the output")
    }
    checkText(stderr, golden: "redact-secure-sensor.txt")
  }

  /// scanner: "Desk Lamp" and "Cut" in legacy reports, and "Lab Sensor 42" in an
  /// extended report's data split over #5 and #6.
  @Test("scanner: names become device-N, also across extended advertising fragments; --keep-names keeps them")
  func names() throws {
    let (output, map, stderr) = try redact("Samples/scanner.btsnoop", "btsnoop")
    defer { try? FileManager.default.removeItem(at: output) }
    let names = try #require(map["names"] as? [[String: String]])
    #expect(names.map { $0["original"] ?? "" } == ["Desk Lamp", "Lab Sensor 42", "Cut"])
    #expect(names.map { $0["redacted"] ?? "" } == ["device-1", "device-2", "device-3"])
    let devices = run(["devices", "--format", "json", output.path]).stdout
    #expect(devices.contains("\"device-1\"") && devices.contains("\"device-2\"") && devices.contains("\"d3\""))
    for original in ["Desk Lamp", "Lab Sensor 42", "Lab Se", "Cut"] {
      #expect(try Data(contentsOf: output).range(of: Data(original.utf8)) == nil, "\(original) is left")
    }
    checkText(stderr, golden: "redact-scanner.txt")

    let (kept, keptMap, _) = try redact("Samples/scanner.btsnoop", "btsnoop", ["--keep-names"])
    defer { try? FileManager.default.removeItem(at: kept) }
    #expect((keptMap["names"] as? [Any])?.isEmpty == true)
    #expect(run(["devices", kept.path]).stdout.contains("\"Lab Sensor 42\""))
  }

  /// air-sensor: the sniffer's CRCs are moved with the addresses and names, so the
  /// packets that were good stay good and #16, sent with a bad CRC, stays bad.
  @Test("air-sensor: CRCs stay as good or bad as they were; btsnoop cannot hold it")
  func airSensor() throws {
    let (output, _, _) = try redact("Samples/air-sensor.pcap", "pcap")
    defer { try? FileManager.default.removeItem(at: output) }
    func crc(_ file: String) -> [String] {
      lines(run(["show", "--format", "ndjson", file]).stdout).map { line in
        line.contains("\"crc_ok\":true") ? "ok" : line.contains("\"crc_ok\":false") ? "bad" : "-"
      }
    }
    let before = crc("Samples/air-sensor.pcap")
    #expect(before.filter { $0 == "bad" }.count == 1)
    #expect(crc(output.path) == before)
    let refused = run(["redact", "Samples/air-sensor.pcap", Paths.scratchFile("x.btsnoop").path])
    #expect(refused.status == 1 && refused.stderr.contains("btsnoop cannot hold link-layer packets"))
  }

  @Test("the same capture gives the same bytes; the map never goes into OUT")
  func deterministic() throws {
    let (first, map, _) = try redact("Samples/hr-sensor-monitor.btsnoop", "btsnoop")
    let (second, _, _) = try redact("Samples/hr-sensor-monitor.btsnoop", "btsnoop")
    defer {
      try? FileManager.default.removeItem(at: first)
      try? FileManager.default.removeItem(at: second)
    }
    #expect(try Data(contentsOf: first) == Data(contentsOf: second))
    let originals = (map["addresses"] as? [[String: String]] ?? []).compactMap { $0["original"] }
    // New Index carries the adapter's address: it is one of them.
    #expect(originals.count == 3)
    let text = String(decoding: try Data(contentsOf: first), as: UTF8.self)
    for original in originals { #expect(!text.contains(original)) }
  }

  @Test("usage errors: same file twice, unknown extension")
  func usage() {
    #expect(run(["redact", "Samples/hr-sensor.btsnoop", "Samples/hr-sensor.btsnoop"]).status == 1)
    #expect(run(["redact", "Samples/hr-sensor.btsnoop", Paths.scratchFile("out.xyz").path]).status == 1)
  }
}

/// Compares `text` with a golden file (rewritten with BLEANALYZE_RECORD=1).
func checkText(_ text: String, golden: String, sourceLocation: SourceLocation = #_sourceLocation) {
  let url = Paths.golden.appending(path: golden)
  if recordingGolden {
    try? Data(text.utf8).write(to: url)
    Issue.record("recorded \(url.path); review the diff", sourceLocation: sourceLocation)
    return
  }
  let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "<missing \(golden)>"
  #expect(text == expected, "differs from Golden/\(golden)", sourceLocation: sourceLocation)
}
