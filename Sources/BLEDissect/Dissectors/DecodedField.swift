/// One decoded part of a characteristic or descriptor value: the field's id (its JSON
/// key), the spec's name, the value and its unit; flags carry their bits and groups
/// their members as children.
public struct DecodedField: Hashable, Sendable {
  public var id: String
  public var name: String
  public var value: DecodedValue
  public var unit: String?
  /// The bits of a flags field, the members of a group.
  public var children: [DecodedField]
  /// The integer as read from the wire (two's complement for signed types), for numeric
  /// fields and bits.
  public var raw: UInt64?
  /// The width of `raw` in hex digits (2 per byte), 0 without a raw value.
  public var hexDigits: Int
  /// An integer declared `hex`: shown in hexadecimal.
  public var isHex: Bool
  /// A bit that only switches other fields on or off or counts them (an `if=`,
  /// `repeat=` or `length=` names it): concise renderings leave it out, since what it
  /// switches shows.
  public var isSwitch: Bool

  public init(
    id: String, name: String, value: DecodedValue, unit: String? = nil, children: [DecodedField] = [],
    raw: UInt64? = nil, hexDigits: Int = 0, isHex: Bool = false, isSwitch: Bool = false
  ) {
    self.id = id
    self.name = name
    self.value = value
    self.unit = unit
    self.children = children
    self.raw = raw
    self.hexDigits = hexDigits
    self.isHex = isHex
    self.isSwitch = isSwitch
  }
}

public enum DecodedValue: Hashable, Sendable {
  case unsigned(UInt64)
  case signed(Int64)
  /// A number after scaling, or a float; `decimals` is the resolution the encoding has
  /// (`scale=0.01` → 2), or -1 when it has none (IEEE 754).
  case real(Double, decimals: Int)
  case text(String)
  case bytes([UInt8])
  /// A single bit without names.
  case boolean(Bool)
  /// A raw value with its name: an enumeration, a special value (`NaN`, `Value is not
  /// known`), an assigned number.
  case named(raw: Int64, name: String)
  case uuid(BluetoothUUID)
  /// A repeated field or group: one element per occurrence, each with the field's id and
  /// name.
  case list([DecodedField])
  /// A group: its members are the field's children.
  case group
}

/// What `DissectorLibrary.decode` made of a value: the fields it could decode, and what
/// was wrong when the value was shorter or longer than its format.
public struct DecodeResult: Hashable, Sendable {
  public var format: DissectorFormat
  public var fields: [DecodedField]
  /// `att.decoded.truncated` or `att.decoded.extra`, with a message giving the numbers.
  public var diagnostic: Diagnostic?

  /// The diagnostic's message.
  public var problem: String? { diagnostic?.message }

  /// The ids of the diagnostics a decode can report (README's table lists them).
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    (
      "att.decoded.truncated",
      "a characteristic or descriptor value ends inside a field of its dissector format; the fields before are shown"
    ),
    ("att.decoded.extra", "a characteristic or descriptor value has bytes after its format's last field"),
  ]
}
