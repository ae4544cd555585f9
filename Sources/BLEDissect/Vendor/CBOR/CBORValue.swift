/// One CBOR data item (RFC 8949, Concise Binary Object Representation), as the bodies
/// of mcumgr messages carry them.
///
/// Maps keep their entries in wire order (mcumgr servers rely on no order, but output
/// shows what was sent). Indefinite-length strings come back joined.
public indirect enum CBORValue: Hashable, Sendable {
  /// Major type 0: an unsigned integer.
  case unsigned(UInt64)
  /// Major type 1: the integer −1 − n, kept as n so that all 64 bits fit.
  case negative(UInt64)
  /// Major type 2: a byte string.
  case bytes([UInt8])
  /// Major type 3: a text string (UTF-8).
  case text(String)
  /// Major type 4.
  case array([CBORValue])
  /// Major type 5, entries in wire order.
  case map([CBORMapEntry])
  /// Major type 6: a tag number and the item it tags.
  case tagged(UInt64, CBORValue)
  /// Major type 7: simple values 20 and 21.
  case bool(Bool)
  /// Simple value 22.
  case null
  /// Simple value 23.
  case undefined
  /// Another simple value (0–19, 32–255).
  case simple(UInt8)
  /// Half-, single- or double-precision floating point.
  case float(Double)

  /// The value of `key` in a map whose keys are text strings.
  public subscript(key: String) -> CBORValue? {
    guard case .map(let entries) = self else { return nil }
    for entry in entries {
      if case .text(let text) = entry.key, text == key { return entry.value }
    }
    return nil
  }

  /// The integer, when the item is one that fits an Int64.
  public var integer: Int64? {
    switch self {
    case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
    case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
    default: nil
    }
  }

  public var text: String? {
    if case .text(let text) = self { return text }
    return nil
  }

  public var bytes: [UInt8]? {
    if case .bytes(let bytes) = self { return bytes }
    return nil
  }

  public var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The entries of a map.
  public var entries: [CBORMapEntry]? {
    if case .map(let entries) = self { return entries }
    return nil
  }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Hashable, Sendable {
  public var key: CBORValue
  public var value: CBORValue

  public init(key: CBORValue, value: CBORValue) {
    self.key = key
    self.value = value
  }
}
