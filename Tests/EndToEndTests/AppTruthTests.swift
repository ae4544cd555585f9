import Foundation
import Testing

/// `app --format ndjson` against the `api` list and `scanning` block of each synthetic
/// capture's .truth.json (what the generating app called, on the capture's clock).
@Suite("truth: app calls")
struct AppTruthTests {
  static let captures = [
    "ios-central.btsnoop", "ios-central-acl27.btsnoop", "android-central.btsnoop", "android-autoconnect.btsnoop",
  ]

  /// The platform whose calls a capture's truth records: android-autoconnect's app made one
  /// `discoverServices()` per discovery.
  static func api(_ name: String) -> String { name.hasPrefix("android-autoconnect") ? "android" : "gatt" }

  /// Kinds `app` reports that the truth's `api` list does not record.
  static let unrecordedKinds: Set<String> = ["reconnected"]

  static func calls(_ url: URL, api: String = "gatt") throws -> [[String: Any]] {
    let output = runRaw(["app", "--format", "ndjson", "--api", api, url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    return try lines(output.text).map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  @Test(
    "every truth call is reported with its kind, connection, handle, outcome, error and times (±2 ms); no others",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"), arguments: captures)
  func callsMatch(_ name: String) throws {
    let (url, truth) = try syntheticTruth(name)
    let generator = try #require(truth["generator"] as? [String: Any])
    let base = try #require(generator["capture_start_unix"] as? Double)
    let ours = try Self.calls(url, api: Self.api(name))
    var used = Set<Int>()
    var worstStart = 0.0
    var worstEnd = 0.0
    var matched = 0
    let api = try #require(truth["api"] as? [[String: Any]])
    // A call that caused nothing on the wire cannot be seen in it.
    let onWire = api.filter { $0["on_wire"] as? Bool != false }
    for entry in onWire {
      let kind = entry["call"] as? String ?? ""
      let label = "\(name) seq \(entry["seq"] ?? "?") \(kind)"
      var start = base + Double(entry["start_us"] as? Int ?? 0) / 1e6
      let end = base + Double(entry["end_us"] as? Int ?? 0) / 1e6
      // A call the stack queued behind its own requests (truth `system`) reaches the wire
      // only when the stack lets it go: the wire cannot show when the app made it.
      if let queued = Self.queuedBehindStack(entry, truth) { start = base + Double(queued) / 1e6 }
      let candidates = ours.indices.filter { i in
        let call = ours[i]
        let conn = call["conn"] as? [String: Any]
        return !used.contains(i) && call["call"] as? String == kind
          && conn?["handle"] as? Int == entry["handle"] as? Int
          && abs((call["start_ts"] as? Double ?? 0) - start) <= 0.002
          && (entry["attr_handle"] == nil || call["attr_handle"] as? Int == entry["attr_handle"] as? Int)
      }
      guard let i = candidates.first else {
        Issue.record("\(label): no call of that kind, connection and attribute handle starting within 2 ms")
        continue
      }
      used.insert(i)
      let call = ours[i]
      #expect(call["result"] as? String == entry["status"] as? String ?? "ok", "\(label)")
      if let outcome = entry["outcome"] as? String { #expect(call["outcome"] as? String == outcome, "\(label)") }
      if kind == "read" || kind == "write" { #expect(call["mode"] as? String == entry["mode"] as? String, "\(label)") }
      if kind == "set_notify" {
        #expect(call["mode"] as? String == entry["value"] as? String, "\(label)")
        #expect(call["cccd_handle"] as? Int == entry["cccd_handle"] as? Int, "\(label)")
      }
      let error = call["platform_error"] as? [String: Any]
      if let code = (entry["error_code"] as? String).flatMap({ Int($0.dropFirst(2), radix: 16) }) {
        #expect((kind == "connect" ? error?["hci_status"] : error?["att_error"]) as? Int == code, "\(label): error")
      }
      let startDeviation = abs((call["start_ts"] as? Double ?? 0) - start)
      let endDeviation = abs((call["end_ts"] as? Double ?? 0) - end)
      #expect(endDeviation <= 0.002, "\(label): ends \(endDeviation * 1000) ms from the truth")
      worstStart = max(worstStart, startDeviation)
      worstEnd = max(worstEnd, endDeviation)
      matched += 1
    }
    // The stack's own calls are not the app's.
    let extra = ours.indices.filter { !used.contains($0) && ours[$0]["origin"] as? String == "app" }.map {
      ours[$0]["call"] as? String ?? ""
    }
    #expect(extra.allSatisfy(Self.unrecordedKinds.contains), "\(name): extra calls \(extra)")
    #expect(matched == onWire.count)
    print(
      "\(name): \(matched)/\(onWire.count) truth calls on the wire matched, worst start "
        + "\(Int((worstStart * 1e6).rounded())) µs, end \(Int((worstEnd * 1e6).rounded())) µs; extra \(extra)")
  }

  /// The time (µs) an `api` entry's first request went out, when a `system` operation of
  /// the same connection ran between the app's call and that request.
  static func queuedBehindStack(_ entry: [String: Any], _ truth: [String: Any]) -> Int? {
    guard let start = entry["start_us"] as? Int,
      let sent = ((entry["wire"] as? [String: Any])?["first_tx"] as? [String: Any])?["ts_us"] as? Int,
      sent - start > 2000
    else { return nil }
    let system = truth["system"] as? [[String: Any]] ?? []
    let between = system.contains { operation in
      guard operation["handle"] as? Int == entry["handle"] as? Int, let end = operation["end_us"] as? Int else {
        return false
      }
      return end > start && end <= sent
    }
    return between ? sent : nil
  }

  @Test(
    "scan sessions, parameters and the time to the first result match the truth's scanning block",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"), arguments: captures)
  func scanningMatches(_ name: String) throws {
    let (url, truth) = try syntheticTruth(name)
    let scanning = try #require(truth["scanning"] as? [String: Any])
    let sessions = try #require(scanning["sessions"] as? [[String: Any]])
    let scans = try Self.calls(url).filter { $0["call"] as? String == "scan" }.compactMap {
      $0["scan"] as? [String: Any]
    }
    #expect(scans.count == sessions.count)
    // A capture whose app did not scan.
    guard !sessions.isEmpty else { return }
    let parameters = try #require(scanning["parameters"] as? [String: Any])
    for (session, scan) in zip(sessions, scans) {
      #expect(scan["enable_frame"] as? Int == (session["start"] as? [String: Any])?["frame"] as? Int)
      #expect(scan["disable_frame"] as? Int == (session["stop"] as? [String: Any])?["frame"] as? Int)
      #expect(scan["filter_duplicates"] as? Bool == ((session["filter_duplicates"] as? Int ?? 0) != 0))
      #expect(scan["active"] as? Bool == (parameters["type"] as? String == "active"))
      #expect(TimelineTruthTests.micros(scan["interval_ms"]) == (parameters["interval"] as? Int).map { $0 * 625 })
      #expect(TimelineTruthTests.micros(scan["window_ms"]) == (parameters["window"] as? Int).map { $0 * 625 })
    }
    // The app's first result: the first advertisement it got, through its service filter.
    let call = try #require((truth["api"] as? [[String: Any]])?.first { $0["call"] as? String == "scan" })
    let firstResult = try #require(call["first_result"] as? [String: Any])
    let scan = try #require(scans.first)
    let devices = scan["devices"] as? [[String: Any]] ?? []
    let filter = (call["service_filter"] as? [String] ?? []).map { Self.short($0) }
    let ours: Int?
    if filter.isEmpty {
      ours = (scan["first_result"] as? [String: Any])?["frame"] as? Int
    } else {
      ours =
        devices.filter { device in (device["service_uuids"] as? [String] ?? []).contains { filter.contains($0) } }
        .compactMap { $0["first_result_frame"] as? Int }.min()
    }
    #expect(ours == firstResult["frame"] as? Int, "\(name): first result")
    // The device the app connected to: when it was found.
    if let found = call["target_found_us"] as? Int,
      let target = (truth["connections"] as? [[String: Any]])?.first?["peer_address"] as? String
    {
      let device = try #require(devices.first { $0["address"] as? String == target })
      #expect(device["connected_later"] as? Bool == true)
      let frames = TimelineTruthTests.frameTimes(of: name)
      let generator = try #require(truth["generator"] as? [String: Any])
      let base = try #require(generator["capture_start_unix"] as? Double)
      let frame = try #require(device["first_result_frame"] as? Int)
      #expect(abs(frames[frame - 1] - (base + Double(found) / 1e6)) < 0.000_002, "\(name): target found")
    }
  }

  /// `0000ff00-0000-1000-8000-00805f9b34fb` → `ff00`.
  static func short(_ uuid: String) -> String {
    let base = "-0000-1000-8000-00805f9b34fb"
    guard uuid.hasSuffix(base), uuid.hasPrefix("0000") else { return uuid }
    return String(uuid.dropFirst(4).prefix(4))
  }
}

/// Every ATT request, CCCD write, connection attempt and disconnection of each real
/// capture belongs to exactly one call or event of `app`, and every call's frames are
/// `show`'s request/response links.
@Suite("app covers every real capture")
struct AppCoverageTests {
  static let requestOpcodes: Set<Int> = [
    0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x52, 0xD2,
  ]
  static let attCalls: Set<String> = [
    "request_mtu", "discover_services", "discover_characteristics", "discover_descriptors", "discover_included", "read",
    "write", "set_notify", "read_descriptor", "write_descriptor",
  ]

  @Test(
    "each request, CCCD write, attempt and disconnection is in exactly one call; frames agree with show",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: sharedCaptureFiles().filter { $0.hasPrefix("real/") })
  func covered(_ file: String) throws {
    let url = Paths.captures.appending(path: file)
    let show = recordLines(runRaw(["show", "--format", "ndjson", url.path]).stdout)
    let output = runRaw(["app", "--format", "ndjson", url.path])
    #expect([0, 3].contains(output.status), "\(file): \(output.stderr)")
    let calls = try lines(output.text).map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    var byRequest: [Int: [Int]] = [:]
    var byResponse: [Int: [Int]] = [:]
    for (i, call) in calls.enumerated() {
      for frame in call["requests"] as? [Int] ?? [] { byRequest[frame, default: []].append(i) }
      for frame in call["responses"] as? [Int] ?? [] { byResponse[frame, default: []].append(i) }
      let frames = (call["requests"] as? [Int] ?? []) + (call["responses"] as? [Int] ?? [])
      if let first = frames.min(), let last = frames.max(),
        !["notification", "indication", "scan"].contains(call["call"] as? String)
      {
        #expect(call["frames"] as? [Int] == [first, last], "\(file): \(call["call"] ?? "") frames")
      }
    }
    func kinds(_ frames: [Int]?) -> [String] { (frames ?? []).map { calls[$0]["call"] as? String ?? "" } }
    var counts = (requests: 0, cccd: 0, attempts: 0, disconnections: 0)
    for line in show {
      let object = line.object
      let hci = object["hci"] as? [String: Any]
      let ll = object["ll"] as? [String: Any]
      let frame = Int(line.frame) ?? 0
      if let att = object["att"] as? [String: Any], let opcode = att["opcode"] as? Int,
        Self.requestOpcodes.contains(opcode),
        // A link-layer retransmission or a bad CRC repeats or spoils a PDU: not a request of its own.
        ll?["retransmission"] as? Bool != true, ll?["crc_ok"] as? Bool != false
      {
        counts.requests += 1
        let owners = byRequest[frame]?.filter { Self.attCalls.contains(calls[$0]["call"] as? String ?? "") } ?? []
        #expect(owners.count == 1, "\(file) #\(frame): request in \(kinds(owners))")
        if let owner = owners.first, let response = att["response_frame"] as? Int {
          #expect((calls[owner]["responses"] as? [Int] ?? []).contains(response), "\(file) #\(frame) → #\(response)")
        }
        if [0x12, 0x52].contains(opcode), att["uuid"] as? String == "2902" {
          counts.cccd += 1
          #expect(kinds(owners) == ["set_notify"], "\(file) #\(frame): CCCD write in \(kinds(owners))")
        }
      }
      if hci?["type"] as? String == "command", [0x200D, 0x2043, 0x0405].contains(hci?["opcode"] as? Int ?? 0) {
        counts.attempts += 1
        // One through the Filter Accept List serves every device waiting in it.
        let owners =
          byRequest[frame]?.filter { ["connect", "background_connect"].contains(calls[$0]["call"] as? String) } ?? []
        #expect(!owners.isEmpty, "\(file) #\(frame): attempt in no connect call")
      }
      if hci?["type"] as? String == "event", hci?["event"] as? Int == 5, hci?["status"] as? Int == 0 {
        counts.disconnections += 1
        let owners =
          byResponse[frame]?.filter {
            calls[$0]["call"] as? String == "disconnected"
              || (["connect", "background_connect"].contains(calls[$0]["call"] as? String)
                && calls[$0]["outcome"] as? String == "failed")
          } ?? []
        #expect(owners.count == 1, "\(file) #\(frame): disconnection in \(kinds(owners))")
      }
    }
    print(
      "\(file): \(counts.requests) requests, \(counts.cccd) CCCD writes, \(counts.attempts) attempts, "
        + "\(counts.disconnections) disconnections, \(calls.count) calls")
  }
}
