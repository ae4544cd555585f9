import CBluetooth

#if canImport(Glibc)
  import Glibc
#endif

/// Reads the Linux HCI monitor channel, the live source `btmon` reads: every HCI packet of
/// every adapter, plus New Index, System Note and control records, as the same `Record`s
/// the btsnoop 2001 reader makes. Timestamps are the kernel's (SO_TIMESTAMP). Records the
/// kernel dropped because the receive buffer was full are counted (`MonitorDrops`) and
/// given to the record after the gap as `droppedBefore`.
///
/// Each datagram is one record (FORMATS.md §2), header little-endian:
///
///     0        2        4        6
///     +--------+--------+--------+--------------+
///     | opcode | index  | length | payload      |
///     +--------+--------+--------+--------------+
///
/// The reader takes any descriptor that delivers such datagrams, so tests feed it a
/// socket pair; `open(adapter:control:)` makes the real socket.
public final class MonitorSocketReader: RecordSource {
  static let headerLength = 6
  /// SO_TIMESTAMP and SCM_TIMESTAMP (asm-generic/socket.h `SO_TIMESTAMP_OLD`: a struct
  /// timeval), which Swift cannot import from glibc's conditional macro.
  static let timestampOption: Int32 = 29

  let descriptor: Int32
  let ownsDescriptor: Bool
  /// Only records of this controller index are kept (`--monitor hciN`).
  public let adapter: UInt16?
  let control: LiveControl
  private let storage: UnsafeMutableRawBufferPointer
  private let controlStorage: UnsafeMutableRawBufferPointer
  private var frame = 0
  private var received = 0
  public private(set) var damage: CaptureDamage?
  /// Records that came without a kernel timestamp and got the current time instead.
  public private(set) var withoutKernelTimestamp = 0
  /// The kernel's drop count, and where each gap lies.
  public private(set) var drops = MonitorDrops()
  /// The receive buffer the kernel granted, in bytes (0 when it was not raised).
  public private(set) var bufferSize = 0
  /// Drops placed before a record that the adapter filter then left out.
  private var carriedDrops = 0
  /// Once a stop is requested: until when (CLOCK_MONOTONIC ns) the records the kernel
  /// had already queued are still read.
  private var drainDeadline: Int64?
  /// How long the records queued at a stop are read: a reader that fell behind catches
  /// up (at a few ten thousand records a second), one that never can still stops.
  static let drainNanoseconds: Int64 = 2_000_000_000

  /// Opens the monitor channel: `socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)` bound to
  /// `HCI_DEV_NONE` on `HCI_CHANNEL_MONITOR`, which needs CAP_NET_RAW, with a receive
  /// buffer of `bufferSize` bytes.
  public static func open(
    adapter: UInt16?, control: LiveControl, bufferSize: Int = MonitorDrops.defaultBufferSize
  ) throws(LiveError) -> MonitorSocketReader {
    let descriptor = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
    guard descriptor >= 0 else { throw socketError("open HCI monitor") }
    var address = sockaddr_hci(
      hci_family: sa_family_t(AF_BLUETOOTH), hci_dev: UInt16(HCI_DEV_NONE), hci_channel: UInt16(HCI_CHANNEL_MONITOR))
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
      }
    }
    guard bound == 0 else {
      let error =
        errno == EINVAL
        ? LiveError("open HCI monitor: this kernel has no HCI monitor channel (Linux 3.4 or later has one)")
        : socketError("open HCI monitor")
      close(descriptor)
      throw error
    }
    let reader = MonitorSocketReader(descriptor: descriptor, adapter: adapter, control: control, ownsDescriptor: true)
    reader.bufferSize = reader.drops.configure(descriptor, bufferSize: bufferSize)
    return reader
  }

  /// The error of a failed socket(AF_BLUETOOTH) or bind, from errno.
  static func socketError(_ operation: String) -> LiveError {
    switch errno {
    case EAFNOSUPPORT, EPROTONOSUPPORT: .noBluetooth
    case EPERM, EACCES: .permission(operation)
    default: LiveError("\(operation): \(MappedFile.errnoText())")
    }
  }

  /// Reads monitor datagrams from `descriptor`, asking the kernel for their timestamps.
  public init(descriptor: Int32, adapter: UInt16?, control: LiveControl, ownsDescriptor: Bool = false) {
    self.descriptor = descriptor
    self.adapter = adapter
    self.control = control
    self.ownsDescriptor = ownsDescriptor
    storage = .allocate(byteCount: Self.headerLength + 65_536, alignment: 8)
    controlStorage = .allocate(byteCount: 128, alignment: 8)
    var on: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, Self.timestampOption, &on, socklen_t(MemoryLayout<Int32>.size))
  }

  deinit {
    storage.deallocate()
    controlStorage.deallocate()
    if ownsDescriptor { close(descriptor) }
  }

  public var formatDescription: String {
    "Linux HCI monitor socket" + (adapter.map { ", adapter hci\($0) only" } ?? "")
  }
  public var family: LinkFamily { .monitor }
  /// One when an adapter was chosen; otherwise not known before adapters come and go.
  public func adapterCount(upTo limit: Int) -> Int? { adapter == nil ? nil : 1 }
  public var resolution: TimestampResolution { .microseconds }
  public var progress: (done: Int, total: Int) { (received, 0) }

  public func next() -> Record? {
    while damage == nil {
      switch control.wait(for: descriptor, timeout: -1) {
      case .stopped where drainDeadline == nil:
        // The records the kernel queued before the stop were captured: read them too.
        drainDeadline = Self.monotonicNanoseconds() + Self.drainNanoseconds
      case .stopped: break
      case .timedOut: continue
      case .readable: break
      }
      if let drainDeadline, Self.monotonicNanoseconds() > drainDeadline { return nil }
      var vector = iovec(iov_base: storage.baseAddress, iov_len: storage.count)
      var message = msghdr()
      let count = withUnsafeMutablePointer(to: &vector) { vectorPointer in
        message.msg_iov = vectorPointer
        message.msg_iovlen = 1
        message.msg_control = controlStorage.baseAddress
        message.msg_controllen = controlStorage.count
        return recvmsg(descriptor, &message, Int32(MSG_DONTWAIT))
      }
      if count < 0 {
        // Stopping, and nothing is queued any more.
        if errno == EAGAIN && drainDeadline != nil { return nil }
        if errno == EINTR || errno == EAGAIN { continue }
        damage = CaptureDamage(offset: received, "reading the monitor socket failed: \(MappedFile.errnoText())")
        return nil
      }
      // Only a socket pair's peer ends; the kernel's monitor channel never does.
      if count == 0 { return nil }
      let offset = received
      received += count
      let (kernelTime, overflowCount) = controlMessages(message)
      let timestamp = kernelTime ?? currentTime()
      carriedDrops += drops.afterReceive(
        overflowCount: overflowCount, timestamp: timestamp.unixMicroseconds, stampedOnRead: stampedOnRead(count),
        counter: { MonitorDrops.memoryInfo(descriptor) }, now: { Self.currentMicroseconds() })
      if var record = record(length: count, timestamp: timestamp, offset: offset) {
        record.droppedBefore = carriedDrops
        carriedDrops = 0
        return record
      }
    }
    return nil
  }

  /// The record of the datagram of `length` bytes in `storage`; nil when the adapter
  /// filter drops it.
  private func record(length: Int, timestamp: Timestamp, offset: Int) -> Record? {
    let bytes = UnsafeBufferPointer(start: storage.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length)
    guard length >= Self.headerLength else {
      // Too short for its own header: kept as it came, never dropped silently.
      frame += 1
      return Record(
        frame: frame, timestamp: timestamp, direction: nil, adapter: nil, kind: .unframed, bytes: bytes,
        originalLength: length, fileOffset: offset)
    }
    let opcode = MonitorOpcode(rawValue: bytes.littleEndian16(at: 0))
    let index = bytes.littleEndian16(at: 2)
    let payloadLength = Int(bytes.littleEndian16(at: 4))
    if let adapter, index != adapter { return nil }
    // The header's length is the packet's; a datagram shorter than that holds a cut packet.
    let kept = min(payloadLength, length - Self.headerLength)
    frame += 1
    var record = Record(
      frame: frame, timestamp: timestamp, direction: nil, adapter: nil, kind: .unframed,
      bytes: bytes.view(Self.headerLength, kept), originalLength: payloadLength, fileOffset: offset)
    BtsnoopReader.frameMonitor(&record, opcode: opcode, index: index)
    return record
  }

  /// The SCM_TIMESTAMP and SO_RXQ_OVFL (a u32, the drops so far) control messages of
  /// `message`, those there are.
  ///
  ///     0            8       12      16
  ///     +------------+-------+-------+---------------------+
  ///     | cmsg_len   | level | type  | struct timeval      |
  ///     +------------+-------+-------+---------------------+
  private func controlMessages(_ message: msghdr) -> (Timestamp?, UInt32?) {
    let headerSize = MemoryLayout<cmsghdr>.size
    let base = UnsafeRawPointer(controlStorage.baseAddress!)
    var offset = 0
    var timestamp: Timestamp?
    var overflowCount: UInt32?
    while offset + headerSize <= Int(message.msg_controllen) {
      let header = base.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
      let length = Int(header.cmsg_len)
      guard length >= headerSize else { break }
      if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Self.timestampOption,
        length >= headerSize + MemoryLayout<timeval>.size
      {
        let value = base.loadUnaligned(fromByteOffset: offset + headerSize, as: timeval.self)
        timestamp = Timestamp(seconds: Int64(value.tv_sec), fraction: Int64(value.tv_usec), unitsPerSecond: 1_000_000)
      } else if header.cmsg_level == SOL_SOCKET, header.cmsg_type == MonitorDrops.queueOverflow,
        length >= headerSize + MemoryLayout<UInt32>.size
      {
        overflowCount = base.loadUnaligned(fromByteOffset: offset + headerSize, as: UInt32.self)
      }
      // CMSG_NXTHDR: lengths are rounded up to the alignment of size_t.
      offset += (length + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
    }
    return (timestamp, overflowCount)
  }

  /// Whether the datagram of `length` bytes in `storage` is a System Note or User Logging
  /// record, which the kernel stamps when a socket reads it (it sets no time when it
  /// makes them).
  private func stampedOnRead(_ length: Int) -> Bool {
    guard length >= 2 else { return false }
    let opcode = MonitorOpcode(
      rawValue: UnsafeRawPointer(storage.baseAddress!).loadUnaligned(as: UInt16.self).littleEndian)
    return opcode == .systemNote || opcode == .userLogging
  }

  /// Drops the kernel counted after the last record read, which no record carries: read
  /// once, when the capture ends.
  public func finishDrops() -> Int {
    let descriptor = descriptor
    return carriedDrops + drops.finish(counter: { MonitorDrops.memoryInfo(descriptor) })
  }

  /// Bytes the kernel still holds for this socket (records queued, not read): after a
  /// stop whose 2 s of reading did not empty the queue.
  public var unreadBytes: Int { MonitorDrops.memoryInfo(descriptor)?.queued ?? 0 }

  static func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
  }

  /// CLOCK_REALTIME in µs since the Unix epoch, the clock of the kernel's timestamps.
  static func currentMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
  }

  private func currentTime() -> Timestamp {
    withoutKernelTimestamp += 1
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Timestamp(seconds: Int64(now.tv_sec), fraction: Int64(now.tv_nsec), unitsPerSecond: 1_000_000_000)
  }
}
