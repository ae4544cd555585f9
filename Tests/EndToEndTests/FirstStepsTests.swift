import Foundation
import Testing

/// What a new user types first, often from tshark habits: tshark's output options, a
/// bad filter, an output named like another format, an output that cannot be written.
@Suite("first steps: tshark habits and usage errors")
struct FirstStepsTests {
  static let sample = Paths.samples.appending(path: "hr-sensor.btsnoop").path

  @Test(
    "tshark's -T json, -T ek and --json are the formats they name",
    arguments: [(["-T", "json"], "json"), (["--json"], "json"), (["-T", "ek"], "ndjson"), (["-T", "text"], "text")])
  func tsharkFormats(_ options: [String], _ format: String) {
    let tshark = run(["show"] + options + [Self.sample])
    let ours = run(["show", "--format", format, Self.sample])
    #expect(tshark.status == 0, "\(tshark.stderr)")
    #expect(!ours.stdout.isEmpty)
    #expect(tshark.stdout == ours.stdout)
  }

  /// The columns are the values `--format ndjson` gives the same records.
  @Test("-T fields -e NAME…: one tab-separated column per field, for the records -Y keeps")
  func tsharkFields() throws {
    let output = run([
      "show", "-T", "fields", "-e", "frame", "-e", "ts", "-e", "dir", "-e", "att.opcode", "-e", "att.handle", "-e",
      "att.value", "-e", "conn.peer", "-Y", "att", Self.sample,
    ])
    #expect(output.status == 0, "\(output.stderr)")
    let rows = lines(output.stdout).map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let ndjson = lines(run(["show", "--format", "ndjson", "-Y", "att", Self.sample]).stdout)
    #expect(rows.count == ndjson.count && !rows.isEmpty)
    for (row, line) in zip(rows, ndjson) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let att = object["att"] as? [String: Any] ?? [:]
      let conn = object["conn"] as? [String: Any] ?? [:]
      #expect(row.count == 7)
      #expect(row[0] == "\(object["frame"] as? Int ?? -1)")
      #expect(String(format: "%.6f", object["ts"] as? Double ?? 0) == row[1])
      #expect(row[2] == (object["dir"] as? String ?? ""))
      #expect(row[3] == "\(att["opcode"] as? Int ?? -1)")
      #expect(row[4] == ((att["handle"] as? Int).map { "\($0)" } ?? ""))
      #expect(row[5] == (att["value"] as? String ?? ""))
      #expect(row[6] == ((conn["peer"] as? [String: Any])?["address"] as? String ?? ""))
    }
  }

  @Test("-q prints each capture's header and summary line only")
  func quiet() {
    let quiet = run(["show", "-q", Self.sample])
    let full = lines(run(["show", Self.sample]).stdout)
    #expect(quiet.status == 0)
    #expect(lines(quiet.stdout) == [full.first ?? "", full.last ?? ""])
    #expect(full.count > 2)
  }

  @Test(
    "tshark options without a meaning here are usage errors with a hint",
    arguments: [
      (["-T", "pdml"], "-T pdml has no counterpart here; use -T json"),
      (["-T", "fields"], "-T fields needs at least one -e FIELD"),
      (["-T", "fields", "-e", "att.opcod"], "-e att.opcod: unknown field 'att.opcod'; did you mean 'att.opcode'?"),
      (["-e", "frame"], "-e goes with -T fields"),
      (["-q", "--format", "json"], "-q prints the text summary only"),
      (["-T", "json", "--format", "ndjson"], "ask for different formats"),
    ])
  func unmappable(_ options: [String], _ message: String) {
    let output = run(["show"] + options + [Self.sample])
    #expect(output.status == 1)
    #expect(output.stderr.contains(message), "\(output.stderr)")
    #expect(output.stdout.isEmpty)
  }

  @Test("a filter error ends with the command's usage", arguments: ["show", "live"])
  func filterErrorUsage(_ command: String) {
    let output = run([command, "--filter", "att.opcode == 0x1g", command == "show" ? Self.sample : "-"])
    #expect(output.status == 1)
    #expect(output.stderr.contains("column 15: invalid hex integer '0x1g'"), "\(output.stderr)")
    #expect(output.stderr.contains("Usage: bleanalyze \(command) "), "\(output.stderr)")
    #expect(!output.stderr.contains("Usage: bleanalyze <subcommand>"))
  }

  @Test("--to that the extension contradicts: written as asked, with a warning", arguments: ["convert", "redact"])
  func extensionWarning(_ command: String) throws {
    let output = Paths.scratchFile("out.pcap")
    defer { try? FileManager.default.removeItem(at: output) }
    let result = run([command, "--to", "btsnoop", Self.sample, output.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("warning: \(output.path) is named like pcap but --to writes btsnoop"))
    #expect(try Data(contentsOf: output).prefix(8) == Data("btsnoop\0".utf8))
    let agreeing = run([command, "--to", "pcap", Self.sample, output.path])
    #expect(!agreeing.stderr.contains("warning"), "\(agreeing.stderr)")
  }

  @Test(
    "an output that cannot be written exits 2; a format that cannot hold the records 1",
    arguments: [["convert"], ["redact"], ["show", "-w"]])
  func unwritableOutput(_ command: [String]) {
    let missing = Paths.scratch.appending(path: "no-such-directory/out.pcap").path
    let arguments = command.count == 2 ? command + [missing, Self.sample] : command + [Self.sample, missing]
    let unwritable = run(arguments)
    #expect(unwritable.status == 2, "\(unwritable.stderr)")
    #expect(unwritable.stderr.contains("\(missing): cannot write: No such file or directory"))
    let air = Paths.samples.appending(path: "air-sensor.pcap").path
    let btsnoop = Paths.scratchFile("air.btsnoop").path
    let refused = run(command.count == 2 ? command + [btsnoop, air] : command + [air, btsnoop])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("btsnoop cannot hold link-layer packets"))
  }
}
