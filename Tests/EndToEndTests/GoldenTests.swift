import Foundation
import Testing

/// `show` on the samples, compared byte for byte with files in Golden/.
/// `BLEANALYZE_RECORD=1 swift test --filter EndToEndTests` rewrites them and fails, so that
/// a person reviews the diff before committing it.
@Suite("Golden output of show")
struct GoldenTests {
  @Test("show (text) on hr-sensor.btsnoop")
  func text() {
    checkGolden(["show", "Samples/hr-sensor.btsnoop"], golden: "show-hr-sensor.txt")
  }

  @Test("show --format ndjson on hr-sensor-monitor.btsnoop")
  func ndjson() {
    let stdout = checkGolden(
      ["show", "--format", "ndjson", "Samples/hr-sensor-monitor.btsnoop"], golden: "show-hr-sensor-monitor.ndjson")
    #expect(recordLines(stdout).count == 53)
  }

  @Test("show --format json on hr-sensor-monitor.btsnoop")
  func json() throws {
    let stdout = checkGolden(
      ["show", "--format", "json", "Samples/hr-sensor-monitor.btsnoop"], golden: "show-hr-sensor-monitor.json")
    let document = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
    #expect(document["schema_version"] as? Int == 2)
    let captures = try #require(document["captures"] as? [[String: Any]])
    #expect(captures.count == 1)
    #expect((captures.first?["records"] as? [Any])?.count == 53)
  }

  @Test("show, show -v and ndjson on secure-sensor.btsnoop (pairing, EATT, fragments, malformed)")
  func secureSensor() {
    checkGolden(["show", "Samples/secure-sensor.btsnoop"], golden: "show-secure-sensor.txt")
    checkGolden(["show", "-v", "Samples/secure-sensor.btsnoop"], golden: "show-v-secure-sensor.txt")
    let stdout = checkGolden(
      ["show", "--format", "ndjson", "Samples/secure-sensor.btsnoop"], golden: "show-secure-sensor.ndjson")
    #expect(recordLines(stdout).count == 79)
  }

  @Test("app (text, --api android and corebluetooth) and ndjson on the samples")
  func app() {
    checkGolden(["app", "--api", "android", "Samples/hr-sensor.btsnoop"], golden: "app-android-hr-sensor.txt")
    checkGolden(["app", "--api", "corebluetooth", "Samples/secure-sensor.btsnoop"], golden: "app-cb-secure-sensor.txt")
    checkGolden(["app", "--format", "ndjson", "Samples/secure-sensor.btsnoop"], golden: "app-secure-sensor.ndjson")
  }

  @Test("bleanalyze FILE is bleanalyze show FILE")
  func defaultSubcommand() {
    let implicit = run(["Samples/hr-sensor.btsnoop"])
    let explicit = run(["show", "Samples/hr-sensor.btsnoop"])
    #expect(implicit.status == 0)
    #expect(implicit.stdout == explicit.stdout)
  }
}

/// Runs bleanalyze with `arguments` and compares its standard output with `Golden/<golden>`;
/// returns the output. Expects exit status 0 and nothing on standard error.
@discardableResult
func checkGolden(_ arguments: [String], golden: String, sourceLocation: SourceLocation = #_sourceLocation) -> Data {
  let output = runRaw(arguments)
  #expect(output.status == 0, "exit status of bleanalyze \(arguments)", sourceLocation: sourceLocation)
  #expect(output.stderr == "", "standard error of bleanalyze \(arguments)", sourceLocation: sourceLocation)
  let url = Paths.golden.appending(path: golden)
  if recordingGolden {
    do {
      try FileManager.default.createDirectory(at: Paths.golden, withIntermediateDirectories: true)
      try output.stdout.write(to: url)
      Issue.record(
        "recorded \(url.path); review the diff, then run again without BLEANALYZE_RECORD",
        sourceLocation: sourceLocation)
    } catch {
      Issue.record("could not record \(url.path): \(error)", sourceLocation: sourceLocation)
    }
    return output.stdout
  }
  guard let expected = try? Data(contentsOf: url) else {
    Issue.record(
      "no golden file \(url.path); record it with BLEANALYZE_RECORD=1 swift test --filter EndToEndTests",
      sourceLocation: sourceLocation)
    return output.stdout
  }
  if expected != output.stdout {
    Issue.record(
      Comment(
        rawValue: "bleanalyze \(arguments.joined(separator: " ")) differs from \(golden):\n"
          + firstDifference(expected: expected, actual: output.stdout)),
      sourceLocation: sourceLocation)
  }
  return output.stdout
}

/// The first line that differs, with its number, or the first differing byte of a long line.
private func firstDifference(expected: Data, actual: Data) -> String {
  let expectedLines = lines(String(decoding: expected, as: UTF8.self))
  let actualLines = lines(String(decoding: actual, as: UTF8.self))
  for index in 0..<max(expectedLines.count, actualLines.count) {
    let want = index < expectedLines.count ? expectedLines[index] : "<end of output>"
    let got = index < actualLines.count ? actualLines[index] : "<end of output>"
    guard want != got else { continue }
    if want.count > 300 || got.count > 300 {
      let common = zip(want, got).prefix { $0 == $1 }.count
      let start = max(0, common - 80)
      return "line \(index + 1), character \(common + 1):\n"
        + "  expected …\(want.dropFirst(start).prefix(200))\n  actual   …\(got.dropFirst(start).prefix(200))"
    }
    return "line \(index + 1):\n  expected \(want)\n  actual   \(got)"
  }
  return "the outputs differ only in line endings"
}
