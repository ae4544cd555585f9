import Foundation
import Testing

/// The ATT transactions of `timeline` against tshark's request/response pairing on the
/// real HCI captures. tshark 4.0 fills `btatt.response_in_frame` on almost no request
/// (even with -2), but `btatt.request_in_frame` on every response it pairs: the same
/// relation read from the other end.
@Suite("tshark oracle: ATT transactions")
struct TransactionOracleTests {
  @Test(
    "each request's response and latency agree with tshark's pairing",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: sharedCaptureFiles())
  func transactionsAgree(_ file: String) throws {
    let url = Paths.captures.appending(path: file)
    // Link-layer captures belong to the sniffer decoders (a later issue).
    let first = runRaw(["show", "--format", "ndjson", "--filter", "frame == 1", url.path])
    guard !first.text.contains("\"ll\":{") else { return }
    let output = runRaw(["timeline", "--format", "ndjson", url.path])
    #expect(output.status == 0, "exit status; stderr: \(output.stderr)")
    var ours: [Int: (response: Int?, latency: Double?)] = [:]
    for line in lines(output.text) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard object["type"] as? String == "transaction", let request = object["request_frame"] as? Int else { continue }
      ours[request] = (object["response_frame"] as? Int, object["latency_ms"] as? Double)
    }
    var time: [Int: Int] = [:]
    var direction: [Int: String] = [:]
    var handle: [Int: Substring] = [:]
    var tsharkPairs: [(request: Int, response: Int)] = []
    tsharkFields(
      url,
      [
        "frame.number", "frame.time_epoch", "frame.p2p_dir", "hci_mon.opcode", "btatt.request_in_frame",
        "bthci_acl.chandle",
      ]
    ) { columns in
      guard columns.count == 6, let frame = Int(columns[0]) else { return }
      time[frame] = Int(microseconds(columns[1]).filter { $0 != "." })
      direction[frame] = tsharkDirection(p2pDir: columns[2], monitorOpcode: columns[3])
      handle[frame] = columns[5]
      if let request = columns[4].split(separator: ",").first.flatMap({ Int($0) }) {
        tsharkPairs.append((request, frame))
      }
    }
    guard !tsharkPairs.isEmpty else { return }
    var sameDirection = 0
    var otherConnection = 0
    var disagreements: [String] = []
    for pair in tsharkPairs {
      // A response goes the other way from its request, on the same connection. tshark
      // pairs by opcode alone: when both sides run discovery at once it answers a request
      // with the other side's response, and with several connections it takes another
      // connection's response. Those are tshark's errors, counted apart.
      if let a = direction[pair.request], a != "null", a == direction[pair.response] {
        sameDirection += 1
        continue
      }
      if handle[pair.request] != handle[pair.response] {
        otherConnection += 1
        continue
      }
      let actual = ours[pair.request]
      guard actual?.response == pair.response else {
        disagreements.append(
          "request #\(pair.request): tshark #\(pair.response), ours \(actual?.response.map { "#\($0)" } ?? "none")")
        continue
      }
      let expected = (time[pair.response] ?? 0) - (time[pair.request] ?? 0)
      if let latency = actual?.latency, Int((latency * 1000).rounded()) != expected {
        disagreements.append("request #\(pair.request): latency \(latency) ms, tshark's frames \(expected) µs apart")
      }
    }
    let compared = tsharkPairs.count - sameDirection - otherConnection
    let agreement = Double(compared - disagreements.count) / Double(max(compared, 1))
    #expect(
      agreement >= 0.99,
      "\(file): \(disagreements.count) of \(compared) disagree:\n\(disagreements.prefix(12).joined(separator: "\n"))")
    print(
      "transaction oracle \(file): \(compared - disagreements.count)/\(compared) agree; tshark's pairs left out: \(sameDirection) in one direction, \(otherConnection) across connections"
    )
  }
}
