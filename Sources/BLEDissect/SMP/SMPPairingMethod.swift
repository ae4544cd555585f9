/// The association model a pairing uses, inferred from the Pairing Request and
/// Pairing Response (Core 6.0, Vol 3, Part H, 2.3.5.1, Tables 2.6–2.8).
public struct SMPPairingMethod: Hashable, Sendable, CustomStringConvertible {
  public enum Method: String, Hashable, Sendable {
    case justWorks = "Just Works"
    case passkeyEntry = "Passkey Entry"
    case numericComparison = "Numeric Comparison"
    case outOfBand = "OOB"
  }

  /// Who shows the passkey and who types it, in Passkey Entry.
  public enum PasskeyRoles: String, Hashable, Sendable {
    case initiatorDisplays = "initiator displays, responder inputs"
    case responderDisplays = "responder displays, initiator inputs"
    case bothInput = "initiator and responder input"
  }

  public var method: Method
  /// LE Secure Connections (both sides set SC), else LE legacy pairing.
  public var secureConnections: Bool
  /// Set for Passkey Entry only.
  public var passkeyRoles: PasskeyRoles?

  public init(method: Method, secureConnections: Bool, passkeyRoles: PasskeyRoles? = nil) {
    self.method = method
    self.secureConnections = secureConnections
    self.passkeyRoles = passkeyRoles
  }

  /// `LE Secure Connections Numeric Comparison`, `LE Legacy Just Works`…
  public var name: String { (secureConnections ? "LE Secure Connections " : "LE Legacy ") + method.rawValue }

  public var description: String { name }

  /// Whether the method protects against a man in the middle (Just Works does not).
  public var isAuthenticated: Bool { method != .justWorks }

  /// Picks the method the way both devices do:
  /// - Secure Connections only when both set SC in AuthReq;
  /// - OOB when both (legacy) or either (Secure Connections) set the OOB data flag;
  /// - Just Works when neither sets MITM;
  /// - else Table 2.8 by the initiator's (request's) and responder's IO capabilities.
  ///
  /// A reserved IO capability counts as NoInputNoOutput.
  public static func infer(request: SMPPairingFeatures, response: SMPPairingFeatures) -> SMPPairingMethod {
    let sc = request.authReq.secureConnections && response.authReq.secureConnections
    let oob =
      sc
      ? request.oobDataPresent || response.oobDataPresent
      : request.oobDataPresent && response.oobDataPresent
    if oob { return SMPPairingMethod(method: .outOfBand, secureConnections: sc) }
    if !request.authReq.mitm && !response.authReq.mitm {
      return SMPPairingMethod(method: .justWorks, secureConnections: sc)
    }
    let row = Int(request.ioCapability.rawValue)
    let column = Int(response.ioCapability.rawValue)
    guard row < ioCapabilityTable.count, column < ioCapabilityTable.count else {
      return SMPPairingMethod(method: .justWorks, secureConnections: sc)
    }
    switch ioCapabilityTable[row][column] {
    case .justWorks:
      return SMPPairingMethod(method: .justWorks, secureConnections: sc)
    case .justWorksOrComparison:
      return SMPPairingMethod(method: sc ? .numericComparison : .justWorks, secureConnections: sc)
    case .passkey(let roles):
      return SMPPairingMethod(method: .passkeyEntry, secureConnections: sc, passkeyRoles: roles)
    case .passkeyOrComparison(let roles):
      return sc
        ? SMPPairingMethod(method: .numericComparison, secureConnections: true)
        : SMPPairingMethod(method: .passkeyEntry, secureConnections: false, passkeyRoles: roles)
    }
  }

  /// A cell of Table 2.8: legacy and Secure Connections differ only where Numeric
  /// Comparison is possible (both sides can show a number and one can say yes).
  enum Cell: Hashable, Sendable {
    case justWorks
    /// Legacy Just Works, Secure Connections Numeric Comparison.
    case justWorksOrComparison
    case passkey(PasskeyRoles)
    /// Legacy Passkey Entry, Secure Connections Numeric Comparison.
    case passkeyOrComparison(PasskeyRoles)
  }

  /// Core 6.0, Vol 3, Part H, Table 2.8, indexed [initiator][responder] by IO
  /// capability: DisplayOnly, DisplayYesNo, KeyboardOnly, NoInputNoOutput,
  /// KeyboardDisplay.
  static let ioCapabilityTable: [[Cell]] = [
    // Initiator DisplayOnly
    [.justWorks, .justWorks, .passkey(.initiatorDisplays), .justWorks, .passkey(.initiatorDisplays)],
    // Initiator DisplayYesNo
    [
      .justWorks, .justWorksOrComparison, .passkey(.initiatorDisplays), .justWorks,
      .passkeyOrComparison(.initiatorDisplays),
    ],
    // Initiator KeyboardOnly
    [
      .passkey(.responderDisplays), .passkey(.responderDisplays), .passkey(.bothInput), .justWorks,
      .passkey(.responderDisplays),
    ],
    // Initiator NoInputNoOutput
    [.justWorks, .justWorks, .justWorks, .justWorks, .justWorks],
    // Initiator KeyboardDisplay
    [
      .passkey(.responderDisplays), .passkeyOrComparison(.responderDisplays), .passkey(.initiatorDisplays),
      .justWorks, .passkeyOrComparison(.initiatorDisplays),
    ],
  ]
}
