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

/// A connection on air needs a valid CONNECT_IND or a stream of data PDUs on its access
/// address: one damaged or malformed packet never opens one.
@Suite("air connections need a CONNECT_IND or a stream")
struct AirConnectionTests {
  /// CONNECT_IND from InitA 5C:F3:70:8A:21:9E to AdvA C0:48:FF:F5:9D:B8 (random):
  /// `accessAddress`, CRCInit 0x0A2F85, WinSize 2, WinOffset 0, interval 24 (30 ms),
  /// latency 0, timeout 72 (720 ms), every data channel, hop 7; `extra` octets after it
  /// make it malformed (its length is 34).
  static func connectInd(_ accessAddress: UInt32, extra: [UInt8] = []) -> [UInt8] {
    let llData: [UInt8] =
      (0..<4).map { UInt8(accessAddress >> (8 * $0) & 0xFF) } + [0x85, 0x2F, 0x0A, 0x02, 0x00, 0x00, 0x18, 0x00]
      + [0x00, 0x00, 0x48, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x07]
    return AirCaptures.advertisingPDU(
      0x05, AirCaptures.address("5C:F3:70:8A:21:9E") + AirCaptures.address("C0:48:FF:F5:9D:B8") + llData + extra,
      rxRandom: true)
  }

  /// A data channel packet on `accessAddress` at `microseconds`: an empty PDU, or an
  /// L2CAP start fragment.
  static func data(_ accessAddress: UInt32, at microseconds: Int64, payload: [UInt8] = [], crcGood: Bool = true)
    -> AirCaptures.Packet
  {
    AirCaptures.Packet(
      microseconds: microseconds, channel: 3, accessAddress: accessAddress,
      pdu: AirCaptures.dataPDU(llid: payload.isEmpty ? 0x01 : 0x02, payload), crcInit: 0x0A_2F85, crcGood: crcGood)
  }

  /// #1 a CONNECT_IND for 0x50654A27 and #2-#4 its empty PDUs; #5 one packet (an L2CAP
  /// start, CRC good as the sniffer says) on 0x50654A2F, the access address with a bit
  /// flipped; #6 one with a bad CRC on 0x11223344; #7 a CONNECT_IND one octet too long
  /// for 0x5A5A5A5A and #8 one packet on it; #9-#11 three packets 30 ms apart on
  /// 0x6B6B6B6B, a connection up before the capture.
  @Test("a damaged or malformed packet opens no connection; a CONNECT_IND or a stream does")
  func phantoms() throws {
    let real: UInt32 = 0x5065_4A27
    let capture = try AirCaptures.pcap([
      .advertising(at: 0, Self.connectInd(real)),
      Self.data(real, at: 1_250), Self.data(real, at: 31_250), Self.data(real, at: 61_250),
      Self.data(0x5065_4A2F, at: 70_000, payload: [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]),
      Self.data(0x1122_3344, at: 80_000, crcGood: false),
      .advertising(at: 100_000, Self.connectInd(0x5A5A_5A5A, extra: [0x00])),
      Self.data(0x5A5A_5A5A, at: 101_250),
      Self.data(0x6B6B_6B6B, at: 200_000), Self.data(0x6B6B_6B6B, at: 230_000), Self.data(0x6B6B_6B6B, at: 260_000),
    ])
    let output = runRaw(["timeline", "--format", "json", capture.path])
    #expect(output.status == 0, "\(output.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let connections = try #require(document["connections"] as? [[String: Any]])
    #expect(connections.map { $0["access_address"] as? Int } == [Int(real), 0x6B6B_6B6B])
    #expect(connections.first?["complete_frame"] as? Int == 1)
    // Records: the bit-flipped, damaged and malformed ones belong to no connection; the
    // stream's first packet neither, the two after it to the second connection.
    var conns: [Int?] = []
    for line in lines(run(["show", "--format", "ndjson", capture.path]).stdout) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      conns.append((object?["conn"] as? [String: Any])?["id"] as? Int)
    }
    #expect(conns == [1, 1, 1, 1, nil, nil, nil, nil, nil, 2, 2])
  }
}
