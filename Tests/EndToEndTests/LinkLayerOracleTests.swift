import Foundation
import Testing

/// The air sniffer captures in ../shared/captures/real with a link type tshark decodes
/// without configuration: DLT 256 (LE LL with PHDR) and 272 (nRF Sniffer).
let linkLayerCaptures = [
  "Tesi_BLE__capture.pcap", "Tesi_BLE__capture.pcapng", "Tesi_BLE__Lv4_passkey.pcapng", "Tesi_BLE__mouse.pcapng",
  "sweyntooth_bluetooth_low_energy_attacks__capture_cypress_psoc6_crash_llid.pcapng",
  "sweyntooth_bluetooth_low_energy_attacks__capture_nxp_ll_length_crash_capture.pcap",
  "whad-client__ble_pairing.pcap", "crackle__le_secure_connections.pcapng",
]

/// One frame's link-layer facts as text, the same way for tshark and for us.
struct LinkLayerFacts: Equatable, CustomStringConvertible {
  var pduType = ""
  var advAddress = ""
  var controlOpcode = ""
  var cid = ""
  var attOpcode = ""
  var attHandle = ""
  /// Ours only: the payload is ciphertext, not decoded.
  var encrypted = false

  var description: String {
    "pdu \(pduType) adv \(advAddress) ctrl \(controlOpcode) cid \(cid) att \(attOpcode) handle \(attHandle)"
  }

  /// tshark lists every entry's handle for these responses; ours name none.
  static let listResponses: Set<String> = ["5", "9", "17"]
}

/// `show --format ndjson` against `tshark -T fields` on every DLT 256 and 272 capture:
/// per frame, the advertising PDU type and address, the LL Control opcode, the L2CAP
/// CID and the ATT opcode and handle, over the frames tshark does not mark malformed.
@Suite("tshark oracle: link-layer captures")
struct LinkLayerOracleTests {
  @Test(
    "link-layer decoding agrees with tshark on at least 99.5% of the frames",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: linkLayerCaptures)
  func agreement(_ name: String) throws {
    let url = Paths.captures.appending(path: "real/\(name)")
    try #require(
      FileManager.default.fileExists(atPath: url.path), "\(name) not in ../shared/captures/real")
    let ours = try Self.ourFacts(url)
    var compared = 0
    var agreed = 0
    var malformed = 0
    var ciphertext = 0
    var disagreements: [String] = []
    let fields = [
      "frame.number", "_ws.malformed", "btle.advertising_header.pdu_type", "btle.advertising_address",
      "btle.control_opcode", "btl2cap.cid", "btatt.opcode", "btatt.handle",
    ]
    tsharkFields(url, fields) { columns in
      guard columns.count == fields.count, let frame = Int(columns[0]) else { return }
      if !columns[1].isEmpty {
        malformed += 1
        return
      }
      func first(_ column: Substring) -> String {
        column.split(separator: ",").first.map { number(String($0)).map(String.init) ?? String($0) } ?? ""
      }
      var theirs = LinkLayerFacts(
        pduType: first(columns[2]), advAddress: String(columns[3]).uppercased(), controlOpcode: first(columns[4]),
        cid: first(columns[5]), attOpcode: first(columns[6]), attHandle: first(columns[7]))
      if LinkLayerFacts.listResponses.contains(theirs.attOpcode) { theirs.attHandle = "" }
      var mine = ours[frame] ?? LinkLayerFacts()
      if mine.encrypted {
        mine.encrypted = false
        // tshark decodes ciphertext as if it were plaintext (`ciphertextDecodedByTshark`).
        if mine != theirs {
          ciphertext += 1
          return
        }
      }
      compared += 1
      if mine == theirs {
        agreed += 1
      } else if disagreements.count < 20 {
        disagreements.append("frame \(frame): tshark \(theirs), ours \(mine)")
      }
    }
    let percent = compared == 0 ? 0 : Double(agreed) * 100 / Double(compared)
    print(
      "LL agreement \(name): \(agreed)/\(compared) frames agree (\(String(format: "%.2f", percent))%), "
        + "\(malformed) malformed frames and \(ciphertext) encrypted frames that tshark decodes as plaintext left out")
    for line in disagreements { print("  \(line)") }
    #expect(compared > 0)
    #expect(percent >= 99.5, "\(name): \(disagreements.joined(separator: "\n"))")
  }

  /// Our facts per frame, from `show --format ndjson`.
  static func ourFacts(_ url: URL) throws -> [Int: LinkLayerFacts] {
    let output = runRaw(["show", "--format", "ndjson", url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    var facts: [Int: LinkLayerFacts] = [:]
    for line in output.text.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let frame = try #require(object["frame"] as? Int)
      let ll = object["ll"] as? [String: Any]
      let l2cap = object["l2cap"] as? [String: Any]
      let att = object["att"] as? [String: Any]
      func text(_ value: Any?) -> String { (value as? Int).map(String.init) ?? (value as? String) ?? "" }
      var mine = LinkLayerFacts(
        pduType: text(ll?["pdu_type_code"]), advAddress: text(ll?["adv_address"]),
        controlOpcode: text(ll?["control_opcode"]), cid: text(l2cap?["cid"]), attOpcode: text(att?["opcode"]),
        attHandle: text(att?["handle"]), encrypted: ll?["encrypted"] as? Bool ?? false)
      if LinkLayerFacts.listResponses.contains(mine.attOpcode) { mine.attHandle = "" }
      facts[frame] = mine
    }
    return facts
  }

  /// tshark is wrong here: it decodes encrypted payloads as plaintext. The nRF Sniffer
  /// says so itself (Encrypted set, MIC not OK: it could not decrypt), yet tshark shows
  /// an LL Control opcode for them. We mark them encrypted and decode nothing.
  @Test(
    "tshark decodes ciphertext the nRF Sniffer could not decrypt; we mark it encrypted",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"))
  func ciphertextDecodedByTshark() throws {
    let url = Paths.captures.appending(path: "real/Tesi_BLE__capture.pcap")
    try #require(FileManager.default.fileExists(atPath: url.path))
    let ours = try Self.ourFacts(url)
    var cases: [Int] = []
    tsharkFields(url, ["frame.number", "nordic_ble.encrypted", "nordic_ble.micok", "btle.control_opcode"]) { columns in
      guard columns.count == 4, let frame = Int(columns[0]), columns[1] == "1", columns[2] == "0", !columns[3].isEmpty
      else { return }
      cases.append(frame)
      #expect(ours[frame]?.encrypted == true, "frame \(frame) is ciphertext")
      #expect(ours[frame]?.controlOpcode == "", "frame \(frame) has no opcode we can read")
    }
    // Frames 1102 and 1105: LL_START_ENC_RSP both ways, encrypted.
    #expect(cases.count >= 2, "tshark decoded \(cases.count) encrypted control PDUs")
  }
}
