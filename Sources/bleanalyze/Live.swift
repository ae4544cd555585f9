import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct Live: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Decode a live source as it arrives, as show does a file.",
    discussion: """
      Sources: the Linux HCI monitor socket (--monitor, the default; every adapter, or the \
      hciN given), a btsnoop or pcap file another program is writing (--follow FILE), \
      standard input (-: btsnoop, pcap or pcapng) and a btsnoop stream over TCP \
      (--tcp HOST:PORT, as Android's snoop port serves it after `adb forward tcp:8872 tcp:8872`). \
      Records are decoded and printed as they arrive (text line by line, NDJSON an object per \
      line), flushed as soon as the source goes quiet and at least every 100 ms; --format json \
      writes one document, whole when the source ends.

      The monitor socket needs CAP_NET_RAW: `sudo setcap cap_net_raw+ep $(command -v bleanalyze)`, \
      or run bleanalyze with sudo. A followed file may be rotated (the path names a new file) or \
      truncated: reading starts over from the new content's start. Frame numbers go on across \
      rotations and reconnections; with --from-end they still count the records already in the file.

      Once the source is open, a line on stderr says so (`bleanalyze: capturing on …`), for \
      scripts. The monitor socket's receive buffer is raised to --buffer-size; records the \
      kernel still drops are counted: a capture.dropped diagnostic on the record after the \
      gap, and the total in the summary line. The -w file only ever gets whole records, so it \
      stays readable even when the process is killed.

      SIGINT (Ctrl-C) or SIGTERM stops reading: what was read is printed (and what the kernel \
      had queued on the monitor socket, for up to 2 s), the -w file is \
      closed, text ends with the summary line, and the exit status is 0. A request shown \
      before its answer and still open then gets a line of its own (text: \
      `# #12 Read Request → no response (capture ended)`; NDJSON: an object with \
      "type":"outcome"), and so does one that a later record settles without an answer, \
      when it does (`no response (disconnected)`, also when the adapter goes away). A \
      second signal ends \
      the process at once. Exit status 2: the source cannot be opened (no Bluetooth in the \
      kernel, no permission, a refused connection, not a capture); 3: the stream was damaged.
      """
  )

  @Argument(
    help: ArgumentHelp(
      "'-' reads standard input; hciN (or --monitor hciN) keeps one adapter of the monitor socket.",
      valueName: "source"))
  var source: String?

  @Flag(help: "Read the Linux HCI monitor socket (the default source); needs CAP_NET_RAW.")
  var monitor = false

  @Flag(help: "List the Bluetooth adapters (index, address, bus, state) and exit.")
  var list = false

  @Option(help: ArgumentHelp("Follow a btsnoop or pcap file that another program is writing.", valueName: "file"))
  var follow: String?

  @Flag(help: "With --follow: skip the records already in the file, start at its current end.")
  var fromEnd = false

  @Option(help: ArgumentHelp("Read a btsnoop stream from this TCP server.", valueName: "host:port"))
  var tcp: String?

  @Flag(help: "With --tcp: connect again every second when the connection drops or is refused.")
  var reconnect = false

  @Option(
    help: ArgumentHelp(
      "The monitor socket's receive buffer in bytes (8 MiB; without CAP_NET_ADMIN the kernel caps it at net.core.rmem_max).",
      valueName: "bytes"))
  var bufferSize: Int = MonitorDrops.defaultBufferSize

  @Option(
    help: ArgumentHelp(
      "Serve Prometheus metrics on http://ADDR:PORT/metrics while capturing (ADDR 127.0.0.1 unless given; port 0 picks one).",
      valueName: "[addr:]port"))
  var metrics: String?

  @OptionGroup var options: RecordOutputOptions

  /// The source the options name.
  enum SourceChoice: Equatable {
    case monitor(adapter: UInt16?)
    case follow(String)
    case standardInput
    case tcp(String)
  }

  /// The controller index of `hciN`.
  static func adapterIndex(_ text: String) -> UInt16? {
    text.hasPrefix("hci") ? UInt16(text.dropFirst(3)) : nil
  }

  var choice: SourceChoice {
    get throws {
      let named = [monitor, follow != nil, tcp != nil].filter { $0 }.count
      guard named <= 1 else { throw ValidationError("give one source: --monitor, --follow or --tcp") }
      if let follow {
        guard source == nil else { throw ValidationError("'\(source!)' is one source too many with --follow") }
        return .follow(follow)
      }
      if let tcp {
        guard source == nil else { throw ValidationError("'\(source!)' is one source too many with --tcp") }
        return .tcp(tcp)
      }
      guard let source else { return .monitor(adapter: nil) }
      if let index = Self.adapterIndex(source) { return .monitor(adapter: index) }
      if source == "-" && !monitor { return .standardInput }
      throw ValidationError(
        monitor
          ? "'\(source)' is not an adapter; expected hciN, e.g. hci0"
          : "'\(source)' is not a source; use - for standard input, --follow FILE, --tcp HOST:PORT or --monitor [hciN]"
      )
    }
  }

  func validate() throws {
    let source = try choice
    if fromEnd, case .follow = source {
    } else if fromEnd {
      throw ValidationError("--from-end goes with --follow")
    }
    if reconnect, case .tcp = source {
    } else if reconnect {
      throw ValidationError("--reconnect goes with --tcp")
    }
    guard bufferSize > 0 else { throw ValidationError("--buffer-size takes a number of bytes above 0") }
    if options.count != nil { throw ValidationError("-c goes with show; live runs until its source ends or Ctrl-C") }
  }

  mutating func run() throws {
    if list { return try listAdapters() }
    let compiled = try options.compiledFilter()
    let makeAnalyzer = try options.analyzerFactory()
    let control = LiveControl()
    control.installSignalHandlers()
    let sink = LiveOutput()
    control.onNotice = { message in
      sink.flush()
      report(message)
    }
    let server = try metrics.map { text throws(Failure) in try MetricsServer(listening: text) }
    if let server {
      server.start()
      report("serving metrics on http://\(server.address)/metrics")
    }
    let (label, source) = try open(try choice, control: control)
    report(LiveStart.message(label: label, source: source))

    sink.writer = try options.matchWriter(for: source)
    let emitter = LiveEmitter(
      pipeline: RecordPipeline(analyzer: makeAnalyzer()),
      renderer: options.rendererFactory(names: try options.dissectors.library())(),
      filter: compiled, sink: sink, lateFormat: options.fieldColumns == nil && !options.quiet ? options.format : nil)
    emitter.server = server
    emitter.renderer.adapters { source.adapterCount(upTo: 2) }
    emitter.renderer.beginCapture(path: label, format: source.formatDescription, file: nil, into: &sink.out)
    sink.flush()
    // A request's line waits for its answer, but not more than half a second.
    // A JSON document comes out whole at the end, so its requests wait for their answer.
    let patient = options.format != .json
    control.onIdle = {
      if patient { try? emitter.releaseWhenWaitedTooLong() }
      sink.flush()
      emitter.publishMetrics()
    }
    while let record = source.next() {
      if emitter.start == nil { emitter.start = record.timestamp }
      try emitter.push(record)
      guard sink.flushWhenDue() else { break }
      if server != nil { emitter.publishMetricsWhenDue() }
    }
    try emitter.finish()
    if let monitor = source as? MonitorSocketReader {
      emitter.pipeline.addDropped(monitor.finishDrops())
      let dropped = emitter.pipeline.summary.dropped
      if dropped > 0 { report(LiveStart.dropsMessage(dropped, bufferSize: monitor.bufferSize)) }
      let unread = monitor.unreadBytes
      if unread > 0 { report("stopped with records still queued in the kernel (\(unread) bytes), not read") }
    }
    emitter.publishMetrics()
    emitter.renderer.endCapture(
      emitter.pipeline.summary,
      capture: CaptureInfo(file: label, source: source, summary: emitter.pipeline.summary), into: &sink.out)
    emitter.renderer.finish(into: &sink.out)
    sink.out.flush(force: true)
    for note in source.notes { report("\(label): note: \(note)") }
    try options.close(sink.writer)
    if let damage = source.damage {
      report("\(label): warning: damaged: \(damage)")
      throw ExitCode(ExitStatus.damaged)
    }
  }

  /// Opens the source, with its label for the output's header line; a source that cannot
  /// be opened ends the run with status 2 (or 0, quietly, when a signal stopped the wait).
  private func open(_ choice: SourceChoice, control: LiveControl) throws -> (String, any RecordSource) {
    do {
      switch choice {
      case .monitor(let adapter):
        return (
          adapter.map { "hci\($0)" } ?? "HCI monitor",
          try MonitorSocketReader.open(adapter: adapter, control: control, bufferSize: bufferSize)
        )
      case .follow(let path):
        return (path, try LiveSources.open(try FollowFeed(path: path, fromEnd: fromEnd, control: control)))
      case .standardInput:
        let feed = DescriptorFeed(descriptor: 0, label: "standard input", control: control)
        return (feed.label, try LiveSources.open(feed))
      case .tcp(let address):
        let feed = try TCPFeed(address: address, reconnect: reconnect, control: control)
        return (address, try LiveSources.open(feed))
      }
    } catch {
      if control.stopRequested { throw ExitCode.success }
      switch error {
      case let error as CaptureError: throw Failure(error)
      case let error as LiveError: throw Failure(error.description, status: ExitStatus.unreadable)
      default: throw error
      }
    }
  }

  /// `--list`: the adapters, one line (or object) each.
  private func listAdapters() throws {
    let adapters: [BluetoothAdapter]
    do {
      adapters = try BluetoothAdapter.list()
    } catch {
      throw Failure(error.description, status: ExitStatus.unreadable)
    }
    var out = OutputBuffer()
    AdapterListing.append(adapters, options.format, into: &out)
    out.flush(force: true)
  }
}

/// Where live output goes: standard output, flushed whenever the source is idle and at
/// least every 100 ms, and the `-w` file, flushed with it.
final class LiveOutput {
  var out = OutputBuffer()
  var writer: MatchWriter?
  private var lastFlush = LiveOutput.now()
  /// The reader of standard output went away.
  private(set) var closed = false

  static let interval: Int64 = 100_000_000

  /// Flushes standard output and the -w file now.
  func flush() {
    if !out.flush(force: true) { closed = true }
    // A write error shows again, and is reported, when the file is closed.
    try? writer?.flush()
    lastFlush = Self.now()
  }

  /// Flushes when the last flush is 100 ms old; false once standard output is gone.
  func flushWhenDue() -> Bool {
    if !out.flush() { closed = true }
    if Self.now() - lastFlush >= Self.interval { flush() }
    return !closed
  }

  /// CLOCK_MONOTONIC in nanoseconds.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// Live records on their way out: through the pipeline, then filter, renderer and `-w`.
/// A class, so the source's idle callback can release what waits.
final class LiveEmitter {
  var pipeline: RecordPipeline
  var renderer: any ShowRenderer
  let filter: Filter<FilterInput>?
  let sink: LiveOutput
  var start: Timestamp?
  /// Requests shown before their answer, still open.
  private var early = EarlyRequests()
  /// `--metrics`: where they are served, and what they count.
  var server: MetricsServer? {
    didSet { metrics = server == nil ? nil : LiveMetrics() }
  }
  private var metrics: LiveMetrics?
  private var lastPublish: Int64 = 0
  /// When the oldest held record was held (CLOCK_MONOTONIC ns).
  private var holdingSince: Int64?

  /// How long a request's line waits for its answer while the source is quiet.
  static let patience: Int64 = 500_000_000

  /// The format of the outcome lines of requests shown early; nil for none (-T fields
  /// columns, -q).
  let lateFormat: RenderFormat?

  init(
    pipeline: consuming RecordPipeline, renderer: any ShowRenderer, filter: Filter<FilterInput>?, sink: LiveOutput,
    lateFormat: RenderFormat?
  ) {
    self.lateFormat = lateFormat
    self.pipeline = pipeline
    self.renderer = renderer
    self.filter = filter
    self.sink = sink
  }

  func push(_ record: Record) throws {
    var settled: [EarlyRequests.Settled] = []
    try pipeline.push(record, observe: { settled += self.early.observe($0) }) { try emit($0, $1) }
    // Requests shown before this record settled them: their outcome, as show marks it.
    if let lateFormat {
      for request in settled { LateOutcome.append(request, format: lateFormat, into: &sink.out) }
    }
    holdingSince = pipeline.heldCount == 0 ? nil : holdingSince ?? LiveOutput.now()
  }

  func releaseWhenWaitedTooLong() throws {
    guard let holdingSince, LiveOutput.now() - holdingSince >= Self.patience else { return }
    try pipeline.releaseHeld { try emit($0, $1) }
    self.holdingSince = nil
  }

  /// The end: held requests get their outcome, and those shown early a line each.
  func finish() throws {
    let unanswered = try pipeline.finish { try emit($0, $1) }
    metrics?.finish(unanswered)
    guard let lateFormat else { return }
    for (frame, name) in early.endedUnanswered(unanswered) {
      LateOutcome.appendEndOfCapture(frame: frame, name: name, format: lateFormat, into: &sink.out)
    }
  }

  /// Publishes the metrics when the last publication is 250 ms old.
  func publishMetricsWhenDue() {
    if LiveOutput.now() - lastPublish >= 250_000_000 { publishMetrics() }
  }

  /// Renders the metrics for the server to serve.
  func publishMetrics() {
    guard let server, let metrics else { return }
    var out = OutputBuffer(fd: -1)
    PrometheusRenderer.render(metrics, summary: pipeline.summary, into: &out)
    server.publish(out.bytes)
    lastPublish = LiveOutput.now()
  }

  private func emit(_ record: Record, _ analyzed: AnalyzedRecord) throws {
    metrics?.add(record, analyzed)
    let shown = try bleanalyze.emit(
      record, analyzed, start: start ?? record.timestamp, filter, &renderer, sink.writer, into: &sink.out)
    early.emitted(record, analyzed, shown: shown)
  }
}
