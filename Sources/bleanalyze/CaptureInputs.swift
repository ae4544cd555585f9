import ArgumentParser
import BLECapture
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

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
        source = try Self.open(path)
      } catch {
        // Report now, go on with the other files, and exit with the worst status.
        reportUnopened("\(error)", after: &out)
        continue
      }
      try body(path, source, &out)
      reportRead(path, source, after: &out)
    }
  }

  /// The capture at `path`; `-` is standard input, copied whole into a temporary file
  /// (the readers map their file, and libpcap reads it by name) that is removed once
  /// the capture is open.
  static func open(_ path: String) throws(CaptureError) -> any RecordSource {
    guard path == "-" else { return try CaptureFile.open(path) }
    let copy = try copyStandardInput()
    defer { unlink(copy) }
    do {
      return try CaptureFile.open(copy)
    } catch var error {
      error.path = "-"
      throw error
    }
  }

  /// Copies standard input into a new temporary file and gives its path.
  private static func copyStandardInput() throws(CaptureError) -> String {
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(directory)/bleanalyze-stdin-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw CaptureError(
        .cannotOpen("no temporary file in \(directory): \(String(cString: strerror(errno)))"), path: "-")
    }
    defer { close(fd) }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { chunk.deallocate() }
    while true {
      let count = Glibc.read(0, chunk.baseAddress, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      var written = 0
      while written < count {
        let n = Glibc.write(fd, chunk.baseAddress! + written, count - written)
        guard n > 0 else {
          unlink(path)
          throw CaptureError(.cannotOpen("writing \(path): \(String(cString: strerror(errno)))"), path: "-")
        }
        written += n
      }
    }
    return path
  }

  /// A file that could not be opened: its message, after what `out` holds.
  private mutating func reportUnopened(_ message: String, after out: inout OutputBuffer) {
    out.flush(force: true)
    report(message)
    worst = max(worst, ExitStatus.unreadable)
  }

  /// A file that was read: its source's notes and damage, after what `out` holds.
  private mutating func reportRead(_ path: String, _ source: any RecordSource, after out: inout OutputBuffer) {
    out.flush(force: true)
    for note in source.notes { report("\(path): note: \(note)") }
    if let damage = source.damage {
      report("\(path): warning: damaged: \(damage)")
      worst = max(worst, ExitStatus.damaged)
    }
  }

  struct OpenFailure: Error {
    let message: String
  }

  /// A capture that opened, handed between threads: each is read by one thread at a time.
  struct Opened: @unchecked Sendable {
    let source: any RecordSource
  }

  /// Like `forEach`, with the files read on both cores: `analyze` runs on whichever
  /// thread claims a file (`inOrder` when the file is the next one due, so its output
  /// can go straight to stdout), and `render` gets each result in file order, on this
  /// thread, followed by the file's notes and damage.
  mutating func forEachInParallel<Result>(
    into out: inout OutputBuffer,
    analyze: @escaping @Sendable (_ path: String, Opened, _ inOrder: Bool) -> Result,
    render: (String, Opened, Result, inout OutputBuffer) throws -> Void
  ) throws {
    let files = files
    try ParallelFiles<Swift.Result<(Opened, Result), OpenFailure>>.run(
      count: files.count,
      work: { index, inOrder in
        do {
          let opened = Opened(source: try Self.open(files[index]))
          return .success((opened, analyze(files[index], opened, inOrder)))
        } catch {
          return .failure(OpenFailure(message: "\(error)"))
        }
      },
      deliver: { index, outcome in
        let path = files[index]
        let opened: Opened
        let result: Result
        switch outcome {
        case .success(let read): (opened, result) = read
        case .failure(let failure):
          reportUnopened(failure.message, after: &out)
          return
        }
        try render(path, opened, result, &out)
        reportRead(path, opened.source, after: &out)
      })
  }

  /// Reads every record of `source`, updating a progress line on stderr when it is a
  /// terminal and stdout is not (and `progress`). `each` returns false to stop early.
  static func read(
    _ source: any RecordSource, label: String, progress shown: Bool = true, _ each: (Record) throws -> Bool
  ) rethrows {
    var progress = ProgressMeter(label: label, stdoutIsOutput: true, enabled: shown)
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
