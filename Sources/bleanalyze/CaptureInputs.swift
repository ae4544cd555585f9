import ArgumentParser
import BLECapture
import BLEOutput

/// The input handling every command that reads captures shares: open each file in
/// turn (one that cannot be opened is reported and the others still read), run the
/// command on it with a progress line on a terminal, then report the source's notes
/// and damage. The exit status is the worst seen.
struct CaptureInputs {
  let files: [String]
  private(set) var worst: Int32 = 0

  init(_ files: [String]) {
    self.files = files
  }

  /// Calls `body` with each capture that opens. `out` is flushed before a message
  /// about a file goes to stderr, so the two stay in order.
  mutating func forEach(
    into out: inout OutputBuffer, _ body: (String, any RecordSource, inout OutputBuffer) throws -> Void
  ) throws {
    for path in files {
      let source: any RecordSource
      do {
        source = try CaptureFile.open(path)
      } catch {
        // Report now, go on with the other files, and exit with the worst status.
        out.flush(force: true)
        report("\(error)")
        worst = max(worst, ExitStatus.unreadable)
        continue
      }
      try body(path, source, &out)
      out.flush(force: true)
      for note in source.notes { report("\(path): note: \(note)") }
      if let damage = source.damage {
        report("\(path): warning: damaged: \(damage)")
        worst = max(worst, ExitStatus.damaged)
      }
    }
  }

  /// Reads every record of `source`, updating a progress line on stderr when it is a
  /// terminal and stdout is not. `each` returns false to stop early.
  static func read(
    _ source: any RecordSource, label: String, _ each: (Record) throws -> Bool
  ) rethrows {
    var progress = ProgressMeter(label: label, stdoutIsOutput: true)
    var records = 0
    while let record = source.next() {
      records += 1
      guard try each(record) else { break }
      progress.update(records: records, done: source.progress.done, total: source.progress.total)
    }
    progress.finish()
  }

  /// Ends the run with the worst status seen, if it is not success.
  func exitIfFailed() throws {
    if worst != 0 { throw ExitCode(worst) }
  }
}
