import Foundation
import Testing

/// Several files are read two at a time on two cores (ParallelFiles); what comes out
/// must be what reading them one after the other gives, in file order.
@Suite struct SeveralFilesTests {
  static let files = [
    "Samples/hr-sensor.btsnoop", "Samples/scanner.btsnoop", "Samples/hr-sensor.pcapng", "Samples/secure-sensor.btsnoop",
    "Samples/hr-sensor.btsnoop",
  ]

  @Test func showTextIsEachFileInTurn() {
    let together = run(["show"] + Self.files)
    #expect(together.status == 0)
    let oneByOne = Self.files.map { run(["show", $0]).stdout }.joined()
    #expect(together.stdout == oneByOne)
  }

  /// Each file's NDJSON records, with the `file` field, in file order.
  @Test func showNDJSONKeepsFileOrder() throws {
    let together = run(["show", "--format", "ndjson"] + Self.files)
    #expect(together.status == 0)
    var files: [String] = []
    for line in lines(together.stdout) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let file = try #require(object["file"] as? String)
      if files.last != file { files.append(file) }
    }
    #expect(files == Self.files)
  }

  /// A file that cannot be read is reported in its place; the others are still read and the
  /// exit status is 2.
  @Test(arguments: [["show"], ["stats"], ["timeline"], ["devices"]])
  func unreadableFileInTheMiddle(command: [String]) {
    let files = ["Samples/hr-sensor.btsnoop", "Samples/no-such-file.btsnoop", "Samples/scanner.btsnoop"]
    let together = run(command + files)
    #expect(together.status == 2)
    #expect(together.stderr.contains("no-such-file.btsnoop"))
    let readable = run(command + [files[0], files[2]])
    #expect(together.stdout == readable.stdout)
  }
}
