/// One AD structure of advertising or scan response data (Core 6.0, Vol 3, Part C,
/// 11): a length octet, the AD type, and `length - 1` octets of data.
///
///     0        1        2
///     +--------+--------+---------------------------+
///     | length | AD type| AD data (length - 1)      |
///     +--------+--------+---------------------------+
///
/// A zero length ends the significant part: what follows is padding.
public struct ADStructure: Hashable, Sendable {
  public var type: ADType
  /// The AD data as decoded for its type; `.bytes` for types kept raw.
  public var value: ADValue
  /// Where the AD data (after the type octet) is.
  public var data: ByteRange

  public init(type: ADType, value: ADValue, data: ByteRange) {
    self.type = type
    self.value = value
    self.data = data
  }

  /// Every diagnostic id the AD structure decoder emits, with what it means.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    (
      "adv.ad.truncated",
      "an AD structure's length runs past the end of the advertising data; what is there is decoded"
    ),
    ("adv.ad.length.invalid", "an AD structure's data has a size its AD type does not allow"),
  ]

  /// Decodes every AD structure of `c` (advertising data, or a reassembled extended
  /// report). A structure that runs past the end is decoded as far as it goes, with
  /// `adv.ad.truncated` unless the capture source cut the data (`isCut`).
  public static func parseAll(
    _ c: inout ByteCursor, isCut: Bool = false, diagnostics: inout [Diagnostic]
  ) -> [ADStructure] {
    var structures: [ADStructure] = []
    while !c.isAtEnd {
      let start = c.offset
      let length = Int((try? c.readUInt8()) ?? 0)
      if length == 0 { break }
      var available = length
      if length > c.remaining {
        available = c.remaining
        if !isCut {
          diagnostics.append(
            Diagnostic(
              id: "adv.ad.truncated", severity: .warning,
              "AD structure at offset \(start) has length \(length), only \(available) bytes left"))
        }
        if available == 0 { break }
      }
      guard let type = try? c.readUInt8() else { break }
      guard var body = try? c.slice(available - 1) else { break }
      let data = ByteRange(start: body.offset, count: body.remaining)
      let value = decodeValue(ADType(rawValue: type), &body, complete: available == length, diagnostics: &diagnostics)
      structures.append(ADStructure(type: ADType(rawValue: type), value: value, data: data))
    }
    return structures
  }

  /// Decodes the AD structures in `range` of `bytes` (advertising data a command
  /// carries, an extended inquiry response); ranges are offsets in `bytes`.
  public static func parseAll(in bytes: UnsafeRawBufferPointer, range: Range<Int>) -> [ADStructure] {
    let range = range.clamped(to: 0..<bytes.count)
    var c = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[range]).bytes, base: range.lowerBound, layer: .adv)
    var diagnostics: [Diagnostic] = []
    return parseAll(&c, diagnostics: &diagnostics)
  }

  /// The dispatcher: checks the data size against the row's rule and reads it.
  /// Data that breaks the rule, or cannot be read, stays `.bytes`.
  static func decodeValue(
    _ type: ADType, _ c: inout ByteCursor, complete: Bool, diagnostics: inout [Diagnostic]
  ) -> ADValue {
    let whole = ByteRange(start: c.offset, count: c.remaining)
    guard let row = ADType.row(type.rawValue) else { return .bytes(whole) }
    let count = c.remaining
    if !row.length.allows(count) || count % row.unit != 0 {
      // A structure cut short has lost its tail, not broken its type's rule.
      if complete {
        var rule = row.length.text
        if row.unit > 1 { rule += ", a multiple of \(row.unit)" }
        diagnostics.append(
          Diagnostic(
            id: "adv.ad.length.invalid", severity: .warning,
            "\(row.name) at offset \(whole.start - 2) has \(count) data \(count == 1 ? "byte" : "bytes"), needs \(rule)"
          ))
      }
      if count < row.length.minimum { return .bytes(whole) }
    }
    do throws(DecodeError) {
      return try row.parse(&c)
    } catch {
      return .bytes(whole)
    }
  }
}

/// The data of an AD structure, decoded for its type. Byte ranges index the buffer
/// the structures were parsed from (the record, or a reassembled report).
public enum ADValue: Hashable, Sendable {
  /// Flags: LE Limited/General Discoverable Mode, BR/EDR Not Supported…
  case flags(ADFlags)
  /// A list of Service or Service Class UUIDs; `complete` for the Complete List types.
  case serviceUUIDs([BluetoothUUID], complete: Bool)
  /// A list of Service Solicitation UUIDs.
  case solicitationUUIDs([BluetoothUUID])
  /// Shortened or Complete Local Name, or Broadcast_Name (UTF-8; cut at a NUL).
  case name(String)
  /// Tx Power Level in dBm.
  case txPower(Int8)
  case connectionIntervalRange(ConnectionIntervalRange)
  /// Service Data: the service's UUID and the data after it.
  case serviceData(BluetoothUUID, ByteRange)
  /// Public or Random Target Address: addresses the advertiser is directed at.
  case targetAddresses([DeviceAddress])
  /// Appearance (Assigned Numbers, 2.6).
  case appearance(UInt16)
  case advertisingInterval(AdvertisingInterval)
  /// LE Bluetooth Device Address: the address and whether it is random.
  case deviceAddress(DeviceAddress, random: Bool)
  /// LE Role: 0x00 Only Peripheral … 0x03 Peripheral and Central, Central preferred.
  case leRole(UInt8)
  /// URI with its scheme expanded (`https://example.com`).
  case uri(String)
  /// LE Supported Features: the feature bit mask, least significant octet first.
  case leSupportedFeatures(ByteRange)
  /// Manufacturer Specific Data: the Company Identifier and the data after it.
  case manufacturerData(company: UInt16, ByteRange)
  /// A type kept as bytes (and every type this decoder does not know).
  case bytes(ByteRange)
}

/// The Flags AD type's bits (Core Specification Supplement, Part A, 1.3).
public struct ADFlags: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let names: [(bit: UInt8, name: String)] = [
    (0x01, "LE Limited Discoverable Mode"), (0x02, "LE General Discoverable Mode"),
    (0x04, "BR/EDR Not Supported"), (0x08, "Simultaneous LE and BR/EDR (Controller)"),
    (0x10, "Simultaneous LE and BR/EDR (Host)"),
  ]

  /// The names of the bits that are set, reserved bits as `bit N`.
  public var setNames: [String] {
    var result = Self.names.filter { rawValue & $0.bit != 0 }.map(\.name)
    for bit in 5..<8 where rawValue & (1 << bit) != 0 { result.append("bit \(bit)") }
    return result
  }
}

/// Peripheral Connection Interval Range: minimum and maximum in units of 1.25 ms;
/// 0xFFFF means no specific value (Core Specification Supplement, Part A, 1.9).
public struct ConnectionIntervalRange: Hashable, Sendable {
  public var minimum: UInt16
  public var maximum: UInt16

  public init(minimum: UInt16, maximum: UInt16) {
    self.minimum = minimum
    self.maximum = maximum
  }

  /// The interval in milliseconds, nil for 0xFFFF (no specific value).
  public static func milliseconds(_ raw: UInt16) -> Double? {
    raw == 0xFFFF ? nil : Double(raw) * 1.25
  }
}

/// An advertising interval in units of 0.625 ms (Advertising Interval and
/// Advertising Interval - long AD types).
public struct AdvertisingInterval: Hashable, Sendable {
  public var raw: UInt32
  public init(raw: UInt32) { self.raw = raw }
  public var milliseconds: Double { Double(raw) * 0.625 }
}
