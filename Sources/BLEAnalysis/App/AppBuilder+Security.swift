import BLECapture
import BLEDissect

/// Pairing and encryption calls, from the connection's pairing procedure.
extension AppBuilder {
  mutating func openSecurity(
    _ conn: ConnectionRef, _ kind: AppCallKind, _ at: FrameTime, local: Bool, trigger: String? = nil
  ) -> Int {
    var link = links[conn.id] ?? Link(ref: conn)
    var call = AppCall(kind: kind, conn: conn, start: at, end: at)
    var security = AppSecurity(trigger: trigger, localInitiated: local)
    if trigger == nil, let error = link.securityError, error.at.microseconds(to: at) <= 5_000_000 {
      security.trigger = "att_error"
      security.triggerFrame = error.at.frame
      security.triggerError = error.code
      link.retry = (calls.count, error.opcode, error.handle)
    }
    if trigger != nil { security.triggerFrame = at.frame }
    link.securityError = nil
    call.security = security
    call.requests = [at.frame]
    link.security = calls.count
    links[conn.id] = link
    calls.append(call)
    return calls.count - 1
  }

  mutating func close(_ i: Int) {
    guard let conn = calls[i].conn else { return }
    if links[conn.id]?.security == i { links[conn.id]?.security = nil }
  }

  mutating func security(_ step: SecurityStep, _ conn: ConnectionRef, _ record: Record, _ at: FrameTime) {
    let sent = record.direction == .sent
    var open = links[conn.id]?.security
    switch step {
    case .securityRequest:
      if open == nil { open = openSecurity(conn, .pair, at, local: sent, trigger: "security_request") }
    case .pairingRequest(let features):
      if let i = open, calls[i].kind == .pair, calls[i].security?.method == nil, calls[i].security?.failedReason == nil
      {
        calls[i].security?.bonding = features.authReq.bonding
      } else {
        if let i = open { close(i) }
        open = openSecurity(conn, .pair, at, local: sent)
        if let i = open { calls[i].security?.bonding = features.authReq.bonding }
      }
    case .pairingResponse(let features, let method):
      if let i = open {
        calls[i].security?.method = method?.name
        if !features.authReq.bonding { calls[i].security?.bonding = false }
      }
    case .pairingFailed(let reason, _):
      if let i = open {
        calls[i].ok = false
        calls[i].security?.failedReason = reason.rawValue
        calls[i].security?.failedByLocal = sent
      }
    default:
      break
    }
    guard let i = open else { return }
    if sent { links[conn.id]?.lastSMPSent = at.frame }
    if calls[i].end < at { calls[i].end = at }
    if sent { calls[i].requests.append(at.frame) } else { calls[i].responses.append(at.frame) }
    calls[i].requests = Array(Set(calls[i].requests)).sorted()
    if case .pairingFailed = step { close(i) }
  }

  mutating func encryptionStarts(_ conn: ConnectionRef, _ at: FrameTime, local: Bool) {
    if let i = links[conn.id]?.security {
      // Pairing goes on to encrypt; a Security Request answered with a stored key is an encryption.
      if calls[i].kind == .pair, calls[i].security?.method == nil, calls[i].security?.trigger == "security_request" {
        calls[i].kind = .encrypt
      }
      calls[i].requests.append(at.frame)
      calls[i].end = at
      return
    }
    _ = openSecurity(conn, .encrypt, at, local: local)
  }

  mutating func encryptionChanged(_ conn: ConnectionRef, _ at: FrameTime, status: UInt8) {
    guard let i = links[conn.id]?.security else { return }
    calls[i].responses.append(at.frame)
    if calls[i].end < at { calls[i].end = at }
    if status != 0 {
      calls[i].ok = false
      calls[i].error.hci = status
      close(i)
    } else if calls[i].kind == .encrypt {
      close(i)
    }
  }

  /// The calls `ids` (in the order they were made) say how the request tried again after
  /// their security procedure went.
  mutating func resolveRetries(_ ids: [Int]) {
    var byFrame: [Int: Int] = [:]
    for i in ids where calls[i].kind.isATT {
      for frame in calls[i].requests { byFrame[frame] = i }
    }
    for i in ids {
      guard let frame = calls[i].security?.retryFrame, let j = byFrame[frame] else { continue }
      let outcome = calls[j].ok ? "ok" : "error"
      calls[i].security?.retryOutcome = outcome
    }
  }
}
