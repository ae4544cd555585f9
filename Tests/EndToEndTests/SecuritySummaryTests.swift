import Foundation
import Testing

/// The `security` object of each connection of `timeline --format json` on a shared
/// capture; nil entries for connections without one.
private func securities(_ name: String) throws -> [[String: Any]?] {
  let output = run(["timeline", "--format", "json", Paths.captures.appending(path: name).path])
  #expect(output.status == 0, "timeline \(name): \(output.stderr)")
  let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
  let connections = try #require(document["connections"] as? [[String: Any]])
  return connections.map { $0["security"] as? [String: Any] }
}

private func only(_ list: Any?) throws -> [String: Any] {
  let items = try #require(list as? [[String: Any]])
  #expect(items.count == 1, "expected one item, got \(items.count)")
  return try #require(items.first)
}

private func findingReasons(_ security: [String: Any]) -> [String] {
  (security["findings"] as? [[String: Any]] ?? []).compactMap { finding in
    (finding["severity"] as? String).flatMap { severity in (finding["title"] as? String).map { "\(severity): \($0)" } }
  }
}

/// Each expectation is what the capture's frames show (tshark's reading in the comments).
@Suite(
  "Security summary of the shared captures",
  .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
struct SecuritySummaryTests {
  /// ios-central, connection 1: #219 Read Request 0x003a is answered at #221 by
  /// Insufficient Encryption; the central pairs at #222 (NoInputNoOutput, Bonding|SC),
  /// the peripheral answers at #224 (NoInputNoOutput, Bonding|SC): LE Secure
  /// Connections Just Works; #237 Encryption Change after LE Enable Encryption, both
  /// sides distribute IRK and identity address (#238–241); #250 reads 0x003a again and
  /// gets its value. Connection 2 (#367) encrypts at #370 with no pairing: the bond.
  @Test(
    "ios-central: LE Secure Connections Just Works, bonded, then a stored key; Insufficient Encryption then pairing")
  func iosCentral() throws {
    let all = try securities("synthetic/ios-central.btsnoop")
    try #require(all.count == 2)
    let first = try #require(all[0])
    let pairing = try only(first["pairings"])
    #expect(pairing["frame"] as? Int == 222)
    #expect(pairing["response_frame"] as? Int == 224)
    #expect(pairing["method"] as? String == "LE Secure Connections Just Works")
    #expect(pairing["secure_connections"] as? Bool == true)
    #expect(pairing["mitm"] as? Bool == false)
    #expect(pairing["authenticated"] as? Bool == false)
    #expect(pairing["bonding"] as? Bool == true)
    #expect(pairing["key_size"] as? Int == 16)
    #expect(pairing["outcome"] as? String == "encrypted")
    #expect(pairing["outcome_frame"] as? Int == 237)
    let seen = try #require(pairing["keys_seen"] as? [String: [String]])
    #expect(seen["by_initiator"] == ["Identity Information", "Identity Address Information"])
    #expect(seen["by_responder"] == ["Identity Information", "Identity Address Information"])
    let encryption = try only(first["encryptions"])
    #expect(encryption["key"] as? String == "pairing")
    #expect(encryption["frame"] as? Int == 237)
    #expect(first["level"] as? Int == 2)
    let error = try only(first["att_errors"])
    #expect(error["frame"] as? Int == 221)
    #expect(error["error_name"] as? String == "Insufficient Encryption")
    #expect(error["handle"] as? Int == 0x003a)
    #expect(error["followed_by"] as? String == "pairing")
    #expect(error["followed_by_frame"] as? Int == 222)
    #expect(error["retry_frame"] as? Int == 250)
    #expect(error["retry_outcome"] as? String == "ok")
    #expect(findingReasons(first) == ["low: Just Works pairing: no protection against a man in the middle"])

    let second = try #require(all[1])
    #expect((second["pairings"] as? [Any])?.isEmpty == true)
    let stored = try only(second["encryptions"])
    #expect(stored["key"] as? String == "stored")
    #expect(stored["frame"] as? Int == 370)
    // The bond comes from connection 1's pairing with the same peer: level 2, known.
    #expect(second["level"] as? Int == 2)
    #expect(second["level_certain"] as? Bool == true)
  }

  /// Tesi_BLE capture (nRF Sniffer): #1032 Write Request 0x0015 gets Insufficient
  /// Authentication at #1035; Pairing Request #1036 (KeyboardDisplay, Bonding|MITM|SC),
  /// Response #1039 (NoInputNoOutput, Bonding|SC): LE Secure Connections Just Works;
  /// LL_START_ENC_REQ at #1101. The refused write carried its value in the clear.
  @Test(
    "Tesi_BLE SC capture: Just Works after Insufficient Authentication, level 2",
    arguments: ["real/Tesi_BLE__capture.pcap", "real/Tesi_BLE__capture.pcapng"])
  func tesiSecureConnections(_ name: String) throws {
    let security = try #require(try securities(name).first ?? nil)
    let pairing = try only(security["pairings"])
    #expect(pairing["frame"] as? Int == 1036)
    #expect(pairing["method"] as? String == "LE Secure Connections Just Works")
    #expect(pairing["mitm"] as? Bool == true)
    #expect(pairing["authenticated"] as? Bool == false)
    #expect(pairing["bonding"] as? Bool == true)
    #expect(pairing["outcome_frame"] as? Int == 1101)
    #expect(security["level"] as? Int == 2)
    let error = try only(security["att_errors"])
    #expect(error["error_name"] as? String == "Insufficient Authentication")
    #expect(error["followed_by"] as? String == "pairing")
    #expect(error["followed_by_frame"] as? Int == 1036)
    #expect(
      findingReasons(security) == [
        "medium: data sent before encryption on a characteristic that later needed it",
        "low: Just Works pairing: no protection against a man in the middle",
      ])
    let plaintext = try #require((security["findings"] as? [[String: Any]])?.first)
    #expect(plaintext["frames"] as? [Int] == [1032, 1035])
  }

  /// Tesi_BLE Lv4_passkey: Pairing Request #3239 (KeyboardDisplay, Bonding|MITM|SC),
  /// Response #3242 (DisplayOnly, Bonding|MITM|SC): LE Secure Connections Passkey
  /// Entry, the responder displays; key size 16; encrypted at #3723: level 4.
  @Test("Tesi_BLE passkey capture: LE Secure Connections Passkey Entry, level 4")
  func tesiPasskey() throws {
    let security = try #require(try securities("real/Tesi_BLE__Lv4_passkey.pcapng").first ?? nil)
    let pairing = try only(security["pairings"])
    #expect(pairing["method"] as? String == "LE Secure Connections Passkey Entry")
    #expect(pairing["authenticated"] as? Bool == true)
    #expect(pairing["key_size"] as? Int == 16)
    #expect(pairing["outcome_frame"] as? Int == 3723)
    #expect(security["level"] as? Int == 4)
    #expect(try only(security["att_errors"])["followed_by_frame"] as? Int == 3239)
    #expect(!findingReasons(security).contains { $0.hasPrefix("high") })
  }

  /// crackle's legacy capture: Pairing Request #566 (NoInputNoOutput, Bonding|MITM),
  /// Response #568 (DisplayOnly): legacy Just Works, TK 0; whad-client's: legacy Passkey
  /// Entry (#289, #292). Both let an eavesdropper recover the LTK.
  @Test(
    "legacy pairing captures are flagged: the LTK can be recovered",
    arguments: [
      ("real/crackle__pairing_and_ltk_exchange.pcap", "LE Legacy Just Works", 2),
      ("real/whad-client__ble_pairing.pcap", "LE Legacy Passkey Entry", 3),
      ("real/Tesi_BLE__mouse.pcapng", "LE Legacy Just Works", 2),
    ])
  func legacy(_ name: String, _ method: String, _ level: Int) throws {
    let security = try #require(try securities(name).compactMap { $0 }.first)
    let pairing = try only(security["pairings"])
    #expect(pairing["method"] as? String == method)
    #expect(pairing["secure_connections"] as? Bool == false)
    #expect(security["level"] as? Int == level)
    #expect(findingReasons(security).first == "high: legacy pairing: an eavesdropper can recover the LTK")
  }

  /// crackle's LE Secure Connections capture: Request #57 (NoInputNoOutput, Bonding|SC),
  /// Response #66 (KeyboardDisplay, Bonding|SC): Just Works, not recoverable.
  @Test("crackle's LE Secure Connections capture is not flagged as recoverable")
  func crackleSecureConnections() throws {
    let security = try #require(try securities("real/crackle__le_secure_connections.pcapng").first ?? nil)
    #expect(try only(security["pairings"])["method"] as? String == "LE Secure Connections Just Works")
    #expect(findingReasons(security) == ["low: Just Works pairing: no protection against a man in the middle"])
  }

  /// AndroidPad: the peripheral sends SMP Security Request at #484 and the link is never
  /// encrypted.
  @Test("a Security Request the central ignores is a finding")
  func ignoredSecurityRequest() throws {
    let security = try #require(try securities("real/AndroidPad__btsnoop_hci.btsnoop").compactMap { $0 }.first)
    #expect(security["security_request_frames"] as? [Int] == [484])
    #expect(security["level"] as? Int == 1)
    #expect(findingReasons(security) == ["medium: the peer asked for security and the link was never encrypted"])
  }

  /// stats sums the same: ios-central's two connections are encrypted, one after
  /// pairing, one with the stored key, both at level 2.
  @Test("stats sums the security of the connections")
  func stats() throws {
    let output = run(
      ["stats", "--format", "json", Paths.captures.appending(path: "synthetic/ios-central.btsnoop").path])
    let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    let capture = try #require((document["captures"] as? [[String: Any]])?.first)
    let security = try #require(capture["security"] as? [String: Any])
    #expect(security["connection_count"] as? Int == 2)
    #expect(security["encrypted_count"] as? Int == 2)
    #expect(security["after_pairing"] as? Int == 1)
    #expect(security["stored_key"] as? Int == 1)
    #expect(security["secure_connection_count"] as? Int == 1)
    #expect(security["legacy"] as? Int == 0)
    let levels = try #require(security["levels"] as? [[String: Int]])
    #expect(levels.map { $0["connection_count"] } == [0, 2, 0, 0])
    #expect(security["att_error_count"] as? Int == 1)
  }
}
