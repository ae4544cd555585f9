#if canImport(Glibc)
  import Glibc
#endif

/// The write end of the stop pipe of the control whose signal handlers are installed. The
/// handler only writes a byte to it, which is async-signal-safe.
nonisolated(unsafe) private var signalStopDescriptor: Int32 = -1

/// What the live readers share with the command that runs them: a way to stop them
/// (SIGINT, SIGTERM or `requestStop()`), and a callback for when they wait.
///
/// A stop request is a byte written to a pipe that every wait polls next to the reader's
/// own descriptor, so a reader blocked on a quiet source wakes at once. The pipe is never
/// drained: once requested, a stop stays requested.
public final class LiveControl {
  /// Called when a reader is about to wait because its source has nothing more for now,
  /// and every `idleInterval` while it keeps waiting: the moment to flush output.
  public var onIdle: (() -> Void)?
  /// Called with a message for people when the source changes under the reader (the file
  /// was rotated or truncated, the connection dropped or came back).
  public var onNotice: ((String) -> Void)?
  /// How long a wait lasts before `onIdle` is called again, in milliseconds.
  public let idleInterval: Int32

  private let stopRead: Int32
  private let stopWrite: Int32

  public init(idleInterval: Int32 = 100) {
    var descriptors: [Int32] = [-1, -1]
    // pipe fails only when the process is out of descriptors, before anything started.
    precondition(pipe(&descriptors) == 0, "cannot make a pipe: \(MappedFile.errnoText())")
    for descriptor in descriptors {
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
      _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
    }
    stopRead = descriptors[0]
    stopWrite = descriptors[1]
    self.idleInterval = idleInterval
  }

  deinit {
    if signalStopDescriptor == stopWrite { signalStopDescriptor = -1 }
    close(stopRead)
    close(stopWrite)
  }

  /// Asks the readers to stop: they deliver what they already read, then end.
  public func requestStop() {
    var byte: UInt8 = 1
    _ = write(stopWrite, &byte, 1)
  }

  /// Whether a stop was requested.
  public var stopRequested: Bool { poll(nil, timeout: 0) == .stopped }

  /// Makes SIGINT and SIGTERM request a stop. A second signal then ends the process the
  /// default way, for a reader that does not stop.
  public func installSignalHandlers() {
    signalStopDescriptor = stopWrite
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
      var byte: UInt8 = 1
      _ = write(signalStopDescriptor, &byte, 1)
    }
    // No SA_RESTART: a blocking call returns EINTR, and the wait loops see the stop.
    action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND))
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
    // A parent may have left them blocked (the mask is inherited across exec).
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &signals, nil)
  }

  /// Why a wait ended.
  enum Wake: Equatable {
    case readable
    case timedOut
    case stopped
  }

  /// Waits until `descriptor` is readable (or at its end, or in error), a stop is
  /// requested, or `timeout` milliseconds pass (-1: no limit). When the descriptor has
  /// nothing right away, `onIdle` is called first. A stop wins over readable data.
  func wait(for descriptor: Int32?, timeout: Int32) -> Wake {
    let now = poll(descriptor, timeout: 0)
    guard now == .timedOut, timeout != 0 else { return now }
    onIdle?()
    return poll(descriptor, timeout: timeout)
  }

  /// Waits until `descriptor` is readable, then reads it into `buffer`: the byte count
  /// (0 at its end, -1 on an error, errno telling which), or nil once a stop is requested.
  func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    while true {
      switch wait(for: descriptor, timeout: -1) {
      case .stopped: return nil
      case .timedOut: continue
      case .readable: break
      }
      let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      return count
    }
  }

  /// Waits `milliseconds`, calling `onIdle` every `idleInterval`; false when a stop was
  /// requested meanwhile.
  func sleep(milliseconds: Int32) -> Bool {
    var left = milliseconds
    while left > 0 {
      let step = min(left, idleInterval)
      if wait(for: nil, timeout: step) == .stopped { return false }
      left -= step
    }
    return !stopRequested
  }

  /// Sends a notice to `onNotice`.
  func notice(_ message: String) {
    onNotice?(message)
  }

  private func poll(_ descriptor: Int32?, timeout: Int32) -> Wake {
    var entries = [pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
    if let descriptor { entries.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
    let ready = Glibc.poll(&entries, nfds_t(entries.count), timeout)
    // EINTR (a signal arrived): the caller waits again and then sees the stop.
    guard ready > 0 else { return .timedOut }
    if entries[0].revents != 0 { return .stopped }
    return entries.count > 1 && entries[1].revents != 0 ? .readable : .timedOut
  }
}
