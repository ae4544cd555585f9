import Foundation
import Testing

/// Hostile files the tests make themselves, in a directory of their own.
enum HostileFiles {
  static let directory: URL = {
    let directory = Paths.scratch.appending(path: "hostile")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // A pcap that is a zero-length file.
    _ = FileManager.default.createFile(atPath: directory.appending(path: "zero-length.pcap").path, contents: Data())
    // A pcap file header cut after 10 of its 24 bytes.
    let pcap = (try? Data(contentsOf: Paths.samples.appending(path: "hr-sensor.pcap"))) ?? Data()
    _ = FileManager.default.createFile(
      atPath: directory.appending(path: "header-cut.pcap").path, contents: pcap.prefix(10))
    return directory
  }()

  static func path(_ name: String) -> String { directory.appending(path: name).path }
}

/// One run of bleanalyze and what DESIGN.md's "Exit status" says it must do.
struct ExitCase: Sendable, CustomTestStringConvertible {
  var name: String
  /// Arguments; `$HOSTILE/` stands for HostileFiles.directory.
  var arguments: [String]
  var status: Int32
  /// Texts standard error must contain; `$FILE` stands for the last argument.
  var stderrContains: [String] = []
  var stdoutContains: [String] = []
  /// For unreadable input: nothing at all on standard output.
  var stdoutEmpty = false

  var testDescription: String { name }

  var resolvedArguments: [String] {
    arguments.map { $0.replacingOccurrences(of: "$HOSTILE/", with: HostileFiles.directory.path + "/") }
  }
}

@Suite("Exit status and messages")
struct ExitStatusTests {
  static let cases: [ExitCase] = [
    ExitCase(
      name: "missing file → 2, naming it", arguments: ["show", "Samples/no-such-capture.btsnoop"], status: 2,
      stderrContains: ["$FILE"], stdoutEmpty: true),
    ExitCase(
      name: "zero-byte btsnoop → 2, empty", arguments: ["show", "Samples/empty.btsnoop"], status: 2,
      stderrContains: ["$FILE", "empty"], stdoutEmpty: true),
    ExitCase(
      name: "not a capture → 2, listing the formats", arguments: ["show", "Samples/not-a-capture.txt"], status: 2,
      stderrContains: ["$FILE", "btsnoop", "pcap"], stdoutEmpty: true),
    ExitCase(
      name: "btsnoop datalink 1003 → 2", arguments: ["show", "Samples/bad-datalink.btsnoop"], status: 2,
      stderrContains: ["$FILE", "1003"], stdoutEmpty: true),
    ExitCase(
      name: "directory → 2", arguments: ["show", "Samples"], status: 2, stderrContains: ["$FILE"],
      stdoutEmpty: true),
    ExitCase(
      name: "zero-length .pcap → 2", arguments: ["show", "$HOSTILE/zero-length.pcap"], status: 2,
      stderrContains: ["$FILE"], stdoutEmpty: true),
    ExitCase(
      name: "pcap header cut at 10 bytes → 2", arguments: ["show", "$HOSTILE/header-cut.pcap"], status: 2,
      stderrContains: ["$FILE"], stdoutEmpty: true),
    ExitCase(
      name: "unknown option → 1", arguments: ["show", "--no-such-option", "Samples/hr-sensor.btsnoop"], status: 1,
      stderrContains: ["--no-such-option"], stdoutEmpty: true),
    ExitCase(
      name: "--help → 0", arguments: ["--help"], status: 0, stdoutContains: ["show", "convert"]),
  ]

  @Test(arguments: cases)
  func exitStatus(_ exit: ExitCase) {
    let arguments = exit.resolvedArguments
    let result = run(arguments)
    #expect(result.status == exit.status, "exit status; stderr: \(result.stderr)")
    for text in exit.stderrContains {
      let wanted = text == "$FILE" ? arguments.last! : text
      #expect(result.stderr.contains(wanted), "standard error should contain \"\(wanted)\": \(result.stderr)")
    }
    for text in exit.stdoutContains {
      #expect(result.stdout.contains(text), "standard output should contain \"\(text)\"")
    }
    if exit.stdoutEmpty {
      #expect(result.stdout == "", "nothing on standard output")
    }
  }

  @Test("header-only btsnoop → 0 and no records", arguments: ["ndjson", "json", "text"])
  func headerOnly(_ format: String) throws {
    let result = run(["show", "--format", format, "Samples/header-only.btsnoop"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    switch format {
    case "ndjson":
      #expect(result.stdout == "")
    case "json":
      let document = try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
      let captures = try #require(document["captures"] as? [[String: Any]])
      #expect(captures.count == 1)
      #expect((captures.first?["records"] as? [Any])?.isEmpty == true)
    default:
      #expect(result.stdout.contains("# 0 records"), "summary line: \(result.stdout)")
    }
  }

  @Test("btsnoop cut off mid-record → 3, the complete records, and the byte offset")
  func cutOff() throws {
    let data = try Data(contentsOf: Paths.samples.appending(path: "cut-off.btsnoop"))
    let btsnoop = try BTSnoopFile(data)
    try #require(btsnoop.records.count == 9, "cut-off.btsnoop should hold 9 complete records")
    // 16-byte file header, then 24 bytes of header and incl_len bytes per complete record.
    let offset = 16 + btsnoop.records.reduce(0) { $0 + 24 + $1.payload.count }
    #expect(btsnoop.incompleteRecordOffset == offset)

    let result = run(["show", "--format", "ndjson", "Samples/cut-off.btsnoop"])
    #expect(result.status == 3)
    let records = recordLines(Data(result.stdout.utf8))
    #expect(records.map(\.frame) == (1...9).map(String.init))
    // The complete records are printed as they are when the file is whole.
    let whole = lines(run(["show", "--format", "ndjson", "Samples/hr-sensor.btsnoop"]).stdout)
    #expect(lines(result.stdout) == Array(whole.prefix(9)))
    #expect(result.stderr.contains("Samples/cut-off.btsnoop"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("warning"), "stderr: \(result.stderr)")
    #expect(
      result.stderr.contains("byte offset \(offset)"), "stderr should name byte offset \(offset): \(result.stderr)")

    // The JSON document carries the same damage.
    let json = run(["show", "--format", "json", "Samples/cut-off.btsnoop"])
    #expect(json.status == 3)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let capture = try #require((document["captures"] as? [[String: Any]])?.first)
    #expect((capture["records"] as? [Any])?.count == 9)
    #expect((capture["damage"] as? [String: Any])?["offset"] as? Int == offset)
  }

  @Test("convert of a btsnoop cut off mid-record → 3, writing the complete records")
  func convertCutOff() throws {
    let output = Paths.scratchFile("cut-off.pcap")
    defer { try? FileManager.default.removeItem(at: output) }
    let result = run(["convert", "Samples/cut-off.btsnoop", output.path])
    #expect(result.status == 3, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("byte offset"), "stderr: \(result.stderr)")
    let converted = runRaw(["show", "--format", "ndjson", output.path])
    #expect(converted.status == 0, "stderr: \(converted.stderr)")
    let whole = recordLines(runRaw(["show", "--format", "ndjson", "Samples/hr-sensor.btsnoop"]).stdout)
    #expect(recordLines(converted.stdout).map { "\($0.ts) \($0.dir)" } == whole.prefix(9).map { "\($0.ts) \($0.dir)" })
  }

  @Test("show of a good and a missing file → 2, the good one still shown")
  func worstStatusOfSeveralFiles() {
    let result = run(["show", "--format", "ndjson", "Samples/hr-sensor.btsnoop", "Samples/no-such-capture.btsnoop"])
    #expect(result.status == 2)
    #expect(lines(result.stdout).count == 49)
    #expect(result.stderr.contains("Samples/no-such-capture.btsnoop"), "stderr: \(result.stderr)")
  }

  @Test("convert to a name without a known extension and no --to → 1")
  func convertUnknownExtension() {
    let output = Paths.scratchFile("converted.capture")
    let result = run(["convert", "Samples/hr-sensor.btsnoop", output.path])
    #expect(result.status == 1, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("--to"), "the message should say how to choose a format: \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output.path), "no output file is written")
  }
}
