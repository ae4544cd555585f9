import Foundation
import Testing

/// What `show` says about discovery responses, and the peer names of its connection
/// column, on the shared captures.
@Suite("show: discovery on the line, peer names")
struct DiscoveryLineTests {
  static let iosCentral = Paths.captures.appending(path: "synthetic/ios-central.btsnoop").path
  static let androidPad = Paths.captures.appending(path: "real/AndroidPad__btsnoop_hci.btsnoop").path

  /// Every service and characteristic `gatt` lists is named, with its handles, on a
  /// discovery line of `show`, and in the JSON lists of a discovery response.
  @Test("discovery lines name every service and characteristic gatt lists", .enabled(if: sharedAvailable))
  func discoveryCoversGATT() throws {
    let gatt = runRaw(["gatt", "--format", "json", Self.iosCentral])
    let document = try #require(try JSONSerialization.jsonObject(with: gatt.stdout) as? [String: Any])
    let peers = try #require(document["peers"] as? [[String: Any]])
    let text = run(["show", "-Y", "att.opcode in {0x11 0x09 0x05 0x07}", Self.iosCentral]).stdout
    let json = runRaw(["show", "--format", "ndjson", "-Y", "att.opcode in {0x11 0x09}", Self.iosCentral])
    var listed: Set<String> = []
    for line in recordLines(json.stdout) {
      let att = line.object["att"] as? [String: Any] ?? [:]
      for service in att["services"] as? [[String: Any]] ?? [] {
        listed.insert("service \(service["start"]!) \(service["end"]!) \(service["uuid"]!)")
      }
      for characteristic in att["characteristics"] as? [[String: Any]] ?? [] {
        listed.insert(
          "characteristic \(characteristic["declaration"]!) \(characteristic["value"]!) \(characteristic["uuid"]!)"
            + " \(characteristic["properties"]!)")
      }
    }
    var services = 0
    var characteristics = 0
    for peer in peers {
      for service in peer["services"] as? [[String: Any]] ?? [] {
        let start = service["start"] as! Int
        let end = service["end"] as! Int
        let uuid = service["uuid"] as! String
        services += 1
        #expect(listed.contains("service \(start) \(end) \(uuid)"), "service \(uuid)")
        let name = (service["name"] as? String).map { "\($0) (\(uuid))" } ?? uuid
        #expect(text.contains("\(hex(start))-\(hex(end)) \(name)"), "service \(name) not on a line")
        for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
          let declaration = characteristic["declaration"] as! Int
          let value = characteristic["value"] as! Int
          let uuid = characteristic["uuid"] as! String
          let properties = characteristic["properties_names"] as! [String]
          characteristics += 1
          #expect(
            listed.contains("characteristic \(declaration) \(value) \(uuid) \(characteristic["properties"]!)"),
            "characteristic \(uuid)")
          let name = (characteristic["name"] as? String).map { "\($0) (\(uuid))" } ?? uuid
          #expect(
            text.contains("\(hex(declaration)) → \(hex(value)) \(name) [\(properties.joined(separator: ", "))]"),
            "characteristic \(name) not on a line")
        }
      }
    }
    #expect(services >= 7 && characteristics >= 15)
    print("ios-central discovery: \(services) services, \(characteristics) characteristics, all on discovery lines")
  }

  private func hex(_ value: Int) -> String {
    "0x" + String(repeating: "0", count: max(0, 4 - String(value, radix: 16).count)) + String(value, radix: 16)
  }

  /// AndroidPad talks to three Roki lamps; the connection column names them from
  /// their advertising, so at least two different lamp names appear.
  @Test("the connection column names AndroidPad's lamps", .enabled(if: sharedAvailable))
  func lampNames() {
    let output = run(["show", "-Y", "conn and att", Self.androidPad])
    #expect(output.status == 0)
    var names: [String: Set<String>] = [:]
    for line in ReadingTests.recordLines(output.stdout) {
      // frame, time, dir (one adapter: no adapter column), then `#id name`.
      let columns = line.split(separator: " ", omittingEmptySubsequences: true)
      guard columns.count > 4, columns[3].hasPrefix("#") else { continue }
      names[String(columns[3]), default: []].insert(String(columns[4]))
    }
    let lamps = Set(names.values.flatMap { $0 }.filter { $0.hasPrefix("ROKI_") })
    #expect(lamps.count >= 2, "\(names)")
    // One name per connection.
    #expect(names.values.allSatisfy { $0.count == 1 }, "\(names)")
    print("AndroidPad connection names: \(names.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.first!)" })")
  }
}

/// tshark oracle: the UUIDs and characteristic properties of every discovery response.
@Suite("tshark oracle: discovery responses")
struct DiscoveryOracleTests {
  /// Declarations tshark lists in a Read By (Group) Type Response as the request's type,
  /// not as an entry.
  static let declarationTypes: Set<String> = ["2800", "2801", "2802", "2803"]

  static func isSubsequence(_ part: [String], of whole: [String]) -> Bool {
    var rest = whole[...]
    for item in part {
      guard let index = rest.firstIndex(of: item) else { return false }
      rest = rest[(index + 1)...]
    }
    return true
  }

  /// A UUID with its bytes in either order gives the same key; repeats in a row go.
  static func keys(_ uuids: [String]) -> [String] {
    var keys: [String] = []
    for uuid in uuids {
      var key = uuid
      if uuid.count == 36 {
        let hex = uuid.filter { $0 != "-" }
        let reversed = stride(from: 30, through: 0, by: -2).map { String(hex.dropFirst($0).prefix(2)) }.joined()
        key = min(hex, reversed)
        // A UUID on the Base UUID carried in 128 bits is its short form.
        for form in [hex, reversed] where form.hasPrefix("0000") && form.hasSuffix("00001000800000805f9b34fb") {
          key = String(form.dropFirst(4).prefix(4))
        }
      }
      if keys.last != key { keys.append(key) }
    }
    return keys
  }

  /// For every Read By Group Type, Read By Type and Find Information Response whose
  /// request's type bleanalyze knows, the UUIDs (btatt.uuid16, btatt.uuid128) and the
  /// characteristic properties are tshark's, in order.
  @Test(
    "discovery entries agree with tshark",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: sharedCaptureFiles().filter { $0.hasPrefix("real/") })
  func agrees(_ file: String) {
    let url = Paths.captures.appending(path: file)
    let output = runRaw(["show", "--format", "ndjson", "-Y", "att.opcode in {0x11 0x09 0x05}", url.path])
    #expect(output.status == 0 || output.status == 3, "stderr: \(output.stderr)")
    var ours: [Int: (uuids: [String], properties: [Int], opcode: Int)] = [:]
    for line in recordLines(output.stdout) {
      guard let frame = Int(line.frame), let att = line.object["att"] as? [String: Any],
        let opcode = att["opcode"] as? Int
      else { continue }
      var uuids: [String] = []
      var properties: [Int] = []
      for key in ["services", "characteristics", "descriptors", "includes"] {
        for entry in att[key] as? [[String: Any]] ?? [] {
          if let uuid = entry["uuid"] as? String { uuids.append(uuid) }
          if let value = entry["properties"] as? Int { properties.append(value) }
        }
      }
      ours[frame] = (uuids, properties, opcode)
    }
    var compared = 0
    var disagreements: [String] = []
    var unlisted = 0
    var withHints = 0
    tsharkFields(
      url,
      options: ["-E", "occurrence=a", "-Y", "btatt.opcode == 0x11 || btatt.opcode == 0x09 || btatt.opcode == 0x05"],
      fields: ["frame.number", "btatt.opcode", "btatt.uuid16", "btatt.uuid128", "btatt.characteristic_properties"]
    ) { columns in
      guard columns.count == 5, let frame = Int(columns[0]), let opcode = number(columns[1].split(separator: ",")[0])
      else { return }
      guard let mine = ours[frame], !(mine.uuids.isEmpty && opcode != 0x05) else {
        unlisted += 1  // a response whose request bleanalyze did not see, or a type it does not list
        return
      }
      // tshark lists each entry's UUID twice (the entry and its attribute), a 128-bit
      // one once in canonical order and once in wire order: compare keys that ignore
      // the byte order, with repeats in a row dropped on both sides.
      let expected = Self.keys(
        (columns[2].split(separator: ",") + columns[3].split(separator: ",")).compactMap {
          canonicalUUID(tshark: $0)
        }.filter { opcode == 0x05 || !Self.declarationTypes.contains($0) })
      let properties = columns[4].split(separator: ",").compactMap { number($0) }
      compared += 1
      let ours = Self.keys(mine.uuids)
      let sameUUIDs =
        columns[2].isEmpty || columns[3].isEmpty ? expected == ours : expected.sorted() == ours.sorted()
      // Where tshark knows the database from earlier discovery, it adds each handle's
      // service or characteristic UUID as a hint among the entries: ours must then be in
      // its list, in order.
      let inOrder = Self.isSubsequence(ours, of: expected)
      if !sameUUIDs && inOrder && properties == mine.properties { withHints += 1 }
      if !inOrder || properties != mine.properties {
        disagreements.append("#\(frame): tshark \(expected) \(properties), ours \(mine.uuids) \(mine.properties)")
      }
    }
    #expect(disagreements.isEmpty, Comment(rawValue: "\(file):\n" + disagreements.prefix(12).joined(separator: "\n")))
    print(
      "discovery oracle \(file): \(compared - disagreements.count)/\(compared) agree (\(withHints) among tshark's hints),"
        + " \(unlisted) not listed")
  }
}
