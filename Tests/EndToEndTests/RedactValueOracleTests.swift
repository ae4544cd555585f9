import Foundation
import Testing

/// `redact` and the attribute values of every capture in ../shared: with
/// `--keep-values`, no value tshark shows (any ATT byte or text field) holds an original
/// address in any spelling, its device-specific half, a replaced name or a replaced
/// serial number; by default, every value left as it was is one the disclosure summary
/// lists.
@Suite("tshark oracle: redact leaves no address or name in any value")
struct RedactValueOracleTests {
  /// Every byte and text field of tshark's ATT dissector (`tshark -G fields`), and
  /// whether it is text.
  static let valueFields: [(name: String, isText: Bool)] = {
    guard let tshark = Paths.tshark else { return [] }
    let output = execute(tshark, ["-G", "fields"])
    var fields: [(String, Bool)] = []
    forEachLine(output.stdout) { line in
      let columns = String(decoding: line, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false)
      guard columns.count > 3, columns[2].hasPrefix("btatt."), columns[3] == "FT_BYTES" || columns[3] == "FT_STRING"
      else { return }
      fields.append((String(columns[2]), columns[3] == "FT_STRING"))
    }
    return fields
  }()

  /// What the map says was replaced: the original addresses (most significant octet
  /// first), names and serial numbers.
  struct Originals {
    var addresses: [[UInt8]] = []
    var texts: [[UInt8]] = []

    init(_ map: URL) throws {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: map)) as? [String: Any])
      for entry in object["addresses"] as? [[String: String]] ?? [] {
        if let original = entry["original"], let octets = RedactView.octets(Substring(original)) {
          addresses.append(octets)
        }
      }
      for key in ["names", "identifiers"] {
        for entry in object[key] as? [[String: String]] ?? [] where entry["kind"] ?? "serial" == "serial" {
          if let original = entry["original"] { texts.append(Array(original.utf8)) }
        }
      }
    }

    /// Every pattern a value must not hold, with what it is (for the message).
    var patterns: [(pattern: [UInt8], what: String)] {
      var patterns: [(pattern: [UInt8], what: String)] = []
      for address in addresses where Set(address).count >= 2 {
        let name = address.map { String(format: "%02X", $0) }.joined(separator: ":")
        for spelling in [address, address.reversed()] + addressTexts(address) {
          patterns.append((spelling, "address \(name)"))
        }
        let half = Array(address[3..<6])
        if Set(half).count == 3 {
          for spelling in [half, half.reversed()] { patterns.append((spelling, "half of \(name)")) }
        }
        for text in addressTexts(half) where Set(text).count >= 3 {
          patterns.append((text, "half of \(name)"))
        }
      }
      for text in texts where text.count >= 3 && Set(text).count >= 2 {
        let string = String(decoding: text, as: UTF8.self)
        for variant in [string, string.lowercased(), string.uppercased()] {
          patterns.append((Array(variant.utf8), "\"\(string)\""))
        }
      }
      return patterns
    }
  }

  @Test(
    "no value holds an address, its half, a name or a serial number (--keep-values)",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: RedactOracleTests.captures())
  func keptValues(_ name: String) throws {
    let (output, map) = try Self.redact(name, ["--keep-values"])
    defer {
      try? FileManager.default.removeItem(at: output)
      try? FileManager.default.removeItem(at: map)
    }
    let patterns = try Originals(map).patterns
    var values = 0
    var left: [String] = []
    let fields = Self.valueFields
    tsharkFields(output, options: ["-E", "occurrence=a", "-E", "aggregator=\u{1}"], fields: fields.map(\.name)) {
      columns in
      for (index, column) in columns.enumerated() where index < fields.count && !column.isEmpty {
        for value in column.split(separator: "\u{1}") {
          let octets = fields[index].isText ? Array(value.utf8) : (RedactView.octets(value) ?? Array(value.utf8))
          values += 1
          for (pattern, what) in patterns where Self.contains(octets, pattern) {
            left.append("\(fields[index].name) \(value.prefix(40)): \(what)")
          }
        }
      }
    }
    #expect(left.isEmpty, "\(name): \(left.count) values hold an original: \(left.prefix(5))")
    print("redact --keep-values \(name): \(values) values, \(patterns.count) patterns, none found")
  }

  @Test(
    "every value left as it was is in the disclosure summary (--blank-values, the default)",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: RedactOracleTests.captures())
  func disclosedValues(_ name: String) throws {
    let (output, map) = try Self.redact(name, [])
    defer {
      try? FileManager.default.removeItem(at: output)
      try? FileManager.default.removeItem(at: map)
    }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: map)) as? [String: Any])
    let listed = (object["values"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "kept" }
      .compactMap { $0["characteristic"] as? String }
    // Replaced, not kept: Device Name, Reconnection Address, System ID, Serial Number.
    let replaced: Set<String> = ["2a00", "2a03", "2a23", "2a25"]
    var unlisted: Set<String> = []
    var kept = 0
    let show = runRaw(["show", "--format", "ndjson", output.path])
    forEachLine(show.stdout) { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let att = object["att"] as? [String: Any], let opcode = att["opcode"] as? Int,
        RedactField.valueOpcodes.contains(String(format: "0x%02x", opcode)), let value = att["value"] as? String,
        value.contains(where: { $0 != "0" })
      else { return }
      kept += 1
      let uuid = att["uuid"] as? String
      if let uuid, replaced.contains(uuid) { return }
      let handle = (att["handle"] as? Int).map { String(format: "handle 0x%04x", $0) }
      let named = listed.contains { label in
        uuid.map { label.hasSuffix("(\($0))") || label == $0 } ?? false
          || handle.map { label.hasPrefix($0 + " ") } ?? false
      }
      if !named { unlisted.insert(uuid ?? handle ?? "?") }
    }
    #expect(unlisted.isEmpty, "\(name): values left as they were but not in the summary: \(unlisted.sorted())")
    print("redact \(name): \(kept) values left as they were, \(listed.count) characteristics listed")
  }

  /// `redact` of a shared capture into a scratch pcapng and its map.
  static func redact(_ name: String, _ options: [String]) throws -> (output: URL, map: URL) {
    let input = Paths.captures.appending(path: name)
    let output = Paths.scratchFile("\(input.lastPathComponent).pcapng")
    let map = Paths.scratchFile("map.json")
    let result = run(["redact", input.path, output.path, "--map", map.path] + options)
    try #require(result.status == 0 || result.status == 3, "redact \(name): \(result.stderr)")
    return (output, map)
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard let first = needle.first, haystack.count >= needle.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == first {
      if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
    }
    return false
  }
}
