/// The layout of one characteristic or descriptor value (or just the name of a vendor
/// service or characteristic), as a `*.dissector` file declares it. Dissectors/README.md
/// documents the format; `DissectorFile.parse` reads it and `DissectorEngine` decodes
/// values with it.
public struct DissectorFormat: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case service, characteristic, descriptor
  }

  /// The UUID, in its shortest form (`BluetoothUUID.normalized`).
  public var uuid: BluetoothUUID
  public var kind: Kind
  public var name: String
  /// Empty when the header only names the UUID.
  public var fields: [DissectorField]
  /// `characteristics/heart-rate-measurement.dissector` for a built-in (relative to
  /// Dissectors/), else the user file's path as it was given.
  public var path: String
  /// The header's line, from 1.
  public var line: Int
  /// Shipped inside the binary (from Dissectors/), rather than loaded from a user file.
  public var isBuiltin: Bool

  public init(
    uuid: BluetoothUUID, kind: Kind, name: String, fields: [DissectorField], path: String, line: Int,
    isBuiltin: Bool = false
  ) {
    self.uuid = uuid.normalized
    self.kind = kind
    self.name = name
    self.fields = fields
    self.path = path
    self.line = line
    self.isBuiltin = isBuiltin
  }

  /// `built-in Dissectors/characteristics/x.dissector:3` or `/home/me/x.dissector:3`.
  public var source: String { (isBuiltin ? "built-in Dissectors/" : "") + path + ":\(line)" }
}

/// One `field` or `group` line with the lines indented under it.
public struct DissectorField: Hashable, Sendable {
  /// The key of the field in JSON and in conditions (`heart_rate`).
  public var id: String
  /// The spec's name, verbatim (`Heart Rate Measurement Value`).
  public var name: String
  public var type: DissectorType
  /// The members of a group.
  public var children: [DissectorField] = []
  /// `bit`/`bits` lines: named parts of an unsigned integer (flags).
  public var bits: [DissectorBits] = []
  /// `N=Name`: names of raw values. With a scale, they name special values
  /// (`65535="Value is not known"`).
  public var enumeration: [DissectorEnumValue] = []
  public var unit: String?
  /// `scale=`: the raw value is multiplied by it.
  public var scale: DissectorScale?
  /// `exp=d`: the raw value is multiplied by 10^d.
  public var exponent = 0
  /// `offset=`: added after scaling.
  public var offset: Double?
  /// `if=`: all must hold for the field to be decoded.
  public var conditions: [DissectorCondition] = []
  /// `optional`: decoded only when bytes remain (an optional trailing field).
  public var isOptional = false
  public var repetition: DissectorRepeat?
  /// `length=` of a `utf8` or `bytes` field; nil reads to the end of the value.
  public var length: DissectorLength?
  /// `hex`: an integer shown in hexadecimal.
  public var isHex = false
  /// `names=`: an assigned-numbers table that names the integer.
  public var names: DissectorNameTable?
  public var line: Int
  public var column: Int

  public init(id: String, name: String, type: DissectorType, line: Int = 0, column: Int = 0) {
    self.id = id
    self.name = name
    self.type = type
    self.line = line
    self.column = column
  }

  /// The field's type and attributes as a file would write them (`u16 unit=s scale=1/1024
  /// if=rr_present repeat`), for listings.
  public var attributesText: String {
    var parts = [type.spelling]
    if let length { parts.append("length=\(length)") }
    if let unit { parts.append("unit=" + Self.quotedIfNeeded(unit)) }
    if let scale { parts.append("scale=\(scale)") }
    if exponent != 0 { parts.append("exp=\(exponent)") }
    if let offset { parts.append("offset=\(DissectorScale.decimalText(offset))") }
    if isHex { parts.append("hex") }
    if let names { parts.append("names=\(names.rawValue)") }
    parts += conditions.map { "if=\($0)" }
    if isOptional { parts.append("optional") }
    if let repetition { parts.append(repetition.description) }
    return parts.joined(separator: " ")
  }

  public static func quotedIfNeeded(_ text: String) -> String {
    text.contains(where: { $0 == " " || $0 == "\"" || $0 == "#" || $0 == "\t" }) || text.isEmpty
      ? "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"" : text
  }
}

/// What a field's bytes hold.
public enum DissectorType: Hashable, Sendable {
  /// `u8` … `u64` (`be` suffix: big-endian).
  case unsigned(bytes: Int, bigEndian: Bool)
  /// `s8` … `s64`, two's complement.
  case signed(bytes: Int, bigEndian: Bool)
  /// `f32`, `f64`: IEEE 754.
  case float32, float64
  /// `sfloat`, `float`: IEEE 11073-20601 16-bit and 32-bit (GSS's medfloat16 and medfloat32).
  case sfloat, float
  /// `utf8`: text, to the end of the value or `length=` bytes.
  case utf8
  /// `bytes`: raw octets, to the end or `length=` bytes.
  case bytes
  /// `uuid16`, `uuid32`, `uuid128`: little-endian UUIDs; `uuid`: whatever is left (2, 4 or 16 bytes).
  case uuid16, uuid32, uuid128, uuid
  /// `group`: the indented fields below it.
  case group

  /// The type as files spell it.
  public var spelling: String {
    switch self {
    case .unsigned(let n, let be): "u\(n * 8)" + (be && n > 1 ? "be" : "")
    case .signed(let n, let be): "s\(n * 8)" + (be && n > 1 ? "be" : "")
    case .float32: "f32"
    case .float64: "f64"
    case .sfloat: "sfloat"
    case .float: "float"
    case .utf8: "utf8"
    case .bytes: "bytes"
    case .uuid16: "uuid16"
    case .uuid32: "uuid32"
    case .uuid128: "uuid128"
    case .uuid: "uuid"
    case .group: "group"
    }
  }

  /// Every type a field line accepts, by spelling.
  static let bySpelling: [String: DissectorType] = {
    var result: [String: DissectorType] = [
      "f32": .float32, "f64": .float64, "sfloat": .sfloat, "float": .float, "utf8": .utf8, "bytes": .bytes,
      "uuid16": .uuid16, "uuid32": .uuid32, "uuid128": .uuid128, "uuid": .uuid,
    ]
    for n in 1...8 {
      result["u\(n * 8)"] = .unsigned(bytes: n, bigEndian: false)
      result["s\(n * 8)"] = .signed(bytes: n, bigEndian: false)
      if n > 1 {
        result["u\(n * 8)be"] = .unsigned(bytes: n, bigEndian: true)
        result["s\(n * 8)be"] = .signed(bytes: n, bigEndian: true)
      }
    }
    return result
  }()

  /// Bytes the type always takes, or nil when it takes the rest (or `length=`).
  var fixedSize: Int? {
    switch self {
    case .unsigned(let n, _), .signed(let n, _): n
    case .float32: 4
    case .float64: 8
    case .sfloat: 2
    case .float: 4
    case .uuid16: 2
    case .uuid32: 4
    case .uuid128: 16
    case .utf8, .bytes, .uuid, .group: nil
    }
  }

  var isInteger: Bool {
    switch self {
    case .unsigned, .signed: true
    default: false
    }
  }

  var isNumeric: Bool {
    switch self {
    case .unsigned, .signed, .float32, .float64, .sfloat, .float: true
    default: false
    }
  }
}

/// `bit N id "Name"` or `bits A-B id "Name"`: part of an unsigned integer. A single bit
/// without names is a boolean; wider parts and named ones are values.
public struct DissectorBits: Hashable, Sendable {
  public var low: Int
  public var high: Int
  public var id: String
  public var name: String
  public var enumeration: [DissectorEnumValue]
  public var line: Int
  public var column: Int

  public var width: Int { high - low + 1 }

  /// `bit 3` or `bits 1-2`.
  public var positionText: String { low == high ? "bit \(low)" : "bits \(low)-\(high)" }
}

/// `N=Name`.
public struct DissectorEnumValue: Hashable, Sendable {
  public var value: Int64
  public var name: String
}

/// `if=ID`, `if=!ID`, `if=ID==N`, `if=ID!=N`, over the raw integer of an earlier field or bit.
public struct DissectorCondition: Hashable, Sendable, CustomStringConvertible {
  public enum Test: Hashable, Sendable {
    case nonzero, zero
    case equal(Int64), notEqual(Int64)
  }

  public var id: String
  public var test: Test

  /// Whether the condition holds for `value` (nil when the field was not decoded).
  func holds(for value: Int64?) -> Bool {
    switch test {
    case .nonzero: value.map { $0 != 0 } ?? false
    case .zero: value.map { $0 == 0 } ?? true
    case .equal(let n): value == n
    case .notEqual(let n): value != n
    }
  }

  public var description: String {
    switch test {
    case .nonzero: id
    case .zero: "!" + id
    case .equal(let n): "\(id)==\(n)"
    case .notEqual(let n): "\(id)!=\(n)"
    }
  }
}

/// How many times a field or group repeats.
public enum DissectorRepeat: Hashable, Sendable, CustomStringConvertible {
  /// `repeat`: until the value ends.
  case toEnd
  /// `repeat=N`.
  case count(Int)
  /// `repeat=ID`: as many times as an earlier field says.
  case field(String)

  public var description: String {
    switch self {
    case .toEnd: "repeat"
    case .count(let n): "repeat=\(n)"
    case .field(let id): "repeat=\(id)"
    }
  }
}

/// `length=N` or `length=ID`.
public enum DissectorLength: Hashable, Sendable, CustomStringConvertible {
  case fixed(Int)
  case field(String)

  public var description: String {
    switch self {
    case .fixed(let n): "\(n)"
    case .field(let id): id
    }
  }
}

/// `scale=0.01` or `scale=1/1024`: a ratio of integers, so that decoded values come out
/// as the closest double (`366 × 1/10` is `36.6`, not `36.600000000000001`).
public struct DissectorScale: Hashable, Sendable, CustomStringConvertible {
  public var numerator: Int64
  public var denominator: Int64

  public var value: Double { Double(numerator) / Double(denominator) }

  public var description: String {
    if denominator == 1 { return "\(numerator)" }
    var power: Int64 = 1
    var digits = 0
    while power < denominator, digits < 18 {
      power *= 10
      digits += 1
    }
    guard power == denominator else { return "\(numerator)/\(denominator)" }
    let magnitude = numerator.magnitude
    let whole = magnitude / UInt64(power)
    var fraction = String(magnitude % UInt64(power))
    fraction = String(repeating: "0", count: digits - fraction.count) + fraction
    return (numerator < 0 ? "-" : "") + "\(whole).\(fraction)"
  }

  /// A double as a file writes it: `2`, `-0.5`.
  static func decimalText(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
  }
}

/// Assigned-numbers tables a field can take names from (`names=`).
public enum DissectorNameTable: String, Hashable, Sendable, CaseIterable {
  /// GAP Appearance values.
  case appearance
  /// Company Identifiers.
  case company
}
