import Testing

@testable import BLEDissect

/// One cell of Core 6.0, Vol 3, Part H, Table 2.8 (both sides ask for MITM, no OOB).
struct PairingCell: CustomTestStringConvertible, Sendable {
  var initiator: SMPIOCapability
  var responder: SMPIOCapability
  var method: SMPPairingMethod.Method
  var roles: SMPPairingMethod.PasskeyRoles? = nil

  var testDescription: String { "\(initiator.name) → \(responder.name)" }
}

private func features(
  _ io: SMPIOCapability, sc: Bool = false, mitm: Bool = true, oob: Bool = false
) -> SMPPairingFeatures {
  SMPPairingFeatures(
    ioCapability: io, oobDataPresent: oob,
    authReq: SMPAuthReq(rawValue: 0x01 | (mitm ? 0x04 : 0) | (sc ? 0x08 : 0)), maxEncryptionKeySize: 16,
    initiatorKeyDistribution: SMPKeyDistribution(rawValue: 0x03),
    responderKeyDistribution: SMPKeyDistribution(rawValue: 0x03))
}

private let displayOnly = SMPIOCapability.displayOnly
private let displayYesNo = SMPIOCapability.displayYesNo
private let keyboardOnly = SMPIOCapability.keyboardOnly
private let noInputNoOutput = SMPIOCapability.noInputNoOutput
private let keyboardDisplay = SMPIOCapability.keyboardDisplay

@Suite struct SMPPairingMethodTests {
  /// LE legacy pairing: the table's first entry of each cell.
  static let legacy: [PairingCell] = [
    .init(initiator: displayOnly, responder: displayOnly, method: .justWorks),
    .init(initiator: displayOnly, responder: displayYesNo, method: .justWorks),
    .init(initiator: displayOnly, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayOnly, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: displayOnly, responder: keyboardDisplay, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayYesNo, responder: displayOnly, method: .justWorks),
    .init(initiator: displayYesNo, responder: displayYesNo, method: .justWorks),
    .init(initiator: displayYesNo, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayYesNo, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: displayYesNo, responder: keyboardDisplay, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: keyboardOnly, responder: displayOnly, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardOnly, responder: displayYesNo, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardOnly, responder: keyboardOnly, method: .passkeyEntry, roles: .bothInput),
    .init(initiator: keyboardOnly, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: keyboardOnly, responder: keyboardDisplay, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: noInputNoOutput, responder: displayOnly, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: displayYesNo, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: keyboardOnly, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: keyboardDisplay, method: .justWorks),
    .init(initiator: keyboardDisplay, responder: displayOnly, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardDisplay, responder: displayYesNo, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardDisplay, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: keyboardDisplay, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: keyboardDisplay, responder: keyboardDisplay, method: .passkeyEntry, roles: .initiatorDisplays),
  ]

  /// LE Secure Connections: Numeric Comparison wherever both can show a number and
  /// one can say yes.
  static let secureConnections: [PairingCell] = [
    .init(initiator: displayOnly, responder: displayOnly, method: .justWorks),
    .init(initiator: displayOnly, responder: displayYesNo, method: .justWorks),
    .init(initiator: displayOnly, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayOnly, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: displayOnly, responder: keyboardDisplay, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayYesNo, responder: displayOnly, method: .justWorks),
    .init(initiator: displayYesNo, responder: displayYesNo, method: .numericComparison),
    .init(initiator: displayYesNo, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: displayYesNo, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: displayYesNo, responder: keyboardDisplay, method: .numericComparison),
    .init(initiator: keyboardOnly, responder: displayOnly, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardOnly, responder: displayYesNo, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardOnly, responder: keyboardOnly, method: .passkeyEntry, roles: .bothInput),
    .init(initiator: keyboardOnly, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: keyboardOnly, responder: keyboardDisplay, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: noInputNoOutput, responder: displayOnly, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: displayYesNo, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: keyboardOnly, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: noInputNoOutput, responder: keyboardDisplay, method: .justWorks),
    .init(initiator: keyboardDisplay, responder: displayOnly, method: .passkeyEntry, roles: .responderDisplays),
    .init(initiator: keyboardDisplay, responder: displayYesNo, method: .numericComparison),
    .init(initiator: keyboardDisplay, responder: keyboardOnly, method: .passkeyEntry, roles: .initiatorDisplays),
    .init(initiator: keyboardDisplay, responder: noInputNoOutput, method: .justWorks),
    .init(initiator: keyboardDisplay, responder: keyboardDisplay, method: .numericComparison),
  ]

  @Test(arguments: legacy)
  func legacyCell(_ cell: PairingCell) {
    let method = SMPPairingMethod.infer(request: features(cell.initiator), response: features(cell.responder))
    #expect(method == SMPPairingMethod(method: cell.method, secureConnections: false, passkeyRoles: cell.roles))
    #expect(method.name == "LE Legacy " + cell.method.rawValue)
  }

  @Test(arguments: secureConnections)
  func secureConnectionsCell(_ cell: PairingCell) {
    let method = SMPPairingMethod.infer(
      request: features(cell.initiator, sc: true), response: features(cell.responder, sc: true))
    #expect(method == SMPPairingMethod(method: cell.method, secureConnections: true, passkeyRoles: cell.roles))
    #expect(method.name == "LE Secure Connections " + cell.method.rawValue)
  }

  @Test func tablesCoverEveryCell() {
    #expect(Set(Self.legacy.map(\.testDescription)).count == 25)
    #expect(Set(Self.secureConnections.map(\.testDescription)).count == 25)
  }

  @Test func secureConnectionsNeedsBothSides() {
    let method = SMPPairingMethod.infer(
      request: features(displayYesNo, sc: true), response: features(displayYesNo, sc: false))
    #expect(method.name == "LE Legacy Just Works")
  }

  @Test func legacyOOBNeedsBothFlags() {
    let both = SMPPairingMethod.infer(
      request: features(keyboardOnly, oob: true), response: features(keyboardOnly, oob: true))
    #expect(both.name == "LE Legacy OOB")
    // One flag only: the IO capabilities decide.
    let one = SMPPairingMethod.infer(request: features(keyboardOnly, oob: true), response: features(keyboardOnly))
    #expect(one == SMPPairingMethod(method: .passkeyEntry, secureConnections: false, passkeyRoles: .bothInput))
    // OOB wins even without MITM.
    let noMITM = SMPPairingMethod.infer(
      request: features(noInputNoOutput, mitm: false, oob: true),
      response: features(noInputNoOutput, mitm: false, oob: true))
    #expect(noMITM.method == .outOfBand)
  }

  @Test func secureConnectionsOOBNeedsEitherFlag() {
    let initiator = SMPPairingMethod.infer(
      request: features(noInputNoOutput, sc: true, oob: true), response: features(noInputNoOutput, sc: true))
    #expect(initiator.name == "LE Secure Connections OOB")
    let responder = SMPPairingMethod.infer(
      request: features(displayYesNo, sc: true), response: features(displayYesNo, sc: true, oob: true))
    #expect(responder.method == .outOfBand)
    #expect(responder.isAuthenticated)
  }

  @Test func neitherMITMIsJustWorks() {
    for initiator in 0...4 {
      for responder in 0...4 {
        for sc in [false, true] {
          let method = SMPPairingMethod.infer(
            request: features(SMPIOCapability(rawValue: UInt8(initiator)), sc: sc, mitm: false),
            response: features(SMPIOCapability(rawValue: UInt8(responder)), sc: sc, mitm: false))
          #expect(method == SMPPairingMethod(method: .justWorks, secureConnections: sc))
          #expect(!method.isAuthenticated)
        }
      }
    }
    // One side asking for MITM is enough.
    let one = SMPPairingMethod.infer(
      request: features(keyboardDisplay, sc: true, mitm: false), response: features(displayYesNo, sc: true))
    #expect(one.name == "LE Secure Connections Numeric Comparison")
  }

  @Test func reservedIOCapabilityCountsAsNoInputNoOutput() {
    let method = SMPPairingMethod.infer(
      request: features(SMPIOCapability(rawValue: 0x07)), response: features(keyboardOnly))
    #expect(method.name == "LE Legacy Just Works")
  }
}
