import ArgumentParser
import BLEAnalysis
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct Fleet: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Questions over the tables of many captures (bleanalyze tables).",
    subcommands: [FleetReport.self]
  )
}

struct FleetReport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Answer the standard questions over a directory of tables with DuckDB.",
    discussion: """
      Runs the questions of Samples/fleet/questions.sql (built in) over the tables in DIR: \
      the NDJSON files `bleanalyze tables` writes, or the Parquet folders of \
      Samples/fleet/spark_tables.py (one per table). The questions: an overview; connect \
      time p50/p95 by phone model and by peer firmware; failed connects and failed app \
      calls with their platform status by phone model; disconnect reasons by peer; p95 ATT \
      latency per characteristic per peer firmware; notifications per second.

      DuckDB runs them: the Python package (`import duckdb` in python3) when it is there, \
      else the `duckdb` command. Without either the report says how to get one and exits \
      with status 2.

      text: a table per question. json: {"schema_version":2,"engine":…,"questions":\
      [{"name","title","columns","rows","error"}]}. ndjson: one question per line.
      """
  )

  @Argument(help: ArgumentHelp("A directory of tables.", valueName: "dir"))
  var directory: String

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Option(help: ArgumentHelp("Which DuckDB: auto, python or cli.", valueName: "engine"))
  var engine: DuckDBEngine = .auto

  func validate() throws {
    guard FleetInputs.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a directory") }
  }

  func run() throws {
    let questions = FleetQuestions.questions
    let answered: (engine: String, answers: [FleetAnswer])
    if engine != .cli, let python = DuckDB.python(directory, questions) {
      answered = ("DuckDB (python3 duckdb \(python.version))", python.answers)
    } else if engine != .python, let cli = DuckDB.cli(directory, questions) {
      answered = ("DuckDB (duckdb \(cli.version))", cli.answers)
    } else {
      throw Failure(
        """
        fleet report needs DuckDB: install the Python package (python3 -m pip install --user duckdb) \
        or the duckdb command (https://duckdb.org/docs/installation)
        """, status: ExitStatus.unreadable)
    }
    var out = OutputBuffer()
    FleetReportRenderer.render(answered.answers, engine: answered.engine, format: format, into: &out)
    out.flush(force: true)
  }
}

enum DuckDBEngine: String, ExpressibleByArgument, CaseIterable {
  case auto, python, cli
}

/// Runs the questions with DuckDB, from Python or as its command.
enum DuckDB {
  /// The views every question reads: the NDJSON file of each table, or its Parquet folder.
  static func views(_ directory: String) -> [(table: String, source: String)] {
    FleetTable.allCases.compactMap { table in
      let file = directory + "/" + table.fileName
      let folder = directory + "/" + table.rawValue
      var info = stat()
      if stat(file, &info) == 0, info.st_size > 0 {
        return (
          table.rawValue,
          "read_json(\(quoted(file)), format='newline_delimited', sample_size=-1, maximum_object_size=268435456)"
        )
      }
      if FleetInputs.isDirectory(folder) { return (table.rawValue, "read_parquet(\(quoted(folder + "/*.parquet")))") }
      return nil
    }
  }

  static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

  static let pythonRunner = """
    import decimal, json, sys
    try:
        import duckdb
    except ImportError:
        sys.exit(42)
    job = json.load(sys.stdin)
    con = duckdb.connect()
    for view in job["views"]:
        con.execute("CREATE VIEW %s AS SELECT * FROM %s" % (view["table"], view["source"]))
    print(json.dumps({"version": duckdb.__version__}))
    def plain(v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, decimal.Decimal):
            return float(v)
        return str(v)
    for q in job["questions"]:
        answer = {"name": q["name"]}
        try:
            cur = con.execute(q["sql"])
            answer["columns"] = [c[0] for c in cur.description]
            answer["rows"] = [[plain(v) for v in row] for row in cur.fetchall()]
        except Exception as e:
            answer["error"] = str(e).strip().splitlines()[0]
        print(json.dumps(answer))
    """

  /// Writes each NDJSON table of `directory` as Parquet too, `TABLE/data.parquet` (the
  /// folder layout of the Spark job), with python3's duckdb or the duckdb command. Nil
  /// when done, else why not.
  static func writeParquet(_ directory: String) -> String? {
    var statements: [String] = []
    for view in views(directory) where !view.source.hasPrefix("read_parquet") {
      let folder = directory + "/" + view.table
      if mkdir(folder, 0o755) != 0 && errno != EEXIST { return "\(folder): cannot create" }
      statements.append("COPY (SELECT * FROM \(view.source)) TO \(quoted(folder + "/data.parquet")) (FORMAT PARQUET)")
    }
    let script =
      "import sys, duckdb\ncon = duckdb.connect()\nfor s in sys.stdin.read().split('\\n'):\n    con.execute(s)\n"
    if let run = Program.run("python3", ["-c", script], input: Array(statements.joined(separator: "\n").utf8)),
      run.status == 0
    {
      return nil
    }
    if let run = Program.run("duckdb", ["-c", statements.map { $0 + ";" }.joined(separator: " ")], input: []) {
      return run.status == 0 ? nil : run.stderr.split(separator: "\n").first.map(String.init) ?? "duckdb failed"
    }
    return "no Parquet writer: install DuckDB (python3 -m pip install --user duckdb)"
  }

  /// The answers from python3's duckdb package, or nil when python3 or the package is missing.
  static func python(_ directory: String, _ questions: [(name: String, title: String, statement: String)]) -> (
    version: String, answers: [FleetAnswer]
  )? {
    var job = OutputBuffer(fd: -1)
    /// `"key":[{"first":…,"second":…},…]` of string pairs.
    func appendPairs(_ key: StaticString, _ names: (StaticString, StaticString), _ pairs: [(String, String)]) {
      job.append("\"")
      job.append(key)
      job.append("\":[")
      for (index, pair) in pairs.enumerated() {
        job.append(index == 0 ? "{\"" : ",{\"")
        job.append(names.0)
        job.append("\":")
        job.appendJSONString(pair.0)
        job.append(",\"")
        job.append(names.1)
        job.append("\":")
        job.appendJSONString(pair.1)
        job.append("}")
      }
      job.append("]")
    }
    job.append("{")
    appendPairs("views", ("table", "source"), views(directory).map { ($0.table, $0.source) })
    job.append(",")
    appendPairs("questions", ("name", "sql"), questions.map { ($0.name, $0.statement) })
    job.append("}")
    guard let run = Program.run("python3", ["-c", pythonRunner], input: job.bytes), run.status == 0 else {
      return nil
    }
    var lines = run.stdout.split(separator: "\n").makeIterator()
    guard let first = lines.next(), let header = try? JSONValue(parsing: String(first)) else { return nil }
    var answers: [FleetAnswer] = []
    for question in questions {
      var answer = FleetAnswer(name: question.name, title: question.title)
      guard let line = lines.next(), let value = try? JSONValue(parsing: String(line)) else {
        answer.error = "no answer from python3"
        answers.append(answer)
        continue
      }
      answer.error = value["error"]?.string
      answer.columns = value["columns"]?.array?.compactMap(\.string) ?? []
      answer.rows = value["rows"]?.array?.map { $0.array ?? [] } ?? []
      answers.append(answer)
    }
    return (header["version"]?.string ?? "?", answers)
  }

  /// The answers from the `duckdb` command (one run per question, CSV out), or nil
  /// when it is not on PATH.
  static func cli(_ directory: String, _ questions: [(name: String, title: String, statement: String)]) -> (
    version: String, answers: [FleetAnswer]
  )? {
    guard let version = Program.run("duckdb", ["--version"], input: []), version.status == 0 else { return nil }
    let prelude = views(directory).map { "CREATE VIEW \($0.table) AS SELECT * FROM \($0.source);" }.joined(
      separator: " ")
    let answers = questions.map { question in
      var answer = FleetAnswer(name: question.name, title: question.title)
      guard let run = Program.run("duckdb", ["-csv", "-c", prelude + " " + question.statement + ";"], input: []) else {
        answer.error = "duckdb did not run"
        return answer
      }
      guard run.status == 0 else {
        answer.error = run.stderr.split(separator: "\n").first.map(String.init) ?? "duckdb failed"
        return answer
      }
      let rows = CSV.parse(run.stdout)
      answer.columns = rows.first ?? []
      answer.rows = rows.dropFirst().map { $0.map { Double($0).map(JSONValue.number) ?? .string($0) } }
      return answer
    }
    let words = version.stdout.split(separator: " ")
    return (words.first.map(String.init) ?? "?", answers)
  }
}

/// Comma-separated values as DuckDB writes them: fields quoted with `"` when they hold a
/// comma, quote or line break, a quote doubled inside.
enum CSV {
  static func parse(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    let characters = Array(text)
    var index = 0
    while index < characters.count {
      let c = characters[index]
      index += 1
      if quoted {
        if c != "\"" {
          field.append(c)
        } else if index < characters.count, characters[index] == "\"" {
          field.append(c)
          index += 1
        } else {
          quoted = false
        }
      } else if c == "\"" {
        quoted = true
      } else if c == "," || c == "\n" {
        row.append(field)
        field = ""
        if c == "\n" {
          rows.append(row)
          row = []
        }
      } else {
        field.append(c)
      }
    }
    if !field.isEmpty || !row.isEmpty { rows.append(row + [field]) }
    return rows
  }
}

/// Runs another program found on PATH, with `input` on its stdin, and collects its output.
enum Program {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Nil when the program could not be started (not installed).
  static func run(_ program: String, _ arguments: [String], input: [UInt8]) -> Result? {
    guard let stdin = temporaryFile(input), let stdout = temporaryFile([]), let stderr = temporaryFile([]) else {
      return nil
    }
    defer {
      for file in [stdin, stdout, stderr] {
        close(file.fd)
        unlink(file.path)
      }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin.fd, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout.fd, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr.fd, 2)
    let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    guard posix_spawnp(&pid, program, &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // Exited normally: the low 7 bits are 0 and the code is in the next 8.
    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    // 127: the shell's "command not found"; posix_spawnp reports it this way on glibc.
    guard code != 127 else { return nil }
    return Result(status: code, stdout: contents(stdout.fd), stderr: contents(stderr.fd))
  }

  private static func temporaryFile(_ bytes: [UInt8]) -> (fd: Int32, path: String)? {
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(directory)/bleanalyze-run-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return nil }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    var done = 0
    while done < bytes.count {
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
      guard written > 0 else { break }
      done += written
    }
    lseek(fd, 0, SEEK_SET)
    return (fd, path)
  }

  private static func contents(_ fd: Int32) -> String {
    lseek(fd, 0, SEEK_SET)
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += block[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
