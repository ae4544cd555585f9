import Foundation
import Testing

/// `app` on the bugreports in ../shared/captures/bugreport: the app's own log lines beside
/// its calls (truth `app_log`), and the calls only the log shows (truth `app_only_calls`).
@Suite("app: a bugreport's app log")
struct BugreportAppLogTests {
  static var bugreports: [String] {
    let folder = Paths.captures.appending(path: "bugreport")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".zip") }.sorted()
  }

  static func truth(_ name: String) throws -> [String: Any] {
    let url = Paths.captures.appending(path: "bugreport/\(name).truth.json")
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
  }

  @Test(
    "every truth app_log line is on its call within 2 ms; app-only calls come from the log alone",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"), arguments: bugreports)
  func appLog(_ name: String) throws {
    let truth = try Self.truth(name)
    let output = runRaw(["app", "--format", "json", Paths.captures.appending(path: "bugreport/\(name)").path])
    #expect(output.status == 0, "\(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let calls = try #require(document["calls"] as? [[String: Any]])
    // A summary-only bugreport lost the records before its ring buffer: lines from then
    // have no call to meet.
    let firstRecord = try #require((document["captures"] as? [[String: Any]])?.first?["first_ts"] as? Double)
    var byLine: [Int: (call: [String: Any], line: [String: Any])] = [:]
    for call in calls {
      #expect(["wire", "app_log", "both"].contains(call["source"] as? String), "\(name): source")
      for line in call["app_log"] as? [[String: Any]] ?? [] {
        if let number = line["line"] as? Int { byLine[number] = (call, line) }
      }
    }
    let entries = try #require(truth["app_log"] as? [[String: Any]])
    var worst = 0.0
    for entry in entries {
      let number = entry["line"] as? Int ?? -1
      let label = "\(name) line \(number) \(entry["method"] ?? "")"
      if Double(entry["unix_us"] as? Int ?? 0) / 1e6 < firstRecord - 0.002 {
        #expect(byLine[number] == nil, "\(label): before the log's first record, yet on a call")
        continue
      }
      guard let (call, line) = byLine[number] else {
        Issue.record("\(label): on no call")
        continue
      }
      #expect(call["call"] as? String == entry["api_call"] as? String, "\(label): on \(call["call"] ?? "")")
      if let handle = entry["handle"] as? Int {
        #expect((call["conn"] as? [String: Any])?["handle"] as? Int == handle, "\(label): connection")
      }
      let expected = Double(entry["unix_us"] as? Int ?? 0) / 1e6
      let deviation = abs((line["ts"] as? Double ?? 0) - expected)
      worst = max(worst, deviation)
      #expect(deviation <= 0.002, "\(label): \(deviation * 1000) ms from the truth")
      let onWire = entry["on_wire"] as? Bool ?? true
      #expect(call["source"] as? String == (onWire ? "both" : "app_log"), "\(label): source")
    }
    // Calls only the log shows: nothing of them on the wire.
    let appOnly = try #require(truth["app_only_calls"] as? [[String: Any]], "\(name): app_only_calls")
    let ours = calls.filter { $0["source"] as? String == "app_log" }
    #expect(ours.count == appOnly.count, "\(name): app-only calls")
    for (expected, call) in zip(appOnly, ours) {
      #expect(call["call"] as? String == expected["call"] as? String)
      if let outcome = expected["outcome"] as? String { #expect(call["outcome"] as? String == outcome) }
      #expect((call["requests"] as? [Int])?.isEmpty == true && (call["responses"] as? [Int])?.isEmpty == true)
    }
    print("\(name): \(entries.count) app_log lines on their calls, worst \(Int((worst * 1e6).rounded())) µs")
  }

  /// Folding a discovery into one `discoverServices()` call (`--api android`) keeps the
  /// log lines of the steps it folds (`onSearchComplete()` sits on the last of them).
  @Test("every app-log line is on a call with every --api", arguments: ["gatt", "android", "corebluetooth"])
  func foldedStepsKeepTheirLines(_ api: String) throws {
    func lineNumbers(_ arguments: [String]) throws -> [Int] {
      let output = runRaw(["app", "--format", "json"] + arguments + ["Samples/bugreport-android-phone.zip"])
      #expect(output.status == 0, "\(output.stderr)")
      let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
      let calls = try #require(document["calls"] as? [[String: Any]])
      return calls.flatMap { ($0["app_log"] as? [[String: Any]] ?? []).compactMap { $0["line"] as? Int } }.sorted()
    }
    let all = try lineNumbers([])
    #expect(all.count >= 20)
    #expect(try lineNumbers(["--api", api]) == all)
  }
}
