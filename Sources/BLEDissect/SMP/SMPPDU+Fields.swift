extension SMPPDU {
  /// The verbose field tree, with the spec's parameter names. `bytes` is the buffer
  /// the decoding cursor was made over. Builds arrays and strings (not the hot path).
  public func fields(_ bytes: UnsafeRawBufferPointer) -> [Field] {
    var fields = [Field("Code", .code(UInt64(code.rawValue), hexDigits: 2, name: code.name))]
    func data(_ name: String, _ range: ByteRange) -> Field {
      Field(name, .bytes(bytes.copy(range)))
    }
    switch parameters {
    case .pairingFeatures(let features):
      fields += [
        Field(
          "IO Capability",
          .code(UInt64(features.ioCapability.rawValue), hexDigits: 2, name: features.ioCapability.name)),
        Field(
          "OOB data flag",
          .code(
            UInt64(features.oobDataFlag), hexDigits: 2,
            name: SMPPairingFeatures.oobDataFlagName(features.oobDataFlag))),
        Self.authReqField(features.authReq),
        Field("Maximum Encryption Key Size", .unsigned(UInt64(features.maxEncryptionKeySize), hexDigits: 0)),
        Self.keyDistributionField("Initiator Key Distribution", features.initiatorKeyDistribution),
        Self.keyDistributionField("Responder Key Distribution", features.responderKeyDistribution),
      ]
    case .value(let range):
      fields.append(data(Self.valueName(code), range))
    case .pairingFailed(let reason):
      fields.append(Field("Reason", .code(UInt64(reason.rawValue), hexDigits: 2, name: reason.name)))
    case .centralIdentification(let ediv, let rand):
      fields += [Field("EDIV", .unsigned(UInt64(ediv), hexDigits: 4)), Field("Rand", .unsigned(rand, hexDigits: 16))]
    case .identityAddress(let type, let address):
      fields += [
        Field("AddrType", .code(UInt64(type), hexDigits: 2, name: Self.identityAddressTypeName(type))),
        Field("BD_ADDR", .address(address)),
      ]
    case .securityRequest(let authReq):
      fields.append(Self.authReqField(authReq))
    case .publicKey(let x, let y):
      fields += [data("Public Key X", x), data("Public Key Y", y)]
    case .keypress(let type):
      fields.append(Field("Notification Type", .code(UInt64(type.rawValue), hexDigits: 2, name: type.name)))
    case .unknown(let range):
      fields.append(data("Parameters", range))
    case .malformed(let range):
      fields.append(data("Malformed Parameters", range))
    }
    return fields
  }

  /// The name of the 16-byte value each code carries.
  static func valueName(_ code: SMPCode) -> String {
    switch code {
    case .pairingConfirm: "Confirm Value"
    case .pairingRandom: "Random Value"
    case .encryptionInformation: "Long Term Key"
    case .identityInformation: "Identity Resolving Key"
    case .signingInformation: "Signature Key"
    case .pairingDHKeyCheck: "DHKey Check"
    default: "Value"
    }
  }

  static func authReqField(_ authReq: SMPAuthReq) -> Field {
    func bit(_ name: String, _ set: Bool) -> Field { Field(name, .unsigned(set ? 1 : 0, hexDigits: 0)) }
    return Field(
      "AuthReq", .flags(UInt64(authReq.rawValue), hexDigits: 2, names: authReq.names),
      children: [
        Field("Bonding_Flags", .code(UInt64(authReq.bondingFlags), hexDigits: 1, name: authReq.bondingFlagsName)),
        bit("MITM", authReq.mitm), bit("SC", authReq.secureConnections), bit("Keypress", authReq.keypress),
        bit("CT2", authReq.ct2), Field("RFU", .unsigned(UInt64(authReq.rfu), hexDigits: 0)),
      ])
  }

  static func keyDistributionField(_ name: String, _ keys: SMPKeyDistribution) -> Field {
    func bit(_ name: String, _ set: Bool) -> Field { Field(name, .unsigned(set ? 1 : 0, hexDigits: 0)) }
    return Field(
      name, .flags(UInt64(keys.rawValue), hexDigits: 2, names: keys.names),
      children: [
        bit("EncKey", keys.encKey), bit("IdKey", keys.idKey), bit("SignKey", keys.signKey),
        bit("LinkKey", keys.linkKey), Field("RFU", .unsigned(UInt64(keys.rfu), hexDigits: 0)),
      ])
  }
}
