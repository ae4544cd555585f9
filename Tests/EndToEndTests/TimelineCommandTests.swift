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

  /// fossibot's phone connects three times in a row to a lamp that never answers: each
  /// link ends with 0x3E about 6.6 intervals of 18.75 ms after it completed. That is a
  /// connection that failed to establish, not a link loss; the fourth connection runs.
  @Test(
    "0x3E in the first connection events is failed_to_establish (fossibot)",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func failedToEstablish() throws {
    let path = Paths.captures.appending(path: "real/fossibot-bluetooth__btsnoop_hci.btsnoop").path
    let output = runRaw(["timeline", "--format", "json", path])
    #expect(output.status == 0, "\(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let connections = try #require(document["connections"] as? [[String: Any]])
    let ends = connections.prefix(4).map { connection -> String in
      let disconnect = connection["disconnect"] as? [String: Any]
      return "\(disconnect?["reason"] as? Int ?? -1) \(disconnect?["initiator"] as? String ?? "-")"
    }
    #expect(ends == ["62 failed_to_establish", "62 failed_to_establish", "62 failed_to_establish", "22 local"])
    let text = run(["timeline", path]).stdout
    #expect(text.components(separatedBy: "(0x3e), failed to establish").count - 1 == 3, "\(text.prefix(2000))")
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
