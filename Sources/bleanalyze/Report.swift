import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "One self-contained HTML report of captures: summary, sequence diagram, charts and tables.",
    discussion: """
      Writes one HTML file that loads nothing (style and script inline; its Content \
      Security Policy forbids every request), reads from a file:// URL or as an e-mail \
      attachment, and reads without JavaScript (the script only sorts tables and moves \
      between sequence steps with the arrow keys).

      Per capture: a summary (format, span, records, damage, sources; the peers with their \
      names; each connection and how it ended; findings: security, platform rules, failed \
      calls; milestones: scan → connected → services discovered → subscribed → first \
      notification), a sequence diagram per connection (app ↔ stack ↔ peer; the calls and \
      callbacks as `app --api` names them, durations on the arrows, errors in red and \
      marked ✗, repeats folded with their count; open a step for its frames; at most 300 \
      steps a connection and 1500 a capture), SVG charts \
      (ATT latency per opcode and per characteristic, connections over time, rate over \
      time per transfer, RSSI per advertiser, advertising intervals; each with a text \
      alternative and its data as a table) and sortable tables (calls, transactions, \
      errors, devices, GATT database).

      The numbers are those of `app`, `timeline`, `stats`, `devices`, `gatt` and \
      `throughput` for the same capture. The summary carries them as data-calls, \
      data-connections, data-errors and data-advertisers; each step of the sequence \
      diagram carries data-call (the kind), data-frames (first-last) and data-count (the \
      calls folded in it); a connection's data-omitted counts the calls not drawn.

      --redact makes the report from the capture as `redact` would write it (addresses \
      and names pseudonymised, keys removed, values not known to be safe blanked), so \
      that it can be shared.
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(name: .shortAndLong, help: "The HTML file to write.")
  var output: String

  @Option(help: "Whose names: gatt, corebluetooth or android.")
  var api: AppAPI = .gatt

  @Flag(help: "Make the report from the redacted capture (as `redact` writes it), to share it.")
  var redact = false

  @OptionGroup var analysis: TimelineOptions

  func validate() throws {
    if redact && files.contains("-") {
      throw ValidationError("--redact reads each capture twice (what to replace, then the report): give a file, not -")
    }
  }

  mutating func run() throws {
    let context = try analysis.context()
    let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else {
      throw Failure("cannot write \(output): \(String(cString: strerror(errno)))", status: ExitStatus.unreadable)
    }
    defer { close(fd) }
    var out = OutputBuffer(fd: fd, flushThreshold: 1 << 20)
    var renderer = HTMLReportRenderer(api: api, redacted: redact)
    renderer.begin(files: files, version: Bleanalyze.configuration.version, into: &out)
    var inputs = CaptureInputs(files)
    let redact = redact
    try inputs.forEachInParallel(into: &out) { path, opened, _ in
      context.report(of: opened.source, path: path, redact: redact)
    } render: { path, opened, made, out in
      // Never a report of the original when it was to be redacted.
      guard let made else {
        throw Failure("cannot read \(path) again to redact it; the report is incomplete", status: ExitStatus.unreadable)
      }
      let capture = CaptureInfo(file: path, source: opened.source, summary: made.summary)
      renderer.render(path: path, made.report, capture: capture, lines: made.lines, into: &out)
      guard out.flush() else { throw Failure("cannot write \(output)", status: ExitStatus.unreadable) }
    }
    renderer.finish(into: &out)
    guard out.flush(force: true) else { throw Failure("cannot write \(output)", status: ExitStatus.unreadable) }
    try inputs.exitIfFailed()
  }
}

extension TimelineContext {
  /// Reads `source` once (redacted first with `redact`: a survey pass finds what to
  /// replace) through the analysis, feeding every builder a report needs and keeping
  /// each record's decoded line.
  /// Nil when `redact` and the capture cannot be opened again for the survey.
  func report(of source: any RecordSource, path: String, redact: Bool) -> (
    report: CaptureReport, lines: FrameLines, summary: CaptureSummary
  )? {
    var source = source
    if redact {
      guard let survey = try? CaptureFile.open(path) else { return nil }
      let plan = RedactionSurvey.plan(of: survey, label: "surveying \(path)", .init())
      source = RedactedSource(source, plan: plan)
    }
    var builder = CaptureReportBuilder(identityKeys: keys)
    let lines = FrameLines(names: library)
    let analyzed = analyze(source, label: path) { record, analyzed in
      builder.add(record, analyzed)
      lines.add(record, analyzed)
    }
    let report = builder.finish(analyzed.unanswered, timeline: analyzed.timeline, gatt: analyzed.gatt)
    return (report, lines, analyzed.summary)
  }
}
