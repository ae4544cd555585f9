import Testing

@testable import BLEDissect

/// What decoding one SMP PDU gave, taken out of the closure that holds the cursor.
struct SMPDecoded {
  var pdu: SMPPDU
  var diagnostics: [Diagnostic]
  var fields: [Field]
  var atEnd: Bool
  var ids: [String] { diagnostics.map(\.id) }
}

func decodeSMP(_ bytes: [UInt8]) throws(DecodeError) -> SMPDecoded {
  try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
    let raw = UnsafeRawBufferPointer(buffer)
    var c = ByteCursor(raw.bytes, base: 0, layer: .smp)
    var diagnostics: [Diagnostic] = []
    let pdu = try SMPPDU.decode(&c, diagnostics: &diagnostics)
    return SMPDecoded(pdu: pdu, diagnostics: diagnostics, fields: pdu.fields(raw), atEnd: c.isAtEnd)
  }
}

/// One well-formed command per table row, written as btmon would print it.
struct SMPFixture: CustomTestStringConvertible, Sendable {
  var name: String
  var bytes: [UInt8]
  var parameters: SMPParameters
  var field: String
  var value: FieldValue

  var testDescription: String { name }
}

private let sixteen: [UInt8] = Array(0x00...0x0F)
private func range(_ start: Int, _ count: Int) -> ByteRange { ByteRange(start: start, count: count) }

@Suite struct SMPPDUTests {
  static let fixtures: [SMPFixture] = [
    // Pairing Request: IO capability KeyboardDisplay (0x04), OOB data: not present (0x00),
    //   Authentication requirement: Bonding, MITM, SC, No Keypresses, CT2 (0x2d),
    //   Max encryption key size 16, Initiator key distribution EncKey IdKey Sign LinkKey (0x0f),
    //   Responder key distribution EncKey IdKey Sign LinkKey (0x0f)
    .init(
      name: "Pairing Request", bytes: [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0F, 0x0F],
      parameters: .pairingFeatures(
        SMPPairingFeatures(
          ioCapability: .keyboardDisplay, oobDataPresent: false, authReq: SMPAuthReq(rawValue: 0x2D),
          maxEncryptionKeySize: 16, initiatorKeyDistribution: SMPKeyDistribution(rawValue: 0x0F),
          responderKeyDistribution: SMPKeyDistribution(rawValue: 0x0F))),
      field: "IO Capability", value: .code(4, hexDigits: 2, name: "KeyboardDisplay")),
    // Pairing Response: IO capability NoInputNoOutput (0x03), OOB data: not present (0x00),
    //   Authentication requirement: Bonding, No MITM, SC, No Keypresses (0x09),
    //   Max encryption key size 16, Initiator key distribution EncKey IdKey (0x03),
    //   Responder key distribution EncKey IdKey (0x03)
    .init(
      name: "Pairing Response", bytes: [0x02, 0x03, 0x00, 0x09, 0x10, 0x03, 0x03],
      parameters: .pairingFeatures(
        SMPPairingFeatures(
          ioCapability: .noInputNoOutput, oobDataPresent: false, authReq: SMPAuthReq(rawValue: 0x09),
          maxEncryptionKeySize: 16, initiatorKeyDistribution: SMPKeyDistribution(rawValue: 0x03),
          responderKeyDistribution: SMPKeyDistribution(rawValue: 0x03))),
      field: "Responder Key Distribution", value: .flags(3, hexDigits: 2, names: ["EncKey", "IdKey"])),
    // Pairing Confirm: Confirm value 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Pairing Confirm", bytes: [0x03] + sixteen, parameters: .value(range(1, 16)),
      field: "Confirm Value", value: .bytes(sixteen)),
    // Pairing Random: Random value 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Pairing Random", bytes: [0x04] + sixteen, parameters: .value(range(1, 16)),
      field: "Random Value", value: .bytes(sixteen)),
    // Pairing Failed: Reason: Unspecified reason (0x08)
    .init(
      name: "Pairing Failed", bytes: [0x05, 0x08], parameters: .pairingFailed(.unspecifiedReason),
      field: "Reason", value: .code(8, hexDigits: 2, name: "Unspecified Reason")),
    // Encryption Information: Long term key 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Encryption Information", bytes: [0x06] + sixteen, parameters: .value(range(1, 16)),
      field: "Long Term Key", value: .bytes(sixteen)),
    // Central Identification: EDIV 0x1234, Rand 0x0807060504030201
    .init(
      name: "Central Identification", bytes: [0x07, 0x34, 0x12, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08],
      parameters: .centralIdentification(ediv: 0x1234, rand: 0x0807_0605_0403_0201),
      field: "Rand", value: .unsigned(0x0807_0605_0403_0201, hexDigits: 16)),
    // Identity Information: Identity resolving key 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Identity Information", bytes: [0x08] + sixteen, parameters: .value(range(1, 16)),
      field: "Identity Resolving Key", value: .bytes(sixteen)),
    // Identity Address Information: Address type: Random (0x01), Address: D4:36:39:67:A2:61 (Static)
    .init(
      name: "Identity Address Information", bytes: [0x09, 0x01, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4],
      parameters: .identityAddress(type: 1, address: DeviceAddress(rawValue: 0xD436_3967_A261)),
      field: "BD_ADDR", value: .address(DeviceAddress(rawValue: 0xD436_3967_A261))),
    // Signing Information: Signature key 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Signing Information", bytes: [0x0A] + sixteen, parameters: .value(range(1, 16)),
      field: "Signature Key", value: .bytes(sixteen)),
    // Security Request: Authentication requirement: Bonding, MITM, SC, No Keypresses (0x0d)
    .init(
      name: "Security Request", bytes: [0x0B, 0x0D], parameters: .securityRequest(SMPAuthReq(rawValue: 0x0D)),
      field: "AuthReq", value: .flags(0x0D, hexDigits: 2, names: ["Bonding", "MITM", "SC"])),
    // Pairing Public Key: X 00…1f, Y 20…3f
    .init(
      name: "Pairing Public Key", bytes: [0x0C] + Array(0x00...0x3F),
      parameters: .publicKey(x: range(1, 32), y: range(33, 32)),
      field: "Public Key Y", value: .bytes(Array(0x20...0x3F))),
    // Pairing DHKey Check: E 000102030405060708090a0b0c0d0e0f
    .init(
      name: "Pairing DHKey Check", bytes: [0x0D] + sixteen, parameters: .value(range(1, 16)),
      field: "DHKey Check", value: .bytes(sixteen)),
    // Pairing Keypress Notification: Type: Passkey digit entered (0x01)
    .init(
      name: "Pairing Keypress Notification", bytes: [0x0E, 0x01], parameters: .keypress(.digitEntered),
      field: "Notification Type", value: .code(1, hexDigits: 2, name: "Passkey digit entered")),
  ]

  @Test(arguments: fixtures)
  func fixtureDecodes(_ fixture: SMPFixture) throws {
    let decoded = try decodeSMP(fixture.bytes)
    #expect(decoded.pdu.code.name == fixture.name)
    #expect(decoded.pdu.parameters == fixture.parameters)
    #expect(decoded.diagnostics.isEmpty, "\(decoded.diagnostics)")
    #expect(decoded.atEnd)
    #expect(decoded.fields.lookup(fixture.field)?.value == fixture.value, "\(decoded.fields)")
    #expect(decoded.fields.first?.value == .code(UInt64(fixture.bytes[0]), hexDigits: 2, name: fixture.name))
  }

  @Test func everyRowHasAFixtureAndCodesAreUnique() {
    let codes = SMPCode.table.map(\.code)
    #expect(Set(codes).count == codes.count)
    #expect(Set(SMPCode.table.map(\.name)).count == codes.count)
    #expect(Set(Self.fixtures.map { $0.bytes[0] }) == Set(codes))
    #expect(codes.sorted() == Array(0x01...0x0E))
  }

  @Test(arguments: SMPCode.table.map(\.code))
  func tooShortKeepsTheCode(_ code: UInt8) throws {
    let row = try #require(SMPCode(rawValue: code).row)
    let count = row.length.minimum - 1
    let decoded = try decodeSMP([code] + [UInt8](repeating: 0x01, count: count))
    #expect(decoded.pdu.code.rawValue == code)
    #expect(decoded.pdu.parameters == .malformed(range(1, count)))
    #expect(decoded.ids == ["smp.length.invalid"])
    #expect(decoded.diagnostics.first?.message.contains("has \(count) parameter") == true)
    #expect(decoded.diagnostics.first?.message.contains("needs exactly \(count + 1)") == true)
    #expect(decoded.atEnd)
    #expect(decoded.fields.lookup("Malformed Parameters")?.value == .bytes([UInt8](repeating: 0x01, count: count)))
  }

  @Test func tooLongIsDecodedWithADiagnostic() throws {
    // Pairing Failed: Reason 0x08, one stray byte
    let decoded = try decodeSMP([0x05, 0x08, 0x00])
    #expect(decoded.pdu.failureReason == .unspecifiedReason)
    #expect(decoded.ids == ["smp.length.invalid"])
    #expect(decoded.diagnostics.first?.message == "pairing failed has 2 parameter bytes, needs exactly 1")
    #expect(decoded.atEnd)
  }

  @Test func noCodeThrows() {
    var caught: DecodeError?
    do { _ = try decodeSMP([]) } catch { caught = error }
    #expect(caught?.diagnosticID == "smp.truncated")
    #expect(caught?.offset == 0)
  }

  @Test(arguments: [0x00, 0x0F, 0xFF] as [UInt8])
  func unknownCodeSurvives(_ code: UInt8) throws {
    let decoded = try decodeSMP([code, 0xAA])
    #expect(
      decoded.pdu.code.name == "Unknown (0x\(String(code, radix: 16).count == 1 ? "0" : "")\(String(code, radix: 16)))")
    #expect(!decoded.pdu.code.isKnown)
    #expect(decoded.pdu.parameters == .unknown(range(1, 1)))
    #expect(decoded.ids == ["smp.code.unknown"])
    #expect(decoded.fields.lookup("Parameters")?.value == .bytes([0xAA]))
  }

  @Test func accessors() throws {
    let request = try decodeSMP(Self.fixtures[0].bytes).pdu
    let features = try #require(request.pairingFeatures)
    #expect(features.ioCapability == .keyboardDisplay)
    #expect(!features.oobDataPresent)
    #expect(features.maxEncryptionKeySize == 16)
    #expect(features.initiatorKeyDistribution.linkKey)
    #expect(request.authReq?.mitm == true)
    #expect(request.identityAddress == nil)
    let identity = try #require(try decodeSMP(Self.fixtures[8].bytes).pdu.identityAddress)
    #expect(identity.type == 1)
    #expect(identity.address.description == "D4:36:39:67:A2:61")
    let fields = try decodeSMP(Self.fixtures[8].bytes).fields
    #expect(fields.lookup("AddrType")?.value == .code(1, hexDigits: 2, name: "Static Random Device Address"))
    #expect(try decodeSMP([0x0B, 0x05]).pdu.authReq == SMPAuthReq(rawValue: 0x05))
  }

  @Test func authReqBits() throws {
    // AuthReq 0xed: RFU 0b11, CT2, no Keypress, SC, MITM, Bonding
    let authReq = SMPAuthReq(rawValue: 0xED)
    #expect(authReq.bondingFlags == 0b01)
    #expect(authReq.bonding)
    #expect(authReq.mitm)
    #expect(authReq.secureConnections)
    #expect(!authReq.keypress)
    #expect(authReq.ct2)
    #expect(authReq.rfu == 0b11)
    #expect(SMPAuthReq(rawValue: 0x10).keypress)
    #expect(SMPAuthReq(rawValue: 0x10).bondingFlagsName == "No Bonding")
    let field = try #require(try decodeSMP([0x0B, 0xED]).fields.lookup("AuthReq"))
    #expect(field.value == .flags(0xED, hexDigits: 2, names: ["Bonding", "MITM", "SC", "CT2"]))
    #expect(field.children.map(\.name) == ["Bonding_Flags", "MITM", "SC", "Keypress", "CT2", "RFU"])
    #expect(field.lookup("Bonding_Flags")?.value == .code(1, hexDigits: 1, name: "Bonding"))
    #expect(field.lookup("Keypress")?.value == .unsigned(0, hexDigits: 0))
    #expect(field.lookup("RFU")?.value == .unsigned(3, hexDigits: 0))
  }

  @Test func keyDistributionBits() throws {
    let keys = SMPKeyDistribution(rawValue: 0xF5)
    #expect(keys.encKey && !keys.idKey && keys.signKey && !keys.linkKey)
    #expect(keys.rfu == 0x0F)
    #expect(keys.names == ["EncKey", "SignKey"])
    let field = try #require(try decodeSMP(Self.fixtures[0].bytes).fields.lookup("Initiator Key Distribution"))
    #expect(field.children.map(\.name) == ["EncKey", "IdKey", "SignKey", "LinkKey", "RFU"])
  }

  @Test(
    arguments: [
      (0x01, "Passkey Entry Failed"), (0x02, "OOB Not Available"), (0x03, "Authentication Requirements"),
      (0x04, "Confirm Value Failed"), (0x05, "Pairing Not Supported"), (0x06, "Encryption Key Size"),
      (0x07, "Command Not Supported"), (0x08, "Unspecified Reason"), (0x09, "Repeated Attempts"),
      (0x0A, "Invalid Parameters"), (0x0B, "DHKey Check Failed"), (0x0C, "Numeric Comparison Failed"),
      (0x0D, "BR/EDR pairing in progress"), (0x0E, "Cross-transport Key Derivation/Generation not allowed"),
      (0x0F, "Key Rejected"), (0x00, "Unknown (0x00)"), (0x10, "Unknown (0x10)"),
    ] as [(UInt8, String)])
  func pairingFailedReasons(_ code: UInt8, _ name: String) {
    #expect(SMPPairingFailedReason(rawValue: code).name == name)
  }

  @Test func ioCapabilityAndKeypressNames() {
    let io = (0...5).map { SMPIOCapability(rawValue: $0).name }
    #expect(
      io == ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay", "Unknown (0x05)"])
    let keypress = (0...5).map { SMPKeypressNotificationType(rawValue: $0).name }
    #expect(
      keypress == [
        "Passkey entry started", "Passkey digit entered", "Passkey digit erased", "Passkey cleared",
        "Passkey entry completed", "Unknown (0x05)",
      ])
    #expect(SMPPairingFeatures.oobDataFlagName(1) == "OOB Authentication data from remote device present")
  }

  @Test func reservedValuesAndKeySizes() throws {
    // Pairing Request: IO 0x05, OOB 0x02, AuthReq bonding flags 0b10, key size 6
    let decoded = try decodeSMP([0x01, 0x05, 0x02, 0x02, 0x06, 0x00, 0x00])
    #expect(decoded.ids == ["smp.value.reserved", "smp.value.reserved", "smp.value.reserved", "smp.key_size.invalid"])
    #expect(decoded.diagnostics.last?.message == "pairing request maximum encryption key size 6 is outside 7 to 16")
    #expect(decoded.fields.lookup("OOB data flag")?.value == .code(2, hexDigits: 2, name: "Unknown (0x02)"))
    // Identity Address Information with AddrType 0x02
    let address = try decodeSMP([0x09, 0x02, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4])
    #expect(address.ids == ["smp.value.reserved"])
    #expect(address.pdu.identityAddress?.type == 2)
    // Pairing Response with key size 17
    #expect(try decodeSMP([0x02, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00]).ids == ["smp.key_size.invalid"])
  }

  /// Every code with every length up to 70 bytes: nothing crashes, the cursor ends at
  /// the end, and every diagnostic id is documented.
  @Test func anyBytesDecodeWithDocumentedDiagnostics() throws {
    let documented = Set(SMPPDU.diagnosticIDs.map(\.id))
    #expect(documented.count == SMPPDU.diagnosticIDs.count)
    var state: UInt32 = 0x8765_4321
    func next() -> UInt8 {
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
    for code in 0...0x10 {
      for length in 0...70 {
        let decoded = try decodeSMP([UInt8(code)] + (0..<length).map { _ in next() })
        #expect(decoded.atEnd)
        for id in decoded.ids { #expect(documented.contains(id), "\(id)") }
      }
    }
  }
}
