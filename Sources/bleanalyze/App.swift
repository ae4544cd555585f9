import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

extension AppAPI: ExpressibleByArgument {}

struct AppCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app",
    abstract: "The app's story: the CoreBluetooth, Android or GATT calls behind the wire, timed.",
    discussion: """
      Infers each call the app made and each event it observed, per connection and for \
      the scanner: scan, connect, request_mtu, discover_services (all or by UUID), \
      discover_characteristics, discover_descriptors, discover_included, read (short, \
      long, by UUID), write (with response, without response, long, signed), set_notify, \
      read_rssi and disconnect; disconnected (local, remote, link loss, failed to \
      establish), notification and indication streams, pair and encrypt (with their \
      trigger and the retry after them) and reconnected (the gap, and whether cached \
      handles were used). Each has its start and end, duration, frames, outcome and the \
      error each platform would hand the app.

      --api names the calls: gatt (GATT procedures), corebluetooth (CBCentralManager and \
      CBPeripheral calls and delegate callbacks, CBError and CBATTError values; \
      CBPeripheralManager where this host is the server) or android (BluetoothGatt calls and \
      callbacks with their status integers, one discoverServices() per discovery; \
      BluetoothGattServer where this host is the server).

      The stack's own traffic is told apart (origin system): connects through the Filter \
      Accept List are the app's direct connect or autoConnect, or the stack's \
      background_connect; list maintenance is no cancelled connect; the Database Hash read \
      and the Service Changed CCCD write are the stack's; scan restarts within 250 ms are \
      one scan. A bugreport's own log (logcat) puts the app's lines beside its calls and \
      adds the calls only the log shows (registerApp failures, refresh()).

      text: numbered steps per connection (calls of one kind on one attribute in a row \
      are one line: a burst of writes without response with its rate and the stalls of the \
      controller's buffers), then milestones. json: {"schema_version":2,"calls":[…]}. ndjson: one call \
      or event per line.
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Option(help: "Whose names: gatt, corebluetooth or android.")
  var api: AppAPI = .gatt

  @Flag(name: .shortAndLong, help: "List each call of a run or burst too.")
  var verbose = false

  @OptionGroup var paint: ReportColorOption

  @OptionGroup var analysis: TimelineOptions

  mutating func run() throws {
    let context = try analysis.context()
    var out = OutputBuffer()
    var renderer = AppRenderer(format: format, api: api, verbose: verbose, multipleFiles: files.count > 1)
    renderer.color = format == .text && paint.color.enabled
    renderer.begin(into: &out)
    var inputs = CaptureInputs(files)
    let verdicts = format == .text
    let (format, api, verbose, color, several) = (format, api, verbose, renderer.color, files.count > 1)
    try inputs.forEachInParallel(into: &out) { path, opened, _ -> Analyzed in
      let phone = TimelineContext.phoneLog(path, opened.source)
      // Streams unless the app's log is to be matched against the whole story.
      if phone == nil,
        let spool = AppSpool(format: format, api: api, verbose: verbose, file: several ? path : nil, color: color)
      {
        return .streamed(spool, context.streamApp(of: opened.source, label: path, throughput: verdicts, into: spool))
      }
      var analyzed = context.app(of: opened.source, label: path, throughput: verdicts, anchors: phone != nil)
      if let phone { AppLogMatcher.attach(phone, anchors: analyzed.anchors, to: &analyzed.story) }
      return .whole(analyzed.story, analyzed.summary, analyzed.throughput)
    } render: { (path, opened, analyzed: Analyzed, out) in
      switch analyzed {
      case .streamed(let spool, let rest):
        let capture = CaptureInfo(file: path, source: opened.source, summary: rest.summary)
        guard
          renderer.render(
            path: path, spool: spool, rest.story, capture: capture, throughput: rest.throughput, into: &out)
        else { throw ExitCode.success }
      case .whole(let story, let summary, let throughput):
        let capture = CaptureInfo(file: path, source: opened.source, summary: summary)
        renderer.render(path: path, story, capture: capture, throughput: throughput, into: &out)
      }
      guard out.flush() else { throw ExitCode.success }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try inputs.exitIfFailed()
  }

  /// One capture's analysis: streamed into a spool (what the end of the capture held
  /// back beside it), or the whole story.
  enum Analyzed: @unchecked Sendable {
    case streamed(AppSpool, (story: AppStory, summary: CaptureSummary, throughput: ThroughputReport?))
    case whole(AppStory, CaptureSummary, ThroughputReport?)
  }
}

extension TimelineContext {
  /// Reads every record of `source` through the analysis, the timeline and the app builder
  /// (and the throughput builder with `throughput`).
  /// A bugreport's own log, whose app lines `AppLogMatcher` puts beside the calls; nil
  /// for every other capture.
  static func phoneLog(_ path: String, _ source: any RecordSource) -> PhoneLog? {
    source.formatDescription.hasPrefix("Android bugreport") ? try? PhoneLog.open(path).log : nil
  }

  /// With `anchors`, also the packets a phone's log lines up with (`LogClock`).
  func app(of source: any RecordSource, label: String, throughput: Bool = false, anchors: Bool = false) -> (
    story: AppStory, summary: CaptureSummary, throughput: ThroughputReport?, anchors: [LogClock.Anchor]
  ) {
    var app = AppBuilder()
    var transfers = throughput ? ThroughputBuilder() : nil
    var collector = anchors ? LogClock.AnchorCollector() : nil
    let analyzed = analyze(source, label: label) { record, analyzed in
      app.add(record, analyzed)
      transfers?.add(record, analyzed)
      collector?.add(record)
    }
    return (
      app.finish(analyzed.unanswered, timeline: analyzed.timeline, gatt: analyzed.gatt), analyzed.summary,
      transfers?.finish(), collector?.anchors ?? []
    )
  }

  /// `app` streaming: each connection's calls go to `spool` when it ends; returns what the
  /// end of the capture held back. The timeline keeps only connections and attempts.
  func streamApp(of source: any RecordSource, label: String, throughput: Bool, into spool: AppSpool) -> (
    story: AppStory, summary: CaptureSummary, throughput: ThroughputReport?
  ) {
    var pipeline = RecordPipeline(
      analyzer: Analyzer(importedDatabases: imported, peers: peers, identityKeys: keys, library: library),
      stages: .analyze)
    var timeline = TimelineBuilder(pairWindowMicroseconds: window, rules: rules)
    timeline.connectionsOnly = true
    var app = AppBuilder(streaming: true)
    var transfers = throughput ? ThroughputBuilder() : nil
    CaptureInputs.read(source, label: label) { record in
      pipeline.push(record) { record, analyzed in
        timeline.add(record, analyzed)
        app.add(record, analyzed)
        transfers?.add(record, analyzed)
      }
      let analyzer = pipeline.analyzer
      for group in app.finished(timeline, gatt: analyzer.gatt, advertisedName: analyzer.advertisedName(of:)) {
        spool.add(group, start: app.captureStart ?? 0)
      }
      return true
    }
    let unanswered = pipeline.finish { _, _ in }
    let analyzer = pipeline.analyzer
    let story = app.finish(
      unanswered, timeline: timeline.finish(unanswered, advertisedName: analyzer.advertisedName(of:)),
      gatt: analyzer.gatt)
    return (story, pipeline.summary, transfers?.finish())
  }
}
