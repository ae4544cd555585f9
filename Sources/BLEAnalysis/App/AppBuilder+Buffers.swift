import BLECapture
import BLEDissect

/// The controller's ACL buffers: which packets wait for a buffer, and when a
/// completion ends a security call.
extension AppBuilder {
  mutating func aclBuffers(_ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    guard record.direction == .sent, let acl = analyzed.decoded.acl else { return }
    var adapter = adapters[record.adapter] ?? Adapter()
    defer { adapters[record.adapter] = adapter }
    let total = (adapter.bufferTotal ?? adapter.classicBufferTotal)
    // A packet sent right after a completion freed a full buffer waited for it.
    // A packet sent right after a completion freed a buffer that had been full for a
    // while (2 ms or more: longer than a host takes to react) waited for it.
    if let full = adapter.fullSince, let freed = adapter.freedAt, at.timestamp - freed.timestamp <= 2_000,
      full.microseconds(to: freed) >= 2_000, acl.pb != 1
    {
      adapter.waited[acl.handle] = (full, full.microseconds(to: freed))
    }
    adapter.fullSince = nil
    adapter.freedAt = nil
    // Bounded: a controller that never reports completions for a handle must not grow it.
    if adapter.inFlight[acl.handle]?.count ?? 0 >= Self.maxInFlight {
      adapter.inFlight[acl.handle]?.removeFirst()
      adapter.inFlightCount -= 1
    }
    adapter.inFlight[acl.handle, default: []].append((at.frame, analyzed.decoded.smp != nil))
    adapter.inFlightCount += 1
    if let total, adapter.inFlightCount >= total { adapter.fullSince = at }
  }

  /// Packets followed per handle until their Number Of Completed Packets (controllers
  /// have a few dozen buffers at most).
  static let maxInFlight = 256

  mutating func completedPackets(
    _ entries: [(handle: UInt16, count: Int)], _ record: Record, _ at: FrameTime
  ) {
    guard var adapter = adapters[record.adapter] else { return }
    var freed = false
    for (key, count) in entries {
      var queue = adapter.inFlight[key] ?? []
      let n = min(count, queue.count)
      for packet in queue.prefix(n) where packet.smp {
        if let conn = live[LinkKey(adapter: record.adapter, handle: key)], let s = links[conn.id]?.security,
          links[conn.id]?.lastSMPSent == packet.frame, calls[s].end < at
        {
          calls[s].end = at
        }
      }
      queue.removeFirst(n)
      adapter.inFlight[key] = queue
      adapter.inFlightCount -= n
      if n > 0 { freed = true }
    }
    if freed, adapter.fullSince != nil { adapter.freedAt = at }
    adapters[record.adapter] = adapter
  }
}
