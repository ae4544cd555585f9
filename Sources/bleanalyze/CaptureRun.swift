import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

/// The loop of the analysis commands (gatt, and those to come): every record of every
/// file through an `Analyzer`, with progress on a terminal. An unreadable file is
/// reported and skipped, a damaged one warned about; `run` returns the exit status
/// they call for, for the caller to use once its output is written.
struct CaptureRun {
  var importedDatabases: [(address: DeviceAddress?, database: GATTDatabase)] = []

  func run(
    _ files: [String], record body: (String, Record, AnalyzedRecord) -> Void = { _, _, _ in },
    finished: (String, Analyzer) -> Void
  ) -> Int32 {
    var worst: Int32 = 0
    for path in files {
      let source: any RecordSource
      do {
        source = try CaptureFile.open(path)
      } catch {
        report("\(error)")
        worst = max(worst, ExitStatus.unreadable)
        continue
      }
      var analyzer = Analyzer(importedDatabases: importedDatabases)
      var progress = ProgressMeter(label: path, stdoutIsOutput: false)
      var records = 0
      while let record = source.next() {
        body(path, record, analyzer.analyze(record))
        records += 1
        progress.update(records: records, done: source.progress.done, total: source.progress.total)
      }
      progress.finish()
      finished(path, analyzer)
      for note in source.notes { report("\(path): note: \(note)") }
      if let damage = source.damage {
        report("\(path): warning: damaged: \(damage)")
        worst = max(worst, ExitStatus.damaged)
      }
    }
    return worst
  }
}

/// `--import-db FILE`: databases exported by `gatt --export-db` (or `gatt --format
/// json`) that name the handles of captures without discovery.
struct DatabaseImportOption: ParsableArguments {
  @Option(
    name: .customLong("import-db"),
    help: ArgumentHelp(
      "Name handles with the GATT databases in this file (from gatt --export-db).",
      discussion:
        "Matched by peer address; a file with one peer also serves connections whose peer the capture does not show.",
      valueName: "file"))
  var path: String?

  func load() throws -> [(address: DeviceAddress?, database: GATTDatabase)] {
    guard let path else { return [] }
    let text: String
    do {
      text = try TextFile.read(path)
    } catch {
      throw Failure("\(error)", status: ExitStatus.usage)
    }
    do {
      return try GATTDatabase.imported(from: text)
    } catch {
      throw Failure("\(path): \(error)", status: ExitStatus.usage)
    }
  }
}
