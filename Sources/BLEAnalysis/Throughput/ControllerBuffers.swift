import BLECapture

/// The controller's ACL data buffers as a host sees them (Core 6.0, Vol 4, Part E, 4.1.1):
/// how many there are (LE Read Buffer Size [v1]/[v2], or Read Buffer Size when the LE ones
/// are shared: Total_Num_LE_ACL_Data_Packets 0), which packets hold one, and when Number
/// Of Completed Packets gives them back. One per adapter.
///
/// A packet the host sends takes a buffer until a completion names its handle; completions
/// free a handle's packets in the order they were sent. When every buffer is taken the
/// host can send nothing: a packet sent within `reactionMicroseconds` of the completion
/// that freed one waited for it, from the moment they filled up (`Sent.waited`).
///
/// Each packet carries a tag of the caller's (0: none), which its completion hands back.
/// Memory stays bounded: at most `maxInFlight` packets per handle are followed (a
/// controller that never completes a handle cannot grow it), and a handle's packets go
/// when its connection ends.
public struct ControllerBuffers: Sendable {
  /// Packets followed per handle until their completion (controllers have a few dozen
  /// buffers at most).
  public static let maxInFlight = 256
  /// How soon after a completion a host that was waiting for it sends, µs.
  public static let reactionMicroseconds: Int64 = 2_000

  /// The buffers of one adapter.
  public struct Pool: Sendable {
    /// LE buffers (LE Read Buffer Size), and the shared ACL ones (Read Buffer Size).
    public var leTotal: Int?
    public var leOctets: Int?
    public var sharedTotal: Int?
    public var sharedOctets: Int?
    /// The buffers LE packets take: the LE ones, or the shared ones when the controller
    /// has none of its own.
    public var total: Int? { leTotal ?? sharedTotal }
    public var octets: Int? { leTotal != nil ? leOctets : sharedOctets }
    /// Whether the LE links use buffers of their own.
    public var dedicated: Bool { leTotal != nil }

    var inFlight: [UInt16: [Packet]] = [:]
    public internal(set) var inFlightCount = 0
    /// When the last free buffer was taken, and the first completion after it.
    var fullSince: FrameTime?
    var freedAt: FrameTime?
  }

  struct Packet: Sendable {
    var sent: FrameTime
    var tag: UInt32
  }

  /// What sending a packet found.
  public struct Sent: Sendable {
    /// Buffers taken, this packet's included.
    public var inFlight: Int
    /// How long the packet waited for a buffer: from when they filled up to the
    /// completion that freed one; nil when it did not wait.
    public var waited: Int64?
  }

  /// A packet a completion gave back.
  public struct Completed: Sendable {
    public var handle: UInt16
    public var tag: UInt32
    public var sent: FrameTime
    /// From the packet to its completion, µs.
    public var latency: Int64
  }

  public private(set) var pools: [UInt16?: Pool] = [:]

  public init() {}

  /// A Command Complete of LE Read Buffer Size (`le`) or Read Buffer Size. An LE count of 0
  /// means the LE links share the ACL buffers.
  public mutating func bufferSize(adapter: UInt16?, le: Bool, packets: UInt16, length: UInt16) {
    var pool = pools[adapter] ?? Pool()
    if le {
      pool.leTotal = packets > 0 ? Int(packets) : nil
      pool.leOctets = packets > 0 ? Int(length) : nil
    } else if packets > 0 {
      pool.sharedTotal = Int(packets)
      pool.sharedOctets = Int(length)
    }
    pools[adapter] = pool
  }

  /// The host sent an ACL packet on `handle`.
  public mutating func sent(adapter: UInt16?, handle: UInt16, at: FrameTime, tag: UInt32 = 0) -> Sent {
    var pool = pools[adapter] ?? Pool()
    defer { pools[adapter] = pool }
    var waited: Int64?
    if let full = pool.fullSince, let freed = pool.freedAt, freed.microseconds(to: at) <= Self.reactionMicroseconds {
      waited = full.microseconds(to: freed)
    }
    pool.fullSince = nil
    pool.freedAt = nil
    var queue = pool.inFlight[handle] ?? []
    if queue.count >= Self.maxInFlight {
      queue.removeFirst()
      pool.inFlightCount -= 1
    }
    queue.append(Packet(sent: at, tag: tag))
    pool.inFlight[handle] = queue
    pool.inFlightCount += 1
    if let total = pool.total, pool.inFlightCount >= total { pool.fullSince = at }
    return Sent(inFlight: pool.inFlightCount, waited: waited)
  }

  /// Gives the last `count` packets in flight on `handle` the tag `tag` (the fragments of
  /// a PDU whose last fragment just went).
  public mutating func tagLast(_ count: Int, adapter: UInt16?, handle: UInt16, tag: UInt32) {
    guard var queue = pools[adapter]?.inFlight[handle] else { return }
    for i in queue.indices.suffix(count) { queue[i].tag = tag }
    pools[adapter]?.inFlight[handle] = queue
  }

  /// A Number Of Completed Packets: each handle's oldest packets are free again.
  public mutating func completed(
    adapter: UInt16?, _ entries: [(handle: UInt16, count: Int)], at: FrameTime
  ) -> [Completed] {
    guard var pool = pools[adapter] else { return [] }
    defer { pools[adapter] = pool }
    var done: [Completed] = []
    for (handle, count) in entries {
      guard var queue = pool.inFlight[handle], count > 0 else { continue }
      let n = min(count, queue.count)
      for packet in queue.prefix(n) {
        done.append(
          Completed(handle: handle, tag: packet.tag, sent: packet.sent, latency: packet.sent.microseconds(to: at)))
      }
      queue.removeFirst(n)
      pool.inFlight[handle] = queue.isEmpty ? nil : queue
      pool.inFlightCount -= n
    }
    if !done.isEmpty, pool.fullSince != nil, pool.freedAt == nil { pool.freedAt = at }
    return done
  }

  /// The connection on `handle` ended: its packets free their buffers.
  public mutating func disconnected(adapter: UInt16?, handle: UInt16) {
    guard let queue = pools[adapter]?.inFlight.removeValue(forKey: handle) else { return }
    pools[adapter]?.inFlightCount -= queue.count
  }
}
