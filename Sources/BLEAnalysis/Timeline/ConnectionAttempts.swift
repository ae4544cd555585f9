import BLECapture
import BLEDissect

/// The one home of the rule that pairs a Create Connection with its result: an LE
/// (Extended) Create Connection waits per adapter (a controller runs one at a time), a
/// BR/EDR Create Connection per adapter and peer. A Create Connection Cancel marks the
/// waiting one; a Command Status that refuses the command, or the connection complete
/// that answers it, settles it. Only a central's LE connection answers a Create
/// Connection (a peripheral's was not asked for). `timeline`, `live --metrics` and
/// (through the timeline) `app` count attempts with it.
public struct ConnectionAttempts: Sendable {
  struct PeerKey: Hashable, Sendable {
    var adapter: UInt16?
    var address: DeviceAddress
  }

  private var pendingLE: [UInt16?: ConnectionAttempt] = [:]
  private var pendingBREDR: [PeerKey: ConnectionAttempt] = [:]
  /// Attempts begun so far: the next one's number.
  private var begun = 0

  public init() {}

  /// What `record` did to the attempts: the attempt it settled, if any (once, with the
  /// connection it made when it connected). `analyzed.conn` names that connection.
  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) -> ConnectionAttempt? {
    let at = FrameTime(record)
    switch analyzed.link {
    case .createConnection(let create):
      var attempt = ConnectionAttempt(
        adapter: record.adapter, command: HCIOpcode(rawValue: analyzed.decoded.hci?.opcode ?? 0).name, create: at,
        isLE: create.le)
      attempt.number = begun
      begun += 1
      if !create.usesAcceptList {
        attempt.peer = create.peer
        attempt.peerType = create.peerType
      }
      if create.le {
        pendingLE[record.adapter] = attempt
      } else if let peer = create.peer {
        pendingBREDR[PeerKey(adapter: record.adapter, address: peer)] = attempt
      }
    case .createConnectionCancel(true, _):
      pendingLE[record.adapter]?.cancel = at
    case .createConnectionCancel(false, let peer?):
      pendingBREDR[PeerKey(adapter: record.adapter, address: peer)]?.cancel = at
    case .commandStatus(let opcode, let status) where status != 0:
      // A Create Connection the controller refused.
      guard TimelineBuilder.leCreateConnection.contains(HCIOpcode(rawValue: opcode)),
        let attempt = pendingLE.removeValue(forKey: record.adapter)
      else { return nil }
      return Self.settle(attempt, at, status: status, connection: nil)
    case .connectionComplete(let complete):
      var attempt: ConnectionAttempt?
      if complete.le {
        if complete.role ?? 0 == 0 { attempt = pendingLE.removeValue(forKey: record.adapter) }
      } else if let peer = complete.peer {
        attempt = pendingBREDR.removeValue(forKey: PeerKey(adapter: record.adapter, address: peer))
      }
      guard let attempt else { return nil }
      let connection = complete.status == 0 ? analyzed.conn?.id : nil
      return Self.settle(attempt, at, status: complete.status, connection: connection)
    default:
      break
    }
    return nil
  }

  /// Ends the capture: the attempts still waiting, in the order they began.
  public func finish() -> [ConnectionAttempt] {
    (Array(pendingLE.values) + Array(pendingBREDR.values)).sorted { $0.number < $1.number }
  }

  private static func settle(_ attempt: ConnectionAttempt, _ at: FrameTime, status: UInt8, connection: Int?)
    -> ConnectionAttempt
  {
    var attempt = attempt
    attempt.result = at
    attempt.status = status
    attempt.connection = connection
    attempt.outcome = .init(status: status, cancelled: attempt.cancel != nil)
    return attempt
  }
}
