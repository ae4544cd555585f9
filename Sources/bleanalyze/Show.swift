import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "One line per record, decoded down to ATT and SMP.",
    discussion: """
      text: aligned columns and a summary line per capture; -v adds each record's field tree. \
      ndjson: one object per record (frame, ts, dir, adapter, hci, acl, l2cap, att, smp, conn, \
      diagnostics), flushed as it goes. json: one document.

      --filter keeps the records an expression matches, over the data-contract field names: \
      ==, !=, <, <=, >, >=, contains; and, or, not, parentheses; a bare field tests presence. \
      Examples: 'att.opcode == 0x1b and conn.peer == D4:36:39:67:A2:61', 'smp or att.error', \
      'diagnostics.id contains "mtu"'. Fields: \(RecordFilter.catalog.names.joined(separator: ", ")).
      """
  )

  @Argument(help: "Capture files (btsnoop, pcap, pcapng, PacketLogger, Android bugreport).")
  var files: [String]

  @OptionGroup var options: RecordOutputOptions

  mutating func run() throws {
    let compiled = try options.compiledFilter()
    let makeAnalyzer = try options.analyzerFactory()
    var out = OutputBuffer()
    var renderer = makeShowRenderer(options.format, verbose: options.verbose)
    var output: MatchWriter?
    var inputs = CaptureInputs(files)
    try inputs.forEach(into: &out) { path, source, out in
      if output == nil { output = try options.matchWriter(for: source) }
      renderer.beginCapture(
        path: path, format: source.formatDescription, file: files.count > 1 ? path : nil, into: &out)
      var summary = CaptureSummary()
      var analyzer = makeAnalyzer()
      // Requests wait in the lookahead for their answer; every record still comes out, in order.
      var lookahead = ResponseLookahead()
      func each(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp) throws {
        try emit(record, analyzed, start: start, compiled, &renderer, output, into: &out)
        // A closed stdout ends the run.
        guard out.flush() else { throw ExitCode.success }
      }
      try CaptureInputs.read(source, label: path) { record in
        var record = record
        let analyzed = analyzer.analyze(&record)
        summary.add(record, analyzed.decoded)
        let start = summary.first ?? record.timestamp
        try lookahead.push(record, analyzed) { try each($0, $1, start: start) }
        return true
      }
      let start = summary.first ?? Timestamp(unixMicroseconds: 0)
      try lookahead.finish(analyzer.finish()) { try each($0, $1, start: start) }
      renderer.endCapture(summary, damage: source.damage, into: &out)
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try options.close(output)
    try inputs.exitIfFailed()
  }
}
