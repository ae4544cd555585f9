import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

struct ThroughputCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract: "Each transfer's bytes and rate, the link in force, the ceiling for it and the one factor that binds.",
    discussion: """
      A transfer is a run of one operation (write_cmd, write_req, write_long, notify, \
      indicate, read, coc) on one attribute or CoC channel of one connection, in one \
      direction, with no pause longer than 250 ms or 8 connection intervals; a change of \
      the link (parameters, PHY, data length, ATT_MTU) while it runs splits it into \
      segments. For each: payload bytes (ATT value bytes, CoC SDU bytes), PDUs, first and \
      last frame, span, the achieved rate (the bytes after the first PDU over the span from \
      the first PDU to the last), the share of the span the link carried it, the link in \
      force, the controller's buffers (credits in use, stalls, Number Of Completed Packets \
      latency, PDUs per event as an estimate), the ceiling of the model for that link and \
      operation, and the factor that binds: ack_per_interval, pdus_per_event, phy, \
      data_length, mtu, host_buffers or app_pacing, with a verdict that says what would \
      raise it. Several transfers of one kind on a connection also make a series.

      Findings: a Connection Parameter Update Request that breaks Apple's Accessory Design \
      Guidelines rules (iOS may reject it), and the Android connection priority band (HIGH \
      11.25–15 ms, BALANCED 30–50 ms, LOW_POWER 100–125 ms) of each interval in force.

      text: per connection, each transfer with its link, host and verdict. json: \
      {"schema_version":…,"captures":[…],"transfers":[…],"series":[…],"findings":[…]}. \
      ndjson: one capture, transfer, series or finding per line, with "type".
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @OptionGroup var analysis: TimelineOptions

  mutating func run() throws {
    let context = try analysis.context()
    var out = OutputBuffer()
    var renderer = ThroughputRenderer(format: format, multipleFiles: files.count > 1)
    var inputs = CaptureInputs(files)
    try inputs.forEachInParallel(into: &out) { path, opened, _ in
      let read = context.throughput(of: opened.source, label: path)
      return (CaptureInfo(file: path, source: opened.source, summary: read.summary), read.throughput)
    } render: { _, _, read, out in
      renderer.render(read.0, read.1, into: &out)
      guard out.flush() else { throw ExitCode.success }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try inputs.exitIfFailed()
  }
}

extension TimelineContext {
  /// Reads every record of `source` through the analysis, the timeline and the throughput
  /// builder; `each` also sees every analyzed record.
  func throughput(
    of source: any RecordSource, label: String, _ each: (Record, AnalyzedRecord) -> Void = { _, _ in },
    retired: ((ConnectionTimeline, inout ThroughputBuilder) -> Void)? = nil
  ) -> (timeline: Timeline, summary: CaptureSummary, throughput: ThroughputReport) {
    var builder = ThroughputBuilder()
    let read = timeline(
      of: source, label: label,
      { record, analyzed in
        builder.add(record, analyzed)
        each(record, analyzed)
      }, retired: retired.map { retired in { retired($0, &builder) } })
    return (read.timeline, read.summary, builder.finish())
  }
}
