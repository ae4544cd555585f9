/// One AD type: its name from Assigned Numbers, its data size rule and how to read
/// its data. The dispatcher checks the size, so the parser only reads.
struct ADTypeRow: Sendable {
  typealias Parse = @Sendable (inout ByteCursor) throws(DecodeError) -> ADValue

  let code: UInt8
  let name: String
  let length: PDULength
  /// The data is a list of items of this many octets (UUIDs, addresses); 1 otherwise.
  let unit: Int
  let parse: Parse

  init(_ code: UInt8, _ name: String, _ length: PDULength, unit: Int = 1, _ parse: @escaping Parse) {
    self.code = code
    self.name = name
    self.length = length
    self.unit = unit
    self.parse = parse
  }
}

extension ADType {
  /// Every Common Data Type of Assigned Numbers 2.3 (2025), with the data formats of
  /// the Core Specification Supplement, Part A, 1.
  static let table: [ADTypeRow] = [
    .init(0x01, "Flags", .atLeast(1)) { c throws(DecodeError) in
      // Supplement 1.3.2: octets after the first are reserved.
      .flags(ADFlags(rawValue: try c.readUInt8()))
    },
    .init(0x02, "Incomplete List of 16-bit Service or Service Class UUIDs", .atLeast(0), unit: 2) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 2), complete: false)
    },
    .init(0x03, "Complete List of 16-bit Service or Service Class UUIDs", .atLeast(0), unit: 2) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 2), complete: true)
    },
    .init(0x04, "Incomplete List of 32-bit Service or Service Class UUIDs", .atLeast(0), unit: 4) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 4), complete: false)
    },
    .init(0x05, "Complete List of 32-bit Service or Service Class UUIDs", .atLeast(0), unit: 4) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 4), complete: true)
    },
    .init(0x06, "Incomplete List of 128-bit Service or Service Class UUIDs", .atLeast(0), unit: 16) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 16), complete: false)
    },
    .init(0x07, "Complete List of 128-bit Service or Service Class UUIDs", .atLeast(0), unit: 16) {
      c throws(DecodeError) in .serviceUUIDs(try uuids(&c, 16), complete: true)
    },
    .init(0x08, "Shortened Local Name", .atLeast(0)) { c throws(DecodeError) in .name(text(&c)) },
    .init(0x09, "Complete Local Name", .atLeast(0)) { c throws(DecodeError) in .name(text(&c)) },
    .init(0x0A, "Tx Power Level", .exactly(1)) { c throws(DecodeError) in .txPower(try c.readInt8()) },
    .init(0x0D, "Class of Device", .exactly(3), raw),
    .init(0x0E, "Simple Pairing Hash C-192", .exactly(16), raw),
    .init(0x0F, "Simple Pairing Randomizer R-192", .exactly(16), raw),
    // 0x10 is Device ID (EIR) and Security Manager TK Value (OOB): both names, as listed.
    .init(0x10, "Device ID / Security Manager TK Value", .atLeast(0), raw),
    .init(0x11, "Security Manager Out of Band Flags", .exactly(1), raw),
    .init(0x12, "Peripheral Connection Interval Range", .exactly(4)) { c throws(DecodeError) in
      .connectionIntervalRange(ConnectionIntervalRange(minimum: try c.readUInt16(), maximum: try c.readUInt16()))
    },
    .init(0x14, "List of 16-bit Service Solicitation UUIDs", .atLeast(0), unit: 2) { c throws(DecodeError) in
      .solicitationUUIDs(try uuids(&c, 2))
    },
    .init(0x15, "List of 128-bit Service Solicitation UUIDs", .atLeast(0), unit: 16) { c throws(DecodeError) in
      .solicitationUUIDs(try uuids(&c, 16))
    },
    .init(0x16, "Service Data - 16-bit UUID", .atLeast(2)) { c throws(DecodeError) in
      .serviceData(try c.readUUID(byteCount: 2), c.readRemainingRange())
    },
    .init(0x17, "Public Target Address", .atLeast(6), unit: 6) { c throws(DecodeError) in
      .targetAddresses(try addresses(&c))
    },
    .init(0x18, "Random Target Address", .atLeast(6), unit: 6) { c throws(DecodeError) in
      .targetAddresses(try addresses(&c))
    },
    .init(0x19, "Appearance", .exactly(2)) { c throws(DecodeError) in .appearance(try c.readUInt16()) },
    .init(0x1A, "Advertising Interval", .exactly(2)) { c throws(DecodeError) in
      .advertisingInterval(AdvertisingInterval(raw: UInt32(try c.readUInt16())))
    },
    .init(0x1B, "LE Bluetooth Device Address", .exactly(7)) { c throws(DecodeError) in
      let address = try c.readAddress()
      return .deviceAddress(address, random: try c.readUInt8() & 0x01 != 0)
    },
    .init(0x1C, "LE Role", .exactly(1)) { c throws(DecodeError) in .leRole(try c.readUInt8()) },
    .init(0x1D, "Simple Pairing Hash C-256", .exactly(16), raw),
    .init(0x1E, "Simple Pairing Randomizer R-256", .exactly(16), raw),
    .init(0x1F, "List of 32-bit Service Solicitation UUIDs", .atLeast(0), unit: 4) { c throws(DecodeError) in
      .solicitationUUIDs(try uuids(&c, 4))
    },
    .init(0x20, "Service Data - 32-bit UUID", .atLeast(4)) { c throws(DecodeError) in
      .serviceData(try c.readUUID(byteCount: 4), c.readRemainingRange())
    },
    .init(0x21, "Service Data - 128-bit UUID", .atLeast(16)) { c throws(DecodeError) in
      .serviceData(try c.readUUID(byteCount: 16), c.readRemainingRange())
    },
    .init(0x22, "LE Secure Connections Confirmation Value", .exactly(16), raw),
    .init(0x23, "LE Secure Connections Random Value", .exactly(16), raw),
    .init(0x24, "URI", .atLeast(1)) { c throws(DecodeError) in .uri(uri(&c)) },
    .init(0x25, "Indoor Positioning", .atLeast(0), raw),
    .init(0x26, "Transport Discovery Data", .atLeast(0), raw),
    .init(0x27, "LE Supported Features", .atLeast(0)) { c throws(DecodeError) in
      .leSupportedFeatures(c.readRemainingRange())
    },
    .init(0x28, "Channel Map Update Indication", .exactly(7), raw),
    .init(0x29, "PB-ADV", .atLeast(0), raw),
    .init(0x2A, "Mesh Message", .atLeast(0), raw),
    .init(0x2B, "Mesh Beacon", .atLeast(0), raw),
    .init(0x2C, "BIGInfo", .atLeast(0), raw),
    .init(0x2D, "Broadcast_Code", .exactly(16), raw),
    .init(0x2E, "Resolvable Set Identifier", .exactly(6), raw),
    .init(0x2F, "Advertising Interval - long", .either(3, 4)) { c throws(DecodeError) in
      let low = UInt32(try c.readUInt16())
      let high = UInt32(try c.readUInt8())
      let top = c.isAtEnd ? 0 : UInt32(try c.readUInt8())
      return .advertisingInterval(AdvertisingInterval(raw: low | high << 16 | top << 24))
    },
    .init(0x30, "Broadcast_Name", .atLeast(0)) { c throws(DecodeError) in .name(text(&c)) },
    .init(0x31, "Encrypted Advertising Data", .atLeast(0), raw),
    .init(0x32, "Periodic Advertising Response Timing Information", .atLeast(0), raw),
    .init(0x34, "Electronic Shelf Label", .atLeast(0), raw),
    .init(0x3D, "3D Information Data", .atLeast(0), raw),
    .init(0xFF, "Manufacturer Specific Data", .atLeast(2)) { c throws(DecodeError) in
      .manufacturerData(company: try c.readUInt16(), c.readRemainingRange())
    },
  ]

  /// Types whose data stays bytes.
  private static let raw: ADTypeRow.Parse = { c throws(DecodeError) in .bytes(c.readRemainingRange()) }

  /// As many whole UUIDs of `width` octets as there are (a partial one is left out).
  private static func uuids(_ c: inout ByteCursor, _ width: Int) throws(DecodeError) -> [BluetoothUUID] {
    var list: [BluetoothUUID] = []
    while c.remaining >= width { list.append(try c.readUUID(byteCount: width)) }
    _ = c.readRemainingRange()
    return list
  }

  private static func addresses(_ c: inout ByteCursor) throws(DecodeError) -> [DeviceAddress] {
    var list: [DeviceAddress] = []
    while c.remaining >= 6 { list.append(try c.readAddress()) }
    _ = c.readRemainingRange()
    return list
  }

  /// UTF-8 text up to the first NUL (some devices pad names with zeros), invalid
  /// sequences replaced.
  static func text(_ c: inout ByteCursor) -> String {
    let bytes = c.readRemainingBytes()
    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// URI: the first code point names the scheme (Assigned Numbers, 2.7 URI Scheme
  /// Name String Mapping), the rest is the URI after it. 0x01 means no scheme.
  static func uri(_ c: inout ByteCursor) -> String {
    let text = String(decoding: c.readRemainingBytes(), as: UTF8.self)
    guard let first = text.unicodeScalars.first else { return text }
    let rest = String(text.unicodeScalars.dropFirst())
    if let scheme = uriSchemes[first.value] { return scheme + rest }
    return "(scheme 0x\(String(first.value, radix: 16))) " + rest
  }

  /// The first entries of the URI scheme mapping, in its (alphabetical) order.
  static let uriSchemes: [UInt32: String] = [
    0x01: "", 0x02: "aaa:", 0x03: "aaas:", 0x04: "about:", 0x05: "acap:", 0x06: "acct:", 0x07: "cap:",
    0x08: "cid:", 0x09: "coap:", 0x0A: "coaps:", 0x0B: "crid:", 0x0C: "data:", 0x0D: "dav:", 0x0E: "dict:",
    0x0F: "dns:", 0x10: "file:", 0x11: "ftp:", 0x12: "geo:", 0x13: "go:", 0x14: "gopher:", 0x15: "h323:",
    0x16: "http:", 0x17: "https:",
  ]
}
