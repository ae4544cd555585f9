import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

struct TimelineCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "timeline",
    abstract:
      "Each connection's story: connect latency, setup, security, discovery, writes and notifications, disconnect.",
    discussion: """
      A connection is keyed by adapter, handle and a generation that counts the \
      connections completed on that handle. For each: the Create Connection that led to it \
      and the connect latency; parameters and their updates, data length, PHY; the ATT MTU \
      exchange; pairing (SMP method) and encryption with their latencies; the GATT \
      discovery run and its duration; CCCD subscriptions; ATT requests that failed, timed out \
      (30 s) or got no answer; write→notify pairs; the disconnect reason and who caused it \
      (this host, the peer, or link loss), and the gap until the same peer reconnected. \
      Attempts that made no connection (cancelled, failed, timed out) are listed too.

      Each connection that paired, encrypted, got an SMP Security Request or an ATT \
      security error ends with its security summary: each pairing (legacy or LE Secure \
      Connections; Just Works, Passkey Entry, Numeric Comparison or OOB; MITM, bonding, key \
      size, keys each way), each start of encryption (pairing key or stored key), the LE \
      security mode 1 level reached (1-4), the ATT Insufficient Authentication, Encryption \
      and Key Size errors and what followed, and findings with a severity (legacy pairing \
      whose LTK an eavesdropper can recover, key size below 16, data sent before \
      encryption on a characteristic that later needed it, Security Request ignored, \
      Just Works).

      A write (request or command) is answered by the first notification or indication, \
      within --pair-window, on another characteristic of the written characteristic's \
      service; --pair names other pairs explicitly.

      A peer's Security Request appears with its answer. Repeated failed transactions and \
      write→notify pairs of one kind roll up into one line with count, median and p95.

      text: the story with times from the capture's start (-v adds every ATT transaction \
      and every pair on its own line). \
      json: {"schema_version":2,"connections":[…],"connection_attempts":[…],"transactions":[…],\
      "pairs":[…]}. ndjson: one connection, attempt, transaction or pair per line, with "type".
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Flag(name: .shortAndLong, help: "List every ATT transaction and write→notify pair in the text story.")
  var verbose = false

  @OptionGroup var paint: ReportColorOption

  @OptionGroup var analysis: TimelineOptions

  mutating func run() throws {
    let context = try analysis.context()
    var out = OutputBuffer()
    var renderer = TimelineRenderer(format: format, verbose: verbose, multipleFiles: files.count > 1)
    renderer.color = format == .text && paint.color.enabled
    var inputs = CaptureInputs(files)
    let verdicts = format == .text
    let (format, verbose, multipleFiles) = (format, verbose, files.count > 1)
    try inputs.forEachInParallel(into: &out) {
      path, opened, _ -> (
        read: (timeline: Timeline, summary: CaptureSummary), throughput: ThroughputReport?, spill: TimelineSpill?
      ) in
      // Each connection is rendered into the spill as it ends, and leaves memory.
      let spill = TimelineSpill(format: format, verbose: verbose, file: multipleFiles ? path : nil)
      let retired: ((ConnectionTimeline) -> Void)? = spill.map { spill in { spill.add($0) } }
      let each: (Record, AnalyzedRecord) -> Void = { record, _ in
        if let spill, spill.start == nil { spill.start = record.timestamp.unixMicroseconds }
      }
      guard verdicts else {
        return (context.timeline(of: opened.source, label: path, each, retired: retired), nil, spill)
      }
      // Each connection's transfer verdicts go with it, once its transfers are judged.
      let analyzed = context.throughput(of: opened.source, label: path, each) { connection, throughput in
        spill?.add(connection, throughput: throughput.retire(connection: connection.ref.id))
      }
      return ((analyzed.timeline, analyzed.summary), analyzed.throughput, spill)
    } render: { path, opened, analyzed, out in
      let capture = CaptureInfo(file: path, source: opened.source, summary: analyzed.read.summary)
      renderer.render(
        path: path, analyzed.read.timeline, capture: capture, throughput: analyzed.throughput, spill: analyzed.spill,
        into: &out)
      guard out.flush() else { throw ExitCode.success }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try inputs.exitIfFailed()
  }
}
