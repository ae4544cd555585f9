import CBluetooth

#if canImport(Glibc)
  import Glibc
#endif

/// What one read of a live feed gave.
public enum LiveFeedRead: Equatable, Sendable {
  /// This many bytes, at least one.
  case bytes(Int)
  /// The stream starts over from its beginning: the connection was made again, or the
  /// followed file was replaced or truncated. The next bytes are a new file header.
  case restart
  /// No more bytes: the end of the stream, an error (see `failure`), or a stop request.
  case end
}

/// Bytes from a live source, waited for as long as it takes: a pipe, a TCP connection, a
/// file another program is still writing. `StreamReader` and `PcapStreamReader` frame
/// records on top of it.
public protocol LiveFeed: AnyObject {
  /// Names the source in messages ("standard input", "127.0.0.1:8872", a path).
  var label: String { get }
  var control: LiveControl { get }
  /// Reads up to `buffer.count` bytes, waiting until there is at least one.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead
  /// Records that end at or before this offset of the current stream were there before the
  /// capture started (`--from-end`): readers count them but do not deliver them.
  var knownEnd: Int { get }
  /// Why the feed ended, when an error ended it.
  var failure: String? { get }
}

extension LiveFeed {
  public var knownEnd: Int { 0 }
}

/// Why a live source cannot be opened. Each message is whole: it names the source.
public struct LiveError: Error, Sendable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }

  /// socket(AF_BLUETOOTH) failed with EAFNOSUPPORT or EPROTONOSUPPORT (containers, CI).
  public static let noBluetooth = LiveError("this kernel has no Bluetooth support (AF_BLUETOOTH)")

  /// The monitor channel needs CAP_NET_RAW.
  static func permission(_ operation: String) -> LiveError {
    LiveError(
      "\(operation): \(MappedFile.errnoText()) (needs CAP_NET_RAW); grant it with "
        + "`sudo setcap cap_net_raw+ep $(command -v bleanalyze)` or run bleanalyze with sudo")
  }
}

/// Reads a descriptor that ends once, such as standard input (a pipe, a file, a terminal).
public final class DescriptorFeed: LiveFeed {
  public let label: String
  public let control: LiveControl
  let descriptor: Int32
  public private(set) var failure: String?

  public init(descriptor: Int32, label: String, control: LiveControl) {
    self.descriptor = descriptor
    self.label = label
    self.control = control
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead {
    guard let count = control.read(descriptor, into: buffer) else { return .end }
    if count > 0 { return .bytes(count) }
    if count < 0 { failure = "read: \(MappedFile.errnoText())" }
    return .end
  }
}

/// A TCP connection that serves a btsnoop stream (Android's snoop port, 8872), made again
/// every second after it drops or is refused when `reconnect` is set.
public final class TCPFeed: LiveFeed {
  public let label: String
  public let control: LiveControl
  let host: String
  let port: String
  let reconnect: Bool
  private var descriptor: Int32 = -1
  private var connectedBefore = false
  public private(set) var failure: String?

  /// `address` is `HOST:PORT` or `[IPv6]:PORT`. Without `reconnect` this connects at once
  /// and throws when it cannot; with it the first read connects, retrying every second.
  public init(address: String, reconnect: Bool, control: LiveControl) throws(LiveError) {
    guard let (host, port) = Self.split(address) else {
      throw LiveError("\(address): expected HOST:PORT, e.g. 127.0.0.1:8872")
    }
    self.host = host
    self.port = port
    self.reconnect = reconnect
    self.control = control
    label = address
    if !reconnect {
      switch connect() {
      case .success(let descriptor): self.descriptor = descriptor
      case .failure(let error): throw error
      }
      connectedBefore = true
    }
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  /// `HOST:PORT` split at the last colon; brackets around an IPv6 host are removed.
  static func split(_ address: String) -> (host: String, port: String)? {
    guard let colon = address.lastIndex(of: ":") else { return nil }
    var host = Substring(address[..<colon])
    let port = address[address.index(after: colon)...]
    if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
    guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else { return nil }
    return (String(host), String(port))
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead {
    while true {
      if descriptor < 0 {
        guard reconnect, let descriptor = connectRetrying() else { return .end }
        self.descriptor = descriptor
        if connectedBefore {
          control.notice("\(label): connected again")
          return .restart
        }
        connectedBefore = true
      }
      guard let count = control.read(descriptor, into: buffer) else { return .end }
      if count > 0 { return .bytes(count) }
      let why = count == 0 ? "connection closed" : "connection lost: \(MappedFile.errnoText())"
      close(descriptor)
      descriptor = -1
      guard reconnect else {
        if count < 0 { failure = why }
        return .end
      }
      control.notice("\(label): \(why); connecting again every second")
    }
  }

  /// Connects, trying again every second until it works or a stop is requested.
  private func connectRetrying() -> Int32? {
    var reported = false
    while !control.stopRequested {
      switch connect() {
      case .success(let descriptor): return descriptor
      case .failure(let error):
        if !reported && !connectedBefore { control.notice("\(error); trying again every second") }
        reported = true
      }
      guard control.sleep(milliseconds: 1000) else { return nil }
    }
    return nil
  }

  private func connect() -> Result<Int32, LiveError> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, port, &hints, &list)
    guard status == 0 else {
      return .failure(LiveError("\(label): cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
    }
    defer { freeaddrinfo(list) }
    var why = "no address"
    var entry = list
    while let info = entry?.pointee {
      entry = info.ai_next
      let descriptor = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
      guard descriptor >= 0 else {
        why = MappedFile.errnoText()
        continue
      }
      if Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 { return .success(descriptor) }
      why = MappedFile.errnoText()
      close(descriptor)
    }
    return .failure(LiveError("\(label): cannot connect: \(why)"))
  }
}

/// A file another program is still writing (`btmon -w`, Android's snoop logger), read as
/// it grows, like `tail -F`. At the end of what is written it waits, checking every
/// `idleInterval` whether the path now names another file (rotation) or the file shrank
/// (truncation); either way the stream restarts from the new file's beginning. A record
/// only half written is simply waited for.
public final class FollowFeed: LiveFeed {
  public let label: String
  public let control: LiveControl
  private var descriptor: Int32
  private var identity: (device: UInt, inode: UInt)
  /// Bytes of the current file read so far.
  private var position = 0
  public private(set) var knownEnd: Int
  public private(set) var failure: String?

  /// Opens `path`; with `fromEnd`, the records already in it are skipped.
  public init(path: String, fromEnd: Bool, control: LiveControl) throws(CaptureError) {
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CaptureError(.cannotOpen(MappedFile.errnoText()), path: path) }
    var info = stat()
    fstat(descriptor, &info)
    if (info.st_mode & S_IFMT) == S_IFDIR {
      close(descriptor)
      throw CaptureError(.cannotOpen("is a directory"), path: path)
    }
    identity = (UInt(info.st_dev), UInt(info.st_ino))
    knownEnd = fromEnd ? Int(info.st_size) : 0
    label = path
    self.control = control
  }

  deinit {
    close(descriptor)
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead {
    while true {
      let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if count > 0 {
        position += count
        return .bytes(count)
      }
      if count < 0 {
        if errno == EINTR { continue }
        failure = "read: \(MappedFile.errnoText())"
        return .end
      }
      // At the end of what is written. After a stop, what was written before it has been
      // read: that is the end.
      if control.stopRequested { return .end }
      if startedOver() { return .restart }
      // A stop ends the wait early; the loop then reads what came meanwhile.
      _ = control.wait(for: nil, timeout: control.idleInterval)
    }
  }

  /// Whether the path now names another file, or the file shrank below what was read; the
  /// descriptor then reads the new content from its start.
  private func startedOver() -> Bool {
    var now = stat()
    if stat(label, &now) == 0, (UInt(now.st_dev), UInt(now.st_ino)) != identity {
      let replacement = open(label, O_RDONLY | O_CLOEXEC)
      // The new file may vanish again before it opens; the old one is still readable.
      guard replacement >= 0 else { return false }
      var info = stat()
      fstat(replacement, &info)
      close(descriptor)
      descriptor = replacement
      identity = (UInt(info.st_dev), UInt(info.st_ino))
      startOver()
      control.notice("\(label): replaced by a new file (rotated); reading it from the start")
      return true
    }
    var current = stat()
    guard fstat(descriptor, &current) == 0, Int(current.st_size) < position else { return false }
    lseek(descriptor, 0, SEEK_SET)
    startOver()
    control.notice("\(label): truncated; reading it again from the start")
    return true
  }

  private func startOver() {
    position = 0
    knownEnd = 0
  }
}
