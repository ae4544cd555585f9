import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    // Named here rather than from the type: that costs a reflection at every start.
    commandName: "show",
    abstract: "One line per record, decoded down to ATT and SMP.",
    discussion: """
      text: aligned columns (frame, time, dir, adapter when the capture has more than one, \
      connection and its peer's name, type, detail) and a summary line per capture; -v adds \
      each record's field tree, -x a hex dump, -t the time in tshark's modes, --color paints \
      direction, errors and warnings. Values of 4 bytes or more that are all printable ASCII (or \\r \\n \\t) are also shown as text. \
      ndjson: one object per record (frame, ts, dir, adapter, hci, acl, l2cap, att, smp, conn, \
      diagnostics), flushed as it goes. json: one document. tshark's -r, -Y, -V, -c, -x and -t \
      work too, and so do its output options: -T json (or --json) is --format json, -T ek is \
      --format ndjson, -q prints each capture's summary line only, and -T fields -e FIELD… \
      prints one tab-separated column per field, by the names below (-T pdml and psml have \
      no counterpart).

      --filter (-Y) keeps the records an expression matches, over the data-contract field names: \
      ==, !=, <, <=, >, >=, contains, in {…}; and, or, not, parentheses; a bare field tests \
      presence. Strings can be bare words, UUIDs any spelling, and ts and att.latency_ms take \
      decimals. Examples: 'att.opcode == 0x1b and conn.peer == D4:36:39:67:A2:61', \
      'smp or att.error', 'dir == tx', 'att.uuid == 2a37', 'att.opcode in {0x12 0x52}', \
      'att.latency_ms > 59.5', 'diagnostics.id contains "mtu"'. \
      Fields: \(RecordFilter.catalog.names.joined(separator: ", ")).
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @OptionGroup var options: RecordOutputOptions

  mutating func run() throws {
    let compiled = try options.compiledFilter()
    let makeAnalyzer = try options.analyzerFactory()
    let files = files
    let format = options.format
    let makeRenderer = options.rendererFactory(names: try options.dissectors.library())
    let limit = options.count
    var out = OutputBuffer()
    var inputs = CaptureInputs(files)
    // One JSON document, or one -w file, takes the captures one after the other.
    guard format == .json || options.write != nil else {
      // Each capture's text or NDJSON stands alone: the captures are read on both
      // cores, the one due next straight to stdout, the one after it into a temporary
      // file that is copied out when its turn comes.
      @Sendable func showAlone(_ path: String, _ source: any RecordSource, into out: inout OutputBuffer) -> Bool {
        var renderer = makeRenderer()
        let file = files.count > 1 ? path : nil
        return
          (try? Self.show(path, source, file: file, makeAnalyzer(), compiled, limit, &renderer, nil, into: &out)) != nil
      }
      try inputs.forEachInParallel(into: &out) { path, opened, inOrder in
        let spill = inOrder ? nil : tmpfile()
        // Without a temporary file, the capture waits for its turn.
        guard inOrder || spill != nil else { return Spilled(file: nil, completed: false, deferred: true) }
        var own = OutputBuffer(fd: spill.map(fileno) ?? 1)
        let completed = showAlone(path, opened.source, into: &own)
        own.flush(force: true)
        return Spilled(file: spill, completed: completed, deferred: false)
      } render: { path, opened, spilled, out in
        let completed = spilled.deferred ? showAlone(path, opened.source, into: &out) : spilled.completed
        guard completed, spilled.copy(into: &out) else { throw ExitCode.success }
      }
      out.flush(force: true)
      try inputs.exitIfFailed()
      return
    }
    var renderer = makeRenderer()
    var output: MatchWriter?
    try inputs.forEach(into: &out) { path, source, out in
      if output == nil { output = try options.matchWriter(for: source) }
      try Self.show(
        path, source, file: files.count > 1 ? path : nil, makeAnalyzer(), compiled, limit, &renderer, output,
        into: &out)
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try options.close(output)
    try inputs.exitIfFailed()
  }

  /// `-c` reached: the capture's reading ends.
  private struct LimitReached: Error {}

  /// One capture, record by record, up to `limit` matching records. Throws
  /// `ExitCode.success` when stdout closed.
  private static func show(
    _ path: String, _ source: any RecordSource, file: String?, _ analyzer: Analyzer, _ compiled: Filter<FilterInput>?,
    _ limit: Int?, _ renderer: inout any ShowRenderer, _ output: MatchWriter?, into out: inout OutputBuffer
  ) throws {
    renderer.adapters { source.adapterCount(upTo: 2) }
    renderer.beginCapture(path: path, format: source.formatDescription, file: file, into: &out)
    // Requests wait in the lookahead for their answer; every record still comes out, in order.
    var pipeline = RecordPipeline(analyzer: analyzer)
    var shown = 0
    func each(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp) throws {
      if try emit(record, analyzed, start: start, compiled, &renderer, output, into: &out) { shown += 1 }
      // A closed stdout ends the run.
      guard out.flush() else { throw ExitCode.success }
      if let limit, shown >= limit { throw LimitReached() }
    }
    // Times are relative to the capture's first record.
    var start: Timestamp?
    do {
      try CaptureInputs.read(source, label: path) { record in
        let first = start ?? record.timestamp
        start = first
        try pipeline.push(record) { try each($0, $1, start: first) }
        return true
      }
      try pipeline.finish { [start = pipeline.start] in try each($0, $1, start: start) }
    } catch is LimitReached {}
    renderer.endCapture(
      pipeline.summary, capture: CaptureInfo(file: path, source: source, summary: pipeline.summary), into: &out)
  }
}

/// A capture's output written ahead into a temporary file (nil when it went straight
/// to stdout), and whether it was written whole.
private struct Spilled: @unchecked Sendable {
  let file: UnsafeMutablePointer<FILE>?
  let completed: Bool
  /// Not read yet: no temporary file could be made.
  let deferred: Bool

  /// Copies the file to `out` and closes it; false when stdout closed.
  func copy(into out: inout OutputBuffer) -> Bool {
    guard let file else { return true }
    defer { fclose(file) }
    rewind(file)
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { chunk.deallocate() }
    while true {
      let count = fread(chunk.baseAddress, 1, chunk.count, file)
      guard count > 0 else { return true }
      out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
      guard out.flush() else { return false }
    }
  }
}
