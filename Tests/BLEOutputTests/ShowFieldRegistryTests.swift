import BLECapture
import BLEDissect
import Foundation
import Testing

@testable import BLEAnalysis
@testable import BLEOutput

/// show's record against its field registry (``ShowField/all``), both ways: what the JSON
/// writer emits on the samples, the filter catalog, the `-v` tree, show-record.schema.json
/// and README's field table. `BLEANALYZE_RECORD=1` rewrites README's table (and fails).
@Suite struct ShowFieldRegistryTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Key paths whose insides the registry leaves to others: the vendor protocols' tables,
  /// the advertising schema, the Dissectors/ formats and the `-v` tree.
  static let delegated = ["att.decoded", "att.assembled[].decoded", "adv.reports[]", "fields"]

  static var jsonPaths: [String: ShowField] {
    Dictionary(ShowField.all.compactMap { field in field.json.map { ($0, field) } }, uniquingKeysWith: { a, _ in a })
  }

  // MARK: Ids

  @Test func idsAreUniqueFilterNames() {
    var seen: Set<String> = []
    for field in ShowField.all {
      #expect(FilterLexer.isFieldName(field.id), "\(field.id)")
      #expect(seen.insert(field.id).inserted, "\(field.id) declared twice")
      for alias in field.aliases { #expect(seen.insert(alias).inserted, "alias \(alias) declared twice") }
    }
  }

  /// Every filter field is a registry field (or alias) or a vendor table's row, and every
  /// registry field with a filter kind is in the catalog with that kind.
  @Test func filterCatalogIsTheRegistry() {
    var declared: [String: FilterFieldKind] = [:]
    for field in ShowField.all {
      guard let kind = field.filterKind else { continue }
      declared[field.id] = kind
      for alias in field.aliases { declared[alias] = kind }
    }
    for table in VendorFieldTable.all {
      declared[table.name] = .presence
      for field in table.fields {
        if let filter = field.filter, let kind = field.kind.filterKind { declared[filter] = kind }
      }
    }
    #expect(Set(RecordFilter.catalog.names) == Set(declared.keys))
    for (name, kind) in declared { #expect(RecordFilter.catalog.kind(of: name) == kind, "\(name)") }
  }

  /// A filter with a name of schema_version 1 is told the new one.
  @Test func oldNamesAreToldTheNewOnes() {
    for (old, new) in ShowField.renamed {
      #expect(RecordFilter.catalog.kind(of: old) == nil && RecordFilter.catalog.kind(of: new) != nil)
      do {
        _ = try RecordFilter.compile("\(old) == \"Heart Rate\"")
        Issue.record("\(old) compiled")
      } catch {
        #expect(error.message == "unknown field '\(old)'; schema_version 2 calls it '\(new)'")
      }
    }
  }

  /// The JSON fields no filter reads: the file a record came from (show's, not the
  /// record's), names from the dissector library show was given (filter on the UUID), and
  /// the `-v` tree. A new JSON field needs a filter field.
  static let withoutFilter: Set<String> = [
    "file", "att.services.name", "att.characteristics.name", "att.includes.name", "att.descriptors.name", "fields",
  ]

  @Test func everyJSONFieldHasAFilterField() {
    let missing = Set(ShowField.all.filter { $0.json != nil && $0.filterKind == nil }.map(\.id))
    #expect(missing.subtracting(Self.withoutFilter).isEmpty, "JSON fields without a filter field")
    #expect(Self.withoutFilter.subtracting(missing).isEmpty, "fields that have a filter now: take them off the list")
  }

  // MARK: Samples: JSON keys and -v labels

  static let samples = [
    "hr-sensor.btsnoop", "secure-sensor.btsnoop", "vendor-gatt.btsnoop", "scanner.btsnoop", "air-sensor.pcap",
    "hr-sensor-monitor.btsnoop", "hr-sensor.pklg", "filtered.btsnoop", "cut-off.btsnoop",
  ]

  /// What the samples' records say: every key path the JSON writer emits, and for each
  /// registry field, whether a record that has its key shows its `-v` label.
  struct Seen {
    var keys: [String: Int] = [:]
    var labelled: Set<String> = []
    var withKey: Set<String> = []
    /// Fields whose filter values differ from their JSON values, with a record's file and frame.
    var disagreeing: [String: String] = [:]
  }

  static let seen: Seen = {
    var seen = Seen()
    let paths = jsonPaths
    for name in samples {
      guard let source = try? CaptureFile.open(root.appending(path: "Samples/\(name)").path) else { continue }
      var pipeline = RecordPipeline(analyzer: Analyzer())
      func each(_ record: Record, _ analyzed: AnalyzedRecord) {
        var out = OutputBuffer(fd: -1)
        JSONRecord.append(record, analyzed, file: "x", verbose: false, into: &out)
        guard let object = try? JSONSerialization.jsonObject(with: Data(out.bytes)) else { return }
        var keys: Set<String> = []
        collect(object, "", into: &keys)
        for key in keys { seen.keys[key, default: 0] += 1 }
        let input = FilterInput(record: record, analyzed: analyzed)
        for field in ShowField.all {
          guard let path = field.json, let kind = field.filterKind, field.type != .object || kind != .address,
            let filtered = RecordFilter.catalog.values(of: field.id, in: input)
          else { continue }
          let written = values(object, path.split(separator: ".").map(String.init))
          if written.isEmpty && field.omitted != nil { continue }
          let expected = kind == .presence ? (written.isEmpty ? [] : ["true"]) : written.map { text($0, kind) }
          if expected.sorted() != filtered.map(text).sorted(), seen.disagreeing[field.id] == nil {
            seen.disagreeing[field.id] = "\(name) #\(record.frame): JSON \(expected), filter \(filtered.map(text))"
          }
        }
        let tree = analyzed.fieldTree(record)
        for key in keys {
          guard let field = paths[key] else { continue }
          seen.withKey.insert(field.id)
          if case .node(let names) = field.verbose, has(tree, names) { seen.labelled.insert(field.id) }
        }
      }
      while let record = source.next() { pipeline.push(record) { each($0, $1) } }
      pipeline.finish { each($0, $1) }
    }
    return seen
  }()

  /// The values at `path` (steps ending in `[]` go through arrays); null is no value.
  static func values(_ value: Any, _ path: [String]) -> [Any] {
    guard let step = path.first else {
      if value is NSNull { return [] }
      return (value as? [Any]).map { $0 } ?? [value]
    }
    let key = step.hasSuffix("[]") ? String(step.dropLast(2)) : step
    guard let child = (value as? [String: Any])?[key] else { return [] }
    let rest = Array(path.dropFirst())
    if step.hasSuffix("[]") { return (child as? [Any] ?? []).flatMap { values($0, rest) } }
    return values(child, rest)
  }

  /// A JSON value as a filter of `kind` would read it.
  static func text(_ value: Any, _ kind: FilterFieldKind) -> String {
    switch kind {
    case .decimal: "\(Int64((((value as? NSNumber)?.doubleValue ?? .nan) * 1_000_000).rounded()))"
    case .bool: (value as? Bool).map { "\($0)" } ?? "\(value)"
    case .address: (value as? String)?.uppercased() ?? "\(value)"
    case .uuid: (value as? String)?.lowercased() ?? "\(value)"
    default: "\(value)"
    }
  }

  static func text(_ value: FilterValue) -> String {
    switch value {
    case .integer(let n): "\(n)"
    case .string(let s): s
    case .address(let a): a.description
    case .bytes(let b): b.map { String(format: "%02x", $0) }.joined()
    case .bool(let b): "\(b)"
    }
  }

  static func collect(_ value: Any, _ path: String, into keys: inout Set<String>) {
    if let object = value as? [String: Any] {
      for (key, child) in object {
        let next = path.isEmpty ? key : "\(path).\(key)"
        keys.insert(next)
        collect(child, next, into: &keys)
      }
    } else if let array = value as? [Any] {
      for item in array { collect(item, path + "[]", into: &keys) }
    }
  }

  /// A node at `names` in `tree`; `A|B` matches either name, `Report[*` any name it begins.
  static func has(_ tree: [Field], _ names: [String]) -> Bool {
    guard let first = names.first else { return true }
    let rest = Array(names.dropFirst())
    return tree.contains { field in matches(field.name, first) && (rest.isEmpty || has(field.children, rest)) }
  }

  static func matches(_ name: String, _ pattern: String) -> Bool {
    pattern.split(separator: "|").contains { alternative in
      alternative.hasSuffix("*") ? name.hasPrefix(alternative.dropLast()) : name == alternative
    }
  }

  static func isDelegated(_ path: String) -> Bool {
    if let first = path.split(separator: ".").first, VendorFieldTable.all.contains(where: { $0.name == first }) {
      return true
    }
    return delegated.contains { path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[]") }
  }

  @Test func everyKeyTheWriterEmitsIsDeclared() {
    let paths = Self.jsonPaths
    let undeclared = Self.seen.keys.keys.filter { paths[$0] == nil && !Self.isDelegated($0) }.sorted()
    #expect(undeclared.isEmpty, "keys show writes that ShowField.all does not declare: \(undeclared)")
    #expect(Self.seen.keys["att.opcode"] ?? 0 > 0, "the samples were read")
  }

  @Test func vendorKeysAreTheirTables() {
    for key in Self.seen.keys.keys {
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      guard parts.count == 2, let table = VendorFieldTable.all.first(where: { $0.name == parts[0] }) else { continue }
      let inner = parts[1]
      #expect(
        table.fields.contains { $0.key == inner || $0.key.hasPrefix(inner + ".") || inner.hasPrefix($0.key + ".") },
        "\(key) is not in the \(table.name) table")
    }
  }

  /// A filter field reads what the JSON writer writes, on every sample record.
  @Test func filtersReadWhatJSONWrites() {
    #expect(Self.seen.disagreeing.isEmpty, "\(Self.seen.disagreeing.sorted { $0.key < $1.key })")
  }

  /// Each field `-v` shows in its tree is found there on a sample record that has its key.
  @Test func verboseLabelsAreInTheTree() {
    let unlabelled = ShowField.all.filter { field in
      guard case .node(let names) = field.verbose, !names.isEmpty else { return false }
      return Self.seen.withKey.contains(field.id) && !Self.seen.labelled.contains(field.id)
    }.map(\.id)
    #expect(unlabelled.isEmpty, "-v labels not found in the tree: \(unlabelled)")
    #expect(Self.seen.labelled.count > 60, "\(Self.seen.labelled.count) labels found")
  }

  /// A key says its unit (`latency_ms`), and a field in ms or µs has a key that says so.
  @Test func unitsFollowTheKeys() {
    for field in ShowField.all {
      if field.id.hasSuffix("_ms") || field.unit == "ms" {
        #expect(field.id.hasSuffix("_ms") && field.unit == "ms", "\(field.id)")
      }
      if field.id.hasSuffix("_us") || field.unit == "µs" {
        #expect(field.id.hasSuffix("_us") && field.unit == "µs", "\(field.id)")
      }
      if field.type != .integer && field.type != .number { #expect(field.unit == nil, "\(field.id) has a unit") }
    }
  }

  // MARK: Schema

  static func schema(_ name: String) throws -> [String: Any] {
    let bytes = try #require(DataSchema.files[name])
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  /// The node a `$ref` names, in this schema or another one by URN.
  static func resolve(_ node: [String: Any], in file: String) throws -> (node: [String: Any], file: String) {
    guard let ref = node["$ref"] as? String else { return (node, file) }
    var target = file
    var pointer = ref
    if ref.hasPrefix("urn:bleanalyze:schema:") {
      let parts = ref.dropFirst("urn:bleanalyze:schema:".count).split(separator: "#", maxSplits: 1)
      target = String(parts[0].split(separator: ":")[0])
      pointer = parts.count > 1 ? "#" + parts[1] : "#"
    }
    var current: Any = try schema(target)
    for step in pointer.dropFirst(2).split(separator: "/") where !step.isEmpty {
      current = (current as? [String: Any])?[String(step)] as Any
    }
    let resolved = try #require(current as? [String: Any], "\(ref)")
    var merged = resolved
    for (key, value) in node where key != "$ref" { merged[key] = value }
    return try Self.resolve(merged, in: target)
  }

  /// The JSON types a schema node allows.
  static func types(_ node: [String: Any], in file: String) throws -> Set<String> {
    let (node, file) = try resolve(node, in: file)
    var result: Set<String> = []
    if let type = node["type"] as? String { result.insert(type) }
    if let types = node["type"] as? [String] { result.formUnion(types) }
    for key in ["oneOf", "anyOf"] {
      for option in node[key] as? [[String: Any]] ?? [] { result.formUnion(try types(option, in: file)) }
    }
    for value in (node["enum"] as? [Any] ?? []) + (node["const"].map { [$0] } ?? []) {
      switch value {
      case is NSNull: result.insert("null")
      case is String: result.insert("string")
      // JSONSerialization gives true and false as numbers on Linux: the schema's
      // numeric enums and consts are booleans.
      case is Bool: result.insert("boolean")
      default: result.insert("number")
      }
    }
    if result.contains("integer") { result.insert("number") }
    return result
  }

  /// Every property path of show-record.schema.json with its types, through references.
  static func schemaPaths() throws -> [String: Set<String>] {
    var paths: [String: Set<String>] = [:]
    func walk(_ node: [String: Any], _ file: String, _ path: String) throws {
      let (node, file) = try resolve(node, in: file)
      for (key, child) in node["properties"] as? [String: Any] ?? [:] {
        guard let child = child as? [String: Any] else { continue }
        let next = path.isEmpty ? key : "\(path).\(key)"
        paths[next] = try types(child, in: file)
        // The `-v` tree refers to itself.
        if next != "fields" { try walk(child, file, next) }
      }
      if let items = node["items"] as? [String: Any] { try walk(items, file, path + "[]") }
      for key in ["oneOf", "anyOf"] {
        for option in node[key] as? [[String: Any]] ?? [] { try walk(option, file, path) }
      }
    }
    try walk(try schema("show-record"), "show-record", "")
    return paths
  }

  @Test func registryAndSchemaAgree() throws {
    let schema = try Self.schemaPaths()
    for field in ShowField.all {
      guard let path = field.json else { continue }
      let types = try #require(schema[path], "\(path) is declared but not in show-record.schema.json")
      let type = field.type == .integer ? "integer" : field.type.rawValue
      #expect(
        types.contains(type) || (type == "number" && types.contains("integer")),
        "\(path): registry \(type), schema \(types.sorted())")
    }
    let declared = Self.jsonPaths
    let undeclared = schema.keys.filter { declared[$0] == nil && !Self.isDelegated($0) }.sorted()
    #expect(undeclared.isEmpty, "schema properties the registry does not declare: \(undeclared)")
  }

  // MARK: README

  static let readme = root.appending(path: "README.md")
  static let tableStart = "<!-- show fields: generated from ShowField.all by ShowFieldRegistryTests -->"
  static let tableEnd = "<!-- end of show fields -->"

  /// README's field table, one row per registry field.
  static var table: String {
    var lines = [
      tableStart, "", "| field | JSON key | type | unit | filter | `-v` |", "| --- | --- | --- | --- | --- | --- |",
    ]
    for field in ShowField.all {
      var json = field.json.map { "`\($0)`" } ?? "(filter only)"
      if let omitted = field.omitted { json += ", left out \(omitted)" }
      let filter = field.filterKind.map { kind in
        ([field.id] + field.aliases).map { "`\($0)`" }.joined(separator: ", ") + " (\(kind))"
      }
      let verbose: String =
        switch field.verbose {
        case .line(let column): "line: \(column)"
        case .node(let names):
          names.isEmpty ? "the tree" : names.joined(separator: " › ").replacingOccurrences(of: "*", with: "…")
        }
      lines.append(
        "| `\(field.id)` | \(json) | \(field.type.rawValue) | \(field.unit ?? "") | \(filter ?? "—") | \(verbose.replacingOccurrences(of: "|", with: " or ")) |"
      )
    }
    lines += ["", tableEnd]
    return lines.joined(separator: "\n")
  }

  @Test func readmeTableIsTheRegistry() throws {
    let text = try String(contentsOf: Self.readme, encoding: .utf8)
    let start = try #require(text.range(of: Self.tableStart), "README has no show field table")
    let end = try #require(text.range(of: Self.tableEnd, range: start.upperBound..<text.endIndex))
    let stored = String(text[start.lowerBound..<end.upperBound])
    if ProcessInfo.processInfo.environment["BLEANALYZE_RECORD"] == "1", stored != Self.table {
      try Data((text[..<start.lowerBound] + Self.table + text[end.upperBound...]).utf8).write(to: Self.readme)
      Issue.record("recorded README's show field table; review the diff, then run again without BLEANALYZE_RECORD")
      return
    }
    #expect(stored == Self.table, "README's show field table differs from ShowField.all; record it again")
  }
}

/// The Prometheus metrics' labels that carry show's fields name registry ids.
@Suite struct MetricFieldTests {
  @Test func labelsNameRegistryFields() {
    let ids = Set(ShowField.all.map(\.id))
    var names: Set<String> = []
    for metric in PrometheusRenderer.Metric.allCases {
      #expect(names.insert(metric.rawValue).inserted)
      #expect(metric.rawValue.wholeMatch(of: /bleanalyze_[a-z_]+/) != nil)
      for (label, field) in metric.fields { #expect(ids.contains(field), "\(metric.rawValue) \(label): \(field)") }
    }
    #expect(PrometheusRenderer.Metric.records.fields["type"] == "hci.type")
  }
}
