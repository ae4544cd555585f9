import BLEDissect

/// A value of a vendor protocol field, as JSON, filters and `-v` read it.
public enum VendorValue: Sendable {
  case integer(Int64)
  /// A measure with decimals (ms, %, kB/s); filters compare it to the millionth.
  case decimal(Double)
  case string(String)
  case bool(Bool)
  case bytes([UInt8])
  /// Several names (keys held, lines); a filter matches when any does.
  case strings([String])
  case integers([Int64])
  /// A CBOR data item (an mcumgr body), rendered as JSON.
  case cbor(CBORValue)
}

/// What a field holds, for filters and schemas.
public enum VendorValueKind: Sendable {
  case integer, decimal, string, bool, bytes, strings, integers, cbor

  /// The filter kind: lists filter as their elements.
  public var filterKind: FilterFieldKind? {
    switch self {
    case .integer, .integers: .integer
    case .decimal: .decimal
    case .string, .strings: .string
    case .bool: .bool
    case .bytes: .bytes
    case .cbor: nil
    }
  }
}

/// One field of a vendor protocol: declared once, and read by the JSON writer
/// (`key` in the protocol's object; a dotted key nests one object, `progress.percent`),
/// by filters (`filter`, nil for a field no filter reads), and by `-v` (`label`).
public struct VendorField: Sendable {
  /// The JSON key inside the protocol's object.
  public let key: String
  /// The field's name in `--filter`, `mcumgr.group`.
  public let filter: String?
  /// Its name in the `-v` tree.
  public let label: String
  public let kind: VendorValueKind
  public let read: @Sendable (VendorRecord) -> VendorValue?

  /// `filter` is the field's filter name after the protocol's (`key` for a list whose
  /// JSON key is plural); false for a field no filter reads.
  init<R>(
    _ key: String, _ label: String, _ kind: VendorValueKind, filter: Bool = true, as filterName: String? = nil,
    of protocolName: String, _ extract: @escaping @Sendable (VendorRecord) -> R?,
    _ read: @escaping @Sendable (R) -> VendorValue?
  ) {
    self.key = key
    self.filter = filter ? "\(protocolName).\(filterName ?? key)" : nil
    self.label = label
    self.kind = kind
    self.read = { record in extract(record).flatMap(read) }
  }
}

/// A protocol's field table: what its object in JSON holds, in order.
public struct VendorFieldTable: Sendable {
  /// The object's key in show's record and the filter prefix: `mcumgr`, `dfu`…
  public let name: String
  /// What the object is, for its schema.
  public let description: String
  public let fields: [VendorField]

  /// Every vendor protocol's table.
  public static let all: [VendorFieldTable] = [
    MCUmgrRecord.table, DFURecord.table, NUSRecord.table, HIDRecord.table, ANCSRecord.table, AMSRecord.table,
  ]

  /// The table of the protocol a record is about.
  public static func of(_ record: VendorRecord) -> VendorFieldTable {
    switch record {
    case .mcumgr: MCUmgrRecord.table
    case .dfu: DFURecord.table
    case .nus: NUSRecord.table
    case .hid: HIDRecord.table
    case .ancs: ANCSRecord.table
    case .ams: AMSRecord.table
    }
  }
}

/// Helpers for the tables' readers.
extension VendorValue {
  static func int(_ value: (some BinaryInteger)?) -> VendorValue? { value.map { .integer(Int64($0)) } }
  static func text(_ value: String?) -> VendorValue? { value.map { .string($0) } }
  static func list(_ values: [String]) -> VendorValue? { values.isEmpty ? nil : .strings(values) }
  static func milliseconds(_ microseconds: Int64?) -> VendorValue? {
    microseconds.map { .decimal(Double($0) / 1000) }
  }
}
