import BLEOutput
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `live --metrics [ADDR:]PORT`: a small HTTP/1.x server on its own thread that answers
/// `GET /metrics` with the latest exposition the capture loop published, and closes each
/// connection after its answer. Plain sockets: one request at a time, 2 s to send it.
final class MetricsServer: Sendable {
  /// The exposition served, replaced whole by `publish`.
  private let exposition = Mutex<[UInt8]>([])
  private let socket: Int32
  /// The address it listens on, `127.0.0.1:9464` (the port the kernel chose for port 0).
  let address: String

  /// Listens on `ADDR:PORT` (ADDR 127.0.0.1 when left out; 0.0.0.0 for every interface).
  init(listening text: String) throws(Failure) {
    let host: String
    let portText: Substring
    if let colon = text.lastIndex(of: ":") {
      host = String(text[..<colon])
      portText = text[text.index(after: colon)...]
    } else {
      host = "127.0.0.1"
      portText = Substring(text)
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    guard let port = UInt16(portText), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      throw Failure("--metrics: '\(text)' is not [ADDR:]PORT, e.g. 9464 or 0.0.0.0:9464", status: ExitStatus.usage)
    }
    address.sin_port = port.bigEndian
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failure("--metrics: socket: \(String(cString: strerror(errno)))", status: 2) }
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
      }
    }
    guard bound else {
      let message = String(cString: strerror(errno))
      close(fd)
      throw Failure("--metrics: cannot listen on \(host):\(port): \(message)", status: ExitStatus.unreadable)
    }
    socket = fd
    self.address = "\(host):\(UInt16(bigEndian: address.sin_port))"
  }

  /// Replaces what `/metrics` serves.
  func publish(_ bytes: [UInt8]) {
    exposition.withLock { $0 = bytes }
  }

  /// Serves requests on a thread of its own until the process ends.
  func start() {
    _ = startThread { [self] in
      while true {
        let client = accept(socket, nil, nil)
        if client < 0 {
          if errno == EINTR || errno == ECONNABORTED { continue }
          return
        }
        answer(client)
        close(client)
      }
    }
  }

  /// Reads the request head (8 KiB at most) and answers it.
  private func answer(_ client: Int32) {
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var request: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 2048)
    while request.count < 8192, !request.ends(with: [13, 10, 13, 10]) && !request.ends(with: [10, 10]) {
      let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      request += chunk[..<count]
    }
    let line = request.prefix { $0 != 13 && $0 != 10 }.split(separator: 32)
    let method = line.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
    let target = line.count > 1 ? String(decoding: line[1], as: UTF8.self) : ""
    let path = target.prefix { $0 != "?" }
    var status = "200 OK"
    var body = exposition.withLock { $0 }
    var type = PrometheusRenderer.contentType
    if method != "GET" && method != "HEAD" {
      status = "405 Method Not Allowed"
      body = Array("only GET\n".utf8)
      type = "text/plain; charset=utf-8"
    } else if path != "/metrics" {
      status = "404 Not Found"
      body = Array("bleanalyze serves /metrics\n".utf8)
      type = "text/plain; charset=utf-8"
    }
    let head =
      "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    send(client, Array(head.utf8))
    if method != "HEAD" { send(client, body) }
  }

  private func send(_ client: Int32, _ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
      let sent = bytes.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 && errno == EINTR { continue }
      if sent <= 0 { return }
      done += sent
    }
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
  }
}
