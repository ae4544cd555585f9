/// The basic L2CAP header that starts every L2CAP PDU (B-frame, C-frame, K-frame).
///
/// Core 6.0, Vol 3, Part A, 3.1.
///
///     0        2        4
///     +--------+--------+---------------------------+
///     | length | cid    | information payload       |
///     +--------+--------+---------------------------+
///
/// `length` counts the information payload only, so a whole PDU is `4 + length` bytes.
public struct L2CAPHeader: Hashable, Sendable {
  public var length: UInt16
  /// The Channel ID of the receiving endpoint.
  public var cid: UInt16

  public init(length: UInt16, cid: UInt16) {
    self.length = length
    self.cid = cid
  }

  /// Reads the four header bytes.
  public init(parsing c: inout ByteCursor) throws(DecodeError) {
    guard c.remaining >= 4 else {
      throw DecodeError(.truncated(needed: 4, available: c.remaining), at: c.offset, layer: .l2cap)
    }
    length = try c.readUInt16()
    cid = try c.readUInt16()
  }

  /// The PDU's size with its header.
  public var pduLength: Int { 4 + Int(length) }

  public var channelID: L2CAPChannelID { L2CAPChannelID(rawValue: cid) }

  /// `Length` and `Channel ID`, as Figure 3.1 names them.
  public var fields: [Field] {
    [
      Field("Length", .unsigned(UInt64(length), hexDigits: 0)),
      Field("Channel ID", .code(UInt64(cid), hexDigits: 4, name: channelID.name)),
    ]
  }
}

/// An L2CAP Channel ID: fixed channels have a role, 0x0040 and above are allocated
/// by signaling.
///
/// Core 6.0, Vol 3, Part A, 2.1 (Tables 2.1 and 2.2).
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// L2CAP Signaling channel (BR/EDR)
  public static let signaling = Self(rawValue: 0x0001)
  /// Connectionless channel (BR/EDR)
  public static let connectionless = Self(rawValue: 0x0002)
  /// AMP Manager (BR/EDR, withdrawn in Core 5.3)
  public static let ampManager = Self(rawValue: 0x0003)
  /// Attribute protocol (LE)
  public static let attribute = Self(rawValue: 0x0004)
  /// LE L2CAP Signaling channel
  public static let leSignaling = Self(rawValue: 0x0005)
  /// Security Manager protocol (LE)
  public static let securityManager = Self(rawValue: 0x0006)
  /// BR/EDR Security Manager
  public static let brEdrSecurityManager = Self(rawValue: 0x0007)
  /// AMP Test Manager (BR/EDR, withdrawn in Core 5.3)
  public static let ampTestManager = Self(rawValue: 0x003F)

  static let names: [UInt16: String] = [
    0x0001: "L2CAP Signaling channel",
    0x0002: "Connectionless channel",
    0x0003: "AMP Manager",
    0x0004: "Attribute protocol",
    0x0005: "LE L2CAP Signaling channel",
    0x0006: "Security Manager protocol",
    0x0007: "BR/EDR Security Manager",
    0x003F: "AMP Test Manager",
  ]

  /// Dynamically allocated CIDs: 0x0040–0xFFFF on BR/EDR.
  public var isDynamic: Bool { rawValue >= 0x0040 }

  /// Dynamically allocated CIDs on LE: 0x0040–0x007F.
  public var isLEDynamic: Bool { (0x0040...0x007F).contains(rawValue) }

  /// The role of a fixed channel, `Dynamically allocated channel`, `Null identifier`
  /// for 0x0000, or `Unknown (0x0008)` for a reserved one.
  public var name: String {
    if let name = Self.names[rawValue] { return name }
    if isDynamic { return "Dynamically allocated channel" }
    if rawValue == 0 { return "Null identifier" }
    return "Unknown (0x\(hex(rawValue)))"
  }

  public var description: String { name }
}

/// A Protocol/Service Multiplexer (BR/EDR PSM or LE SPSM) that names the protocol
/// on a dynamic channel.
///
/// Bluetooth Assigned Numbers, 5.4 (Protocol and Service Multiplexers).
public struct L2CAPPSM: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// ATT (BR/EDR)
  public static let att = Self(rawValue: 0x001F)
  /// EATT (Enhanced ATT bearer)
  public static let eatt = Self(rawValue: 0x0027)

  public static let names: [UInt16: String] = [
    0x0001: "SDP", 0x0003: "RFCOMM", 0x0005: "TCS-BIN", 0x0007: "TCS-BIN-CORDLESS", 0x000F: "BNEP",
    0x0011: "HID_Control", 0x0013: "HID_Interrupt", 0x0015: "UPnP", 0x0017: "AVCTP", 0x0019: "AVDTP",
    0x001B: "AVCTP_Browsing", 0x001D: "UDI_C-Plane", 0x001F: "ATT", 0x0021: "3DSP", 0x0023: "LE_PSM_IPSP",
    0x0025: "OTS", 0x0027: "EATT",
  ]

  /// `ATT`, `EATT`… or `Unknown (0x0081)` (dynamic and vendor PSMs have no name).
  public var name: String { Self.names[rawValue] ?? "Unknown (0x\(hex(rawValue)))" }

  public var description: String { name }
}
