import Foundation
import Testing

/// `devices --format ndjson` of `path`, by address (addresses are unique per capture
/// unless public and random collide, which the captures here do not).
func devicesByAddress(_ arguments: [String]) -> (status: Int32, devices: [String: [String: Any]], stderr: String) {
  let output = runRaw(["devices", "--format", "ndjson"] + arguments)
  var devices: [String: [String: Any]] = [:]
  for line in lines(output.text) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
      let address = object["address"] as? String
    else {
      Issue.record("not a device object: \(line)")
      continue
    }
    devices[address] = object
  }
  return (output.status, devices, output.stderr)
}

func reportCounts(_ device: [String: Any]?) -> [String: Int] {
  (device?["report_counts"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
}

@Suite("devices")
struct DevicesTests {
  @Test(
    "each advertiser's report counts per PDU type, names and iBeacon equal .truth.json",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func truth(_ name: String) throws {
    let url = Paths.captures.appending(path: "synthetic/\(name)")
    let truthData = try Data(contentsOf: URL(fileURLWithPath: url.path + ".truth.json"))
    let truth = try #require(try JSONSerialization.jsonObject(with: truthData) as? [String: Any])
    let expected = try #require(truth["advertising_reports_by_address"] as? [String: [String: Int]])
    let result = devicesByAddress([url.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(Set(result.devices.keys) == Set(expected.keys), "advertisers")
    for (address, counts) in expected {
      #expect(reportCounts(result.devices[address]) == counts, "\(address)")
    }
    let advertisers = truth["advertisers"] as? [[String: Any]] ?? []
    var beacons = 0
    for advertiser in advertisers {
      guard let address = advertiser["address"] as? String, expected[address] != nil else { continue }
      let device = result.devices[address]
      if let name = advertiser["name"] as? String {
        #expect((device?["names"] as? [String] ?? []).contains(name), "\(address) name \(name)")
      }
      if advertiser["kind"] as? String == "iBeacon" {
        beacons += 1
        // The iBeacon fields, read from the truth's own advertising data: the manufacturer
        // data ends with UUID (16), major, minor (big-endian) and measured power.
        let data = try #require(hexBytes(advertiser["adv_data_hex"] as? String ?? ""))
        let tail = Array(data.suffix(21))
        let uuid = tail[0..<16].map { String(format: "%02x", $0) }.joined()
        let beacon = device?["beacon"] as? [String: Any]
        #expect(beacon?["type"] as? String == "iBeacon", "\(address)")
        #expect((beacon?["uuid"] as? String)?.replacingOccurrences(of: "-", with: "") == uuid)
        #expect(beacon?["major"] as? Int == Int(tail[16]) << 8 | Int(tail[17]))
        #expect(beacon?["minor"] as? Int == Int(tail[18]) << 8 | Int(tail[19]))
        #expect(beacon?["measured_power"] as? Int == Int(Int8(bitPattern: tail[20])))
      }
      // The interval estimate, where enough PDUs were heard: within 10%.
      let advertising = reportCounts(device).filter { $0.key != "SCAN_RSP" }.values.reduce(0, +)
      if advertising >= 50, let interval = advertiser["interval_ms"] as? Double {
        let estimate = try #require(device?["interval_ms"] as? Double, "\(address) interval")
        #expect(abs(estimate - interval) <= interval * 0.1, "\(address): \(estimate) ms, truth \(interval) ms")
      }
    }
    let heardBeacons = advertisers.filter {
      $0["kind"] as? String == "iBeacon" && expected[$0["address"] as! String] != nil
    }
    #expect(beacons == heardBeacons.count)
  }

  /// The real captures whose link type carries HCI (not LE sniffer captures) and that
  /// hold advertising reports, from CATALOG.tsv.
  static func realHCICaptures() -> [String] {
    let catalog = Paths.captures.appending(path: "real/CATALOG.tsv")
    guard let text = try? String(contentsOf: catalog, encoding: .utf8) else { return [] }
    let rows = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    guard let header = rows.first, let link = header.firstIndex(of: "linktype"),
      let adv = header.firstIndex(of: "adv_reports")
    else { return [] }
    return rows.dropFirst().filter { row in
      row.count > max(link, adv) && ["btsnoop-1002", "btsnoop-2001", "201"].contains(String(row[link]))
        && (Int(row[adv]) ?? 0) > 0
    }.map { String($0[0]) }.sorted()
  }

  /// tshark's PDU type name for a report, from the event's Event_Type.
  static func tsharkPDUType(subevent: Int, eventType: Int) -> String {
    if subevent == 0x02 {
      let names = ["ADV_IND", "ADV_DIRECT_IND", "ADV_SCAN_IND", "ADV_NONCONN_IND", "SCAN_RSP"]
      return eventType < names.count ? names[eventType] : "RESERVED"
    }
    guard eventType & 0x10 != 0 else { return eventType & 0x08 != 0 ? "EXT_SCAN_RSP" : "EXT_ADV" }
    if eventType & 0x08 != 0 { return "SCAN_RSP" }
    if eventType & 0x04 != 0 { return "ADV_DIRECT_IND" }
    if eventType & 0x01 != 0 { return "ADV_IND" }
    return eventType & 0x02 != 0 ? "ADV_SCAN_IND" : "ADV_NONCONN_IND"
  }

  @Test(
    "per-address report counts and device names agree with tshark on the real HCI captures",
    .enabled(if: sharedAvailable && tsharkAvailable, "../shared/captures or tshark not found; skipping oracle"),
    arguments: realHCICaptures())
  func tsharkOracle(_ name: String) throws {
    let url = Paths.captures.appending(path: "real/\(name)")
    let tshark = try #require(Paths.tshark)
    let output = execute(
      tshark,
      [
        "-n", "-r", url.path, "-Y", "bthci_evt.le_meta_subevent == 0x02 or bthci_evt.le_meta_subevent == 0x0d",
        "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|", "-e", "bthci_evt.le_meta_subevent", "-e",
        "bthci_evt.bd_addr", "-e", "bthci_evt.le_advts_event_type", "-e", "bthci_evt.le_ext_advts_event_type", "-e",
        "btcommon.eir_ad.entry.device_name",
      ])
    #expect(output.status == 0, "tshark: \(output.stderr)")
    var counts: [String: [String: Int]] = [:]
    var names: [String: Set<String>] = [:]
    for line in lines(output.text) {
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard columns.count >= 5, let subevent = Int(columns[0].dropFirst(2), radix: 16) else { continue }
      let addresses = columns[1].split(separator: "|").map { $0.uppercased() }
      let types = (subevent == 0x02 ? columns[2] : columns[3]).split(separator: "|")
      for (address, type) in zip(addresses, types) {
        guard let eventType = Int(type.dropFirst(2), radix: 16) else { continue }
        // A report whose data continues in the next one counts once, with the last.
        if subevent == 0x0D && (eventType >> 5) & 0x03 == 1 { continue }
        counts[address, default: [:]][Self.tsharkPDUType(subevent: subevent, eventType: eventType), default: 0] += 1
      }
      if let address = addresses.first {
        for deviceName in columns[4].split(separator: "|") { names[address, default: []].insert(String(deviceName)) }
      }
    }
    let ours = devicesByAddress([url.path])
    #expect(ours.status == 0, "stderr: \(ours.stderr)")
    let addresses = Set(counts.keys).union(ours.devices.keys)
    let equal = addresses.filter { counts[$0] != nil && counts[$0] == reportCounts(ours.devices[$0]) }
    let agreement = Double(equal.count) / Double(max(1, addresses.count))
    let differing = addresses.subtracting(equal).sorted().prefix(5).map {
      "\($0): tshark \(counts[$0] ?? [:]), ours \(reportCounts(ours.devices[$0]))"
    }
    #expect(agreement >= 0.995, "\(name): \(equal.count) of \(addresses.count) addresses agree; \(differing)")
    #expect(!counts.isEmpty, "tshark found no advertising reports in \(name)")
    for (address, set) in names {
      let ourNames = Set(ours.devices[address]?["names"] as? [String] ?? [])
      for deviceName in set {
        #expect(ourNames.contains(deviceName), "\(name): \(address) name \(deviceName) not among \(ourNames)")
      }
    }
  }

  @Test("--irk resolves the sample's RPA, without it the row stays unresolved")
  func irkOption() {
    let rpa = "70:81:94:0D:FB:AA"
    let plain = devicesByAddress(["Samples/scanner.btsnoop"])
    #expect(plain.status == 0)
    #expect(plain.devices[rpa]?["resolved"] == nil)
    #expect(plain.devices[rpa]?["random_kind"] as? String == "resolvable")
    let resolved = devicesByAddress(["--irk", "ec0234a3:57c8ad05:341010a6:0a397d9b", "Samples/scanner.btsnoop"])
    #expect(resolved.status == 0)
    let identity = resolved.devices[rpa]?["resolved"] as? [String: Any]
    #expect(identity?["irk_source"] as? String == "command_line")
    #expect(identity?["addresses"] as? [String] == [rpa])
    // A key that does not resolve it changes nothing.
    let other = devicesByAddress(["--irk", "000102030405060708090a0b0c0d0e0f", "Samples/scanner.btsnoop"])
    #expect(other.devices[rpa]?["resolved"] == nil)
  }

  @Test(
    "a bad --irk is a usage error",
    arguments: ["1234", "zz0234a357c8ad05341010a60a397d9b", "ec0234a357c8ad05341010a60a397d9b00"])
  func badIRK(_ text: String) {
    let result = run(["devices", "--irk", text, "Samples/scanner.btsnoop"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("--irk '\(text)' is not 32 hex digits"), "\(result.stderr)")
  }

  @Test func unreadableInputIsStatus2AndOthersStillRead() {
    let result = run(["devices", "Samples/not-a-capture.txt", "Samples/hr-sensor.btsnoop"])
    #expect(result.status == 2)
    #expect(result.stdout.contains("D4:36:39:67:A2:61"))
  }

  @Test func severalFilesCarryFileInJSON() {
    let output = run(["devices", "--format", "json", "Samples/hr-sensor.btsnoop", "Samples/scanner.btsnoop"])
    #expect(output.status == 0)
    #expect(lines(output.stdout).count == 1)
    let document = try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
    let devices = document?["devices"] as? [[String: Any]] ?? []
    #expect(devices.count == 7)
    #expect(
      Set(devices.compactMap { $0["file"] as? String }) == ["Samples/hr-sensor.btsnoop", "Samples/scanner.btsnoop"])
  }

  @Test func goldens() {
    checkGolden(["devices", "Samples/scanner.btsnoop"], golden: "devices-scanner.txt")
    checkGolden(
      ["devices", "--format", "ndjson", "--irk", "ec0234a357c8ad05341010a60a397d9b", "Samples/scanner.btsnoop"],
      golden: "devices-scanner.ndjson")
    checkGolden(["show", "Samples/scanner.btsnoop"], golden: "show-scanner.txt")
    checkGolden(["show", "--format", "ndjson", "Samples/scanner.btsnoop"], golden: "show-scanner.ndjson")
  }

  @Test("adv filter fields select reports")
  func filters() {
    func frames(_ expression: String) -> [Int] {
      let output = run(["show", "--format", "ndjson", "--filter", expression, "Samples/scanner.btsnoop"])
      return lines(output.stdout).compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int
      }
    }
    #expect(frames("adv.event_type == \"EXT_ADV\"") == [5, 6])
    #expect(frames("adv.address == 3A:01:02:03:04:05") == [7])
    #expect(frames("adv.beacon == \"Eddystone-TLM\"") == [8])
    #expect(frames("adv.name contains \"Lamp\"") == [3])
    #expect(frames("adv.company == 0x0059") == [6])
    #expect(frames("adv.company_name contains \"Nordic\"") == [6])
    #expect(frames("adv.service == \"fd6f\"") == [7])
    #expect(frames("adv.rssi < -75") == [7])
    #expect(frames("adv.sid == 3") == [5, 6])
    #expect(frames("adv.address_type == \"random\" and adv.event_type == \"PERIODIC\"") == [11])
    #expect(frames("diagnostics.id == \"adv.ad.truncated\"") == [12])
  }
}

func hexBytes(_ text: String) -> [UInt8]? {
  let digits = Array(text)
  guard digits.count % 2 == 0 else { return nil }
  return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
}
