/// One field of show's record (`show --format ndjson`), declared once: its dotted id
/// (also its `--filter` name), where it sits in the JSON object, its JSON type and unit,
/// where `-v` shows it, and how a filter reads it.
///
/// ```swift
/// ShowField("att.opcode", .integer, .tree("ATT", "Opcode")) { int($0.analyzed.decoded.att?.opcode.rawValue) }
/// ```
///
/// The filter catalog is made from ``ShowField/all``; tests hold the JSON writer, the
/// `-v` tree, show-record.schema.json and README's field table to it, both ways.
public struct ShowField: Sendable {
  /// A JSON type, as JSON Schema names it.
  public enum JSONType: String, Sendable, Hashable {
    case object, array, integer, number, string, boolean
  }

  /// Where `show` (text) shows the field.
  public enum Verbose: Sendable, Hashable {
    /// On the record's line, in this column (`frame`, `time (s)`, `dir`, `adapter`,
    /// `conn`, `type`, `detail`), and not in the `-v` tree.
    case line(String)
    /// A node of the `-v` tree, by the names from its layer down; a name may list
    /// alternatives with `|` (`Response In Frame|Confirmation In Frame`).
    case node([String])

    /// `.tree("ATT", "Opcode")`: the node `Opcode` of the layer `ATT`.
    public static func tree(_ names: String...) -> Self { .node(names) }
  }

  /// The dotted id and filter name: `att.opcode`, `l2cap.signaling.code`.
  public let id: String
  /// The key path in the record object (`att.services[].uuid` steps into an array's
  /// items); nil for a field only filters read (`att.latency_us`).
  public let json: String?
  public let type: JSONType
  /// How a filter compares it; nil for a field no filter reads.
  public let filterKind: FilterFieldKind?
  /// The unit of a number: `s`, `ms`, `µs`, `octets`, `dBm`.
  public let unit: String?
  public let verbose: Verbose
  /// When the JSON leaves out a value filters still read (`false`, `1`, the record's
  /// own length): nil when both always agree.
  public let omitted: String?
  /// Other filter names for the field (tshark's `frame.number` for `frame`).
  public let aliases: [String]
  let reader: FilterCatalog<FilterInput>.Reader?

  /// A field with at most one value per record.
  init(
    _ id: String, _ kind: FilterFieldKind, _ verbose: Verbose, json: String? = nil, filterOnly: Bool = false,
    type: JSONType? = nil,
    unit: String? = nil, omitted: String? = nil, aliases: [String] = [],
    one: @escaping @Sendable (borrowing FilterInput) -> FilterValue?
  ) {
    self.init(id, kind, verbose, filterOnly ? nil : json ?? id, type, unit, aliases, .one(one), omitted: omitted)
  }

  /// A field with any number of values per record (one per report, per diagnostic…).
  init(
    _ id: String, _ kind: FilterFieldKind, _ verbose: Verbose, json: String? = nil, filterOnly: Bool = false,
    type: JSONType? = nil,
    unit: String? = nil, many: @escaping @Sendable (borrowing FilterInput) -> [FilterValue]
  ) {
    self.init(id, kind, verbose, filterOnly ? nil : json ?? id, type, unit, [], .many(many))
  }

  /// An object of the record (`att`, `conn`): filters test that it is there.
  init(
    _ id: String, _ verbose: Verbose, json: String? = nil, filterOnly: Bool = false, type: JSONType = .object,
    present: @escaping @Sendable (borrowing FilterInput) -> Bool
  ) {
    self.init(
      id, .presence, verbose, filterOnly ? nil : json ?? id, type, nil, [], .one({ present($0) ? .bool(true) : nil }))
  }

  /// A JSON field no filter reads.
  init(_ id: String, _ type: JSONType, _ verbose: Verbose, json: String? = nil, unit: String? = nil) {
    self.id = id
    self.json = json ?? id
    self.type = type
    self.filterKind = nil
    self.unit = unit
    self.verbose = verbose
    self.aliases = []
    self.reader = nil
    self.omitted = nil
  }

  private init(
    _ id: String, _ kind: FilterFieldKind, _ verbose: Verbose, _ json: String?, _ type: JSONType?, _ unit: String?,
    _ aliases: [String], _ reader: FilterCatalog<FilterInput>.Reader, omitted: String? = nil
  ) {
    self.omitted = omitted
    self.id = id
    self.json = json
    self.type = type ?? Self.jsonType(of: kind)
    self.filterKind = kind
    self.unit = unit
    self.verbose = verbose
    self.aliases = aliases
    self.reader = reader
  }

  /// How JSON writes a value a filter reads as `kind`.
  static func jsonType(of kind: FilterFieldKind) -> JSONType {
    switch kind {
    case .integer: .integer
    case .decimal: .number
    case .string, .uuid, .address, .bytes: .string
    case .bool: .boolean
    case .presence: .object
    }
  }
}
