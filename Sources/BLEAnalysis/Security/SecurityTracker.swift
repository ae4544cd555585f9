import BLECapture
import BLEDissect

/// Collects what a connection's security summary needs beyond its timeline, record by
/// record: the pairing feature exchanges and the keys distributed, encryption key sizes
/// read back from the controller, and the attribute values sent in the clear; then
/// `finish` makes each connection's `ConnectionSecurity` from that and the timeline.
public struct SecurityTracker {
  struct Exchange {
    var at: FrameTime
    var request: SMPPairingFeatures
    var direction: Direction?
    var response: SMPPairingFeatures?
    var responseAt: FrameTime?
    /// Key distribution PDUs, and whether the initiator sent them.
    var keys: [(code: SMPCode, fromInitiator: Bool)] = []
  }

  struct KeySize {
    var adapter: UInt16?
    var handle: UInt16
    var frame: Int
    var size: UInt8
  }

  private var exchanges: [Int: [Exchange]] = [:]
  private var securityRequests: [Int: [FrameTime]] = [:]
  private var keySizes: [KeySize] = []
  /// Connections whose encryption has started.
  private var encrypted: Set<Int> = []
  /// Frames of attribute values sent while the connection was not encrypted, by
  /// connection and value handle (the first few of each).
  private var plaintext: [Int: [UInt16: [Int]]] = [:]
  static let framesKept = 16
  /// The level of the last bonding pairing with each peer, over the connections finished so far.
  private var bonds: [DeviceAddress: Int] = [:]

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    let decoded = analyzed.decoded
    if let ll = decoded.ll, ll.radio.crc == .bad || ll.isRetransmission { return }
    if let link = analyzed.link { self.link(link, record, analyzed) }
    guard let id = analyzed.conn?.id else { return }
    if let control = decoded.ll?.data?.control,
      control.opcode == .startEncReq || control.opcode == .startEncRsp
    {
      encrypted.insert(id)
    }
    if decoded.smp != nil, let step = analyzed.security { securityManager(step, record, id) }
    if let att = decoded.att, let value = att.value, value.count > 0, !encrypted.contains(id),
      let handle = analyzed.attHandle
    {
      let key = analyzed.attribute?.valueHandle ?? handle
      if plaintext[id, default: [:]][key, default: []].count < Self.framesKept {
        plaintext[id, default: [:]][key, default: []].append(record.frame)
      }
    }
  }

  private mutating func link(_ link: LinkEvent, _ record: Record, _ analyzed: AnalyzedRecord) {
    switch link {
    case .encryptionChange(0, _, true, false):
      if let id = analyzed.conn?.id { encrypted.insert(id) }
    case .commandComplete(_, 0, .keySize(let handle, let size)):
      keySizes.append(KeySize(adapter: record.adapter, handle: handle, frame: record.frame, size: size))
    default:
      break
    }
  }

  private mutating func securityManager(_ step: SecurityStep, _ record: Record, _ id: Int) {
    let at = FrameTime(record)
    switch step {
    case .securityRequest:
      securityRequests[id, default: []].append(at)
    case .pairingRequest(let features):
      exchanges[id, default: []].append(Exchange(at: at, request: features, direction: record.direction))
    case .pairingResponse(let features, _):
      guard let last = exchanges[id]?.indices.last, exchanges[id]![last].response == nil else { return }
      exchanges[id]![last].response = features
      exchanges[id]![last].responseAt = at
    case .keyDistribution(let code, let byInitiator?):
      guard let last = exchanges[id]?.indices.last else { return }
      exchanges[id]![last].keys.append((code, byInitiator))
    default:
      break
    }
  }

  // MARK: - Summaries

  /// Gives every connection of `timeline` its security summary (nil when it had no
  /// pairing, no encryption and no ATT security error). Connections are taken in
  /// order, so that a stored key used later has the level of the bonding pairing
  /// seen earlier with the same peer.
  public mutating func finish(_ timeline: inout Timeline) {
    let order = timeline.connections.indices.sorted {
      timeline.connections[$0].first.frame < timeline.connections[$1].first.frame
    }
    for i in order { finish(&timeline.connections[i]) }
  }

  /// Gives `connection` its security summary, after those of every connection that
  /// began before it, and forgets what it kept for it.
  public mutating func finish(_ connection: inout ConnectionTimeline) {
    let security = summary(connection, bonds: bonds)
    if let peer = connection.ref.peer {
      for pairing in security.pairings where pairing.bonding {
        if case .encrypted = pairing.outcome { bonds[peer] = pairing.level }
      }
    }
    connection.security = security.isEmpty && security.findings.isEmpty ? nil : security
    let id = connection.ref.id
    exchanges[id] = nil
    securityRequests[id] = nil
    plaintext[id] = nil
  }

  /// The summary of one connection.
  func summary(_ connection: ConnectionTimeline, bonds: [DeviceAddress: Int]) -> ConnectionSecurity {
    var security = ConnectionSecurity()
    let id = connection.ref.id
    let exchanges = self.exchanges[id] ?? []
    for pairing in connection.pairing {
      guard let exchange = exchanges.first(where: { $0.at == pairing.start }) else { continue }
      security.pairings.append(Self.pairing(pairing, exchange))
    }
    // Key sizes the controller reported on this connection's handle while it was up.
    let end = connection.disconnect?.complete.frame ?? Int.max
    let sizes = keySizes.filter {
      $0.adapter == connection.ref.adapter && $0.handle == connection.ref.handle && $0.frame >= connection.first.frame
        && $0.frame <= end
    }
    for change in connection.encryption where change.enabled && !change.isKeyRefresh {
      let pairing = security.pairings.last { $0.outcome == .encrypted(change.change) }
      let size = sizes.first { $0.frame > change.change.frame }?.size ?? pairing?.keySize
      var level: Int?
      if let pairing {
        level = pairing.level == 4 && (size ?? 16) < 16 ? 3 : pairing.level
      } else if let peer = connection.ref.peer, let bonded = bonds[peer] {
        level = bonded == 4 && (size ?? 16) < 16 ? 3 : bonded
      }
      security.encryptions.append(
        EncryptionStart(at: change.change, pairing: pairing?.at, keySize: size, level: level))
    }
    if !security.encryptions.isEmpty {
      security.level = security.encryptions.map { $0.level ?? 2 }.max() ?? 1
      security.levelCertain = security.encryptions.allSatisfy { $0.level != nil }
    }
    security.attErrors = Self.errors(connection)
    security.securityRequests = securityRequests[id] ?? []
    security.findings = findings(security, connection)
    return security
  }

  private static func pairing(_ pairing: Pairing, _ exchange: Exchange) -> PairingSecurity {
    let request = exchange.request
    let response = exchange.response
    let both = { (a: SMPKeyDistribution, b: SMPKeyDistribution?) in
      SMPKeyDistribution(rawValue: a.rawValue & (b?.rawValue ?? 0))
    }
    var result = PairingSecurity(
      at: pairing.start, response: exchange.responseAt, localInitiated: pairing.localInitiated,
      method: pairing.method ?? response.map { SMPPairingMethod.infer(request: request, response: $0) },
      secureConnections: request.authReq.secureConnections && response?.authReq.secureConnections == true,
      mitmRequested: request.authReq.mitm || response?.authReq.mitm == true,
      bonding: request.authReq.bonding && response?.authReq.bonding == true,
      keySize: response.map { min(request.maxEncryptionKeySize, $0.maxEncryptionKeySize) },
      initiatorKeys: both(request.initiatorKeyDistribution, response?.initiatorKeyDistribution),
      responderKeys: both(request.responderKeyDistribution, response?.responderKeyDistribution))
    result.initiatorKeysSeen = exchange.keys.filter(\.fromInitiator).map(\.code)
    result.responderKeysSeen = exchange.keys.filter { !$0.fromInitiator }.map(\.code)
    if let encrypted = pairing.encrypted {
      result.outcome = .encrypted(encrypted)
    } else if let failed = pairing.failed {
      result.outcome = .failed(failed.at, SMPPairingFailedReason(rawValue: failed.reason))
    }
    return result
  }

  /// The ATT errors that asked for security, each with what followed and its retry.
  private static func errors(_ connection: ConnectionTimeline) -> [SecurityError] {
    var result: [SecurityError] = []
    let transactions = connection.transactions.sorted { $0.request.frame < $1.request.frame }
    for transaction in transactions {
      guard let code = transaction.errorCode, SecurityError.codes.contains(code), let response = transaction.response
      else { continue }
      var candidates: [SecurityError.FollowUp] = []
      if let pairing = connection.pairing.first(where: { $0.start.frame > response.frame }) {
        candidates.append(.pairing(pairing.start))
      }
      if let change = connection.encryption.first(where: { $0.enabled && $0.change.frame > response.frame }) {
        candidates.append(.encryption(change.start ?? change.change))
      }
      if let disconnect = connection.disconnect, disconnect.complete.frame > response.frame {
        candidates.append(.disconnect(disconnect.command ?? disconnect.complete))
      }
      let followedBy = candidates.min { ($0.frame?.frame ?? .max) < ($1.frame?.frame ?? .max) } ?? .nothing
      let retry = transactions.first {
        $0.request.frame > response.frame && $0.opcode == transaction.opcode && $0.handle == transaction.handle
      }
      result.append(
        SecurityError(
          request: transaction.request, response: response, opcode: transaction.opcode, handle: transaction.handle,
          code: code, followedBy: followedBy, retry: retry.map { ($0.request, $0.outcome == .ok) }))
    }
    return result
  }

  private func findings(_ security: ConnectionSecurity, _ connection: ConnectionTimeline) -> [SecurityFinding] {
    var findings: [SecurityFinding] = []
    for pairing in security.pairings {
      guard let method = pairing.method else { continue }
      let frames = [pairing.at.frame] + (pairing.response.map { [$0.frame] } ?? [])
      if !pairing.secureConnections, method.method == .justWorks || method.method == .passkeyEntry {
        findings.append(SecurityFinding(.high, SecurityFinding.legacyPairing, detail: method.name, frames: frames))
      } else if method.method == .justWorks {
        findings.append(SecurityFinding(.low, SecurityFinding.justWorks, detail: method.name, frames: frames))
      }
      if let size = pairing.keySize, size < 16 {
        findings.append(SecurityFinding(.medium, SecurityFinding.shortKey, detail: "\(size) octets", frames: frames))
      }
    }
    if !security.securityRequests.isEmpty, security.encryptions.isEmpty {
      findings.append(
        SecurityFinding(.medium, SecurityFinding.requestIgnored, frames: security.securityRequests.map(\.frame)))
    }
    for start in security.encryptions where start.storedKey {
      if let size = start.keySize, size < 16 {
        findings.append(
          SecurityFinding(.medium, SecurityFinding.shortKey, detail: "\(size) octets", frames: [start.at.frame]))
      }
    }
    // Characteristics that answered with a security error, and their values sent in
    // the clear on this connection.
    var reported: Set<UInt16> = []
    for error in security.attErrors {
      let transaction = connection.transactions.first { $0.request == error.request }
      guard let handle = transaction?.valueHandle ?? error.handle, reported.insert(handle).inserted,
        let frames = plaintext[connection.ref.id]?[handle], !frames.isEmpty
      else { continue }
      findings.append(
        SecurityFinding(
          .medium, SecurityFinding.plaintextBeforeEncryption, detail: "handle 0x" + hex(handle),
          frames: frames + [error.response.frame]))
    }
    return findings.sorted { $0.severity < $1.severity }
  }
}
