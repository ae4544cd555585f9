import BLEDissect

/// How well one connection was protected, told from its records: each pairing and
/// what it negotiated, each start of encryption and its key, the LE security mode 1
/// level reached, the ATT errors that asked for more security and what followed, and
/// the findings that follow from all that.
///
/// Made by `SecurityTracker` from the analyzed records and the connection's timeline;
/// `timeline`, `stats` and `app` show it.
public struct ConnectionSecurity: Sendable {
  /// The SMP pairings on the connection, in order.
  public var pairings: [PairingSecurity] = []
  /// Every time encryption started (not key refreshes).
  public var encryptions: [EncryptionStart] = []
  /// The highest LE security mode 1 level the connection reached: 1 (no encryption),
  /// 2 (unauthenticated pairing, encrypted), 3 (authenticated pairing, encrypted),
  /// 4 (authenticated LE Secure Connections pairing, encrypted with a 128-bit key).
  public var level: Int = 1
  /// False when encryption used a stored key whose pairing the capture does not show:
  /// the level is then at least `level`.
  public var levelCertain = true
  /// ATT errors that asked for security, and what followed each.
  public var attErrors: [SecurityError] = []
  /// SMP Security Requests: a peripheral asking its central to pair or encrypt.
  public var securityRequests: [FrameTime] = []
  public var findings: [SecurityFinding] = []

  public init() {}

  /// The connection was encrypted at some point.
  public var encrypted: Bool { !encryptions.isEmpty }

  /// Anything to tell: a pairing, encryption, or an ATT security error.
  public var isEmpty: Bool {
    pairings.isEmpty && encryptions.isEmpty && attErrors.isEmpty && securityRequests.isEmpty
  }
}

/// One SMP pairing: the two feature sets and what they select.
public struct PairingSecurity: Hashable, Sendable {
  /// Pairing Request.
  public var at: FrameTime
  /// Pairing Response, when it came.
  public var response: FrameTime?
  /// This host sent the Pairing Request.
  public var localInitiated: Bool
  /// The association model; nil without a Pairing Response.
  public var method: SMPPairingMethod?
  /// Both sides set SC: LE Secure Connections, else LE legacy pairing.
  public var secureConnections: Bool
  /// Either side asked for MITM protection.
  public var mitmRequested: Bool
  /// Both sides asked for bonding.
  public var bonding: Bool
  /// The smaller Maximum Encryption Key Size of the two.
  public var keySize: UInt8?
  /// The keys each side is to distribute: the request's and response's bits that agree.
  public var initiatorKeys: SMPKeyDistribution
  public var responderKeys: SMPKeyDistribution
  /// The key distribution PDUs the capture shows from each side (they are encrypted, so
  /// an air capture shows none).
  public var initiatorKeysSeen: [SMPCode] = []
  public var responderKeysSeen: [SMPCode] = []
  public var outcome: Outcome = .incomplete

  public enum Outcome: Hashable, Sendable {
    /// Encryption started with its key.
    case encrypted(FrameTime)
    /// Pairing Failed, with its reason.
    case failed(FrameTime, SMPPairingFailedReason)
    /// Neither is in the capture.
    case incomplete
  }

  /// The LE security mode 1 level the pairing gives once encrypted.
  public var level: Int {
    guard let method, method.isAuthenticated else { return 2 }
    return secureConnections && (keySize ?? 16) == 16 ? 4 : 3
  }

  /// The data-contract name of the outcome: `encrypted`, `failed`, `incomplete`.
  public var outcomeName: String {
    switch outcome {
    case .encrypted: "encrypted"
    case .failed: "failed"
    case .incomplete: "incomplete"
    }
  }
}

/// Encryption started: with the key of a pairing on this connection, or a stored one.
public struct EncryptionStart: Hashable, Sendable {
  public var at: FrameTime
  /// The pairing whose key it used; nil for a stored key (a bond from before).
  public var pairing: FrameTime?
  /// The key size in octets: read back (HCI Read Encryption Key Size), or the pairing's.
  public var keySize: UInt8?
  /// The level this encryption gives; nil for a stored key of a pairing not in the capture.
  public var level: Int?

  public var storedKey: Bool { pairing == nil }
}

/// An ATT Error Response asking for security (Insufficient Authentication, Encryption
/// or Encryption Key Size) and what came of it.
public struct SecurityError: Hashable, Sendable {
  public var request: FrameTime
  public var response: FrameTime
  public var opcode: UInt8
  public var handle: UInt16?
  public var code: UInt8
  /// What the connection did next about security.
  public var followedBy: FollowUp
  /// The same request again later on the connection, and how it ended.
  public var retry: (at: FrameTime, ok: Bool)?

  public enum FollowUp: Hashable, Sendable {
    case pairing(FrameTime)
    case encryption(FrameTime)
    case disconnect(FrameTime)
    case nothing

    /// `pairing`, `encryption`, `disconnect`, `nothing`.
    public var name: String {
      switch self {
      case .pairing: "pairing"
      case .encryption: "encryption"
      case .disconnect: "disconnect"
      case .nothing: "nothing"
      }
    }

    public var frame: FrameTime? {
      switch self {
      case .pairing(let at), .encryption(let at), .disconnect(let at): at
      case .nothing: nil
      }
    }
  }

  public static func == (a: Self, b: Self) -> Bool {
    a.response == b.response && a.followedBy == b.followedBy && a.retry?.at == b.retry?.at
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(response) }

  /// The ATT error codes that ask for security: Insufficient Authentication (0x05),
  /// Insufficient Encryption Key Size (0x0C), Insufficient Encryption (0x0F).
  public static let codes: Set<UInt8> = [0x05, 0x0C, 0x0F]
}

/// Something about a connection's security worth a look, with how much it matters.
public struct SecurityFinding: Hashable, Sendable {
  public enum Severity: String, Hashable, Sendable, CaseIterable, Comparable {
    case high, medium, low

    public static func < (a: Self, b: Self) -> Bool {
      allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
  }

  public var severity: Severity
  /// A stable sentence for the kind of finding (`legacy pairing: an eavesdropper can
  /// recover the LTK`); details go in `detail`.
  public var reason: String
  public var detail: String?
  /// The frames that show it.
  public var frames: [Int]

  public init(_ severity: Severity, _ reason: String, detail: String? = nil, frames: [Int]) {
    self.severity = severity
    self.reason = reason
    self.detail = detail
    self.frames = frames
  }

  /// LE legacy Just Works or Passkey Entry: the TK is zero or six digits, so the STK
  /// and the keys it protects fall to anyone who recorded the pairing (crackle).
  public static let legacyPairing = "legacy pairing: an eavesdropper can recover the LTK"
  public static let shortKey = "key size below 16"
  public static let plaintextBeforeEncryption =
    "data sent before encryption on a characteristic that later needed it"
  public static let justWorks = "Just Works pairing: no protection against a man in the middle"
  public static let requestIgnored = "the peer asked for security and the link was never encrypted"
}
