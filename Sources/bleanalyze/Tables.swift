import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct TablesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tables",
    abstract: "One set of tables for many captures: captures, connections, calls, transactions and more, as NDJSON.",
    discussion: """
      Reads every capture named (a directory is searched for captures, recursively; files \
      in it that are not captures are left out, a directory named bugreport-… or \
      sysdiagnose_… is an unpacked phone archive and one capture) and writes one NDJSON \
      file per table into --out: captures, connections, attempts, calls, transactions, \
      pairs, disconnections, advertisers, transfers and gatt. Every row has `capture`, \
      the capture's id (its path as found, or --capture-id), and is the item the \
      single-capture command prints for the same thing: a connections, attempts, \
      transactions or pairs row is timeline's, a calls row app's (gatt names), a transfers \
      row throughput's, an advertisers row devices', a gatt row gatt's; disconnections \
      flattens each connection's disconnect. captures has one row per capture with its \
      file, hash, format, span, records, damage, error (a file that could not be read is \
      a row, never a stop), the phone's platform, model, OS version and build from a \
      bugreport or sysdiagnose, the peer's Device Information strings, the controller's \
      buffers, the ACL fragmentation and the rows it has in each table \
      (`bleanalyze schema tables`).

      With --parquet each table is also written as Parquet, DIR/TABLE/data.parquet, \
      when DuckDB is installed (its Python package or command). Captures are read in \
      parallel on the local cores, with a progress bar on a terminal. Samples/fleet/questions.sql answers the standard questions over the \
      tables with DuckDB (`bleanalyze fleet report DIR`); Samples/fleet/spark_tables.py \
      makes the same tables on Apache Spark.

      Exit status: 0, or the worst of 2 (a capture could not be read) and 3 (a capture \
      is damaged) once every table is written.
      """
  )

  @Argument(help: ArgumentHelp("Captures, phone archives or directories of them.", valueName: "capture-or-dir"))
  var inputs: [String] = []

  @Option(help: ArgumentHelp("The directory the tables go to (created when missing).", valueName: "dir"))
  var out: String?

  @Option(
    name: .customLong("capture-id"),
    help: ArgumentHelp(
      "The id of the one capture read, instead of its path (a Spark job's object URI).", valueName: "id"))
  var captureID: String?

  @Flag(help: "Only print the captures the inputs hold, one path a line (what a Spark job distributes).")
  var list = false

  @Flag(help: "Also write each table as Parquet, DIR/TABLE/data.parquet (with DuckDB, when installed).")
  var parquet = false

  @Option(help: ArgumentHelp("Captures read at once (default: the cores online).", valueName: "n"))
  var jobs: Int?

  @OptionGroup var analysis: TimelineOptions

  func validate() throws {
    if inputs.isEmpty { throw ValidationError("Missing expected argument '<capture-or-dir> ...'") }
    if inputs.contains("-") { throw ValidationError("tables reads files and directories, not stdin (-)") }
    if !list && out == nil { throw ValidationError("Missing expected option '--out <dir>'") }
    if captureID != nil && inputs.count != 1 { throw ValidationError("--capture-id names one capture") }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
  }

  mutating func run() throws {
    let found = FleetInputs.expand(inputs)
    for problem in found.problems { report(problem) }
    if list {
      // Files found in directories are opened, to leave out those that are not captures.
      var out = OutputBuffer()
      for capture in found.captures where !capture.found || FleetInputs.isCapture(capture.path) {
        out.append(string: capture.path + "\n")
      }
      out.flush(force: true)
      return
    }
    let directory = out ?? "."
    var files = try TableFiles(directory: directory)
    let context = try analysis.context()
    let captures = found.captures
    let id = captureID
    var progress = FleetProgress(total: captures.count)
    var worst: Int32 = found.problems.isEmpty ? 0 : ExitStatus.unreadable
    var read = 0
    ParallelFiles<FleetOutcome>.run(
      count: captures.count, ahead: 2 * (jobs ?? ParallelFiles<FleetOutcome>.cores),
      threads: jobs ?? ParallelFiles<FleetOutcome>.cores
    ) { index, _ in
      context.fleetOutcome(captures[index], id: id)
    } deliver: { _, outcome in
      switch outcome {
      case .skipped: break
      case .read(let rows, let status):
        files.append(rows)
        worst = max(worst, status)
        read += 1
      }
      progress.advance()
    }
    progress.finish()
    try files.close()
    report("tables: \(read) capture\(read == 1 ? "" : "s") into \(directory): " + files.summary)
    if parquet, let problem = DuckDB.writeParquet(directory) {
      throw Failure("tables --parquet: \(problem)", status: ExitStatus.unreadable)
    }
    if worst != 0 { throw ExitCode(worst) }
  }
}

/// What reading one capture for the tables gave.
enum FleetOutcome: @unchecked Sendable {
  /// A file found in a directory that is not a capture.
  case skipped
  /// Its rows, and its exit status (0, 2 unreadable, 3 damaged).
  case read(FleetRows, status: Int32)
}

/// The captures the inputs of `tables` or `diff` hold.
enum FleetInputs {
  struct Capture: Sendable {
    var path: String
    /// Found in a directory: a file there that is not a capture is left out quietly.
    var found: Bool
  }

  /// Files as they are; directories searched recursively in name order, an unpacked
  /// phone archive (`bugreport*`, `sysdiagnose*`) being one capture.
  static func expand(_ inputs: [String]) -> (captures: [Capture], problems: [String]) {
    var captures: [Capture] = []
    var problems: [String] = []
    for input in inputs {
      guard isDirectory(input), !isPhoneArchive(input) else {
        captures.append(Capture(path: input, found: false))
        continue
      }
      walk(input, depth: 0, into: &captures, problems: &problems)
    }
    return (captures, problems)
  }

  /// Whether the file opens as a capture: one that is damaged or unsupported counts (it
  /// is a row), one that is empty or not a capture does not.
  static func isCapture(_ path: String) -> Bool {
    do {
      _ = try CaptureFile.open(path)
      return true
    } catch {
      return error.reason != .notACapture && error.reason != .empty
    }
  }

  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// An unpacked phone archive keeps the archive's name: `bugreport-panther-…`,
  /// `sysdiagnose_2024.05.14_…` (a folder named just `bugreport` holds several).
  static func isPhoneArchive(_ path: String) -> Bool {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return ["bugreport-", "bugreport_", "sysdiagnose-", "sysdiagnose_"].contains { name.hasPrefix($0) }
  }

  private static func walk(_ directory: String, depth: Int, into captures: inout [Capture], problems: inout [String]) {
    guard depth < 16 else { return problems.append("\(directory): directories nested too deep; not searched") }
    guard let handle = opendir(directory) else {
      return problems.append("\(directory): cannot open: \(String(cString: strerror(errno)))")
    }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      if name.hasPrefix(".") { continue }
      names.append(name)
    }
    closedir(handle)
    let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    for name in names.sorted() {
      let path = base + "/" + name
      if isDirectory(path) && !isPhoneArchive(path) {
        walk(path, depth: depth + 1, into: &captures, problems: &problems)
      } else {
        captures.append(Capture(path: path, found: true))
      }
    }
  }
}

extension TimelineContext {
  /// Reads one capture through every builder the tables draw on and renders its rows.
  func fleetOutcome(_ input: FleetInputs.Capture, id: String?) -> FleetOutcome {
    var capture = FleetCapture(id: id ?? input.path, file: input.path)
    let source: any RecordSource
    do {
      source = try CaptureFile.open(input.path)
    } catch {
      if input.found, error.reason == .notACapture || error.reason == .empty { return .skipped }
      capture.error = error.description
      capture.hash = FileHash.crc32(path: input.path)
      return .read(FleetRows(capture, names: library), status: ExitStatus.unreadable)
    }
    var app = AppBuilder()
    var throughput = ThroughputBuilder()
    var devices = DeviceTable(resolver: AddressResolver(keys: keys))
    var facts = CaptureFacts()
    let phone = Self.phoneLog(input.path, source)
    var anchors = phone.map { _ in LogClock.AnchorCollector() }
    let analyzed = analyze(source, label: input.path, progress: false) { record, analyzed in
      app.add(record, analyzed)
      throughput.add(record, analyzed)
      devices.add(record, analyzed.decoded)
      facts.add(record, analyzed)
      anchors?.add(record)
    }
    capture.hash = FileHash.crc32(path: input.path)
    capture.info = CaptureInfo(file: input.path, source: source, summary: analyzed.summary)
    if !source.sources.isEmpty { capture.cohort = CaptureCohort(archive: input.path) }
    capture.timeline = analyzed.timeline
    var story = app.finish(analyzed.unanswered, timeline: analyzed.timeline, gatt: analyzed.gatt)
    if let phone, let anchors { AppLogMatcher.attach(phone, anchors: anchors.anchors, to: &story) }
    capture.story = story
    capture.buffers = throughput.buffers
    capture.throughput = throughput.finish()
    capture.devices = devices.devices()
    capture.servers = analyzed.gatt.servers
    capture.facts = facts
    let status = source.damage == nil ? 0 : ExitStatus.damaged
    return .read(FleetRows(capture, names: library), status: status)
  }
}

/// The open table files of a `tables` run.
struct TableFiles {
  let directory: String
  private var descriptors: [FleetTable: Int32] = [:]
  private var rows: [FleetTable: Int] = [:]

  init(directory: String) throws {
    self.directory = directory
    try Self.makeDirectory(directory)
    for table in FleetTable.allCases {
      let path = directory + "/" + table.fileName
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard fd >= 0 else {
        throw Failure("\(path): cannot write: \(String(cString: strerror(errno)))", status: ExitStatus.unreadable)
      }
      descriptors[table] = fd
    }
  }

  static func makeDirectory(_ path: String) throws {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
      prefix += part + "/"
      if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
        throw Failure("\(path): cannot create: \(String(cString: strerror(errno)))", status: ExitStatus.unreadable)
      }
    }
  }

  mutating func append(_ capture: FleetRows) {
    for (table, bytes) in capture.tables where !bytes.isEmpty {
      guard let fd = descriptors[table] else { continue }
      bytes.withUnsafeBytes { raw in
        var done = 0
        while done < raw.count {
          let written = write(fd, raw.baseAddress! + done, raw.count - done)
          if written < 0 && errno == EINTR { continue }
          guard written > 0 else { return }
          done += written
        }
      }
    }
    for (table, count) in capture.counts { rows[table, default: 0] += count }
  }

  /// `captures 25, connections 61, …`
  var summary: String {
    FleetTable.allCases.map { "\($0.rawValue) \(rows[$0] ?? 0)" }.joined(separator: ", ")
  }

  mutating func close() throws {
    for (table, fd) in descriptors where Glibc.close(fd) != 0 {
      throw Failure(
        "\(directory)/\(table.fileName): cannot write: \(String(cString: strerror(errno)))",
        status: ExitStatus.unreadable)
    }
    descriptors = [:]
  }
}

/// `tables: 312/1000 captures [#######·············] 31%` on stderr when it is a terminal.
struct FleetProgress {
  let total: Int
  let enabled = isatty(2) != 0
  private var done = 0
  private var lastDraw: Int64 = 0
  private var drawn = false

  init(total: Int) {
    self.total = total
  }

  mutating func advance() {
    done += 1
    guard enabled else { return }
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    let now = Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    guard now - lastDraw >= 100 || done == total else { return }
    lastDraw = now
    let width = 30
    let filled = total > 0 ? done * width / total : width
    let bar = String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled)
    let percent = total > 0 ? done * 100 / total : 100
    writeStandardError("\rtables: \(done)/\(total) captures [\(bar)] \(percent)%\u{1B}[K")
    drawn = true
  }

  mutating func finish() {
    guard drawn else { return }
    writeStandardError("\r\u{1B}[K")
  }
}
