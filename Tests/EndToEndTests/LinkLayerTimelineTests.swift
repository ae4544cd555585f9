import Foundation
import Testing

/// `timeline` on the air sniffer captures: every CONNECT_IND (or AUX_CONNECT_REQ) that
/// tshark finds with a good CRC opens a connection at that frame, with the advertiser as
/// its peer and the LLData's access address.
@Suite("timeline on link-layer captures")
struct LinkLayerTimelineTests {
  @Test(
    "timeline finds the connection of every CONNECT_IND",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: linkLayerCaptures)
  func connections(_ name: String) throws {
    let url = Paths.captures.appending(path: "real/\(name)")
    try #require(FileManager.default.fileExists(atPath: url.path), "\(name) not in ../shared/captures/real")
    var expected: [Int: (peer: String, accessAddress: Int)] = [:]
    let fields = [
      "frame.number", "btle.advertising_header.pdu_type", "btle.advertising_address",
      "btle.link_layer_data.access_address", "nordic_ble.crcok", "btle.crc.incorrect", "btle_rf.flags.crc_checked",
      "btle_rf.flags.crc_valid",
    ]
    tsharkFields(url, fields) { columns in
      guard columns.count == fields.count, let frame = Int(columns[0]), number(columns[1]) == 5,
        let accessAddress = number(columns[3]), columns[4] != "0", columns[5].isEmpty,
        columns[6] != "1" || columns[7] != "0"
      else { return }
      expected[frame] = (String(columns[2]).uppercased(), accessAddress)
    }
    let output = runRaw(["timeline", "--format", "json", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let connections = try #require(document["connections"] as? [[String: Any]])
    var found: [Int: (peer: String, accessAddress: Int)] = [:]
    for connection in connections {
      guard let frame = connection["complete_frame"] as? Int else { continue }
      let peer = (connection["peer"] as? [String: Any])?["address"] as? String ?? "-"
      found[frame] = (peer, connection["access_address"] as? Int ?? -1)
    }
    print("LL timeline \(name): \(expected.count) CONNECT_IND, \(found.count) connections opened by one")
    #expect(found.count == expected.count)
    for (frame, connect) in expected.sorted(by: { $0.key < $1.key }) {
      let ours = found[frame]
      #expect(ours?.peer == connect.peer, "frame \(frame): peer")
      #expect(ours?.accessAddress == connect.accessAddress, "frame \(frame): access address")
    }
  }
}
