import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

extension RenderFormat: ExpressibleByArgument {}

/// What `show` and `live` share: the record output (format, -v, --filter, -w) and the
/// analysis options.
struct RecordOutputOptions: ParsableArguments {
  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Flag(name: .shortAndLong, help: "Print every record's decoded field tree.")
  var verbose = false

  @Option(help: "Keep only the records this expression matches (see show --help).")
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
