import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect

/// What `timeline` and `stats` share: how write→notify pairs are found, and the
/// GATT names and address resolution every analysis uses.
struct TimelineOptions: ParsableArguments {
  @Option(
    name: .customLong("pair-window"),
    help: ArgumentHelp(
      "How long a write waits for the notification that answers it.",
      discussion: "A number with ms or s (500ms, 2s, 1.5s); a bare number is seconds.", valueName: "time"))
  var pairWindow: String = "2s"

  @Option(
    name: .customLong("pair"),
    help: ArgumentHelp(
      "A write→notify rule, WRITE:NOTIFY (repeatable).",
      discussion: """
        Each side is a characteristic UUID (ff02, 2a39, or 128-bit) or a handle with 0x \
        (0x0031). A write the rule names is answered by the first notification or \
        indication of the other side, even on the same characteristic; other writes by the \
        first on another characteristic of their service. Either way the answer comes at \
        least one connection interval after the write (the next connection event).
        """, valueName: "write:notify"))
  var pairs: [String] = []

  @OptionGroup var importDB: DatabaseImportOption

  @OptionGroup var identityKeys: IdentityKeysOption

  @OptionGroup var dissectors: DissectorOptions

  func validate() throws {
    guard Self.microseconds(pairWindow) != nil else {
      throw ValidationError("--pair-window '\(pairWindow)' is not a time such as 500ms or 2s")
    }
    for text in pairs where PairRule(parsing: text) == nil {
      throw ValidationError(
        "--pair '\(text)' is not WRITE:NOTIFY with UUIDs (ff02) or handles (0x0031) on each side")
    }
  }

  /// `500ms`, `2s`, `1.5` (seconds) in microseconds.
  static func microseconds(_ text: String) -> Int64? {
    let (number, scale): (Substring, Double) =
      if text.hasSuffix("ms") {
        (text.dropLast(2), 1000)
      } else if text.hasSuffix("s") {
        (text.dropLast(), 1_000_000)
      } else {
        (Substring(text), 1_000_000)
      }
    guard let value = Double(number), value >= 0, value < 86_400 else { return nil }
    return Int64((value * scale).rounded())
  }

  /// Loads what the analysis needs once for every capture.
  func context() throws -> TimelineContext {
    TimelineContext(
      imported: try importDB.load(), peers: try importDB.peers(), keys: identityKeys.keys,
      library: try dissectors.library(),
      window: Self.microseconds(pairWindow) ?? 2_000_000, rules: pairs.compactMap(PairRule.init(parsing:)))
  }
}

struct TimelineContext {
  let imported: [(address: DeviceAddress?, database: GATTDatabase)]
  let peers: PeerAssignments
  let keys: [IdentityKey]
  let library: DissectorLibrary
  let window: Int64
  let rules: [PairRule]

  /// Reads every record of `source` through the analysis and the timeline builder;
  /// `each` also sees every analyzed record. With `retired`, each connection goes there
  /// once it has ended and those before it have (after `each` saw the record that ended
  /// it), and the timeline keeps none (`TimelineBuilder.retires`).
  func timeline(
    of source: any RecordSource, label: String, _ each: (Record, AnalyzedRecord) -> Void = { _, _ in },
    retired: ((ConnectionTimeline) -> Void)? = nil
  ) -> (timeline: Timeline, summary: CaptureSummary) {
    let analyzed = analyze(source, label: label, each, retired: retired)
    return (analyzed.timeline, analyzed.summary)
  }

  /// The same, with what the analysis ends with: the requests still waiting, and the
  /// GATT databases.
  /// `progress` false leaves the terminal to a caller that shows its own (`tables`).
  func analyze(
    _ source: any RecordSource, label: String, progress: Bool = true,
    _ each: (Record, AnalyzedRecord) -> Void = { _, _ in }, retired: ((ConnectionTimeline) -> Void)? = nil
  ) -> (timeline: Timeline, unanswered: [UnansweredRequest], gatt: GATTTracker, summary: CaptureSummary) {
    var pipeline = RecordPipeline(
      analyzer: Analyzer(importedDatabases: imported, peers: peers, identityKeys: keys, library: library),
      stages: .analyze)
    var builder = TimelineBuilder(pairWindowMicroseconds: window, rules: rules)
    builder.retires = retired != nil
    CaptureInputs.read(source, label: label, progress: progress) { record in
      pipeline.push(record) { record, analyzed in
        builder.add(record, analyzed)
        each(record, analyzed)
        if let retired, !builder.retired.isEmpty { builder.takeRetired().forEach(retired) }
      }
      return true
    }
    let unanswered = pipeline.finish { _, _ in }
    let analyzer = pipeline.analyzer
    let timeline = builder.finish(unanswered, advertisedName: analyzer.advertisedName(of:))
    if let retired { builder.takeRetired().forEach(retired) }
    return (timeline, unanswered, analyzer.gatt, pipeline.summary)
  }
}
