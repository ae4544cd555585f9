import BLEDissect

/// A value a filter field yields for one subject, or a literal written in a filter
/// expression once it has been read against the field's kind.
public enum FilterValue: Hashable, Sendable {
  /// Codes, lengths, handles, counts: compared as signed 64-bit integers.
  case integer(Int64)
  /// Names and ids, compared case-sensitively.
  case string(String)
  /// A Bluetooth device address.
  case address(DeviceAddress)
  /// Raw bytes in wire order.
  case bytes([UInt8])
  case bool(Bool)
}

/// What a filter field holds, which decides the operators and literals it accepts.
///
/// | kind | operators | literals |
/// | --- | --- | --- |
/// | `integer` | `==` `!=` `<` `<=` `>` `>=` | `27`, `-3`, `0x1b` |
/// | `decimal` | `==` `!=` `<` `<=` `>` `>=` | `59.5`, `1715679003.25`, `60` (values are millionths, as `.integer`) |
/// | `string` | `==` `!=` `contains` | `"text"` with `\"` and `\\` escapes, or a bare word (`tx`) |
/// | `uuid` | `==` `!=` `contains` | `2a37`, `0x2A37`, the 36-character form (values normalised as strings) |
/// | `address` | `==` `!=` | `D4:36:39:67:A2:61` (either case) |
/// | `bytes` | `==` `!=` `contains` | `01:02:0a`, `0a`, an address as 6 bytes, `"text"` as UTF-8 |
/// | `bool` | `==` `!=` | `true`, `false` |
/// | `presence` | none: the field is only tested alone | |
///
/// Every kind can be tested alone for presence (`att.error`).
public enum FilterFieldKind: Sendable, Hashable, CustomStringConvertible {
  case integer, decimal, string, uuid, address, bytes, bool, presence

  public var description: String {
    switch self {
    case .integer: "integer"
    case .decimal: "decimal"
    case .uuid: "uuid"
    case .string: "string"
    case .address: "address"
    case .bytes: "bytes"
    case .bool: "bool"
    case .presence: "presence"
    }
  }
}
