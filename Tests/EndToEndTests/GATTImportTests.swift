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
        "\(jsonText(att["opcode"])) \(jsonText(att["handle"])) \(jsonText(att["uuid"])) \(jsonText(att["service"]))"
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
    let named = runRaw(["show", "--format", "ndjson", "--import-db", database, cut])
    #expect(named.status == 0, "\(named.stderr)")
    let unnamed = runRaw(["show", "--format", "ndjson", cut])

    let expected = Self.attributes(whole.stdout, after: last)
    #expect(!expected.isEmpty)
    #expect(
      expected.filter { !$0.contains(" - -") }.count > expected.count / 2, "most PDUs are named in the full capture")
    #expect(Self.attributes(named.stdout) == expected)
    #expect(Self.attributes(unnamed.stdout) != expected, "without the database the cut capture names fewer handles")
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
