/// The parameters of an SMP command, one case per shape (Core 6.0, Vol 3, Part H,
/// 3.5–3.6). Keys and 128-bit values are not copied: they are a `ByteRange` into the
/// record, least significant byte first as on the wire.
public enum SMPParameters: Hashable, Sendable {
  /// Pairing Request and Pairing Response.
  case pairingFeatures(SMPPairingFeatures)
  /// A 16-byte value: Confirm Value, Random Value, Long Term Key, Identity Resolving
  /// Key, Signature Key, DHKey Check.
  case value(ByteRange)
  /// Pairing Failed: Reason.
  case pairingFailed(SMPPairingFailedReason)
  /// Central Identification: EDIV, Rand.
  case centralIdentification(ediv: UInt16, rand: UInt64)
  /// Identity Address Information: AddrType (0x00 public, 0x01 static random), BD_ADDR.
  case identityAddress(type: UInt8, address: DeviceAddress)
  /// Security Request: AuthReq.
  case securityRequest(SMPAuthReq)
  /// Pairing Public Key: Public Key X, Public Key Y (32 bytes each).
  case publicKey(x: ByteRange, y: ByteRange)
  /// Pairing Keypress Notification: Notification Type.
  case keypress(SMPKeypressNotificationType)
  /// The parameters of a code this decoder does not know.
  case unknown(ByteRange)
  /// Parameters that break the code's length rule.
  case malformed(ByteRange)
}

/// One SMP command (Core 6.0, Vol 3, Part H, 3.3), on L2CAP CID 0x0006 (LE) or
/// 0x0007 (BR/EDR).
///
///     0       1
///     +-------+----------------------------+
///     | code  | data (0 to MTU-1 bytes)    |
///     +-------+----------------------------+
public struct SMPPDU: Hashable, Sendable {
  public var code: SMPCode
  public var parameters: SMPParameters

  public init(code: SMPCode, parameters: SMPParameters) {
    self.code = code
    self.parameters = parameters
  }

  /// Every diagnostic id `decode` emits, with what it means.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("smp.truncated", "an SMP PDU has no code byte"),
    ("smp.length.invalid", "an SMP command's parameter length differs from the one its code requires"),
    ("smp.code.unknown", "an SMP code this decoder does not know; its parameters are kept as bytes"),
    ("smp.key_size.invalid", "a Maximum Encryption Key Size outside 7 to 16"),
    ("smp.value.reserved", "a reserved value in IO Capability, OOB data flag, Bonding_Flags or AddrType"),
  ]

  /// Decodes one SMP command from the rest of `c`. Throws only when not even the code
  /// is there; parameters of the wrong length come back as `.malformed` with a
  /// diagnostic (or decoded, when there are too many, with the extra bytes ignored).
  public static func decode(_ c: inout ByteCursor, diagnostics: inout [Diagnostic]) throws(DecodeError) -> SMPPDU {
    let code = SMPCode(rawValue: try c.readUInt8())
    let start = c.offset
    let count = c.remaining
    guard let row = code.row else {
      diagnostics.append(
        Diagnostic(
          id: "smp.code.unknown", severity: .info,
          "unknown code 0x\(hex(code.rawValue)) with \(count) parameter \(count == 1 ? "byte" : "bytes")"))
      return SMPPDU(code: code, parameters: .unknown(c.readRemainingRange()))
    }
    guard
      let parameters = row.length.parse(
        row.name, &c, lengthID: "smp.length.invalid", diagnostics: &diagnostics, row.parse)
    else {
      return SMPPDU(code: code, parameters: .malformed(ByteRange(start: start, count: count)))
    }
    let pdu = SMPPDU(code: code, parameters: parameters)
    pdu.check(&diagnostics)
    return pdu
  }

  /// Reports values the spec reserves or forbids; they are still decoded.
  private func check(_ diagnostics: inout [Diagnostic]) {
    func reserved(_ what: String, _ value: UInt8) {
      diagnostics.append(
        Diagnostic(id: "smp.value.reserved", severity: .warning, "\(what) 0x\(hex(value)) is reserved"))
    }
    func checkAuthReq(_ authReq: SMPAuthReq) {
      if authReq.bondingFlags > 1 { reserved("bonding_flags", authReq.bondingFlags) }
    }
    // Only built when something is reported: decoding a good PDU allocates nothing.
    var name: String { messageName(code.name) }
    switch parameters {
    case .pairingFeatures(let features):
      if features.ioCapability.rawValue > SMPIOCapability.keyboardDisplay.rawValue {
        reserved("\(name) IO capability", features.ioCapability.rawValue)
      }
      if features.oobDataFlag > 1 { reserved("\(name) OOB data flag", features.oobDataFlag) }
      checkAuthReq(features.authReq)
      if !SMPPairingFeatures.keySizeRange.contains(features.maxEncryptionKeySize) {
        diagnostics.append(
          Diagnostic(
            id: "smp.key_size.invalid", severity: .warning,
            "\(name) maximum encryption key size \(features.maxEncryptionKeySize) is outside 7 to 16"))
      }
    case .securityRequest(let authReq):
      checkAuthReq(authReq)
    case .identityAddress(let type, _) where type > 1:
      reserved("identity address type", type)
    default:
      break
    }
  }

  /// The features of a Pairing Request or Pairing Response.
  public var pairingFeatures: SMPPairingFeatures? {
    if case .pairingFeatures(let features) = parameters { return features }
    return nil
  }

  /// The AddrType and BD_ADDR of an Identity Address Information.
  public var identityAddress: (type: UInt8, address: DeviceAddress)? {
    if case .identityAddress(let type, let address) = parameters { return (type, address) }
    return nil
  }

  /// The AuthReq of a Pairing Request, Pairing Response or Security Request.
  public var authReq: SMPAuthReq? {
    switch parameters {
    case .pairingFeatures(let features): features.authReq
    case .securityRequest(let authReq): authReq
    default: nil
    }
  }

  /// The Reason of a Pairing Failed.
  public var failureReason: SMPPairingFailedReason? {
    if case .pairingFailed(let reason) = parameters { return reason }
    return nil
  }

  /// AddrType of an Identity Address Information (Core 6.0, Vol 3, Part H, 3.6.5).
  public static func identityAddressTypeName(_ type: UInt8) -> String {
    switch type {
    case 0x00: "Public Device Address"
    case 0x01: "Static Random Device Address"
    default: "Unknown (0x" + hex(type) + ")"
    }
  }
}
