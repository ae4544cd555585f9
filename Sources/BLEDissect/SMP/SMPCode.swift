/// An SMP command code (Core 6.0, Vol 3, Part H, 3.3, Table 3.1). Unknown values
/// survive and render as `Unknown (0x1f)`.
public struct SMPCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Pairing Request
  public static let pairingRequest = Self(rawValue: 0x01)
  /// Pairing Response
  public static let pairingResponse = Self(rawValue: 0x02)
  /// Pairing Confirm
  public static let pairingConfirm = Self(rawValue: 0x03)
  /// Pairing Random
  public static let pairingRandom = Self(rawValue: 0x04)
  /// Pairing Failed
  public static let pairingFailed = Self(rawValue: 0x05)
  /// Encryption Information
  public static let encryptionInformation = Self(rawValue: 0x06)
  /// Central Identification
  public static let centralIdentification = Self(rawValue: 0x07)
  /// Identity Information
  public static let identityInformation = Self(rawValue: 0x08)
  /// Identity Address Information
  public static let identityAddressInformation = Self(rawValue: 0x09)
  /// Signing Information
  public static let signingInformation = Self(rawValue: 0x0A)
  /// Security Request
  public static let securityRequest = Self(rawValue: 0x0B)
  /// Pairing Public Key
  public static let pairingPublicKey = Self(rawValue: 0x0C)
  /// Pairing DHKey Check
  public static let pairingDHKeyCheck = Self(rawValue: 0x0D)
  /// Pairing Keypress Notification
  public static let pairingKeypressNotification = Self(rawValue: 0x0E)

  var row: SMPCodeRow? {
    let index = Self.rowIndex[Int(rawValue)]
    return index < 0 ? nil : Self.table[Int(index)]
  }

  /// Whether the table knows this code.
  public var isKnown: Bool { Self.rowIndex[Int(rawValue)] >= 0 }

  /// The spec name (`Pairing Request`), or `Unknown (0x1f)`.
  public var name: String { row?.name ?? "Unknown (0x" + hex(rawValue) + ")" }

  public var description: String { name }
}

/// One SMP command: its spec name, its parameter length and how to read it.
struct SMPCodeRow: Sendable {
  typealias Parse = @Sendable (inout ByteCursor) throws(DecodeError) -> SMPParameters

  let code: UInt8
  let name: String
  let length: PDULength
  let parse: Parse

  init(_ code: UInt8, _ name: String, _ length: PDULength, _ parse: @escaping Parse) {
    self.code = code
    self.name = name
    self.length = length
    self.parse = parse
  }
}

extension SMPCode {
  /// Every SMP command of Core 6.0, Vol 3, Part H, 3.5 (pairing) and 3.6 (key
  /// distribution). 128-bit values and keys stay bytes, least significant first.
  static let table: [SMPCodeRow] = [
    .init(0x01, "Pairing Request", .exactly(6)) { c throws(DecodeError) in
      .pairingFeatures(try SMPPairingFeatures(parsing: &c))
    },
    .init(0x02, "Pairing Response", .exactly(6)) { c throws(DecodeError) in
      .pairingFeatures(try SMPPairingFeatures(parsing: &c))
    },
    .init(0x03, "Pairing Confirm", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x04, "Pairing Random", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x05, "Pairing Failed", .exactly(1)) { c throws(DecodeError) in
      .pairingFailed(SMPPairingFailedReason(rawValue: try c.readUInt8()))
    },
    .init(0x06, "Encryption Information", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x07, "Central Identification", .exactly(10)) { c throws(DecodeError) in
      .centralIdentification(ediv: try c.readUInt16(), rand: try c.readUInt64())
    },
    .init(0x08, "Identity Information", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x09, "Identity Address Information", .exactly(7)) { c throws(DecodeError) in
      .identityAddress(type: try c.readUInt8(), address: try c.readAddress())
    },
    .init(0x0A, "Signing Information", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x0B, "Security Request", .exactly(1)) { c throws(DecodeError) in
      .securityRequest(SMPAuthReq(rawValue: try c.readUInt8()))
    },
    .init(0x0C, "Pairing Public Key", .exactly(64)) { c throws(DecodeError) in
      .publicKey(x: try c.readRange(32), y: try c.readRange(32))
    },
    .init(0x0D, "Pairing DHKey Check", .exactly(16)) { c throws(DecodeError) in .value(try c.readRange(16)) },
    .init(0x0E, "Pairing Keypress Notification", .exactly(1)) { c throws(DecodeError) in
      .keypress(SMPKeypressNotificationType(rawValue: try c.readUInt8()))
    },
  ]

  /// Code → index into `table`, -1 for unknown codes.
  static let rowIndex: [Int8] = {
    var index = [Int8](repeating: -1, count: 256)
    for (position, row) in table.enumerated() { index[Int(row.code)] = Int8(position) }
    return index
  }()
}
