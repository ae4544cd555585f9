import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `bleanalyze live` running as a child process while the test feeds its source: standard
/// output and error go to files, read as they grow.
final class LiveChild {
  let process = Process()
  let stdoutURL = Paths.scratchFile("live-stdout")
  let stderrURL = Paths.scratchFile("live-stderr")
  let input: Pipe?

  init(_ arguments: [String], input: Pipe? = nil) throws {
    _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
    self.input = input
    process.executableURL = Paths.binary
    process.arguments = ["live"] + arguments
    process.currentDirectoryURL = Paths.packageRoot
    process.standardInput = input ?? FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
    process.standardError = try FileHandle(forWritingTo: stderrURL)
    try process.run()
  }

  deinit {
    kill()
    try? FileManager.default.removeItem(at: stdoutURL)
    try? FileManager.default.removeItem(at: stderrURL)
  }

  var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
  var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
  var outputLines: [String] { lines(stdout) }

  /// Waits until standard output holds `count` whole lines; false after `timeout` seconds.
  @discardableResult
  func waitForLines(_ count: Int, timeout: Double) -> Bool {
    waitUntil(timeout: timeout) { stdout.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } >= count }
  }

  /// Sends SIGINT and waits for the exit status (nil, and the child killed, after 10 s).
  func interrupt() -> Int32? {
    process.interrupt()
    return finish()
  }

  func finish(timeout: Double = 10) -> Int32? {
    guard waitUntil(timeout: timeout, { !process.isRunning }) else {
      kill()
      return nil
    }
    return process.terminationStatus
  }

  /// SIGKILL, which a child that blocks or ignores SIGINT and SIGTERM cannot outlive.
  func kill() {
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
  }
}

/// Polls `condition` every 5 ms for up to `timeout` seconds.
func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while !condition() {
    if Date() > deadline { return false }
    usleep(5000)
  }
  return true
}

/// Seconds since `start`.
func seconds(since start: Date) -> Double { Date().timeIntervalSince(start) }

/// A capture file cut into its header and its records' bytes (header included), to be
/// written piece by piece.
struct CapturePieces {
  var header: Data
  var records: [Data]

  init(sample: String) throws {
    let data = try Data(contentsOf: Paths.samples.appending(path: sample))
    if sample.hasSuffix(".btsnoop") {
      let file = try BTSnoopFile(data)
      header = data.prefix(16)
      records = file.records.map { data.subdata(in: $0.offset..<($0.offset + 24 + $0.payload.count)) }
    } else {
      // pcap: a 24-byte header, records with a 16-byte header whose captured length is at 8,
      // in the byte order of the magic.
      let bytes = [UInt8](data)
      let swapped = bytes[0] == 0xD4 || bytes[0] == 0x4D
      header = data.prefix(24)
      records = []
      var offset = 24
      while offset + 16 <= bytes.count {
        let raw = bytes[(offset + 8)..<(offset + 12)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let end = offset + 16 + Int(swapped ? raw.byteSwapped : raw)
        records.append(data.subdata(in: offset..<end))
        offset = end
      }
    }
  }

  func bytes(_ range: Range<Int>, header withHeader: Bool = true) -> Data {
    records[range].reduce(withHeader ? header : Data(), +)
  }
}

/// Appends `data` to the file at `url`.
func append(_ data: Data, to url: URL) throws {
  let handle = try FileHandle(forWritingTo: url)
  try handle.seekToEnd()
  try handle.write(contentsOf: data)
  try handle.close()
}

/// `show --format ndjson FILE`'s lines: what live must print for the same records.
func showLines(_ path: String) -> [String] {
  let shown = run(["show", "--format", "ndjson", path])
  #expect(shown.status == 0)
  return lines(shown.stdout)
}

/// A TCP server on 127.0.0.1 and a free port, for `live --tcp`.
final class TestServer {
  let descriptor: Int32
  let port: UInt16

  init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.descriptor = descriptor
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && listen(descriptor, 4) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard ok else {
      close(descriptor)
      throw CaptureFileError("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
    }
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(descriptor) }

  /// The next connection, nil when none comes within `timeout` seconds.
  func accept(timeout: Double) -> Int32? {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, Int32(timeout * 1000)) == 1 else { return nil }
    let connection = Glibc.accept(descriptor, nil, nil)
    return connection >= 0 ? connection : nil
  }

  static func send(_ data: Data, to connection: Int32) {
    data.withUnsafeBytes { bytes in
      var done = 0
      while done < bytes.count {
        let sent = Glibc.send(connection, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
        guard sent > 0 else { return }
        done += sent
      }
    }
  }
}

@Suite("live", .serialized)
struct LiveTests {
  // MARK: - Monitor socket

  /// Whether this kernel lacks AF_BLUETOOTH, as build and CI machines do.
  static let noBluetooth: Bool = {
    let descriptor = socket(31, Int32(SOCK_RAW.rawValue), 1)
    if descriptor >= 0 { close(descriptor) }
    return descriptor < 0 && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)
  }()

  @Test(
    "without Bluetooth in the kernel the monitor sources exit 2 with the message",
    .enabled(if: noBluetooth, "this kernel has Bluetooth"),
    arguments: [["--monitor"], ["--monitor", "hci0"], [], ["hci1"], ["--list"], ["--list", "--format", "json"]])
  func monitorWithoutBluetooth(arguments: [String]) {
    let result = run(["live"] + arguments)
    #expect(result.status == 2)
    #expect(result.stderr == "bleanalyze: this kernel has no Bluetooth support (AF_BLUETOOTH)\n")
    #expect(result.stdout.isEmpty)
  }

  @Test(arguments: [
    (["--monitor", "eth0"], "not an adapter"), (["capture.btsnoop"], "is not a source"),
    (["--follow", "a", "--tcp", "b:1"], "give one source"), (["-", "--from-end"], "--from-end goes with --follow"),
    (["-", "--reconnect"], "--reconnect goes with --tcp"), (["-", "-w", "out.txt"], "cannot tell the format"),
  ])
  func usageErrors(arguments: [String], message: String) {
    let result = run(["live"] + arguments)
    #expect(result.status == 1)
    #expect(result.stderr.contains(message))
  }

  @Test func helpDescribesEveryOption() {
    let help = run(["live", "--help"]).stdout
    for option in [
      "--monitor", "--list", "--follow", "--from-end", "--tcp", "--reconnect", "--format", "--filter", "-w",
      "--verbose", "SIGINT", "CAP_NET_RAW", "setcap", "--buffer-size", "capture.dropped", "capturing on",
      "capture ended",
    ] {
      #expect(help.contains(option), "live --help does not mention \(option)")
    }
  }

  // MARK: - Standard input

  /// Feeds `data` to `live -` through a pipe, 100 bytes at a time.
  func runOnStandardInput(_ data: Data, _ arguments: [String]) throws -> (status: Int32?, child: LiveChild) {
    let pipe = Pipe()
    let child = try LiveChild(["-"] + arguments, input: pipe)
    var offset = 0
    while offset < data.count {
      let end = min(offset + 100, data.count)
      try pipe.fileHandleForWriting.write(contentsOf: data.subdata(in: offset..<end))
      offset = end
    }
    try pipe.fileHandleForWriting.close()
    return (child.finish(), child)
  }

  @Test(
    "a capture piped to live - yields every record, as show prints it",
    arguments: ["hr-sensor.btsnoop", "hr-sensor.pcap", "hr-sensor.pcapng", "hr-sensor-monitor.btsnoop"])
  func standardInput(sample: String) throws {
    let path = "Samples/\(sample)"
    let (status, child) = try runOnStandardInput(
      try Data(contentsOf: Paths.samples.appending(path: sample)), ["--format", "ndjson"])
    #expect(status == 0)
    // Only the line that says capture has started, for scripts.
    #expect(lines(child.stderr).count == 1)
    #expect(child.stderr.hasPrefix("bleanalyze: capturing from standard input ("))
    SequenceComparison.compare("live - records of \(sample)", expected: showLines(path), actual: child.outputLines)
  }

  @Test("-w saves what was streamed, record by record", arguments: ["out.btsnoop", "out.pcap", "out.pcapng"])
  func standardInputSaved(output: String) throws {
    let saved = Paths.scratchFile(output)
    defer { try? FileManager.default.removeItem(at: saved) }
    let (status, child) = try runOnStandardInput(
      try Data(contentsOf: Paths.samples.appending(path: "hr-sensor.btsnoop")),
      ["--format", "ndjson", "-w", saved.path])
    #expect(status == 0)
    #expect(lines(child.stderr).contains { $0.hasPrefix("bleanalyze: wrote 49 records to \(saved.path)") })
    #expect(child.outputLines.count == 49)
    SequenceComparison.compare("-w \(output)", expected: child.outputLines, actual: showLines(saved.path))
  }

  @Test func damagedStandardInputExits3() throws {
    let (status, child) = try runOnStandardInput(
      try Data(contentsOf: Paths.samples.appending(path: "cut-off.btsnoop")), [])
    #expect(status == 3)
    #expect(child.stdout.contains("# 9 records in"))
    #expect(child.stderr.contains("record 10 cut off: 33 bytes announced, 16 in the stream at byte offset 370"))
  }

  @Test func notACaptureOnStandardInputExits2() throws {
    let (status, child) = try runOnStandardInput(Data("hello\nworld\n".utf8), [])
    #expect(status == 2)
    #expect(child.stderr.contains("standard input: not a btsnoop, pcap or pcapng stream"))
  }

  // MARK: - Follow

  /// Writes a capture into a file piece by piece while `live --follow` reads it: records
  /// appended (one in two writes), the file truncated and rewritten, then rotated, then
  /// records appended just before SIGINT. Each appended record must show within 1 s, and in
  /// the end the output and the -w file hold every record, as show prints the whole sample.
  @Test(arguments: [("hr-sensor.btsnoop", "saved.btsnoop"), ("hr-sensor.pcap", "saved.pcap")])
  func follow(sample: String, savedName: String) throws {
    let pieces = try CapturePieces(sample: sample)
    #expect(pieces.records.count == 49)
    let file = Paths.scratchFile(sample)
    let saved = Paths.scratchFile(savedName)
    defer {
      for url in [file, saved, file.appendingPathExtension("1")] { try? FileManager.default.removeItem(at: url) }
    }
    try pieces.bytes(0..<10).write(to: file)
    let child = try LiveChild(["--follow", file.path, "--format", "ndjson", "-w", saved.path])
    #expect(child.waitForLines(10, timeout: 20), "the first 10 records did not show: \(child.stderr)")

    // One record appended.
    var start = Date()
    try append(pieces.bytes(10..<11, header: false), to: file)
    #expect(child.waitForLines(11, timeout: 1), "an appended record took more than 1 s")
    var latencies = [seconds(since: start)]

    // One record in two writes: the first half is waited for, not reported.
    let split = pieces.records[11]
    try append(split.prefix(10), to: file)
    usleep(300_000)
    #expect(child.outputLines.count == 11)
    start = Date()
    try append(split.dropFirst(10), to: file)
    #expect(child.waitForLines(12, timeout: 1), "a record written in two parts took more than 1 s")
    latencies.append(seconds(since: start))

    // The -w file is flushed while the source is idle.
    #expect(
      waitUntil(timeout: 1) {
        run(["show", "--format", "ndjson", saved.path]).stdout.split(separator: "\n").count == 12
      },
      "the -w file did not get the records within 1 s")

    // Truncated and rewritten, shorter than before: read again from its start.
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 0)
    start = Date()
    try handle.write(contentsOf: pieces.bytes(12..<14))
    try handle.close()
    #expect(child.waitForLines(14, timeout: 1), "records after a truncation took more than 1 s")
    latencies.append(seconds(since: start))

    // Rotated: the path names a new file.
    try FileManager.default.moveItem(at: file, to: file.appendingPathExtension("1"))
    start = Date()
    try pieces.bytes(14..<20).write(to: file)
    #expect(child.waitForLines(20, timeout: 1), "records after a rotation took more than 1 s")
    latencies.append(seconds(since: start))

    // Appended right before SIGINT: still in the output.
    try append(pieces.bytes(20..<49, header: false), to: file)
    #expect(child.interrupt() == 0)
    #expect(latencies.allSatisfy { $0 < 1 })
    // The test waits for each line, so a request whose answer comes later goes out after
    // half a second without it; the rest of each line is show's.
    SequenceComparison.compare(
      "live --follow \(sample)", expected: showLines("Samples/\(sample)").map(withoutAnswer),
      actual: child.outputLines.map(withoutAnswer))
    SequenceComparison.compare(
      "-w \(savedName)", expected: child.outputLines.map(withoutAnswer),
      actual: showLines(saved.path).map(withoutAnswer))
    let notices = lines(child.stderr)
    #expect(notices.contains("bleanalyze: \(file.path): truncated; reading it again from the start"))
    #expect(notices.contains("bleanalyze: \(file.path): replaced by a new file (rotated); reading it from the start"))
    #expect(notices.contains { $0.hasPrefix("bleanalyze: wrote 49 records to \(saved.path)") })
    #expect(!child.stderr.contains("damaged"))
  }

  @Test func followFromTheEndPrintsOnlyNewRecordsAndTheSummary() throws {
    let pieces = try CapturePieces(sample: "hr-sensor.btsnoop")
    let file = Paths.scratchFile("from-end.btsnoop")
    defer { try? FileManager.default.removeItem(at: file) }
    try pieces.bytes(0..<10).write(to: file)
    let child = try LiveChild(["--follow", file.path, "--from-end"])
    // The header lines show once the file is open and its end known.
    #expect(child.waitForLines(2, timeout: 20))
    #expect(child.outputLines.first == "# \(file.path): btsnoop stream, datalink 1002 (H4)")
    try append(pieces.bytes(10..<12, header: false), to: file)
    #expect(child.waitForLines(4, timeout: 1))
    #expect(child.interrupt() == 0)
    let output = child.outputLines
    #expect(output.count == 5)
    // Frames still count the records that were in the file.
    #expect(output.dropFirst(2).prefix(2).map { $0.prefix(7) } == ["     11", "     12"])
    #expect(output.last?.hasPrefix("# 2 records in ") == true)
  }

  // MARK: - TCP

  @Test func tcpStreamYieldsEveryRecord() throws {
    let server = try TestServer()
    let child = try LiveChild(["--tcp", "127.0.0.1:\(server.port)", "--format", "ndjson"])
    let connection = try #require(server.accept(timeout: 20))
    TestServer.send(try Data(contentsOf: Paths.samples.appending(path: "hr-sensor.btsnoop")), to: connection)
    close(connection)
    #expect(child.finish() == 0)
    SequenceComparison.compare(
      "live --tcp", expected: showLines("Samples/hr-sensor.btsnoop"), actual: child.outputLines)
  }

  @Test func tcpReconnectSurvivesADrop() throws {
    let pieces = try CapturePieces(sample: "hr-sensor.btsnoop")
    let server = try TestServer()
    let child = try LiveChild(["--tcp", "127.0.0.1:\(server.port)", "--reconnect", "--format", "ndjson"])
    let first = try #require(server.accept(timeout: 20))
    TestServer.send(pieces.bytes(0..<20), to: first)
    close(first)
    // Connected again within about a second; each connection starts with the btsnoop header.
    let second = try #require(server.accept(timeout: 5))
    TestServer.send(pieces.bytes(20..<49), to: second)
    #expect(child.waitForLines(49, timeout: 5))
    #expect(child.interrupt() == 0)
    close(second)
    SequenceComparison.compare(
      "live --tcp --reconnect", expected: showLines("Samples/hr-sensor.btsnoop"), actual: child.outputLines)
    #expect(child.stderr.contains("127.0.0.1:\(server.port): connected again"))
  }

  @Test func refusedConnectionExits2() throws {
    // A port nothing listens on: bound, never listening.
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) + getsockname(descriptor, $0, &length)
      }
    }
    let port = UInt16(bigEndian: address.sin_port)
    let result = run(["live", "--tcp", "127.0.0.1:\(port)"])
    #expect(result.status == 2)
    #expect(result.stderr == "bleanalyze: 127.0.0.1:\(port): cannot connect: Connection refused\n")
  }
}

/// A `show --format ndjson` line without what a request learns from its answer.
func withoutAnswer(_ line: String) -> String {
  line.replacing(#/,"response_frame":\d+,"latency_ms":[0-9.]+,"outcome":"[a-z]+"/#, with: "")
}

/// What `live` leaves behind when it is killed or stopped: the -w file after SIGKILL, the
/// requests still open when capture stops.
@Suite("live: crash consistency and the end of capture", .serialized)
struct LiveEndTests {
  /// `live --follow … -w` is killed with SIGKILL while records still arrive: the file it
  /// leaves opens in bleanalyze and tshark without an error, holds every record flushed
  /// before the kill (the source went idle, so they were), and nothing but whole records
  /// of the source, in order.
  @Test(arguments: ["killed.btsnoop", "killed.pcap", "killed.pcapng"])
  func sigkillLeavesAWholeFile(output: String) throws {
    let pieces = try CapturePieces(sample: "hr-sensor.btsnoop")
    let file = Paths.scratchFile("kill-source.btsnoop")
    let saved = Paths.scratchFile(output)
    defer { for url in [file, saved] { try? FileManager.default.removeItem(at: url) } }
    try pieces.bytes(0..<20).write(to: file)
    let child = try LiveChild(["--follow", file.path, "--format", "ndjson", "-w", saved.path])
    #expect(child.waitForLines(20, timeout: 20), "the first 20 records did not show: \(child.stderr)")
    #expect(
      waitUntil(timeout: 2) { lines(run(["show", "--format", "ndjson", saved.path]).stdout).count == 20 },
      "the -w file did not get the first 20 records while the source was idle")
    // More records, one write each, and SIGKILL while they come.
    for index in 20..<35 {
      try append(pieces.bytes(index..<(index + 1), header: false), to: file)
      usleep(20_000)
    }
    child.kill()
    child.process.waitUntilExit()
    #expect(child.process.terminationReason == .uncaughtSignal)

    let shown = run(["show", "--format", "ndjson", saved.path])
    #expect(shown.status == 0, "bleanalyze cannot read the file whole: \(shown.stderr)")
    #expect(!shown.stderr.contains("damaged"))
    let kept = lines(shown.stdout)
    #expect(kept.count >= 20 && kept.count <= 35, "\(kept.count) records in \(output)")
    let source = showLines("Samples/hr-sensor.btsnoop").prefix(kept.count)
    // The last request may have lost its answer to the kill.
    let bare = { (line: String) in withoutAnswer(line).replacing(#/,"outcome":"[a-z]+"/#, with: "") }
    SequenceComparison.compare("\(output) after SIGKILL", expected: source.map(bare), actual: kept.map(bare))
    if Paths.tshark != nil {
      var frames = 0
      #expect(tsharkFields(saved, ["frame.number"]) { _ in frames += 1 })
      #expect(frames == kept.count, "tshark reads \(frames) frames, bleanalyze \(kept.count)")
      print("\(output) after SIGKILL: \(kept.count) of 35 records, tshark reads \(frames)")
    } else {
      print("tshark is not installed: \(output) after SIGKILL checked with bleanalyze only")
    }
  }

  /// A request shown before its answer (the source went quiet for more than half a
  /// second) that is still open when live stops gets a line saying so, as show marks it.
  @Test(arguments: [("text", "# #"), ("ndjson", "{\"type\":\"outcome\",\"request_frame\":")])
  func requestOpenAtTheEndIsUnanswered(format: String, prefix: String) throws {
    let (file, request) = try Self.captureEndingWithARequest("open-request.btsnoop")
    defer { try? FileManager.default.removeItem(at: file) }
    let child = try LiveChild(["--follow", file.path, "--format", format])
    let shownLines = format == "text" ? request + 3 : request + 1
    #expect(child.waitForLines(shownLines, timeout: 20), "the records did not show: \(child.stderr)")
    usleep(700_000)
    #expect(child.interrupt() == 0)
    let late = child.outputLines.filter { $0.hasPrefix(prefix) }
    #expect(late.count == 1, "\(child.stdout)")
    let frame = request + 1
    if format == "text" {
      #expect(late.first?.hasPrefix("# #\(frame) ") == true)
      #expect(late.first?.hasSuffix("→ no response (capture ended)") == true)
    } else {
      #expect(
        late.first
          == "{\"type\":\"outcome\",\"request_frame\":\(frame),\"outcome\":\"unanswered\",\"reason\":\"end_of_capture\"}"
      )
    }
  }

  /// A request shown before its answer that a later record settles without one (here the
  /// adapter goes away: monitor Index Removed, as when `btmgmt` powers it off or the
  /// dongle is pulled) gets its outcome then, as show marks it; not again at the end.
  @Test(
    "a request shown early and left open by Index Removed gets its outcome",
    arguments: [
      ("ndjson", "{\"type\":\"outcome\",\"request_frame\":47,\"outcome\":\"unanswered\",\"reason\":\"disconnected\"}"),
      ("text", "# #47 Read Request → no response (disconnected)"),
    ])
  func requestLeftOpenByIndexRemoved(format: String, expected: String) throws {
    // hr-sensor-monitor up to #47, a Read Request of 0x0099 whose Error Response is #49.
    let pieces = try CapturePieces(sample: "hr-sensor-monitor.btsnoop")
    let file = Paths.scratchFile("index-removed.btsnoop")
    defer { try? FileManager.default.removeItem(at: file) }
    try pieces.bytes(0..<47).write(to: file)
    let child = try LiveChild(["--follow", file.path, "--format", format])
    #expect(child.waitForLines(format == "text" ? 49 : 47, timeout: 20), "the records did not show: \(child.stderr)")
    usleep(700_000)
    // Index Removed (Delete Index, opcode 1) of hci0: btsnoop 2001 flags are index << 16 | opcode.
    let last = try #require(try BTSnoopFile(pieces.bytes(46..<47)).records.first)
    var record = Data([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
    withUnsafeBytes(of: (last.timestamp + 10_000).bigEndian) { record.append(contentsOf: $0) }
    try append(record, to: file)
    #expect(
      waitUntil(timeout: 10) { child.outputLines.contains(expected) }, "no outcome for #47: \(child.stdout.suffix(800))"
    )
    #expect(child.interrupt() == 0)
    #expect(
      child.outputLines.filter { $0.contains("47") && ($0.hasPrefix("# #") || $0.contains("\"outcome\"")) }.count == 1)
    let shown = run(["show", "--format", "json", file.path])
    #expect(Self.unansweredFrames(shown.stdout) == [47])
  }

  /// A JSON document waits for every answer: the request open at the end carries its
  /// outcome itself, as in show.
  @Test func jsonDocumentRequestOpenAtTheEnd() throws {
    let (file, request) = try Self.captureEndingWithARequest("open-request-json.btsnoop")
    defer { try? FileManager.default.removeItem(at: file) }
    let child = try LiveChild(["--follow", file.path, "--format", "json"])
    usleep(1_500_000)
    #expect(child.interrupt() == 0)
    let shown = run(["show", "--format", "json", file.path])
    #expect(shown.status == 0)
    #expect(Self.unansweredFrames(child.stdout) == [request + 1], "\(child.stdout.suffix(600))")
    #expect(Self.unansweredFrames(shown.stdout) == [request + 1])
  }

  /// A scratch file holding hr-sensor's records up to its last request, none after: its
  /// answer never comes. Returns the file and the request's index (its frame less one).
  static func captureEndingWithARequest(_ name: String) throws -> (URL, Int) {
    let pieces = try CapturePieces(sample: "hr-sensor.btsnoop")
    let requests = showLines("Samples/hr-sensor.btsnoop").enumerated().filter {
      $0.element.contains("\"response_frame\"")
    }
    let request = try #require(requests.last).offset
    let file = Paths.scratchFile(name)
    try pieces.bytes(0..<(request + 1)).write(to: file)
    return (file, request)
  }

  /// The frames of a `show`/`live` JSON document whose `att.outcome` is `unanswered`.
  static func unansweredFrames(_ document: String) -> [Int] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
      let captures = object["captures"] as? [[String: Any]]
    else { return [] }
    return captures.flatMap { ($0["records"] as? [[String: Any]]) ?? [] }.compactMap { record in
      (record["att"] as? [String: Any])?["outcome"] as? String == "unanswered" ? record["frame"] as? Int : nil
    }
  }
}
