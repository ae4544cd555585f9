import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

struct Stats: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Counts and latency statistics: per ATT opcode, per characteristic, per connection.",
    discussion: """
      ATT PDUs per opcode (with the value bytes they carry), Error Responses per request \
      and error code, and per characteristic value: reads, writes, notifications, \
      indications, errors and value bytes. Each request opcode, characteristic and \
      connection has its transactions by outcome (ok, error, timeout after 30 s, \
      unanswered) and the latency of those answered: count, min, median, p95, max. \
      Percentiles are exact and nearest-rank: the p-th of n sorted values is the one of \
      rank ⌈p·n/100⌉, so the median of an even count is the lower middle value.

      Connect latency (LE Create Connection to its Connection Complete) and write→notify \
      round trips (pairs found as in `timeline`: --pair-window, --pair) get the same \
      summary and a histogram in 1-2-5 buckets from 0.1 ms to 100 s, as does each \
      request opcode's latency. A Security block sums the connections' security \
      summaries (as `timeline` tells them): encrypted after pairing, with a stored key or \
      never, pairing methods, LE security levels, ATT security errors and findings.

      text: tables and histograms per capture. json: {"schema_version":2,"captures":[…]}, \
      latencies as *_ms numbers with µs precision. ndjson: one object per table row, \
      with a "type" (capture, opcode, error, characteristic, connection, \
      connect_latency, write_notify, pair, security).
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
    var renderer = StatsRenderer(format: format, multipleFiles: files.count > 1)
    renderer.begin(into: &out)
    var inputs = CaptureInputs(files)
    try inputs.forEachInParallel(into: &out) { path, opened, _ in
      var statistics = Statistics()
      let read = context.timeline(of: opened.source, label: path) { record, analyzed in
        statistics.add(record, analyzed)
      } retired: {
        statistics.add(connection: $0)
      }
      statistics.finish(read.timeline)
      return (statistics, read.summary)
    } render: { path, opened, read, out in
      let capture = CaptureInfo(file: path, source: opened.source, summary: read.1)
      renderer.render(path: path, read.0, capture: capture, into: &out)
      guard out.flush() else { throw ExitCode.success }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try inputs.exitIfFailed()
  }
}
