import Foundation
import Testing

/// What tshark shows of a capture that `redact` must keep or remove, read in one run.
enum RedactField {
  /// The per-frame protocol structure that must not change.
  static let structure = [
    "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_evt.opcode", "btl2cap.cid",
    "btatt.opcode", "btatt.handle", "btsmp.opcode", "btle.advertising_header.pdu_type", "btle.control_opcode",
    "hci_mon.opcode",
  ]
  /// Every address field of tshark's Bluetooth dissectors (`tshark -G fields`, FT_ETHER).
  static let addresses = [
    "bluetooth.src", "bluetooth.dst", "btatt.reconnection_address", "btcommon.eir_ad.entry.bd_addr",
    "bthci_acl.src.bd_addr", "bthci_acl.dst.bd_addr", "bthci_cmd.bd_addr", "bthci_evt.bd_addr",
    "bthci_evt.le_local_rpa", "bthci_evt.le_peer_rpa", "bthci_evt.direct_bd_addr", "btle.master_bd_addr",
    "btle.slave_bd_addr", "btle.advertising_address", "btle.initiator_address", "btle.target_address",
    "btle.scanning_address", "btsmp.bd_addr", "hci_mon.bd_addr",
  ]
  /// Keys and pairing values.
  static let keys = [
    "btsmp.cfm_value", "btsmp.random_value", "btsmp.long_term_key", "btsmp.id_resolving_key",
    "btsmp.signature_key", "btsmp.ediv", "btsmp.dhkey_check", "btsmp.public_key_x", "btsmp.public_key_y",
    "bthci_cmd.le_long_term_key", "bthci_cmd.link_key", "bthci_evt.link_key", "bthci_cmd.le_random_number",
    "bthci_evt.le_random_number", "bthci_cmd.pin_code", "bthci_cmd.passkey", "bthci_evt.passkey",
    "bthci_evt.numeric_value", "btle.control.random_number", "btle.control.encrypted_diversifier",
    "bthci_cmd.le_encrypted_diversifier", "bthci_evt.le_encrypted_diversifier",
  ]
  static let identityKey = "btsmp.id_resolving_key"
  /// ATT PDUs that carry an attribute value after their handle: Read, Read Blob, Read
  /// Multiple Responses, Write Request, Write Command, Signed Write Command, Prepare
  /// Write Request and Response, Handle Value Notification and Indication.
  static let valueOpcodes: Set<String> = [
    "0x0b", "0x0d", "0x0f", "0x12", "0x52", "0xd2", "0x16", "0x17", "0x1b", "0x1d",
  ]
  /// tshark's own CRC verdict, then the sniffer's (nRF Sniffer, DLT 256 RF header).
  static let crc = ["btle.crc.incorrect", "nordic_ble.crcok", "btle_rf.flags.crc_checked", "btle_rf.flags.crc_valid"]
}

/// tshark's view of one capture: the structure of each frame, the frames with a bad
/// CRC, and the addresses and key values it shows.
struct RedactView {
  var structure: [String] = []
  /// Frames tshark finds a bad CRC in.
  var badCRC: Set<Int> = []
  /// Frames tshark or the sniffer says have a bad CRC.
  var damaged: Set<Int> = []
  /// Address and key values of every frame, damaged or not, as octets (wire order).
  var needles: Set<[UInt8]> = []
  /// The addresses among them, most significant octet first (as tshark prints them).
  var addresses: Set<[UInt8]> = []
  /// Key values by field, as tshark prints them.
  var keys: [String: Set<String>] = [:]

  /// `needles`: also read the address fields and collect the values to look for.
  init?(_ file: URL, needles collect: Bool) {
    let structureEnd = 1 + RedactField.structure.count
    let crcEnd = structureEnd + RedactField.crc.count
    let fields =
      ["frame.number"] + RedactField.structure + RedactField.crc + RedactField.keys
      + (collect ? RedactField.addresses : [])
    var rows: [[Substring]] = []
    let read = tsharkFields(file, options: ["-E", "occurrence=a", "-E", "aggregator=|"], fields: fields) {
      rows.append($0)
    }
    guard read else { return nil }
    let opcode = 1 + RedactField.structure.firstIndex(of: "btatt.opcode")!
    let handle = 1 + RedactField.structure.firstIndex(of: "btatt.handle")!
    for columns in rows where columns.count == fields.count {
      let frame = Int(columns[0]) ?? 0
      var frameStructure = Array(columns[1..<structureEnd])
      if RedactField.valueOpcodes.contains(String(columns[opcode])) {
        // Handles tshark reads inside a value (from a database of another connection)
        // are the value's, which --blank-values fills.
        frameStructure[handle - 1] = columns[handle].split(separator: "|").first ?? ""
      }
      structure.append(frameStructure.joined(separator: " "))
      let crc = columns[structureEnd..<crcEnd]
      let tsharkBad = !crc[structureEnd].isEmpty
      if tsharkBad { badCRC.insert(frame) }
      if tsharkBad || crc[structureEnd + 1] == "0" || (crc[structureEnd + 2] == "1" && crc[structureEnd + 3] == "0") {
        damaged.insert(frame)
      }
      for (index, field) in RedactField.keys.enumerated() where !columns[crcEnd + index].isEmpty {
        for value in columns[crcEnd + index].split(separator: "|") {
          keys[field, default: []].insert(String(value))
        }
      }
      guard collect else { continue }
      let addressStart = crcEnd + RedactField.keys.count
      for (index, column) in columns[crcEnd...].enumerated() where !column.isEmpty {
        for value in column.split(whereSeparator: { $0 == "|" || $0 == "," }) {
          guard let octets = Self.octets(value), Self.isNeedle(octets) else { continue }
          needles.insert(octets)
          if crcEnd + index >= addressStart, octets.count == 6 { addresses.insert(octets) }
        }
      }
    }
  }

  /// A tshark value as octets: an address, hex bytes, or a 0x number (wire order for
  /// bytes; numbers most significant first, searched both ways anyway).
  static func octets(_ text: Substring) -> [UInt8]? {
    var digits = text.filter { $0 != ":" }
    if digits.hasPrefix("0x") { digits.removeFirst(2) }
    guard digits.count >= 2, digits.allSatisfy(\.isHexDigit) else { return nil }
    if digits.count % 2 == 1 { digits = "0" + digits }
    var octets: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
      let next = digits.index(index, offsetBy: 2)
      octets.append(UInt8(digits[index..<next], radix: 16)!)
      index = next
    }
    return octets
  }

  /// Long enough and varied enough that finding it elsewhere by chance is implausible;
  /// all zeros and all ones name nothing.
  static func isNeedle(_ octets: [UInt8]) -> Bool {
    octets.count >= 6 && Set(octets).count >= 2 && !octets.allSatisfy { $0 == 0 || $0 == 0xFF }
  }
}

/// `redact` on every capture in ../shared, in each format its link type allows: no key
/// or address tshark shows is left anywhere in the output's bytes, tshark reads the same
/// frames with the same structure and no new bad CRC, and `timeline` and `gatt` read the
/// same once the mapping is applied.
@Suite("tshark oracle: redact leaves no secret and keeps structure and analysis")
struct RedactOracleTests {
  static let formats = ["pcap", "pcapng", "btsnoop"]

  static func captures() -> [String] {
    var names: [String] = []
    for folder in ["real", "synthetic"] {
      let path = Paths.captures.appending(path: folder).path
      let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      names += files.filter { $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }
        .map { "\(folder)/\($0)" }
    }
    // The 31 MB benchmark capture repeats the synthetic sessions' shapes and would take
    // as long as all the others together: BLEANALYZE_REDACT_SCALE=1 adds it.
    let scale = ProcessInfo.processInfo.environment["BLEANALYZE_REDACT_SCALE"] == "1"
    return names.filter { scale || !$0.contains("scale-500k") }.sorted()
  }

  /// The format whose output `timeline` and `gatt` read: every link type allows it, and
  /// the other formats hold the same records (their structure is checked with tshark).
  static let analysisFormat = "pcapng"

  @Test(
    "redact every shared capture",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: captures())
  func redactShared(_ name: String) throws {
    let input = Paths.captures.appending(path: name)
    let original = try #require(RedactView(input, needles: true), "tshark could not read \(name)")
    let before = analysis(input)
    var figures: [String] = []
    for format in Self.formats {
      let output = Paths.scratchFile("\(input.lastPathComponent).\(format)")
      let map = Paths.scratchFile("map.json")
      defer {
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: map)
      }
      let result = run(["redact", input.path, output.path, "--map", map.path])
      if format == "btsnoop", result.status == 1, result.stderr.contains("btsnoop cannot hold link-layer packets") {
        continue
      }
      try #require(result.status == 0 || result.status == 3, "redact \(name) → \(format): \(result.stderr)")
      let redacted = try #require(
        RedactView(output, needles: false), "tshark could not read the redacted \(name) (\(format))")
      SequenceComparison.compare(
        "\(name) → \(format): per-frame structure", expected: original.structure, actual: redacted.structure)
      let newlyBad = redacted.badCRC.subtracting(original.damaged)
      #expect(newlyBad.isEmpty, "\(name) → \(format): frames with a bad CRC that were good: \(newlyBad.sorted())")

      let bytes = [UInt8](try Data(contentsOf: output))
      // Every value in both byte orders, and every address also as text.
      let left = found(original.needles.union(original.addresses.flatMap(addressTexts)), in: bytes)
      #expect(
        left.isEmpty,
        "\(name) → \(format): \(left.count) of \(original.needles.count) original values are still in the output: \(left.prefix(5).map(hexText))"
      )
      let originalIRKs = original.keys[RedactField.identityKey] ?? []
      for (field, values) in redacted.keys {
        let kept =
          field == RedactField.identityKey
          ? values.intersection(originalIRKs).filter { $0.contains(where: { !"0:x".contains($0) }) }
          : values.filter { $0.contains(where: { !"0:x".contains($0) }) }
        #expect(kept.isEmpty, "\(name) → \(format): \(field) is not filler: \(kept.prefix(3))")
      }

      if format == Self.analysisFormat {
        let mapping = try addressMapping(map)
        let after = analysis(output)
        for (command, text) in before {
          let expected = replacingAddresses(text, mapping)
          #expect(expected == after[command], "\(name) → \(format): \(command) differs after the mapping")
        }
      }
      figures.append(
        "\(format): \(redacted.structure.count) frames, \(original.needles.count) values gone, bad CRC \(original.badCRC.count)→\(redacted.badCRC.count)"
      )
    }
    print("redact \(name): " + figures.joined(separator: "; "))
  }

  /// `timeline` and `gatt` as JSON.
  /// `timeline` and `gatt` JSON, without what redaction is meant to change besides the
  /// addresses: the `captures` list (file names) and the peers' names (replaced).
  private func analysis(_ file: URL) -> [String: String] {
    var result: [String: String] = [:]
    for command in ["timeline", "gatt"] {
      let output = run([command, "--format", "json", file.path])
      result[command] = Self.withoutNames(output.stdout)
    }
    return result
  }

  static func withoutNames(_ json: String) -> String {
    func clean(_ value: Any) -> Any {
      if var object = value as? [String: Any] {
        object["captures"] = nil
        if object["address"] != nil, object["type"] != nil, object["name"] != nil { object["name"] = NSNull() }
        return object.mapValues(clean)
      }
      if let array = value as? [Any] { return array.map(clean) }
      return value
    }
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
      let data = try? JSONSerialization.data(withJSONObject: clean(object), options: [.sortedKeys])
    else { return json }
    return String(decoding: data, as: UTF8.self)
  }
}

/// An address (most significant octet first) as text: upper and lower case, with `:`,
/// `-` or nothing between the octets.
func addressTexts(_ octets: [UInt8]) -> [[UInt8]] {
  var texts: [[UInt8]] = []
  for format in ["%02X", "%02x"] {
    let digits = octets.map { String(format: format, $0) }
    for separator in [":", "-", ""] { texts.append(Array(digits.joined(separator: separator).utf8)) }
  }
  return texts
}

/// The addresses of a `--map` file, original → redacted.
func addressMapping(_ file: URL) throws -> [String: String] {
  let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
  let entries = try #require(object?["addresses"] as? [[String: String]], "no addresses in \(file.path)")
  var mapping: [String: String] = [:]
  for entry in entries {
    if let original = entry["original"], let redacted = entry["redacted"] { mapping[original] = redacted }
  }
  return mapping
}

/// `text` with every `AA:BB:CC:DD:EE:FF` the mapping knows replaced.
func replacingAddresses(_ text: String, _ mapping: [String: String]) -> String {
  let pattern = /[0-9A-F]{2}(:[0-9A-F]{2}){5}/
  return text.replacing(pattern) { match in mapping[String(match.output.0)] ?? String(match.output.0) }
}

/// The needles (or their reversals) found in `haystack`, in one pass: one lookup per
/// octet by the first six octets.
private func found(_ needles: Set<[UInt8]>, in haystack: [UInt8]) -> Set<[UInt8]> {
  func key(_ octets: [UInt8]) -> UInt64 {
    var key: UInt64 = 0
    for index in 0..<6 { key = key << 8 | UInt64(octets[index]) }
    return key
  }
  var byKey: [UInt64: [(pattern: [UInt8], needle: [UInt8])]] = [:]
  for needle in needles {
    byKey[key(needle), default: []].append((needle, needle))
    byKey[key(needle.reversed()), default: []].append((needle.reversed(), needle))
  }
  var result: Set<[UInt8]> = []
  haystack.withUnsafeBufferPointer { bytes in
    guard bytes.count >= 6 else { return }
    var rolling: UInt64 = 0
    for index in 0..<bytes.count {
      rolling = (rolling << 8 | UInt64(bytes[index])) & 0xFFFF_FFFF_FFFF
      guard index >= 5, let candidates = byKey[rolling] else { continue }
      let start = index - 5
      for candidate in candidates
      where start + candidate.pattern.count <= bytes.count
        && bytes[start..<start + candidate.pattern.count].elementsEqual(candidate.pattern)
      {
        result.insert(candidate.needle)
      }
    }
  }
  return result
}

private func hexText(_ octets: [UInt8]) -> String {
  octets.map { String(format: "%02x", $0) }.joined()
}
