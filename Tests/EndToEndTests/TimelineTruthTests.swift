import Foundation
import Testing

/// `timeline --format json` against what the generator's stacks did (.truth.json).
@Suite("truth: connection timelines")
struct TimelineTruthTests {
  struct Capture {
    var truth: [String: Any]
    var timeline: [String: Any]
    var connections: [[String: Any]] { timeline["connections"] as? [[String: Any]] ?? [] }
    var attempts: [[String: Any]] { timeline["connection_attempts"] as? [[String: Any]] ?? [] }
    var transactions: [[String: Any]] { timeline["transactions"] as? [[String: Any]] ?? [] }
    var pairs: [[String: Any]] { timeline["pairs"] as? [[String: Any]] ?? [] }
  }

  static func load(_ name: String) throws -> Capture {
    let url = Paths.captures.appending(path: "synthetic/\(name)")
    let truthData = try Data(contentsOf: URL(fileURLWithPath: url.path + ".truth.json"))
    let truth = try #require(try JSONSerialization.jsonObject(with: truthData) as? [String: Any])
    let output = runRaw(["timeline", "--format", "json", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let timeline = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    return Capture(truth: truth, timeline: timeline)
  }

  /// Milliseconds with µs precision, as whole microseconds.
  static func micros(_ value: Any?) -> Int? {
    (value as? Double).map { Int(($0 * 1000).rounded()) }
  }

  static func frame(_ value: Any?) -> Int? {
    (value as? [String: Any])?["frame"] as? Int
  }

  @Test(
    "every truth connection is reported with the same frames, latency, parameters and disconnect",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func connectionsMatch(_ name: String) throws {
    let capture = try Self.load(name)
    let truthConnections = try #require(capture.truth["connections"] as? [[String: Any]])
    #expect(capture.connections.count == truthConnections.count)
    for truth in truthConnections {
      let completeFrame = try #require(Self.frame(truth["connection_complete"]))
      let ours = try #require(
        capture.connections.first { $0["complete_frame"] as? Int == completeFrame },
        "no connection at #\(completeFrame)")
      let label = "\(name) connection completed at #\(completeFrame)"
      #expect(ours["handle"] as? Int == truth["handle"] as? Int, "\(label)")
      #expect(ours["role"] as? String == truth["role"] as? String, "\(label)")
      let peer = ours["peer"] as? [String: Any]
      #expect(peer?["address"] as? String == truth["peer_address"] as? String, "\(label)")
      #expect(peer?["type"] as? String == truth["peer_address_type"] as? String, "\(label)")
      #expect(ours["create_frame"] as? Int == Self.frame(truth["create_connection"]), "\(label)")
      #expect(Self.micros(ours["connect_latency_ms"]) == Self.micros(truth["connect_latency_ms"]), "\(label)")
      #expect(Self.micros(ours["interval_ms"]) == Self.micros(truth["interval_ms"]), "\(label)")
      #expect(ours["latency"] as? Int == truth["latency"] as? Int, "\(label)")
      #expect(ours["supervision_timeout_ms"] as? Int == truth["supervision_timeout_ms"] as? Int, "\(label)")
      let disconnect = ours["disconnect"] as? [String: Any]
      let truthDisconnect = truth["disconnection_complete"] as? [String: Any]
      #expect(disconnect?["frame"] as? Int == truthDisconnect?["frame"] as? Int, "\(label)")
      #expect(disconnect?["reason"] as? Int == truthDisconnect?["reason"] as? Int, "\(label)")
      #expect(disconnect?["reason_name"] as? String == truthDisconnect?["reason_name"] as? String, "\(label)")
      #expect(disconnect?["initiator"] as? String == truth["disconnect_initiator"] as? String, "\(label)")
      #expect(disconnect?["command_frame"] as? Int == Self.frame(truth["disconnect_command"]), "\(label)")
      for (i, update) in (truth["connection_updates"] as? [[String: Any]] ?? []).enumerated() {
        let ourUpdates = (ours["updates"] as? [[String: Any]] ?? []).filter { $0["interval_ms"] is Double }
        #expect(ourUpdates.count > i, "\(label): update \(i) missing")
        guard ourUpdates.count > i else { continue }
        #expect(ourUpdates[i]["frame"] as? Int == update["frame"] as? Int, "\(label)")
        #expect(Self.micros(ourUpdates[i]["interval_ms"]) == Self.micros(update["interval_ms"]), "\(label)")
      }
      for change in truth["encryption"] as? [[String: Any]] ?? [] {
        let ourChanges = (ours["encryption"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []
        let frame = Self.frame(change["encryption_change"])
        let ourChange = ourChanges.first { $0["frame"] as? Int == frame }
        #expect(ourChange != nil, "\(label): no encryption change at #\(frame ?? -1)")
        // The truth names LE Enable Encryption; a peripheral's start is the LE Long Term Key Request.
        if let start = Self.frame(change["start_encryption"]) {
          #expect(ourChange?["start_frame"] as? Int == start, "\(label)")
        }
      }
    }
  }

  @Test(
    "every Create Connection is an attempt with its outcome; the cancelled one is cancelled",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func attemptsMatch(_ name: String) throws {
    let capture = try Self.load(name)
    let truthAttempts = capture.truth["connection_attempts"] as? [[String: Any]] ?? []
    #expect(capture.attempts.count == truthAttempts.count)
    for truth in truthAttempts {
      let createFrame = try #require(Self.frame(truth["create_connection"]))
      let ours = try #require(capture.attempts.first { $0["create_frame"] as? Int == createFrame })
      let result = truth["result"] as? [String: Any]
      #expect(ours["result_frame"] as? Int == result?["frame"] as? Int, "\(name) #\(createFrame)")
      #expect(ours["status"] as? Int == result?["status"] as? Int, "\(name) #\(createFrame)")
      #expect(
        (ours["peer"] as? [String: Any])?["address"] as? String == truth["peer_address"] as? String,
        "\(name) #\(createFrame)")
      if let cancel = Self.frame(truth["cancel"]) {
        #expect(ours["outcome"] as? String == "cancelled", "\(name) #\(createFrame)")
        #expect(ours["cancel_frame"] as? Int == cancel, "\(name) #\(createFrame)")
      } else if result?["status"] as? Int == 0 {
        #expect(ours["outcome"] as? String == "connected", "\(name) #\(createFrame)")
      }
    }
  }

  /// Request opcodes (and the indication) that open a transaction.
  static let requestOpcodes: Set<Int> = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1D, 0x20]

  @Test(
    "every ATT request is a transaction with its response",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func transactionsMatch(_ name: String) throws {
    let capture = try Self.load(name)
    let att = try #require(capture.truth["att"] as? [String: Any])
    let byOpcode = try #require(att["by_opcode"] as? [String: [String: Any]])
    var expected: [Int: Int] = [:]
    for (key, entry) in byOpcode {
      let opcode = Int(key.dropFirst(2), radix: 16) ?? -1
      if Self.requestOpcodes.contains(opcode) { expected[opcode] = entry["count"] as? Int ?? 0 }
    }
    var ours: [Int: Int] = [:]
    for transaction in capture.transactions { ours[transaction["opcode"] as? Int ?? -1, default: 0] += 1 }
    #expect(ours == expected)
    let unanswered = capture.transactions.filter { $0["response_frame"] as? Int == nil }
    #expect(unanswered.isEmpty, "\(unanswered.prefix(5))")
    let errors = capture.transactions.count { $0["outcome"] as? String == "error" }
    let truthErrors = (att["errors_by_code"] as? [String: [String: Any]] ?? [:]).values.reduce(0) {
      $0 + ($1["count"] as? Int ?? 0)
    }
    #expect(errors == truthErrors)
  }

  /// The writes the generator's peripheral answers with notifications or indications
  /// (tools/bumble-gen/README.md, scenario ios-central steps 9 and 10).
  static let answeredWrites: Set<String> = [
    "start stream", "NUS AT+VER?", "NUS AT+BAT?", "NUS AT+ID?", "status request",
  ]

  @Test(
    "write→notify pairs are found for the writes the peripheral answered",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures().filter { $0.hasPrefix("ios-central") && !$0.contains("peripheral") })
  func pairsMatch(_ name: String) throws {
    let capture = try Self.load(name)
    let operations = try #require(capture.truth["operations"] as? [[String: Any]])
    let generator = try #require(capture.truth["generator"] as? [String: Any])
    let start = try #require(generator["capture_start_unix"] as? Double)
    let answered = operations.filter { Self.answeredWrites.contains($0["what"] as? String ?? "") }
    #expect(answered.count == Self.answeredWrites.count)
    let frames = Self.frameTimes(of: name)
    for operation in answered {
      let handle = operation["attr_handle"] as? Int
      let time = start + Double(operation["t_us"] as? Int ?? 0) / 1e6
      let pair = capture.pairs.first { pair in
        guard pair["write_handle"] as? Int == handle, let frame = pair["write_frame"] as? Int else { return false }
        return abs(frames[frame - 1] - time) < 0.005
      }
      #expect(pair != nil, "\(name): no pair for \(operation["what"] ?? "") on handle \(handle ?? -1)")
      #expect(pair?["rule"] as? String == "service")
    }
  }

  /// Each frame's Unix time, from `show --format ndjson`.
  static func frameTimes(of name: String) -> [Double] {
    let url = Paths.captures.appending(path: "synthetic/\(name)")
    return recordLines(runRaw(["show", "--format", "ndjson", url.path]).stdout, objects: false).map {
      Double($0.ts) ?? 0
    }
  }
}

/// `timeline`'s transactions are the pairs `show` annotates, which ResponseOracleTests
/// holds against tshark: the same request, answer and latency, and an outcome for every
/// request and indication.
@Suite("timeline transactions equal show's request/response pairs")
struct TimelineShowConsistencyTests {
  @Test(
    "every request of show is a transaction of timeline with the same answer",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: sharedCaptureFiles().filter { !$0.contains("scale") })
  func sameTransactions(_ file: String) throws {
    let url = Paths.captures.appending(path: file)
    var shown: [Int: String] = [:]
    let show = runRaw(["show", "--format", "ndjson", "--filter", "att.outcome", url.path])
    for line in recordLines(show.stdout) {
      let att = line.object["att"] as? [String: Any]
      shown[Int(line.frame) ?? 0] = "\(jsonText(att?["response_frame"])) \(jsonText(att?["latency_ms"]))"
    }
    var timed: [Int: String] = [:]
    let timeline = runRaw(["timeline", "--format", "ndjson", url.path])
    #expect(timeline.status == 0, "\(timeline.stderr)")
    for line in lines(timeline.text) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard object["type"] as? String == "transaction", let frame = object["request_frame"] as? Int else { continue }
      timed[frame] = "\(jsonText(object["response_frame"])) \(jsonText(object["latency_ms"]))"
    }
    #expect(timed == shown, "\(file): \(Set(timed.keys).symmetricDifference(shown.keys).sorted().prefix(10))")
  }
}
