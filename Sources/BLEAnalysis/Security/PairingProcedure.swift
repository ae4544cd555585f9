import BLECapture
import BLEDissect

/// What one record is in a connection's pairing procedure (Core 6.0, Vol 3, Part H,
/// 2.1 and 3.5–3.6): `LinkTracker` works it out once, with `PairingProcedure`, and
/// `timeline`, the security summary and `app` read it from `AnalyzedRecord.security`.
public enum SecurityStep: Sendable, Hashable {
  /// Security Request: the peripheral asks the central to pair or encrypt.
  case securityRequest(SMPAuthReq)
  /// Pairing Request: a pairing begins (phase 1).
  case pairingRequest(SMPPairingFeatures)
  /// Pairing Response, and the method the two feature sets select (nil when the
  /// capture did not show the request).
  case pairingResponse(SMPPairingFeatures, method: SMPPairingMethod?)
  /// A key distributed in phase 3; by the initiator (the Pairing Request's sender) or
  /// the responder, when the request was seen.
  case keyDistribution(SMPCode, byInitiator: Bool?)
  /// Pairing Failed: it ends the pairing under way (`endsPairing`), or else refuses a
  /// Security Request.
  case pairingFailed(SMPPairingFailedReason, endsPairing: Bool)
  /// Another SMP PDU of phase 2 (confirm, random, public key, DHKey check, keypress).
  case pairingPDU
  /// Encryption started with the key the pairing under way made: the pairing is done.
  case pairingEncrypted
}

/// A connection's pairing procedure so far: the one place that decides which pairing a
/// PDU or an encryption change belongs to.
struct PairingProcedure {
  /// The last Pairing Request's features and the direction it went (the initiator's).
  private var request: (features: SMPPairingFeatures, direction: Direction?)?
  /// A pairing began and has neither failed nor been encrypted.
  private var underWay = false

  /// An SMP PDU, sent in `direction`.
  mutating func step(_ smp: SMPPDU, _ direction: Direction?) -> SecurityStep {
    switch smp.code {
    case .securityRequest:
      return smp.authReq.map { .securityRequest($0) } ?? .pairingPDU
    case .pairingRequest:
      guard let features = smp.pairingFeatures else { return .pairingPDU }
      request = (features, direction)
      underWay = true
      return .pairingRequest(features)
    case .pairingResponse:
      guard let features = smp.pairingFeatures else { return .pairingPDU }
      return .pairingResponse(
        features, method: request.map { SMPPairingMethod.infer(request: $0.features, response: features) })
    case .pairingFailed:
      guard let reason = smp.failureReason else { return .pairingPDU }
      defer { underWay = false }
      return .pairingFailed(reason, endsPairing: underWay)
    case .encryptionInformation, .centralIdentification, .identityInformation, .identityAddressInformation,
      .signingInformation:
      return .keyDistribution(smp.code, byInitiator: request.map { direction == $0.direction })
    default:
      return .pairingPDU
    }
  }

  /// Encryption turned on (an Encryption Change or Key Refresh that succeeded, or the
  /// air's LL_START_ENC_REQ): it ends the pairing under way.
  mutating func encrypted() -> SecurityStep? {
    guard underWay else { return nil }
    underWay = false
    return .pairingEncrypted
  }
}
