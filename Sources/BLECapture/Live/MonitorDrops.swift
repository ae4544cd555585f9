#if canImport(Glibc)
  import Glibc
#endif

/// The receive buffer of a monitor socket and the records the kernel dropped when it was
/// full.
///
/// The kernel queues a copy of every monitor record on each monitor socket; when the
/// socket's receive buffer is full it drops the copy and counts it (`sk_drops`). Linux 6.1
/// does not send that count with monitor records (SO_RXQ_OVFL is accepted, but
/// `hci_sock_recvmsg` only adds the timestamp), so it is read with SO_MEMINFO after each
/// record. Records queued before a check that finds new drops were queued before the gap,
/// so the gap is placed before the first record the kernel stamped after that check.
/// System Notes and User Logging records are stamped when they are read, not when they
/// are queued (`stampedOnRead`), so their time tells nothing; but once a check finds the
/// queue empty, whatever is read next was queued after the gap, whatever its stamp.
/// Should a kernel send the SO_RXQ_OVFL control message, its count is used as it is.
public struct MonitorDrops: Sendable {
  /// SOL_SOCKET options from asm-generic/socket.h (glibc's headers leave some out).
  static let receiveBuffer: Int32 = 8
  static let receiveBufferForce: Int32 = 33
  static let queueOverflow: Int32 = 40
  static let memoryInfoOption: Int32 = 55
  /// SK_MEMINFO_DROPS: the index of the drop counter in SO_MEMINFO's array of u32.
  static let memoryInfoDrops = 8
  static let memoryInfoCount = 9

  /// The receive buffer asked for by default: room for about 9,000 small records.
  public static let defaultBufferSize = 8 << 20

  /// Drops counted by the kernel so far (its counter, from when the socket opened).
  public private(set) var total = 0
  /// Drops counted but not yet placed before a record.
  public private(set) var pending = 0
  /// Whether the kernel's counter can be read at all.
  public private(set) var counting = false
  /// The control message gives the count with each record, so no SO_MEMINFO is needed.
  private var fromControlMessage = false
  /// The gap lies before records stamped after this time (µs since the Unix epoch).
  private var boundary: Int64 = .min
  /// A check since the pending drops were found saw the queue empty.
  private var drained = false

  public init() {}

  /// Raises the receive buffer of `descriptor` to `bytes` (SO_RCVBUFFORCE, which needs
  /// CAP_NET_ADMIN, then SO_RCVBUF, which the kernel caps at net.core.rmem_max), asks for
  /// SO_RXQ_OVFL and reads the drop counter once. Returns the buffer the kernel gave
  /// (it doubles the value asked for, for its own bookkeeping).
  @discardableResult
  public mutating func configure(_ descriptor: Int32, bufferSize bytes: Int) -> Int {
    var size = Int32(clamping: bytes)
    let length = socklen_t(MemoryLayout<Int32>.size)
    if setsockopt(descriptor, SOL_SOCKET, Self.receiveBufferForce, &size, length) != 0 {
      _ = setsockopt(descriptor, SOL_SOCKET, Self.receiveBuffer, &size, length)
    }
    var on: Int32 = 1
    _ = setsockopt(descriptor, SOL_SOCKET, Self.queueOverflow, &on, length)
    start(counter: Self.memoryInfo(descriptor)?.drops)
    var granted: Int32 = 0
    var grantedLength = length
    _ = getsockopt(descriptor, SOL_SOCKET, Self.receiveBuffer, &granted, &grantedLength)
    return Int(granted)
  }

  /// Starts counting from the kernel's counter as it is now (nil: it cannot be read).
  mutating func start(counter: Int?) {
    guard let counter else { return }
    counting = true
    total = counter
  }

  /// What SO_MEMINFO tells about `descriptor`: the kernel's drop counter and the bytes
  /// queued (SK_MEMINFO_RMEM_ALLOC); nil when it cannot be read.
  static func memoryInfo(_ descriptor: Int32) -> (drops: Int, queued: Int)? {
    var info = [UInt32](repeating: 0, count: memoryInfoCount)
    var length = socklen_t(memoryInfoCount * MemoryLayout<UInt32>.size)
    let status = info.withUnsafeMutableBytes {
      getsockopt(descriptor, SOL_SOCKET, memoryInfoOption, $0.baseAddress, &length)
    }
    guard status == 0, Int(length) > memoryInfoDrops * MemoryLayout<UInt32>.size else { return nil }
    return (Int(info[memoryInfoDrops]), Int(info[0]))
  }

  /// After a record was received: the control message's cumulative count if it came
  /// (`overflowCount`), else the kernel's counter and queue (`counter`, SO_MEMINFO) read
  /// now, at `now` (µs since the Unix epoch). Returns how many drops to place before the
  /// record stamped `timestamp`.
  public mutating func afterReceive(
    overflowCount: UInt32?, timestamp: Int64, stampedOnRead: Bool = false,
    counter: () -> (drops: Int, queued: Int)?, now: () -> Int64
  ) -> Int {
    if let overflowCount {
      // The count as of this record's queueing: the gap is right before it.
      fromControlMessage = true
      counting = true
      let dropped = max(0, Int(overflowCount) - total)
      total = max(total, Int(overflowCount))
      return dropped
    }
    guard counting, !fromControlMessage else { return 0 }
    var placed = 0
    if pending > 0 && (drained || timestamp > boundary && !stampedOnRead) {
      placed = pending
      pending = 0
    }
    guard let info = counter() else { return placed }
    if info.drops > total {
      pending += info.drops - total
      total = info.drops
      boundary = now()
      drained = false
    }
    // The queue checked empty after the drops: the next record came after them.
    if pending > 0 && info.queued == 0 { drained = true }
    return placed
  }

  /// At the end of the capture: drops counted after the last record (none follows to
  /// carry them), read once more from the kernel.
  public mutating func finish(counter: () -> (drops: Int, queued: Int)?) -> Int {
    if counting, !fromControlMessage, let drops = counter()?.drops, drops > total {
      pending += drops - total
      total = drops
    }
    defer { pending = 0 }
    return pending
  }
}
