import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

extension RenderFormat: ExpressibleByArgument {}
extension TextShowOptions.Time: ExpressibleByArgument {}

/// `--color`: when the text is painted.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
  case auto, always, never

  /// `auto` paints when stdout is a terminal and NO_COLOR is unset or empty.
  var enabled: Bool {
    switch self {
    case .always: return true
    case .never: return false
    case .auto:
      if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
      if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
      return isatty(1) == 1
    }
  }
}

/// `--color` of the text reports (`timeline`, `app`).
struct ReportColorOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Text: colour what went wrong red and the stack's own lines dim: auto (when stdout is a terminal and NO_COLOR is unset), always, never.",
      valueName: "auto|always|never"))
  var color: ColorChoice = .auto
}

/// What `show` and `live` share: the record output (format, -v, --filter, -w) and the
/// analysis options.
struct RecordOutputOptions: ParsableArguments {
  @Option(name: .customLong("format"), help: "Output format: text (the default), json or ndjson.")
  var formatChoice: RenderFormat?

  @Option(
    name: .customShort("T"),
    help: ArgumentHelp(
      "tshark's output formats: json is --format json, ek --format ndjson (one object per line), fields one tab-separated column per -e FIELD, text the default.",
      valueName: "json|ek|fields|text"))
  var tsharkFormat: String?

  @Option(
    name: .customShort("e"),
    help: ArgumentHelp(
      "With -T fields: a column, by the names --filter accepts (see show --help); repeat for more.",
      valueName: "field"))
  var fields: [String] = []

  @Flag(name: .customShort("q"), help: "Text: print each capture's summary line only, not its records (as tshark -q).")
  var quiet = false

  @Flag(name: .customLong("json"), help: "The same as --format json (-T json).")
  var json = false

  /// tshark's `-T` values and what they are here.
  enum TsharkFormat {
    case format(RenderFormat)
    case fields

    init(_ value: String) throws {
      switch value {
      case "json": self = .format(.json)
      case "ek": self = .format(.ndjson)
      case "fields": self = .fields
      case "text", "tabs": self = .format(.text)
      default:
        throw ValidationError(
          "-T \(value) has no counterpart here; use -T json (one document), -T ek (one object per line), "
            + "-T fields -e FIELD… (columns) or --format text|json|ndjson")
      }
    }
  }

  /// The format asked for, by --format, --json or -T.
  var format: RenderFormat {
    if json { return .json }
    if let tsharkFormat, case .format(let format) = try? TsharkFormat(tsharkFormat) { return format }
    return formatChoice ?? .text
  }

  /// `-T fields`: the fields to print.
  var fieldColumns: [String]? {
    guard let tsharkFormat, case .fields = try? TsharkFormat(tsharkFormat) else { return nil }
    return fields
  }

  @Flag(name: [.short, .long, .customShort("V")], help: "Print every record's decoded field tree (-V as in tshark).")
  var verbose = false

  @Option(
    name: [.long, .customShort("Y")],
    help: "Keep only the records this expression matches (see show --help); -Y as in tshark.")
  var filter: String?

  @Option(name: .customShort("c"), help: ArgumentHelp("Stop after this many matching records.", valueName: "n"))
  var count: Int?

  @Flag(name: .customShort("x"), help: "Text: a hex dump of each record's bytes under its line.")
  var hexDump = false

  @Option(
    name: .customShort("t"),
    help: ArgumentHelp(
      "Text: the time column, as tshark -t: r relative to the first record, a time of day (UTC), ad date and time (UTC), d delta from the record shown before, e Unix epoch.",
      valueName: "r|a|ad|d|e"))
  var time: TextShowOptions.Time = .relative

  @Option(
    help: ArgumentHelp(
      "Text: colour direction, errors and warnings: auto (when stdout is a terminal and NO_COLOR is unset), always, never.",
      valueName: "auto|always|never"))
  var color: ColorChoice = .auto

  @Option(
    help: ArgumentHelp(
      "Text: cut each record's line to N columns, ending it with … (default: the terminal's width on a terminal; whole lines to a pipe or file, and with -v).",
      valueName: "N"))
  var width: Int?

  @Option(
    name: .customShort("w"),
    help: ArgumentHelp(
      "Also write the matching records (with every fragment of a matching PDU) to this file.",
      discussion: "The format comes from the extension: .pcap, .pcapng, .btsnoop.", valueName: "out"))
  var write: String?

  @OptionGroup var importDB: DatabaseImportOption

  @OptionGroup var identityKeys: IdentityKeysOption

  @OptionGroup var dissectors: DissectorOptions

  /// Makes the renderer these options ask for: -T fields, -q, or the format's.
  func rendererFactory(names: DissectorLibrary) -> @Sendable () -> any ShowRenderer {
    let (columns, quiet, format, verbose, text) = (fieldColumns, quiet, format, verbose, textOptions)
    return {
      if let columns { return FieldsShowRenderer(fields: columns) }
      let renderer = makeShowRenderer(format, verbose: verbose, text: text, names: names)
      return quiet ? SummaryOnlyShowRenderer(renderer) : renderer
    }
  }

  /// The text renderer's `-t`, `-x`, `--color` and `--width`.
  var textOptions: TextShowOptions {
    TextShowOptions(time: time, hexDump: hexDump, color: color.enabled, width: width ?? Self.terminalWidth())
  }

  /// The terminal's columns when stdout is one (nil otherwise: pipes and files get whole lines).
  static func terminalWidth() -> Int? {
    guard isatty(1) == 1 else { return nil }
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return getenv("COLUMNS").flatMap { Int(String(cString: $0)) }
  }

  func validate() throws {
    if let count, count < 1 { throw ValidationError("-c needs a count of at least 1") }
    var asked: [RenderFormat] = []
    if let formatChoice { asked.append(formatChoice) }
    if json { asked.append(.json) }
    if let tsharkFormat {
      switch try TsharkFormat(tsharkFormat) {
      case .format(let format): asked.append(format)
      case .fields:
        guard !fields.isEmpty else {
          throw ValidationError("-T fields needs at least one -e FIELD, e.g. -e frame -e att.opcode")
        }
        guard asked.isEmpty else {
          throw ValidationError("-T fields prints columns; it goes with neither --format nor --json")
        }
        if verbose || hexDump { throw ValidationError("-T fields prints columns; -v and -x go with text output") }
      }
    }
    if Set(asked).count > 1 {
      throw ValidationError("--format, --json and -T ask for different formats; give one")
    }
    if !fields.isEmpty && fieldColumns == nil { throw ValidationError("-e goes with -T fields") }
    for field in fields where RecordFilter.catalog.kind(of: field) == nil {
      do {
        _ = try RecordFilter.compile(field)
        throw ValidationError("-e \(field): not a field; -e takes one field name, such as att.opcode")
      } catch let error as FilterError {
        throw ValidationError("-e \(field): \(error.message)")
      }
    }
    // Here rather than in run, so that the error ends with the command's usage.
    _ = try compiledFilter()
    if quiet && (format != .text || fieldColumns != nil) {
      throw ValidationError("-q prints the text summary only; for counts as JSON use `stats --format json`")
    }
    if let write, OutputFormat(fileName: write) == nil {
      throw ValidationError("cannot tell the format of '\(write)'; use .pcap, .pcapng or .btsnoop")
    }
  }

  func compiledFilter() throws -> Filter<FilterInput>? {
    guard let filter else { return nil }
    do {
      return try RecordFilter.compile(filter)
    } catch {
      throw ValidationError("bad --filter expression, \(error)")
    }
  }

  /// An analyzer with the imported databases, the IRKs and the dissectors.
  func analyzerFactory() throws -> @Sendable () -> Analyzer {
    let imported = try importDB.load()
    let peers = try importDB.peers()
    let library = try dissectors.library()
    let keys = identityKeys.keys
    return { Analyzer(importedDatabases: imported, peers: peers, identityKeys: keys, library: library) }
  }

  /// The `-w` writer for records of `source`'s kind, when -w was given.
  func matchWriter(for source: any RecordSource) throws -> MatchWriter? {
    guard let write else { return nil }
    try OutputFormat(fileName: write)!.check(holds: source.family, path: write)
    do throws(CaptureError) {
      return MatchWriter(
        try CaptureWriters.open(
          write, format: OutputFormat(fileName: write)!, family: source.family, resolution: source.resolution))
    } catch {
      throw Failure(error)
    }
  }

  /// Closes the `-w` file and says how many records it got.
  func close(_ writer: MatchWriter?) throws {
    guard let writer, let write else { return }
    do {
      try writer.close()
    } catch {
      throw Failure(error)
    }
    report("wrote \(writer.written) records to \(write) (\(writer.formatDescription))")
  }
}

/// One analyzed record on its way out: rendered if the filter matches, passed to `-w`.
@discardableResult
func emit(
  _ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, _ filter: Filter<FilterInput>?,
  _ renderer: inout any ShowRenderer, _ writer: MatchWriter?, into out: inout OutputBuffer
) throws -> Bool {
  let matches = filter?.matches(FilterInput(record: record, analyzed: analyzed)) ?? true
  if matches { renderer.render(record, analyzed, start: start, into: &out) }
  do throws(CaptureError) {
    try writer?.add(record, analyzed.decoded, matches: matches)
  } catch {
    throw Failure(error)
  }
  return matches
}
