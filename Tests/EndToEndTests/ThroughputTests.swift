import Foundation
import Testing

// `bleanalyze throughput` against the synthetic captures' truth (`throughput` phases), against
// tshark's ATT values on the real captures, and the verdicts the issue asks for in `timeline`
// and `app`.

/// The JSON document of `throughput` on `files`.
private func throughputDocument(_ files: [String]) throws -> [String: Any] {
  let output = runRaw(["throughput", "--format", "json"] + files)
  #expect(output.status == 0, "stderr: \(output.stderr)")
  return try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
}

/// The synthetic captures whose truth lists throughput phases.
func throughputTruthCaptures() -> [String] {
  syntheticCaptures().filter { name in
    guard let (_, truth) = try? syntheticTruth(name) else { return false }
    return (truth["throughput"] as? [Any])?.isEmpty == false
  }
}

/// Relative difference of `a` from `b`.
private func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(abs(b), 1e-9) }

@Suite(
  "throughput: truth, tshark and verdicts", .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
struct ThroughputTests {
  /// Every truth phase is one transfer, or one segment of a transfer that a link change
  /// split (g1, g2), on the same first and last frames, with the same payload bytes and PDU
  /// count, the achieved rate within 1 % (both count the bytes after the first PDU over the
  /// span from the first PDU to the last), the same link parameters and binding factor, and
  /// the ceiling within 5 %.
  @Test(arguments: throughputTruthCaptures())
  func phasesMatchTruth(_ name: String) throws {
    let (url, truth) = try syntheticTruth(name)
    let document = try throughputDocument([url.path])
    let transfers = try #require(document["transfers"] as? [[String: Any]])
    // Every unit a phase may be: each segment (a whole transfer when it has one).
    var units: [(transfer: [String: Any], segment: [String: Any])] = []
    for transfer in transfers {
      for segment in transfer["segments"] as? [[String: Any]] ?? [] { units.append((transfer, segment)) }
    }
    let phases = try #require(truth["throughput"] as? [[String: Any]])
    for phase in phases {
      let label = "\(name) phase \(phase["phase"] ?? "?")"
      let first = try #require((phase["first"] as? [String: Any])?["frame"] as? Int)
      let last = try #require((phase["last"] as? [String: Any])?["frame"] as? Int)
      let matches = units.filter { unit in
        unit.segment["frames"] as? [Int] == [first, last]
          && (unit.transfer["conn"] as? [String: Any])?["handle"] as? Int == phase["handle"] as? Int
          && unit.transfer["attr_handle"] as? Int == phase["attr_handle"] as? Int
          && unit.transfer["op"] as? String == phase["op"] as? String
          && unit.transfer["direction"] as? String == phase["direction"] as? String
      }
      guard matches.count == 1, let (transfer, segment) = matches.first else {
        Issue.record("\(label): \(matches.count) transfers or segments on frames \(first)–\(last)")
        continue
      }
      #expect(segment["payload_bytes"] as? Int == phase["payload_bytes"] as? Int, "\(label): payload bytes")
      #expect(segment["pdu_count"] as? Int == phase["pdus"] as? Int, "\(label): PDUs")
      let achieved = try #require(segment["achieved_bytes_per_s"] as? Double)
      let truthAchieved = try #require(phase["achieved_bytes_per_s"] as? Double)
      #expect(relative(achieved, truthAchieved) <= 0.01, "\(label): achieved \(achieved), truth \(truthAchieved)")
      let link = try #require(segment["link"] as? [String: Any])
      let truthLink = try #require(phase["link"] as? [String: Any])
      #expect(link["interval_ms"] as? Double == truthLink["interval_ms"] as? Double, "\(label): interval")
      #expect(link["latency"] as? Int == truthLink["latency"] as? Int, "\(label): latency")
      #expect(
        link["supervision_timeout_ms"] as? Int == truthLink["supervision_timeout_ms"] as? Int, "\(label): timeout")
      #expect(link["phy_tx"] as? String == truthLink["phy_tx"] as? String, "\(label): PHY tx")
      #expect(link["phy_rx"] as? String == truthLink["phy_rx"] as? String, "\(label): PHY rx")
      #expect(link["max_tx_octets"] as? Int == truthLink["dle_max_tx_octets"] as? Int, "\(label): data length tx")
      #expect(link["max_rx_octets"] as? Int == truthLink["dle_max_rx_octets"] as? Int, "\(label): data length rx")
      #expect(link["att_mtu"] as? Int == truthLink["att_mtu"] as? Int, "\(label): ATT_MTU")
      #expect(segment["binding"] as? String == phase["binding"] as? String, "\(label): binding")
      let ceiling = try #require(segment["ceiling_bytes_per_s"] as? Double)
      let truthCeiling = try #require(phase["model_ceiling_bytes_per_s"] as? Double)
      #expect(relative(ceiling, truthCeiling) <= 0.05, "\(label): ceiling \(ceiling), truth \(truthCeiling)")
      let segments = (transfer["segments"] as? [Any])?.count ?? 0
      print(
        "\(label): frames \(first)–\(last)\(segments > 1 ? " (segment of \(segments))" : ""), \(segment["payload_bytes"] ?? "-") bytes, achieved \(achieved) (truth \(truthAchieved)), ceiling \(ceiling) (truth \(truthCeiling), \(String(format: "%+.1f", (ceiling / truthCeiling - 1) * 100)) %), \(segment["binding"] ?? "-")"
      )
    }
  }

  /// The real captures with a characteristic that carries 50 value PDUs or more in one
  /// direction (as tshark counts them): each transfer's payload bytes and PDU count are the
  /// sum of tshark's ATT value lengths over its frames: `btatt.value`, or for the values
  /// tshark decodes into fields of their own (a CCCD, Alert Level) `btl2cap.length` less the
  /// ATT header, as the generator's validate.py counts them. On air, a retransmitted PDU (the
  /// same Sequence Number from the same side again, Core 6.0, Vol 6, Part B, 4.5.9) carries no
  /// new payload: tshark lists it, the transfer does not count it.
  @Test(
    .enabled(if: tsharkAvailable, "tshark not installed; skipping"),
    arguments: ThroughputTests.realCapturesWithATT())
  func transfersMatchTshark(_ name: String) throws {
    let url = Paths.captures.appending(path: "real/\(name)")
    struct Row {
      var frame: Int
      var handle: Int?
      /// "tx", "rx", or "null" where tshark does not say (air packets without the sniffer's direction).
      var direction: String
      var conn: Int?
      var opcode: Int
      var bytes: Int
    }
    // Each value-carrying opcode: its operation and the ATT header before the value.
    let values: [Int: (op: String, header: Int)] = [
      0x52: ("write_cmd", 3), 0xd2: ("write_cmd", 3), 0x12: ("write_req", 3), 0x16: ("write_long", 5),
      0x1b: ("notify", 3), 0x1d: ("indicate", 3), 0x0b: ("read", 1), 0x0d: ("read", 1),
    ]
    var rows: [Row] = []
    let fields = [
      "frame.number", "frame.p2p_dir", "hci_mon.opcode", "bthci_acl.chandle", "btatt.opcode", "btatt.handle",
      "btatt.value", "btl2cap.length", "btle.data_header.llid", "nordic_ble.direction", "btle_rf.pdu_type",
      "btle.data_header.sequence_number",
    ]
    var lastSequenceNumber: [String: Substring] = [:]
    tsharkFields(url, options: ["-E", "occurrence=f"], fields: fields) { columns in
      guard columns.count == fields.count, let frame = Int(columns[0]) else { return }
      var direction = tsharkDirection(p2pDir: columns[1], monitorOpcode: columns[2])
      var retransmitted = false
      if !columns[8].isEmpty {
        // An air packet: the sniffer's direction, central→peripheral as tx.
        switch (columns[9], columns[10]) {
        case ("1", _), (_, "2"): direction = "tx"
        case ("0", _), (_, "3"): direction = "rx"
        default: direction = "null"
        }
        if direction != "null" {
          retransmitted = lastSequenceNumber[direction] == columns[11]
          lastSequenceNumber[direction] = columns[11]
        }
      }
      guard !retransmitted, let opcode = number(columns[4]), let value = values[opcode] else { return }
      let bytes =
        columns[6].isEmpty
        ? max(0, (Int(columns[7]) ?? value.header) - value.header)
        : columns[6].replacingOccurrences(of: ":", with: "").count / 2
      rows.append(
        Row(
          frame: frame, handle: number(columns[5]), direction: direction, conn: number(columns[3]), opcode: opcode,
          bytes: bytes))
    }
    var perCharacteristic: [String: Int] = [:]
    for row in rows { perCharacteristic["\(row.conn ?? -1)/\(row.handle ?? -1)/\(row.direction)", default: 0] += 1 }
    guard perCharacteristic.values.contains(where: { $0 >= 50 }) else { return }
    let document = try throughputDocument([url.path])
    let transfers = try #require(document["transfers"] as? [[String: Any]])
    #expect(!transfers.isEmpty, "\(name): a characteristic carries 50 PDUs or more and no transfer was found")
    var checked = 0
    for transfer in transfers {
      guard let op = transfer["op"] as? String, op != "coc", let frames = transfer["frames"] as? [Int],
        let handle = transfer["attr_handle"] as? Int, let direction = transfer["direction"] as? String
      else { continue }
      let conn = (transfer["conn"] as? [String: Any])?["handle"] as? Int
      let same = rows.filter {
        (frames[0]...frames[1]).contains($0.frame) && values[$0.opcode]?.op == op && $0.handle == handle
          && ($0.direction == direction || $0.direction == "null") && ($0.conn == nil || $0.conn == conn)
      }
      let label = "\(name) #\(frames[0])–#\(frames[1]) \(op) \(direction) 0x\(String(handle, radix: 16))"
      #expect(transfer["pdu_count"] as? Int == same.count, "\(label): PDUs")
      #expect(transfer["payload_bytes"] as? Int == same.reduce(0) { $0 + $1.bytes }, "\(label): payload bytes")
      checked += 1
    }
    print("\(name): \(checked) transfers agree with tshark's btatt.value")
  }

  /// The real captures whose catalog counts 50 ATT PDUs or more.
  static func realCapturesWithATT() -> [String] {
    let catalog = Paths.captures.appending(path: "real/CATALOG.tsv")
    guard let text = try? String(contentsOf: catalog, encoding: .utf8) else { return [] }
    let rows = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    guard let header = rows.first, let file = header.firstIndex(of: "file"),
      let att = header.firstIndex(of: "att_pdus")
    else { return [] }
    return rows.dropFirst().compactMap { row in
      guard row.count > max(file, att), let count = Int(row[att]), count >= 50 else { return nil }
      return String(row[file])
    }.sorted()
  }

  /// blefun's connection 12: the app paces its 789 writes (issue 27).
  @Test func blefunConnection12IsAppPaced() throws {
    let path = Paths.captures.appending(path: "real/blefun__btsnoop_hci.btsnoop").path
    let document = try throughputDocument([path])
    let series = try #require(document["series"] as? [[String: Any]])
    let writes = series.filter {
      ($0["conn"] as? [String: Any])?["id"] as? Int == 12 && $0["op"] as? String == "write_req"
        && $0["attr_handle"] as? Int == 0x1c
    }
    let write = try #require(writes.first)
    #expect(write["binding"] as? String == "app_pacing")
    #expect(write["pdu_count"] as? Int == 789)
    let rate = try #require(write["achieved_bytes_per_s"] as? Double)
    #expect(rate > 30 && rate < 45, "\(rate) B/s")
    let busy = try #require(write["link_busy_share"] as? Double)
    #expect(busy < 0.15, "link busy \(busy)")
    let timeline = run(["timeline", path])
    let connection = timeline.stdout.components(separatedBy: "Connection #12 ").dropFirst().first ?? ""
    let story = connection.components(separatedBy: "\nConnection #").first ?? ""
    #expect(story.contains("throughput ×") && story.contains("app_pacing"), "\(story.suffix(2000))")
  }

  /// android-central's burst of writes without response: its stalls and its binding factor,
  /// in `throughput` and in `app`.
  @Test func androidCentralBurstNamesStallsAndBinding() throws {
    let path = Paths.captures.appending(path: "synthetic/android-central.btsnoop").path
    let document = try throughputDocument([path])
    let transfers = try #require(document["transfers"] as? [[String: Any]])
    let burst = try #require(transfers.first { $0["op"] as? String == "write_cmd" && $0["pdu_count"] as? Int == 50 })
    #expect(burst["binding"] as? String == "pdus_per_event")
    let host = try #require(burst["host"] as? [String: Any])
    #expect(host["stall_count"] as? Int == 7)
    #expect(host["buffer_count"] as? Int == 8)
    let app = run(["app", "--api", "android", path])
    let line = try #require(lines(app.stdout).first { $0.contains("throughput #222–#313") })
    #expect(line.contains("7 stalls waiting for controller buffers (178.136 ms)"), "\(line)")
    #expect(line.contains("pdus_per_event"), "\(line)")
  }

  /// Findings: transfer.btsnoop's peripheral asks for 45–45 ms, which Apple's rules refuse
  /// (Interval Max must be 15 ms above Interval Min), and each interval gets its Android band.
  @Test func platformFindings() throws {
    let path = Paths.captures.appending(path: "synthetic/transfer.btsnoop").path
    let document = try throughputDocument([path])
    let findings = try #require(document["findings"] as? [[String: Any]])
    let apple = findings.filter { $0["rule"] as? String == "ios_connection_parameters" }
    #expect(apple.count == 1)
    #expect(apple.first?["broken"] as? [String] == ["interval_max_spread"])
    #expect(apple.first?["frame"] as? Int == 1735)
    let bands = findings.filter { $0["rule"] as? String == "android_connection_priority" }.map {
      "\($0["interval_ms"] ?? "-") \($0["priority"] as? String ?? "none")"
    }
    #expect(bands == ["30 BALANCED", "7.5 none", "15 HIGH", "7.5 none", "45 BALANCED"])
  }
  /// The examples of README's `### throughput` section: every line shown (not elided with
  /// `…`) is in the output of the command above it.
  @Test func readmeExamplesAreRealOutput() throws {
    let readme = try String(contentsOf: Paths.packageRoot.appending(path: "README.md"), encoding: .utf8)
    let section =
      try #require(readme.components(separatedBy: "### throughput\n").dropFirst().first)
      .components(separatedBy: "\n### ").first ?? ""
    var command: [String]?
    var output: [String] = []
    var checked = 0
    for line in section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("$ bleanalyze ") {
        command = line.dropFirst("$ bleanalyze ".count).split(separator: " ").map(String.init)
        output = lines(run(command ?? []).stdout)
        continue
      }
      if line == "```" { command = nil }
      guard command != nil, !line.trimmingCharacters(in: .whitespaces).hasPrefix("…") else { continue }
      #expect(
        output.contains(line), "README line not in `bleanalyze \(command?.joined(separator: " ") ?? "")`: \(line)")
      checked += 1
    }
    #expect(checked >= 20, "expected README examples")
  }
}
