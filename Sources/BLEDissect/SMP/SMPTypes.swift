/// IO Capability of a Pairing Request or Response (Core 6.0, Vol 3, Part H, 3.5.1,
/// Table 3.4).
public struct SMPIOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// DisplayOnly
  public static let displayOnly = Self(rawValue: 0x00)
  /// DisplayYesNo
  public static let displayYesNo = Self(rawValue: 0x01)
  /// KeyboardOnly
  public static let keyboardOnly = Self(rawValue: 0x02)
  /// NoInputNoOutput
  public static let noInputNoOutput = Self(rawValue: 0x03)
  /// KeyboardDisplay
  public static let keyboardDisplay = Self(rawValue: 0x04)

  private static let names = ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"]

  public var name: String {
    rawValue < Self.names.count ? Self.names[Int(rawValue)] : "Unknown (0x" + hex(rawValue) + ")"
  }

  public var description: String { name }
}

/// The AuthReq bit field (Core 6.0, Vol 3, Part H, 3.5.1, Figure 3.3).
///
///     bit  7…6   5     4         3    2      1…0
///     +------+-----+----------+----+------+---------------+
///     | RFU  | CT2 | Keypress | SC | MITM | Bonding_Flags |
///     +------+-----+----------+----+------+---------------+
public struct SMPAuthReq: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bonding_Flags: 0b00 No Bonding, 0b01 Bonding, others reserved.
  public var bondingFlags: UInt8 { rawValue & 0x03 }
  public var bonding: Bool { bondingFlags == 0x01 }
  /// MITM protection requested.
  public var mitm: Bool { rawValue & 0x04 != 0 }
  /// LE Secure Connections pairing supported.
  public var secureConnections: Bool { rawValue & 0x08 != 0 }
  /// Keypress notifications in Passkey Entry.
  public var keypress: Bool { rawValue & 0x10 != 0 }
  /// Support for the h7 function in cross-transport key derivation.
  public var ct2: Bool { rawValue & 0x20 != 0 }
  /// Reserved for future use.
  public var rfu: UInt8 { rawValue >> 6 }

  public var bondingFlagsName: String {
    switch bondingFlags {
    case 0x00: "No Bonding"
    case 0x01: "Bonding"
    default: "Unknown (0b" + String(bondingFlags, radix: 2) + ")"
    }
  }

  /// The names of the flags that are set, for the field tree.
  public var names: [String] {
    [bondingFlagsName]
      + [(mitm, "MITM"), (secureConnections, "SC"), (keypress, "Keypress"), (ct2, "CT2")]
      .filter(\.0).map(\.1)
  }
}

/// Initiator and Responder Key Distribution (Core 6.0, Vol 3, Part H, 3.6.1,
/// Figure 3.11).
///
///     bit  7…4   3        2         1       0
///     +------+---------+---------+-------+--------+
///     | RFU  | LinkKey | SignKey | IdKey | EncKey |
///     +------+---------+---------+-------+--------+
public struct SMPKeyDistribution: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// EncKey: LTK (legacy: with EDIV and Rand).
  public var encKey: Bool { rawValue & 0x01 != 0 }
  /// IdKey: IRK and identity address.
  public var idKey: Bool { rawValue & 0x02 != 0 }
  /// SignKey: CSRK.
  public var signKey: Bool { rawValue & 0x04 != 0 }
  /// LinkKey: derive the BR/EDR link key.
  public var linkKey: Bool { rawValue & 0x08 != 0 }
  /// Reserved for future use.
  public var rfu: UInt8 { rawValue >> 4 }

  public var names: [String] {
    [(encKey, "EncKey"), (idKey, "IdKey"), (signKey, "SignKey"), (linkKey, "LinkKey")].filter(\.0).map(\.1)
  }
}

/// Reason of a Pairing Failed (Core 6.0, Vol 3, Part H, 3.5.5, Table 3.7).
public struct SMPPairingFailedReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Passkey Entry Failed
  public static let passkeyEntryFailed = Self(rawValue: 0x01)
  /// OOB Not Available
  public static let oobNotAvailable = Self(rawValue: 0x02)
  /// Authentication Requirements
  public static let authenticationRequirements = Self(rawValue: 0x03)
  /// Confirm Value Failed
  public static let confirmValueFailed = Self(rawValue: 0x04)
  /// Pairing Not Supported
  public static let pairingNotSupported = Self(rawValue: 0x05)
  /// Encryption Key Size
  public static let encryptionKeySize = Self(rawValue: 0x06)
  /// Command Not Supported
  public static let commandNotSupported = Self(rawValue: 0x07)
  /// Unspecified Reason
  public static let unspecifiedReason = Self(rawValue: 0x08)
  /// Repeated Attempts
  public static let repeatedAttempts = Self(rawValue: 0x09)
  /// Invalid Parameters
  public static let invalidParameters = Self(rawValue: 0x0A)
  /// DHKey Check Failed
  public static let dhKeyCheckFailed = Self(rawValue: 0x0B)
  /// Numeric Comparison Failed
  public static let numericComparisonFailed = Self(rawValue: 0x0C)
  /// BR/EDR pairing in progress
  public static let brEDRPairingInProgress = Self(rawValue: 0x0D)
  /// Cross-transport Key Derivation/Generation not allowed
  public static let crossTransportKeyDerivationNotAllowed = Self(rawValue: 0x0E)
  /// Key Rejected
  public static let keyRejected = Self(rawValue: 0x0F)

  private static let names = [
    "", "Passkey Entry Failed", "OOB Not Available", "Authentication Requirements", "Confirm Value Failed",
    "Pairing Not Supported", "Encryption Key Size", "Command Not Supported", "Unspecified Reason",
    "Repeated Attempts", "Invalid Parameters", "DHKey Check Failed", "Numeric Comparison Failed",
    "BR/EDR pairing in progress", "Cross-transport Key Derivation/Generation not allowed", "Key Rejected",
  ]

  public var name: String {
    (0x01...0x0F).contains(rawValue) ? Self.names[Int(rawValue)] : "Unknown (0x" + hex(rawValue) + ")"
  }

  public var description: String { name }
}

/// Notification Type of a Pairing Keypress Notification (Core 6.0, Vol 3, Part H,
/// 3.5.8, Table 3.8).
public struct SMPKeypressNotificationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Passkey entry started
  public static let entryStarted = Self(rawValue: 0x00)
  /// Passkey digit entered
  public static let digitEntered = Self(rawValue: 0x01)
  /// Passkey digit erased
  public static let digitErased = Self(rawValue: 0x02)
  /// Passkey cleared
  public static let cleared = Self(rawValue: 0x03)
  /// Passkey entry completed
  public static let entryCompleted = Self(rawValue: 0x04)

  private static let names = [
    "Passkey entry started", "Passkey digit entered", "Passkey digit erased", "Passkey cleared",
    "Passkey entry completed",
  ]

  public var name: String {
    rawValue < Self.names.count ? Self.names[Int(rawValue)] : "Unknown (0x" + hex(rawValue) + ")"
  }

  public var description: String { name }
}

/// What a Pairing Request or Response offers (Core 6.0, Vol 3, Part H, 3.5.1–3.5.2).
///
///     0            1          2         3              4           5
///     +------------+----------+---------+--------------+-----------+-----------+
///     | IO         | OOB data | AuthReq | Maximum Enc. | Initiator | Responder |
///     | Capability | flag     |         | Key Size     | Key Dist. | Key Dist. |
///     +------------+----------+---------+--------------+-----------+-----------+
public struct SMPPairingFeatures: Hashable, Sendable {
  public var ioCapability: SMPIOCapability
  /// The OOB data flag as sent: 0x00 not present, 0x01 present, others reserved.
  public var oobDataFlag: UInt8
  public var authReq: SMPAuthReq
  /// 7 to 16 octets.
  public var maxEncryptionKeySize: UInt8
  public var initiatorKeyDistribution: SMPKeyDistribution
  public var responderKeyDistribution: SMPKeyDistribution

  /// OOB authentication data from the remote device present.
  public var oobDataPresent: Bool { oobDataFlag == 0x01 }

  public init(
    ioCapability: SMPIOCapability, oobDataPresent: Bool, authReq: SMPAuthReq, maxEncryptionKeySize: UInt8,
    initiatorKeyDistribution: SMPKeyDistribution, responderKeyDistribution: SMPKeyDistribution
  ) {
    self.ioCapability = ioCapability
    self.oobDataFlag = oobDataPresent ? 0x01 : 0x00
    self.authReq = authReq
    self.maxEncryptionKeySize = maxEncryptionKeySize
    self.initiatorKeyDistribution = initiatorKeyDistribution
    self.responderKeyDistribution = responderKeyDistribution
  }

  init(parsing c: inout ByteCursor) throws(DecodeError) {
    ioCapability = SMPIOCapability(rawValue: try c.readUInt8())
    oobDataFlag = try c.readUInt8()
    authReq = SMPAuthReq(rawValue: try c.readUInt8())
    maxEncryptionKeySize = try c.readUInt8()
    initiatorKeyDistribution = SMPKeyDistribution(rawValue: try c.readUInt8())
    responderKeyDistribution = SMPKeyDistribution(rawValue: try c.readUInt8())
  }

  /// The smallest and largest Maximum Encryption Key Size allowed.
  public static let keySizeRange: ClosedRange<UInt8> = 7...16

  public static func oobDataFlagName(_ flag: UInt8) -> String {
    switch flag {
    case 0x00: "OOB Authentication data not present"
    case 0x01: "OOB Authentication data from remote device present"
    default: "Unknown (0x" + hex(flag) + ")"
    }
  }
}
