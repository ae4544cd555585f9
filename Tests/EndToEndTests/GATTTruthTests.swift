import Foundation
import Testing

/// `gatt --format json` against the GATT database the generator served.
@Suite("truth: rebuilt GATT databases")
struct GATTTruthTests {
  /// A database reduced to what both sides say: services, characteristics, descriptors.
  struct Service: Equatable, CustomStringConvertible {
    var start, end: Int
    var uuid: String
    var primary: Bool
    var characteristics: [Characteristic]
    var description: String { "\(start)–\(end) \(uuid) \(primary) \(characteristics)" }
  }

  struct Characteristic: Equatable, CustomStringConvertible {
    var declaration, value, properties: Int
    var uuid: String
    var descriptors: [String]
    var description: String { "\(declaration)/\(value) \(uuid) \(properties) \(descriptors)" }
  }

  /// Truth writes `"uuid16": "0x2A37"` for SIG UUIDs and `"uuid"` (36 characters) for the rest.
  static func truthUUID(_ object: [String: Any]) -> String {
    if let short = object["uuid16"] as? String { return String(short.dropFirst(2)).lowercased() }
    return (object["uuid"] as? String ?? "").lowercased()
  }

  static func truthServices(_ db: [String: Any]) -> [Service] {
    (db["services"] as? [[String: Any]] ?? []).map { s in
      Service(
        start: s["handle"] as? Int ?? -1, end: s["end_handle"] as? Int ?? -1, uuid: truthUUID(s),
        primary: s["primary"] as? Bool ?? false,
        characteristics: (s["characteristics"] as? [[String: Any]] ?? []).map { c in
          Characteristic(
            declaration: c["declaration_handle"] as? Int ?? -1, value: c["value_handle"] as? Int ?? -1,
            properties: Int((c["properties"] as? String ?? "").dropFirst(2), radix: 16) ?? -1, uuid: truthUUID(c),
            descriptors: (c["descriptors"] as? [[String: Any]] ?? []).map {
              "\($0["handle"] as? Int ?? -1) \(truthUUID($0))"
            })
        })
    }
  }

  static func ourServices(_ peer: [String: Any]) -> [Service] {
    (peer["services"] as? [[String: Any]] ?? []).map { s in
      Service(
        start: s["start"] as? Int ?? -1, end: s["end"] as? Int ?? -1, uuid: s["uuid"] as? String ?? "",
        primary: s["primary"] as? Bool ?? false,
        characteristics: (s["characteristics"] as? [[String: Any]] ?? []).map { c in
          Characteristic(
            declaration: c["declaration"] as? Int ?? -1, value: c["value"] as? Int ?? -1,
            properties: c["properties"] as? Int ?? -1, uuid: c["uuid"] as? String ?? "",
            descriptors: (c["descriptors"] as? [[String: Any]] ?? []).map {
              "\($0["handle"] as? Int ?? -1) \($0["uuid"] as? String ?? "")"
            })
        })
    }
  }

  @Test(
    "gatt --format json equals .truth.json gatt_database",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping truth test"),
    arguments: syntheticCaptures())
  func databaseMatches(_ name: String) throws {
    let url = Paths.captures.appending(path: "synthetic/\(name)")
    let truthData = try Data(contentsOf: URL(fileURLWithPath: url.path + ".truth.json"))
    let truth = try #require(try JSONSerialization.jsonObject(with: truthData) as? [String: Any])
    let databases = try #require(truth["gatt_database"] as? [String: [String: Any]])
    let output = runRaw(["gatt", "--format", "json", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let peers = try #require(document["peers"] as? [[String: Any]])
    #expect(Set(peers.compactMap { $0["address"] as? String }) == Set(databases.keys))
    for (address, db) in databases {
      let peer = try #require(peers.first { $0["address"] as? String == address }, "no database for \(address)")
      #expect(Self.ourServices(peer) == Self.truthServices(db), "\(address)")
    }
  }
}
