import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "What changed between two captures or two cohorts; --fail-on for CI.",
    discussion: """
      A and B are each a capture, a directory of captures (a cohort: every capture in it, \
      as `tables` finds them) or a directory of tables `bleanalyze tables` wrote. Both \
      sides become the same tables, and the diff compares what a developer cares about: \
      the GATT database (services, characteristics, properties; always named, changed or \
      not), connection parameters, ATT_MTU, data length and PHY (link), the security level \
      and method, the controller's ACL buffers and the fragmentation of the host's ACL data \
      that follows from them, connect and ATT latency p50/p95 (overall, and per \
      characteristic with 5 or more transactions on each side), errors (ATT errors and \
      timeouts, failed connects), disconnect reasons, and each kind of transfer's median \
      rate. A latency or rate change smaller than --threshold is not shown; error and \
      disconnect counts compare per capture.

      --fail-on lists what counts as a regression: latency:+N% (a latency percentile up by \
      N % or more), throughput:-N% (a median rate down by N % or more), errors and \
      disconnects (a new one, or more per capture), gatt, link and security (any change). \
      With a regression the exit status is 1: `--fail-on latency:+20%,errors,gatt` in CI.

      text: the changes as a table. json: {"schema_version":2,"a":{…},"b":{…},\
      "gatt_unchanged":…,"changes":[{"category","subject","a","b","relative",\
      "regression"}],"regressions":n}.
      """
  )

  @Argument(help: ArgumentHelp("Before: a capture, a directory of captures or of tables.", valueName: "a"))
  var a: String

  @Argument(help: ArgumentHelp("After: a capture, a directory of captures or of tables.", valueName: "b"))
  var b: String

  @Option(help: "Output format: text or json.")
  var format: RenderFormat = .text

  @Option(
    help: ArgumentHelp(
      "The smallest latency or rate change shown, in percent.", valueName: "percent"))
  var threshold: String = "10%"

  @Option(
    name: .customLong("fail-on"),
    help: ArgumentHelp(
      "Exit with status 1 on these regressions: latency:+N%, throughput:-N%, errors, disconnects, gatt, link, security.",
      valueName: "list"))
  var failOn: String?

  @OptionGroup var analysis: TimelineOptions

  func validate() throws {
    guard Self.fraction(threshold) != nil else {
      throw ValidationError("--threshold '\(threshold)' is not a percentage such as 10%")
    }
    if let failOn {
      do {
        _ = try FleetFailOn(parsing: failOn)
      } catch {
        throw ValidationError(error.description)
      }
    }
  }

  static func fraction(_ text: String) -> Double? {
    let number = text.hasSuffix("%") ? text.dropLast() : Substring(text)
    guard let value = Double(number), value >= 0 else { return nil }
    return value / 100
  }

  mutating func run() throws {
    let context = try analysis.context()
    let before = try FleetSide.load(a, context)
    let after = try FleetSide.load(b, context)
    let diff = FleetDiff(
      FleetProfile(rows: before.rows), FleetProfile(rows: after.rows), threshold: Self.fraction(threshold) ?? 0.1,
      failOn: (try? failOn.map(FleetFailOn.init(parsing:))) ?? FleetFailOn())
    var out = OutputBuffer()
    DiffRenderer.render(
      diff, a: .init(label: a, captures: before.captures), b: .init(label: b, captures: after.captures),
      format: format, into: &out)
    out.flush(force: true)
    let regressions = diff.regressions
    if failOn != nil, !regressions.isEmpty {
      report(
        "diff: \(regressions.count) regression\(regressions.count == 1 ? "" : "s"): "
          + regressions.map { "\($0.category.rawValue) \($0.subject)" }.joined(separator: "; "))
      throw ExitCode(1)
    }
  }
}

/// One side of a diff: the rows of its tables, by table name.
struct FleetSide {
  var rows: [String: [JSONValue]] = [:]
  var captures: Int { rows["captures"]?.count ?? 0 }

  /// A directory of tables is read; a capture or a directory of captures is analysed
  /// into the same rows.
  static func load(_ path: String, _ context: TimelineContext) throws -> FleetSide {
    var side = FleetSide()
    if FleetInputs.isDirectory(path), access(path + "/" + FleetTable.captures.fileName, R_OK) == 0 {
      for table in FleetTable.allCases {
        guard let text = try? TextFile.read(path + "/" + table.fileName) else { continue }
        try side.add(table, text, from: path)
      }
      return side
    }
    let found = FleetInputs.expand([path])
    for problem in found.problems { report(problem) }
    let captures = found.captures
    var outcomes: [FleetOutcome] = []
    ParallelFiles<FleetOutcome>.run(count: captures.count, threads: ParallelFiles<FleetOutcome>.cores) { index, _ in
      context.fleetOutcome(captures[index], id: nil)
    } deliver: { _, outcome in
      outcomes.append(outcome)
    }
    for case .read(let rows, _) in outcomes {
      for (table, bytes) in rows.tables {
        try side.add(table, String(decoding: bytes, as: UTF8.self), from: path)
      }
    }
    guard side.captures > 0 else { throw Failure("\(path): no capture found", status: ExitStatus.unreadable) }
    return side
  }

  mutating func add(_ table: FleetTable, _ text: String, from path: String) throws {
    for (index, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
      do {
        rows[table.rawValue, default: []].append(try JSONValue(parsing: String(line)))
      } catch {
        throw Failure(
          "\(path)/\(table.fileName): line \(index + 1): not JSON: \(error)", status: ExitStatus.unreadable)
      }
    }
  }
}
