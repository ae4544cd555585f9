/// One node of the decoded field tree that `show -v` prints: a spec name, its value
/// and the fields inside it. Built on demand (only `-v` and field lookups need it),
/// so it may allocate.
public struct Field: Hashable, Sendable {
  /// The spec's parameter name, verbatim (`Connection_Handle`, `Peer_Address`,
  /// `IO Capability`).
  public var name: String
  public var value: FieldValue
  public var children: [Field]

  public init(_ name: String, _ value: FieldValue, children: [Field] = []) {
    self.name = name
    self.value = value
    self.children = children
  }

  /// A group with no value of its own.
  public static func group(_ name: String, _ children: [Field]) -> Field {
    Field(name, .none, children: children)
  }

  /// The first field called `name`, depth first.
  public func lookup(_ name: String) -> Field? {
    if self.name == name { return self }
    for child in children {
      if let found = child.lookup(name) { return found }
    }
    return nil
  }
}

extension [Field] {
  /// The first field called `name`, depth first.
  public func lookup(_ name: String) -> Field? {
    for field in self {
      if let found = field.lookup(name) { return found }
    }
    return nil
  }
}

public enum FieldValue: Hashable, Sendable {
  /// A group or a field that is only a name.
  case none
  /// An unsigned number; `hexDigits` > 0 asks for hex rendering of that width.
  case unsigned(UInt64, hexDigits: Int)
  case signed(Int64)
  /// A code with its name (`0x13 Remote User Terminated Connection`).
  case code(UInt64, hexDigits: Int, name: String)
  /// A bit field with the names of the bits that are set.
  case flags(UInt64, hexDigits: Int, names: [String])
  /// A number in units of the spec with its physical value (`0x0018` = 30 ms).
  case measure(UInt64, hexDigits: Int, value: Double, unit: String)
  case address(DeviceAddress)
  case uuid(BluetoothUUID)
  case bytes([UInt8])
  case text(String)

  /// The integer behind the value, for lookups and filters.
  public var integer: Int64? {
    switch self {
    case .unsigned(let v, _), .code(let v, _, _), .flags(let v, _, _), .measure(let v, _, _, _):
      Int64(truncatingIfNeeded: v)
    case .signed(let v): v
    case .address(let a): Int64(a.rawValue)
    default: nil
    }
  }
}
