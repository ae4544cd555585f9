import Foundation
import Testing

/// `show --format ndjson` on ../shared/captures/synthetic/vendor.btsnoop against its
/// truth: every protocol message of the `vendor` list decoded on its last frame with the
/// same meaning, mcumgr responses paired by sequence number, fragments decoded once,
/// and each upload's `progress`.
@Suite(
  "truth: vendor protocols over GATT",
  .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
struct VendorTruthTests {
  /// Our records by frame, and the truth.
  struct Fixture {
    var records: [Int: [String: Any]] = [:]
    var truth: [String: Any]
    var entries: [[String: Any]] { truth["vendor"] as? [[String: Any]] ?? [] }
  }

  nonisolated(unsafe) static let fixture: Result<Fixture, any Error> = Result {
    let (url, truth) = try syntheticTruth("vendor.btsnoop")
    let output = runRaw(["show", "--format", "ndjson", url.path])
    guard output.status == 0 else { throw CocoaError(.fileReadCorruptFile) }
    var fixture = Fixture(truth: truth)
    forEachLine(output.stdout) { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let frame = object["frame"] as? Int
      else { return }
      fixture.records[frame] = object
    }
    return fixture
  }

  /// `ENTER_BOOTLOADER` and `Enter Bootloader` are the same name.
  static func same(_ a: Any?, _ b: Any?) -> Bool {
    guard let a = a as? String, let b = b as? String else { return false }
    func normal(_ s: String) -> String { s.uppercased().replacingOccurrences(of: " ", with: "_") }
    return normal(a) == normal(b)
  }

  /// Two JSON values, compared as canonical JSON text.
  static func sameJSON(_ a: Any?, _ b: Any?) -> Bool {
    func text(_ value: Any?) -> Data? {
      guard let value else { return nil }
      return try? JSONSerialization.data(withJSONObject: ["v": value], options: [.sortedKeys])
    }
    return text(a) != nil && text(a) == text(b)
  }

  static func lastFrame(_ entry: [String: Any]) -> Int { (entry["frames"] as? [Int])?.last ?? -1 }

  @Test("every vendor entry is decoded on its last frame with the truth's meaning")
  func everyEntryDecoded() throws {
    let fixture = try Self.fixture.get()
    #expect(fixture.entries.count == 340)
    for entry in fixture.entries {
      let frame = Self.lastFrame(entry)
      let protocolName = entry["protocol"] as? String ?? ""
      let record = try #require(fixture.records[frame], "frame \(frame)")
      let where_ = "seq \(entry["seq"] ?? "?") frame \(frame) (\(protocolName))"
      let key = ["nordic_dfu": "dfu", "battery": "att"][protocolName] ?? protocolName
      guard let ours = record[key] as? [String: Any] else {
        Issue.record("\(where_): no \(key) object")
        continue
      }
      switch protocolName {
      case "mcumgr": checkMCUmgr(entry, ours, where_)
      case "nordic_dfu": checkDFU(entry, ours, where_)
      case "nus": checkNUS(entry, ours, where_)
      case "hid": checkHID(entry, ours, where_)
      case "battery":
        let decoded = ours["decoded"] as? [String: Any]
        #expect(decoded?["level"] as? Int == (entry["battery"] as? [String: Any])?["level"] as? Int, "\(where_)")
      default: Issue.record("unknown protocol \(protocolName)")
      }
    }
  }

  func checkMCUmgr(_ entry: [String: Any], _ ours: [String: Any], _ where_: String) {
    let truth = entry["mcumgr"] as? [String: Any] ?? [:]
    for (theirs, mine) in [
      ("op", "op_id"), ("version", "version"), ("flags", "flag_bits"), ("len", "length"), ("group", "group_id"),
      ("seq", "sequence"), ("id", "command_id"),
    ] {
      #expect(ours[mine] as? Int == truth[theirs] as? Int, "\(where_): \(theirs)")
    }
    #expect(Self.sameJSON(ours["body"], truth["cbor"]), "\(where_): CBOR body")
    let pdus = (entry["att_pdus"] as? [[Int]])?.map { $0.last ?? -1 } ?? []
    if pdus.count > 1 { #expect(ours["frames"] as? [Int] == pdus, "\(where_): frames") }
  }

  func checkDFU(_ entry: [String: Any], _ ours: [String: Any], _ where_: String) {
    let truth = entry["nordic_dfu"] as? [String: Any] ?? [:]
    let params = truth["params"] as? [String: Any] ?? [:]
    if truth["opcode_name"] as? String == "PACKET" {
      let packet = ours["packet"] as? [String: Any]
      #expect(packet?["offset"] as? Int == params["offset"] as? Int, "\(where_): packet offset")
      #expect(packet?["length"] as? Int == params["length"] as? Int, "\(where_): packet length")
      #expect(packet?["object"] as? String == params["object_type"] as? String, "\(where_): object type")
      return
    }
    #expect(ours["opcode"] as? Int == truth["opcode"] as? Int, "\(where_): opcode")
    #expect(Self.same(ours["name"], truth["opcode_name"]), "\(where_): name \(ours["name"] ?? "")")
    #expect((ours["service"] as? String == "buttonless") == (truth["characteristic"] as? String == "buttonless"))
    if let result = truth["result"] as? Int {
      #expect(ours["result_code"] as? Int == result, "\(where_): result")
      #expect(Self.same(ours["result_name"], truth["result_name"]), "\(where_): result name")
      #expect(Self.same(ours["request"], truth["request"]), "\(where_): request \(ours["request"] ?? "")")
      if let request = truth["request_opcode"] as? Int {
        #expect(ours["request_opcode"] as? Int == request, "\(where_): request opcode")
      }
      for key in ["max_size", "offset"] where params[key] != nil {
        #expect(ours[key] as? Int == params[key] as? Int, "\(where_): \(key)")
      }
      if let crc = params["crc32"] as? String {
        #expect((ours["crc32"] as? String)?.uppercased() == crc.uppercased(), "\(where_): crc32")
        #expect((ours["crc_check"] as? [String: Any])?["match"] as? Bool ?? true, "\(where_): CRC check")
      }
      #expect((ours["receipt"] as? Bool ?? false) == (params["trigger"] as? String == "packet_receipt_notification"))
    } else {
      for key in ["size", "prn"] where params[key] != nil {
        #expect(ours[key] as? Int == params[key] as? Int, "\(where_): \(key)")
      }
      if let type = params["object_type"] as? String { #expect(ours["object_type"] as? String == type, "\(where_)") }
    }
  }

  func checkNUS(_ entry: [String: Any], _ ours: [String: Any], _ where_: String) {
    let truth = entry["nus"] as? [String: Any] ?? [:]
    #expect(ours["text"] as? String == truth["text"] as? String, "\(where_): text")
    #expect(ours["lines"] as? [String] == [truth["line"] as? String ?? ""], "\(where_): lines")
    #expect(ours["pdus"] as? Int == truth["pdus"] as? Int, "\(where_): PDUs")
    let direction = entry["direction"] as? String == "central_to_peripheral" ? "rx" : "tx"
    #expect(ours["stream"] as? String == direction, "\(where_): stream")
  }

  func checkHID(_ entry: [String: Any], _ ours: [String: Any], _ where_: String) {
    let truth = entry["hid"] as? [String: Any] ?? [:]
    let fields = truth["fields"] as? [String: Any] ?? [:]
    switch truth["kind"] as? String {
    case "hid_information":
      #expect(ours["kind"] as? String == "information")
      #expect(ours["bcd_hid"] as? String == "1.11" && fields["bcd_hid"] as? String == "0x0111", "\(where_)")
      #expect(ours["country_code"] as? Int == fields["country_code"] as? Int)
      #expect(ours["remote_wake"] as? Bool == fields["remote_wake"] as? Bool)
      #expect(ours["normally_connectable"] as? Bool == fields["normally_connectable"] as? Bool)
    case "report_map":
      let map = ours["map"] as? [String: Any]
      #expect(map?["length"] as? Int == fields["length"] as? Int, "\(where_): map length")
      let reports = (fields["reports"] as? [[String: Any]] ?? []).map {
        "\($0["report_id"] ?? "") \($0["type"] ?? "") \($0["kind"] as? String == "keyboard_leds" ? "keyboard" : $0["kind"] ?? "") \($0["bits"] ?? "") bits"
      }
      #expect(map?["report_descriptions"] as? [String] == reports, "\(where_): reports")
    case "report_reference":
      #expect(ours["report_id"] as? Int == fields["report_id"] as? Int, "\(where_)")
      #expect(ours["report_type"] as? String == fields["report_type"] as? String, "\(where_)")
    case "protocol_mode":
      #expect(ours["protocol_mode"] as? String == "Report Protocol Mode" && fields["mode"] as? Int == 1, "\(where_)")
    case "keyboard":
      #expect(ours["report_id"] as? Int == truth["report_id"] as? Int, "\(where_): report id")
      #expect(ours["key_codes"] as? [Int] ?? [] == fields["keys"] as? [Int], "\(where_): keys")
      let modifiers = (ours["modifiers"] as? [String] ?? []).map { $0.replacingOccurrences(of: " ", with: "") }
      #expect(modifiers == fields["modifier_names"] as? [String], "\(where_): modifiers")
      #expect(ours["text"] as? String ?? "" == (fields["chars"] as? [String] ?? []).joined(), "\(where_): text")
      let event = fields["event"] as? String
      #expect(event == "press" ? ours["pressed"] != nil : ours["released"] != nil, "\(where_): \(event ?? "")")
    case "mouse":
      #expect(ours["buttons"] as? [String] ?? [] == fields["button_names"] as? [String], "\(where_): buttons")
      for key in ["x", "y", "wheel"] { #expect(ours[key] as? Int == fields[key] as? Int, "\(where_): \(key)") }
    case "keyboard_leds":
      #expect(ours["report_type"] as? String == "output", "\(where_)")
      #expect(ours["leds"] as? [String] ?? [] == fields["led_names"] as? [String], "\(where_): LEDs")
    default: Issue.record("\(where_): unknown hid kind \(truth["kind"] ?? "")")
    }
  }

  @Test("no message is decoded where the truth has none, and fragments decode once, on their last frame")
  func messagesDecodeOnce() throws {
    let fixture = try Self.fixture.get()
    var expected: [String: Set<Int>] = [:]
    var fragments: Set<Int> = []
    for entry in fixture.entries {
      let name = ["nordic_dfu": "dfu"][entry["protocol"] as? String ?? ""] ?? entry["protocol"] as? String ?? ""
      expected[name, default: []].insert(Self.lastFrame(entry))
      let pdus = (entry["att_pdus"] as? [[Int]] ?? []).map { $0.last ?? -1 }
      // A read's first PDU is its Read Request, not a part of the value.
      if pdus.count > 1, entry["att"] as? String != "read" { fragments.formUnion(pdus.dropLast()) }
    }
    var decoded: [String: Set<Int>] = [:]
    for (frame, record) in fixture.records {
      if (record["mcumgr"] as? [String: Any])?["op"] != nil { decoded["mcumgr", default: []].insert(frame) }
      if let dfu = record["dfu"] as? [String: Any], dfu["opcode"] != nil || dfu["packet"] != nil {
        decoded["dfu", default: []].insert(frame)
      }
      if (record["nus"] as? [String: Any])?["lines"] != nil { decoded["nus", default: []].insert(frame) }
      if record["hid"] != nil { decoded["hid", default: []].insert(frame) }
      if fragments.contains(frame) {
        let fragment =
          (record["mcumgr"] as? [String: Any])?["fragment"] ?? (record["nus"] as? [String: Any])?["partial_line"]
        #expect(fragment != nil, "frame \(frame) is a fragment and says so")
      }
    }
    for name in ["mcumgr", "dfu", "nus", "hid"] {
      #expect(decoded[name] == expected[name], "\(name): decoded on the truth's frames only")
    }
    #expect(expected["mcumgr"]?.count == 192 && !fragments.isEmpty)
  }

  @Test("mcumgr responses pair with the request of their sequence number")
  func mcumgrPairs() throws {
    let fixture = try Self.fixture.get()
    var requests: [String: Int] = [:]
    var pairs = 0
    for entry in fixture.entries where entry["protocol"] as? String == "mcumgr" {
      let message = entry["mcumgr"] as? [String: Any] ?? [:]
      let key = "\(entry["conn_handle"] ?? "") \(message["seq"] ?? "")"
      let frame = Self.lastFrame(entry)
      guard (message["op"] as? Int ?? 0) % 2 == 1 else {
        requests[key] = frame
        continue
      }
      let ours = fixture.records[frame]?["mcumgr"] as? [String: Any]
      #expect(ours?["request_frame"] as? Int == requests[key], "response at \(frame): request")
      #expect((ours?["latency_ms"] as? Double ?? -1) >= 0, "response at \(frame): latency")
      pairs += 1
    }
    #expect(pairs == 96)
  }

  @Test("every upload's progress matches the truth")
  func progress() throws {
    let fixture = try Self.fixture.get()
    let transfers = try #require(fixture.truth["progress"] as? [[String: Any]])
    #expect(transfers.count == 2)
    for transfer in transfers {
      let name = transfer["protocol"] as? String == "mcumgr" ? "mcumgr" : "dfu"
      let points = transfer["points"] as? [[String: Any]] ?? []
      #expect(!points.isEmpty)
      for point in points {
        let frame = point["frame"] as? Int ?? -1
        let progress = (fixture.records[frame]?[name] as? [String: Any])?["progress"] as? [String: Any]
        #expect(progress?["offset"] as? Int == point["acked_bytes"] as? Int, "\(name) frame \(frame): offset")
        if let source = point["source"] as? String {
          #expect(progress?["source"] as? String == source, "\(name) frame \(frame): source")
        }
        if let total = progress?["total"] as? Int {
          #expect(total == point["total_bytes"] as? Int, "\(name) frame \(frame): total")
          let percent = try #require(progress?["percent"] as? Double)
          #expect(abs(percent - (point["percent"] as? Double ?? -1)) < 0.006, "\(name) frame \(frame): percent")
        } else {
          // The truth's init packet numbers InitCommand's fields off dfu-cc.proto from
          // app_size on: its size cannot be read, and the record that executes it says so.
          #expect(name == "dfu", "\(name) frame \(frame): a total")
          let diagnostics = fixture.records.values.flatMap { $0["diagnostics"] as? [[String: Any]] ?? [] }
          #expect(diagnostics.contains { $0["id"] as? String == "dfu.init.invalid" })
        }
      }
    }
  }
}
