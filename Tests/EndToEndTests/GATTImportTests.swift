import Foundation
import Testing

/// `--import-db` names the handles of a capture that lacks the discovery, with the
/// database `gatt --export-db` wrote from the full capture.
@Suite("GATT database export and import")
struct GATTImportTests {
  /// (frame, opcode, handle, uuid) of each ATT record after `after`.
  static func attributes(_ stdout: Data, after: Int = 0) -> [String] {
    recordLines(stdout).compactMap { line in
      guard let frame = Int(line.frame), frame > after, let att = line.object["att"] as? [String: Any] else {
        return nil
      }
      return
        "\(jsonText(att["opcode"])) \(jsonText(att["handle"])) \(jsonText(att["uuid"])) \(jsonText(att["service_uuid"]))"
    }
  }

  @Test(
    "a capture cut after its discovery names its handles with the exported database",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: syntheticCaptures().filter { !$0.hasPrefix("scale") })
  func cutCaptureNamesHandles(_ name: String) throws {
    let full = Paths.captures.appending(path: "synthetic/\(name)").path
    let database = Paths.scratchFile("db.json").path
    let export = runRaw(["gatt", "--export-db", database, full])
    #expect(export.status == 0, "\(export.stderr)")
    let whole = runRaw(["show", "--format", "ndjson", full])
    // The last discovery response: Find Information, Find By Type Value, Read By (Group) Type.
    let discovery = recordLines(whole.stdout).filter { line in
      [0x05, 0x07, 0x09, 0x11].contains((line.object["att"] as? [String: Any])?["opcode"] as? Int ?? 0)
    }
    let last = try #require(Int(discovery.last?.frame ?? ""), "no discovery in \(name)")

    let cut = Paths.scratchFile("cut.btsnoop").path
    #expect(runRaw(["show", "--filter", "frame > \(last)", "-w", cut, full]).status == 0)
    // The cut capture does not show which peer each link is with; the full one does.
    let peers = Set(Self.linkPeers(whole.stdout, after: last).map { "0x\(String($0.handle, radix: 16))=\($0.peer)" })
    let named = runRaw(
      ["show", "--format", "ndjson", "--import-db", database] + peers.sorted().flatMap { ["--peer", $0] } + [cut])
    #expect(named.status == 0, "\(named.stderr)")
    let unnamed = runRaw(["show", "--format", "ndjson", cut])

    let expected = Self.attributes(whole.stdout, after: last)
    #expect(!expected.isEmpty)
    #expect(
      expected.filter { !$0.contains(" - -") }.count > expected.count / 2, "most PDUs are named in the full capture")
    #expect(Self.attributes(named.stdout) == expected)
    #expect(Self.attributes(unnamed.stdout) != expected, "without the database the cut capture names fewer handles")
    let exported = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: database))) as? [String: Any])
    if (exported["peers"] as? [Any])?.count == 1 {
      // With one peer in the file, --peer is not needed.
      let alone = runRaw(["show", "--format", "ndjson", "--import-db", database, cut])
      #expect(Self.attributes(alone.stdout) == expected)
    }
  }

  /// (connection handle, peer) of every ATT record after `after`.
  static func linkPeers(_ stdout: Data, after: Int) -> [(handle: Int, peer: String)] {
    recordLines(stdout).compactMap { line in
      guard let frame = Int(line.frame), frame > after, line.object["att"] != nil,
        let conn = line.object["conn"] as? [String: Any], let handle = conn["handle"] as? Int,
        let peer = (conn["peer"] as? [String: Any])?["address"] as? String
      else { return nil }
      return (handle, peer)
    }
  }

  /// android-central's export holds two peers; one `--peer ADDR` for every link names the
  /// handles of the cut capture's link to that peer with its database.
  @Test(
    "--peer ADDR gives every link whose peer is not shown that peer's database",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func onePeerForEveryLink() throws {
    let full = Paths.captures.appending(path: "synthetic/android-central.btsnoop").path
    let database = Paths.scratchFile("db.json").path
    #expect(runRaw(["gatt", "--export-db", database, full]).status == 0)
    let cut = Paths.scratchFile("cut.btsnoop").path
    // After the reconnection's discovery (#397): links 0x0042 (D4:36:39:1C:E5:11) and
    // 0x0043 (D4:36:39:67:A2:61).
    #expect(runRaw(["show", "--filter", "frame > 397", "-w", cut, full]).status == 0)
    let named = runRaw(["show", "--format", "ndjson", "--import-db", database, "--peer", "D4:36:39:67:A2:61", cut])
    #expect(named.status == 0, "\(named.stderr)")
    let byHandle = Dictionary(
      grouping: recordLines(named.stdout).compactMap { line -> (Int, String)? in
        guard let att = line.object["att"] as? [String: Any], att["handle"] != nil,
          let handle = (line.object["conn"] as? [String: Any])?["handle"] as? Int
        else { return nil }
        return (handle, jsonText(att["uuid"]))
      }, by: \.0)
    let reconnected = try #require(byHandle[0x43])
    #expect(reconnected.allSatisfy { $0.1 != "-" }, "every attribute of the reconnected link is named")
    // Without --peer, the file's two peers leave the links unnamed.
    let unnamed = runRaw(["show", "--format", "ndjson", "--import-db", database, cut])
    #expect(recordLines(unnamed.stdout).allSatisfy { ($0.object["att"] as? [String: Any])?["uuid"] == nil })
  }

  @Test(
    "a bad --peer is a usage error naming the value",
    arguments: ["zz", "0x0042=", "0xf000=D4:36:39:67:A2:61", "lamp=D4:36:39:67:A2:61"])
  func badPeer(_ value: String) {
    let output = runRaw(["show", "--peer", value, "Samples/hr-sensor.btsnoop"])
    #expect(output.status == 1)
    #expect(output.stderr.contains("--peer '\(value)'"), "\(output.stderr)")
  }

  @Test(
    "a bad database file is a usage error naming the place",
    arguments: [
      ("{", "not JSON"),
      (#"{"nodes":[]}"#, "expected an object with \"peers\""),
      (#"{"peers":[{"address":"zz","services":[]}]}"#, "peers[0].address"),
      (
        #"{"peers":[{"address":null,"services":[{"start":1,"end":5,"uuid":"xyz","characteristics":[]}]}]}"#,
        "peers[0].services[0].uuid"
      ),
    ])
  func badDatabase(text: String, message: String) throws {
    let database = Paths.scratchFile("bad-db.json")
    try Data(text.utf8).write(to: database)
    let output = runRaw(["show", "--import-db", database.path, "Samples/hr-sensor.btsnoop"])
    #expect(output.status == 1)
    #expect(output.stderr.contains(message), "\(output.stderr)")
  }
}
