import Foundation
import Testing

/// The data contract as a whole: every key means one thing wherever it appears.
///
/// A key's meaning is read off the published schemas: its JSON type, and for strings
/// the format its pattern gives (an address, a UUID, hex bytes) or plain text; objects
/// and arrays by what they hold. `type`, `id` and `value` are always relative to the
/// object holding them (its kind, identifier and value) and may differ; the `dissectors`
/// document describes Dissectors/ files, whose own keywords it repeats.
@Suite("data contract v2")
struct ContractTests {
  static let objectRelative: Set<String> = ["type", "id", "value"]

  /// Every schema by its `$id`.
  static func schemas() throws -> [String: [String: Any]] {
    var store: [String: [String: Any]] = [:]
    let files = try FileManager.default.contentsOfDirectory(atPath: Schemas.folder.path)
    for file in files where file.hasSuffix(".schema.json") {
      let data = try Data(contentsOf: Schemas.folder.appending(path: file))
      let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      store[try #require(schema["$id"] as? String)] = schema
    }
    return store
  }

  /// The node a `$ref` names, and the schema it is in.
  static func resolve(_ reference: String, in schema: [String: Any], _ store: [String: [String: Any]])
    -> ([String: Any], [String: Any])?
  {
    let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    let base = parts.first.map(String.init) ?? ""
    guard let document = base.isEmpty ? schema : store[base] else { return nil }
    var node: Any = document
    if parts.count > 1 {
      for step in parts[1].split(separator: "/") {
        guard let object = node as? [String: Any], let next = object[String(step)] else { return nil }
        node = next
      }
    }
    return (node as? [String: Any]).map { ($0, document) }
  }

  /// What a property holds: `number`, `boolean`, `string`, `string(address)`,
  /// `string(uuid)`, `string(hex)`, `object`, `array[…]`, alternatives joined by `|`.
  static func meaning(_ node: [String: Any], _ schema: [String: Any], _ store: [String: [String: Any]], depth: Int = 0)
    -> String
  {
    guard depth < 12 else { return "?" }
    if let reference = node["$ref"] as? String, let (target, document) = resolve(reference, in: schema, store) {
      return meaning(target, document, store, depth: depth + 1)
    }
    for key in ["oneOf", "anyOf"] {
      if let options = node[key] as? [[String: Any]] {
        let meanings = Set(options.map { meaning($0, schema, store, depth: depth + 1) }).subtracting(["null", ""])
        return meanings.sorted().joined(separator: "|")
      }
    }
    if let constant = node["const"] {
      if constant is String { return "string" }
      // JSONSerialization gives a JSON boolean as an NSNumber whose type code is `c`.
      return (constant as? NSNumber).map { String(cString: $0.objCType) == "c" } == true ? "boolean" : "number"
    }
    if let values = node["enum"] as? [Any] {
      return values.contains { $0 is String } ? "string" : "number"
    }
    var types = node["type"] as? [String] ?? (node["type"] as? String).map { [$0] } ?? []
    types.removeAll { $0 == "null" }
    if types.isEmpty, node["properties"] != nil { types = ["object"] }
    return types.sorted().map { type in
      switch type {
      case "integer", "number": return "number"
      case "string":
        guard let pattern = node["pattern"] as? String else { return "string" }
        if pattern.contains("[0-9A-F]{2}") && pattern.contains(":") { return "string(address)" }
        if pattern.contains("[0-9a-f]{8}-") { return "string(uuid)" }
        if pattern.hasPrefix("^([0-9a-f]{2})*") { return "string(hex)" }
        return "string"
      case "array":
        let items = node["items"] as? [String: Any] ?? [:]
        return "array[" + meaning(items, schema, store, depth: depth + 1) + "]"
      default: return type
      }
    }.joined(separator: "|")
  }

  /// Every key of the contract with the meanings it has and where.
  static func keyMeanings() throws -> [String: [String: [String]]] {
    let store = try schemas()
    var found: [String: [String: [String]]] = [:]
    var visited: Set<String> = []
    func walk(_ node: [String: Any], _ schema: [String: Any], _ path: String) {
      if let reference = node["$ref"] as? String {
        // Each definition once: some refer to themselves (the field tree of `-v`).
        let place = (schema["$id"] as? String ?? "") + reference
        guard !visited.contains(place), let (target, document) = resolve(reference, in: schema, store) else {
          return
        }
        visited.insert(place)
        return walk(target, document, path)
      }
      for key in ["oneOf", "anyOf", "allOf"] {
        for option in node[key] as? [[String: Any]] ?? [] { walk(option, schema, path) }
      }
      if let items = node["items"] as? [String: Any] { walk(items, schema, path + "[]") }
      for (key, value) in node["properties"] as? [String: [String: Any]] ?? [:] {
        found[key, default: [:]][meaning(value, schema, store), default: []].append(path + "." + key)
        walk(value, schema, path + "." + key)
      }
    }
    // The redact --map file is the capture owner's private key to the pseudonyms: its
    // `addresses` and `names` are original → redacted pairs, not the contract's values.
    for (id, schema) in store
    where !id.contains(":dissectors:") && !id.contains(":vendor:") && !id.contains(":redact-map:") {
      walk(schema, schema, id.split(separator: ":").dropLast().last.map(String.init) ?? id)
    }
    return found
  }

  @Test("no key means two things across the contract's documents")
  func oneMeaningPerKey() throws {
    let meanings = try Self.keyMeanings()
    #expect(meanings.count > 300, "the schemas were read")
    for (key, kinds) in meanings.sorted(by: { $0.key < $1.key }) where !Self.objectRelative.contains(key) {
      #expect(
        kinds.count == 1,
        "\(key): \(kinds.map { "\($0.key) at \($0.value.sorted().prefix(3).joined(separator: ", "))" }.sorted())")
    }
  }

  /// The check itself can fail: two invented schemas giving `peer` two kinds.
  @Test func aKeyWithTwoMeaningsIsFound() {
    let store: [String: [String: Any]] = [:]
    let object: [String: Any] = ["type": "object", "properties": ["address": ["type": "string"]]]
    let text: [String: Any] = ["type": "string"]
    #expect(Self.meaning(object, [:], store) != Self.meaning(text, [:], store))
    #expect(Self.meaning(["oneOf": [text, ["type": "null"]]], [:], store) == "string")
    #expect(
      Self.meaning(["type": "string", "pattern": "^([0-9A-F]{2}:){5}[0-9A-F]{2}$"], [:], store) == "string(address)")
  }

  @Test("every document carries schema_version 2")
  func version() throws {
    for (id, schema) in try Self.schemas() {
      #expect(id.hasSuffix(":2"), "\(id)")
      let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
      if let version = properties["schema_version"] { #expect(version["const"] as? Int == 2, "\(id)") }
    }
  }
}
