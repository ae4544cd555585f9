import Foundation
import Testing

@Suite("timeline command")
struct TimelineCommandTests {
  @Test("text and NDJSON of the samples equal Golden/")
  func golden() {
    checkGolden(["timeline", "Samples/hr-sensor.btsnoop"], golden: "timeline-hr-sensor.txt")
    checkGolden(["timeline", "-v", "Samples/secure-sensor.btsnoop"], golden: "timeline-v-secure-sensor.txt")
    checkGolden(
      ["timeline", "--format", "ndjson", "Samples/secure-sensor.btsnoop"], golden: "timeline-secure-sensor.ndjson")
  }

  @Test(
    "--pair pairs the writes it names with the notifications it names",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func pairRule() throws {
    let path = Paths.captures.appending(path: "synthetic/ios-central.btsnoop").path
    func pairs(_ options: [String]) throws -> [[String: Any]] {
      let output = runRaw(["timeline", "--format", "json"] + options + [path])
      #expect(output.status == 0, "\(output.stderr)")
      let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
      return document["pairs"] as? [[String: Any]] ?? []
    }
    // "start stream" on ff02 (0x0031) is answered by ff01 (0x002d) under the same-service rule.
    let byService = try pairs([]).first { $0["write_frame"] as? Int == 277 }
    #expect(byService?["notify_handle"] as? Int == 0x2D && byService?["rule"] as? String == "service")
    // A rule sends ff02's writes to the indications of ff03 (0x0033) instead: "start stream"
    // gets none before the next write to ff02 ("status request", #317), which gets #319.
    let byRule = try pairs(["--pair", "ff02:0x0033"])
    #expect(!byRule.contains { $0["write_frame"] as? Int == 277 })
    let statusRequest = byRule.first { $0["write_frame"] as? Int == 317 }
    #expect(statusRequest?["notify_frame"] as? Int == 319 && statusRequest?["rule"] as? String == "pair")
    // A window shorter than the 30 ms answer finds none.
    #expect(try pairs(["--pair-window", "20ms"]).allSatisfy { ($0["rtt_ms"] as? Double ?? 99) <= 20 })
  }

  @Test(
    "bad --pair and --pair-window values are usage errors",
    arguments: [["--pair", "ff02"], ["--pair", "0xzz:ff01"], ["--pair-window", "2x"], ["--pair-window", "-1s"]])
  func badOptions(_ options: [String]) {
    let output = runRaw(["timeline"] + options + ["Samples/hr-sensor.btsnoop"])
    #expect(output.status == 1)
    #expect(output.stderr.contains(options[0]), "\(output.stderr)")
  }
}
