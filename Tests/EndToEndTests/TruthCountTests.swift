import Foundation
import Testing

/// The synthetic captures in ../shared/captures/synthetic, each with a `.truth.json`.
func syntheticCaptures() -> [String] {
  let folder = Paths.captures.appending(path: "synthetic").path
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  return names.filter { $0.hasSuffix(".btsnoop") && names.contains($0 + ".truth.json") }.sorted()
}

/// A synthetic capture's path and its `.truth.json`.
func syntheticTruth(_ name: String) throws -> (url: URL, truth: [String: Any]) {
  let url = Paths.captures.appending(path: "synthetic/\(name)")
  let data = try Data(contentsOf: URL(fileURLWithPath: url.path + ".truth.json"))
  return (url, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
}

/// Counts of `show --format ndjson` against what the generator says happened.
@Suite("truth: ATT, SMP and L2CAP signaling counts")
struct TruthCountTests {
  @Test(
    "per-opcode counts equal .truth.json",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func countsMatch(_ name: String) throws {
    let (url, truth) = try syntheticTruth(name)
    let output = runRaw(["show", "--format", "ndjson", "--filter", "att or smp or l2cap.signaling", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")

    var att: [String: Int] = [:]
    var smp: [String: Int] = [:]
    var signaling: [String: Int] = [:]
    func key(_ value: Any?) -> String? { (value as? Int).map { "0x" + String(format: "%02X", $0) } }
    for line in recordLines(output.stdout) {
      if let code = key((line.object["att"] as? [String: Any])?["opcode"]) { att[code, default: 0] += 1 }
      if let code = key((line.object["smp"] as? [String: Any])?["code"]) { smp[code, default: 0] += 1 }
      let l2cap = line.object["l2cap"] as? [String: Any]
      if let code = key((l2cap?["signaling"] as? [String: Any])?["code"]) { signaling[code, default: 0] += 1 }
    }

    let byOpcode = (truth["att"] as? [String: Any])?["by_opcode"] as? [String: [String: Any]] ?? [:]
    #expect(!byOpcode.isEmpty)
    #expect(att == byOpcode.mapValues { $0["count"] as? Int ?? -1 }, "ATT opcodes")
    let smpTruth = truth["smp"] as? [String: [String: Any]] ?? [:]
    #expect(smp == smpTruth.mapValues { $0["count"] as? Int ?? -1 }, "SMP codes")
    let signalingTruth = truth["l2cap_signaling"] as? [String: Int] ?? [:]
    #expect(signaling == signalingTruth, "L2CAP signaling codes")
  }
}
