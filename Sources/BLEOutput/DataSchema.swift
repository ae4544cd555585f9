/// The JSON Schemas of the data contract: the files of Sources/BLEOutput/Schemas, which
/// SwiftPM embeds in the binary (`PackageResources`), so that `bleanalyze schema` prints them.
///
/// Each schema's `$id` is `urn:bleanalyze:schema:NAME:VERSION`, VERSION being the
/// `schema_version` of the contract, and schemas name each other by that URN.
public enum DataSchema: String, CaseIterable, Sendable {
  case show, timeline, stats, gatt, devices, app, dissectors, throughput, tables
  /// `live --list`: the adapters.
  case liveList = "live-list"
  /// `redact --map`: the mapping for the capture's owner (JSON only).
  case redactMap = "redact-map"

  /// `urn:bleanalyze:schema:timeline:2`: the `$id` of the `--format json` document's
  /// schema, and the `$schema` every such document carries.
  public var id: String { Self.id(of: rawValue) }

  /// The schema of one line of `--format ndjson` (the `dissectors` schema covers both;
  /// `tables` is the schema of a row of any table, each an NDJSON line; `redact --map` has
  /// no NDJSON).
  public var lineSchemaName: String {
    switch self {
    case .show: "show-record"
    case .timeline: "timeline-line"
    case .stats: "stats-line"
    case .gatt: "gatt-line"
    case .devices: "device"
    case .app: "app-line"
    case .dissectors: "dissectors"
    case .throughput: "throughput-line"
    case .tables: "tables"
    case .liveList: "adapter"
    case .redactMap: "redact-map"
    }
  }

  /// The schema of the document (or of one NDJSON line), with every schema it refers to
  /// embedded under `$defs` with its own `$id`, so that it validates on its own.
  public func bundled(ndjson: Bool = false) -> String {
    Self.bundle(ndjson ? lineSchemaName : rawValue)
  }

  static func id(of name: String) -> String { "urn:bleanalyze:schema:\(name):\(schemaVersion)" }

  /// Every schema file by name (`show-record` for show-record.schema.json).
  static let files: [String: [UInt8]] = [
    "adapter": PackageResources.adapter_schema_json,
    "advertising": PackageResources.advertising_schema_json,
    "app": PackageResources.app_schema_json,
    "app-line": PackageResources.app_line_schema_json,
    "common": PackageResources.common_schema_json,
    "device": PackageResources.device_schema_json,
    "devices": PackageResources.devices_schema_json,
    "dissectors": PackageResources.dissectors_schema_json,
    "gatt": PackageResources.gatt_schema_json,
    "gatt-line": PackageResources.gatt_line_schema_json,
    "live-list": PackageResources.live_list_schema_json,
    "redact-map": PackageResources.redact_map_schema_json,
    "show": PackageResources.show_schema_json,
    "show-record": PackageResources.show_record_schema_json,
    "stats": PackageResources.stats_schema_json,
    "stats-line": PackageResources.stats_line_schema_json,
    "timeline": PackageResources.timeline_schema_json,
    "timeline-line": PackageResources.timeline_line_schema_json,
    "throughput": PackageResources.throughput_schema_json,
    "throughput-line": PackageResources.throughput_line_schema_json,
    "tables": PackageResources.tables_schema_json,
    "vendor": PackageResources.vendor_schema_json,
  ]

  /// The names of the schemas `text` refers to by URN, other than `self`.
  static func references(in text: String, besides name: String) -> Set<String> {
    var names: Set<String> = []
    let prefix = "\"urn:bleanalyze:schema:"
    var rest = Substring(text)
    while let start = rest.firstRange(of: prefix) {
      rest = rest[start.upperBound...]
      let referred = rest.prefix { $0 != ":" && $0 != "\"" }
      if referred != name { names.insert(String(referred)) }
    }
    return names
  }

  /// `name`'s schema text with the schemas it refers to, directly or not, added to its
  /// top-level `$defs` (created when it has none), each under `schema:NAME`.
  static func bundle(_ name: String) -> String {
    let text = String(decoding: files[name] ?? [], as: UTF8.self)
    var pending = references(in: text, besides: name)
    var included: [String] = []
    while let next = pending.min() {
      pending.remove(next)
      guard !included.contains(next), next != name, let bytes = files[next] else { continue }
      included.append(next)
      pending.formUnion(references(in: String(decoding: bytes, as: UTF8.self), besides: next))
    }
    guard !included.isEmpty else { return text }
    let embedded = included.sorted().map { included in
      let body = String(decoding: files[included]!, as: UTF8.self).trimmingSuffix("\n")
      let indented = body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
      return "    \"schema:\(included)\": \(indented)"
    }
    let defs = "\n  \"$defs\": {\n"
    if let place = text.firstRange(of: defs) {
      return String(text[..<place.upperBound]) + embedded.joined(separator: ",\n") + ",\n" + text[place.upperBound...]
    }
    let body = text.trimmingSuffix("\n")
    guard body.hasSuffix("\n}") else { return text }
    return String(body.dropLast(2)) + ",\n  \"$defs\": {\n" + embedded.joined(separator: ",\n") + "\n  }\n}\n"
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    var text = self
    while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
    return text
  }
}
