import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

extension RenderFormat: ExpressibleByArgument {}

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

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Flag(name: .shortAndLong, help: "Print every record's decoded field tree.")
  var verbose = false

  @Option(help: "Keep only the records this expression matches (see below).")
  var filter: String?

  @Option(
    name: .customShort("w"),
    help: ArgumentHelp(
      "Also write the matching records (with every fragment of a matching PDU) to this file.",
      discussion: "The format comes from the extension: .pcap, .pcapng, .btsnoop.", valueName: "out"))
  var write: String?

  @OptionGroup var importDB: DatabaseImportOption

  @OptionGroup var identityKeys: IdentityKeysOption

  @OptionGroup var dissectors: DissectorOptions

  func validate() throws {
    if let write, OutputFormat(fileName: write) == nil {
      throw ValidationError("cannot tell the format of '\(write)'; use .pcap, .pcapng or .btsnoop")
    }
  }

  mutating func run() throws {
    var compiled: Filter<FilterInput>?
    if let filter {
      do {
        compiled = try RecordFilter.compile(filter)
      } catch {
        throw ValidationError("bad --filter expression, \(error)")
      }
    }
    let imported = try importDB.load()
    let library = try dissectors.library()
    var out = OutputBuffer()
    var renderer = makeShowRenderer(format, verbose: verbose)
    var output: MatchWriter?
    var inputs = CaptureInputs(files)
    try inputs.forEach(into: &out) { path, source, out in
      if let write, output == nil {
        do throws(CaptureError) {
          output = MatchWriter(
            try CaptureWriters.open(
              write, format: OutputFormat(fileName: write)!, family: source.family, resolution: source.resolution))
        } catch {
          throw Failure(error)
        }
      }
      renderer.beginCapture(
        path: path, format: source.formatDescription, file: files.count > 1 ? path : nil, into: &out)
      var summary = CaptureSummary()
      var analyzer = Analyzer(importedDatabases: imported, identityKeys: identityKeys.keys, library: library)
      // Requests wait in the lookahead for their answer; every record still comes out, in order.
      var lookahead = ResponseLookahead()
      try CaptureInputs.read(source, label: path) { record in
        let analyzed = analyzer.analyze(record)
        summary.add(record, analyzed.decoded)
        let start = summary.first ?? record.timestamp
        try lookahead.push(record, analyzed) { record, analyzed in
          try Self.emit(record, analyzed, start: start, compiled, &renderer, output, into: &out)
        }
        return true
      }
      let start = summary.first ?? Timestamp(unixMicroseconds: 0)
      try lookahead.finish(analyzer.finish()) { record, analyzed in
        try Self.emit(record, analyzed, start: start, compiled, &renderer, output, into: &out)
      }
      renderer.endCapture(summary, damage: source.damage, into: &out)
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    if let output, let write {
      do {
        try output.close()
      } catch {
        throw Failure(error)
      }
      report("wrote \(output.written) records to \(write) (\(output.formatDescription))")
    }
    try inputs.exitIfFailed()
  }

  /// One record out of the lookahead: rendered if it matches, passed to `-w`; a closed
  /// stdout ends the run.
  private static func emit(
    _ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, _ filter: Filter<FilterInput>?,
    _ renderer: inout any ShowRenderer, _ output: MatchWriter?, into out: inout OutputBuffer
  ) throws {
    let matches = filter?.matches(FilterInput(record: record, analyzed: analyzed)) ?? true
    if matches { renderer.render(record, analyzed, start: start, into: &out) }
    do throws(CaptureError) {
      try output?.add(record, analyzed.decoded, matches: matches)
    } catch {
      throw Failure(error)
    }
    guard out.flush() else { throw ExitCode.success }
  }
}
