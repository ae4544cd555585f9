import Foundation
import Testing

/// `redact` and attribute values, one test per kind of value that identifies a device
/// or a person, on captures made on the spot: hr-sensor's connection (handle 0x0040,
/// peer D4:36:39:67:A2:61, whose pseudonym is C0:00:00:00:00:01) discovers its
/// characteristics, then reads and writes values.
@Suite("redact: values that identify")
struct RedactValueTests {
  static let peer = "D4:36:39:67:A2:61"
  static let pseudonym = "C0:00:00:00:00:01"

  /// Value handles of the discovered characteristics.
  enum Handle: UInt16 {
    case deviceName = 0x0003
    case serialNumber = 0x0005
    case systemID = 0x0007
    case hardwareRevision = 0x0009
    case firmwareRevision = 0x000B
    case vendor = 0x000D
    case batteryLevel = 0x000F

    var uuid: UInt16 {
      switch self {
      case .deviceName: 0x2A00
      case .serialNumber: 0x2A25
      case .systemID: 0x2A23
      case .hardwareRevision: 0x2A27
      case .firmwareRevision: 0x2A26
      case .vendor: 0xFFF1
      case .batteryLevel: 0x2A19
      }
    }
  }

  /// What the central does after discovery: read a value, or write one (Write Command).
  enum Step {
    case read(Handle, [UInt8])
    case write(Handle, [UInt8])
  }

  /// LE Connection Complete (#1); Exchange MTU 247 (#2, #3); Read By Type Request for
  /// characteristics 0x0001-0xffff (#4) and its Response (#5) declaring every `Handle`
  /// (declaration at the value handle - 1, properties Read and Write Without Response,
  /// 16-bit UUID); then `steps`: a read is a Read Request and its Read Response, a write
  /// one Write Command.
  static func capture(_ steps: [Step]) throws -> URL {
    let acl = ReadingCaptures.acl
    var packets: [([UInt8], UInt32)] = [(ReadingCaptures.connectionComplete, 3)]
    packets += [(acl([0x02, 0xF7, 0x00]), 0), (acl([0x03, 0xF7, 0x00]), 1)]
    packets.append((acl([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28]), 0))
    var list: [UInt8] = [0x09, 7]
    for handle in [
      Handle.deviceName, .serialNumber, .systemID, .hardwareRevision, .firmwareRevision, .vendor,
      .batteryLevel,
    ] {
      list += le16(handle.rawValue - 1) + [0x06] + le16(handle.rawValue) + le16(handle.uuid)
    }
    packets.append((acl(list), 1))
    for step in steps {
      switch step {
      case .read(let handle, let value):
        packets += [(acl([0x0A] + le16(handle.rawValue)), 0), (acl([0x0B] + value), 1)]
      case .write(let handle, let value):
        packets.append((acl([0x52] + le16(handle.rawValue) + value), 0))
      }
    }
    return try ReadingCaptures.capture(packets)
  }

  /// `redact` of `input` (into pcapng) with `options`: the ATT values of the output by
  /// frame, its bytes, the map and stderr.
  static func redact(_ input: URL, _ options: [String] = []) throws -> (
    values: [Int: [UInt8]], bytes: [UInt8], map: [String: Any], stderr: String
  ) {
    let output = Paths.scratchFile("redacted.pcapng")
    let map = Paths.scratchFile("map.json")
    defer {
      try? FileManager.default.removeItem(at: output)
      try? FileManager.default.removeItem(at: map)
    }
    let result = run(["redact", input.path, output.path, "--map", map.path] + options)
    try #require(result.status == 0, "redact: \(result.stderr)")
    var values: [Int: [UInt8]] = [:]
    for line in lines(run(["show", "--format", "ndjson", output.path]).stdout) {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let frame = object["frame"] as? Int, let att = object["att"] as? [String: Any],
        let value = att["value"] as? String
      else { continue }
      values[frame] = RedactView.octets(Substring(value)) ?? []
    }
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: map)) as? [String: Any])
    return (values, [UInt8](try Data(contentsOf: output)), document, result.stderr)
  }

  /// The frame of the value of step `index` (0-based): a read's response, a write.
  static func frame(ofStep index: Int, _ steps: [Step]) -> Int {
    var frame = 5
    for step in steps[...index] {
      if case .read = step { frame += 2 } else { frame += 1 }
    }
    return frame
  }

  static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

  static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
    RedactValueOracleTests.contains(bytes, Array(text.utf8))
  }

  static func octets(_ address: String) -> [UInt8] { AirCaptures.address(address).reversed() }

  // MARK: - Identifying characteristics

  @Test("Device Name read: becomes the name's pseudonym, as in advertising")
  func deviceName() throws {
    let steps: [Step] = [.read(.deviceName, Array("Lamp-7 Kitchen".utf8))]
    let redacted = try Self.redact(try Self.capture(steps))
    #expect(redacted.values[Self.frame(ofStep: 0, steps)] == Array("device-1".utf8) + [0, 0, 0, 0, 0, 0])
    #expect(!Self.contains(redacted.bytes, "Lamp-7"))
    let names = try #require(redacted.map["names"] as? [[String: String]])
    #expect(names == [["original": "Lamp-7 Kitchen", "redacted": "device-1"]])
  }

  @Test("Serial Number String: becomes serial-N, the same for the same serial")
  func serialNumber() throws {
    let steps: [Step] = [
      .read(.serialNumber, Array("MH267A261".utf8)), .read(.serialNumber, Array("MH267A261".utf8)),
    ]
    let redacted = try Self.redact(try Self.capture(steps))
    for index in steps.indices {
      #expect(redacted.values[Self.frame(ofStep: index, steps)] == Array("serial-1".utf8) + [0])
    }
    #expect(!Self.contains(redacted.bytes, "MH267A261"))
    let identifiers = try #require(redacted.map["identifiers"] as? [[String: String]])
    #expect(identifiers == [["kind": "serial", "original": "MH267A261", "redacted": "serial-1"]])
    #expect(
      redacted.stderr.contains(
        "replaced 2 identifying values (serial numbers) with 1 pseudonym: ATT Serial Number String 2"),
      "\(redacted.stderr)")
  }

  // System ID of D4:36:39:67:A2:61: Manufacturer Identifier 0xFFFE67A261, OUI 0xD43639,
  // least significant octet first.
  @Test("System ID: its address octets become the address's pseudonym")
  func systemID() throws {
    // A second System ID read as text, as some devices do: not its format, so filled.
    let steps: [Step] = [
      .read(.systemID, [0x61, 0xA2, 0x67, 0xFE, 0xFF, 0x39, 0x36, 0xD4]), .read(.systemID, Array("4AFB0-2D-7".utf8)),
    ]
    let redacted = try Self.redact(try Self.capture(steps), ["--keep-values"])
    #expect(redacted.values[Self.frame(ofStep: 0, steps)] == [0x01, 0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0xC0])
    #expect(redacted.values[Self.frame(ofStep: 1, steps)] == [UInt8](repeating: 0, count: 10))
    let addresses = try #require(redacted.map["addresses"] as? [[String: String]])
    #expect(addresses == [["original": Self.peer, "redacted": Self.pseudonym]])
    #expect(redacted.stderr.contains("ATT System ID 1"))
  }

  @Test("revision strings: kept and listed as safe; --strict gives them pseudonyms")
  func revisionStrings() throws {
    let steps: [Step] = [
      .read(.hardwareRevision, Array("HW-REV-B7".utf8)), .read(.firmwareRevision, Array("4.2.1-6d1d".utf8)),
    ]
    let capture = try Self.capture(steps)
    let kept = try Self.redact(capture)
    #expect(kept.values[Self.frame(ofStep: 0, steps)] == Array("HW-REV-B7".utf8))
    #expect(kept.stderr.contains("  Hardware Revision String (2a27): 1 value, 9 bytes"), "\(kept.stderr)")
    #expect(kept.stderr.contains("  Firmware Revision String (2a26): 1 value, 10 bytes"), "\(kept.stderr)")

    let strict = try Self.redact(capture, ["--strict"])
    #expect(strict.values[Self.frame(ofStep: 0, steps)] == Array("hw-1".utf8) + [0, 0, 0, 0, 0])
    #expect(strict.values[Self.frame(ofStep: 1, steps)] == Array("firmware-1".utf8))
    #expect(!Self.contains(strict.bytes, "HW-REV-B7") && !Self.contains(strict.bytes, "4.2.1-6d1d"))
    #expect(strict.stderr.contains("revision strings"))
  }

  // MARK: - Addresses, halves and names inside other values

  @Test(
    "an address in binary inside a vendor value: its pseudonym in the same byte order (--keep-values); blanked by default",
    arguments: [true, false])
  func binaryAddress(_ littleEndian: Bool) throws {
    let address = littleEndian ? AirCaptures.address(Self.peer) : Self.octets(Self.peer)
    let steps: [Step] = [.write(.vendor, [0x01] + address + [0x02])]
    let capture = try Self.capture(steps)
    let kept = try Self.redact(capture, ["--keep-values"])
    let pseudonym = littleEndian ? AirCaptures.address(Self.pseudonym) : Self.octets(Self.pseudonym)
    #expect(kept.values[Self.frame(ofStep: 0, steps)] == [0x01] + pseudonym + [0x02])
    #expect(kept.stderr.contains("warning: kept values not known to be safe"))
    let blanked = try Self.redact(capture)
    #expect(blanked.values[Self.frame(ofStep: 0, steps)] == [UInt8](repeating: 0, count: 8))
    #expect(blanked.stderr.contains("  fff1: 1 value, 8 bytes"), "\(blanked.stderr)")
  }

  @Test(
    "an address as hex text, upper or lower case, with or without separators",
    arguments: [
      ("D4:36:39:67:A2:61", "C0:00:00:00:00:01"), ("d4:36:39:67:a2:61", "c0:00:00:00:00:01"),
      ("D4-36-39-67-A2-61", "C0-00-00-00-00-01"), ("d4-36-39-67-a2-61", "c0-00-00-00-00-01"),
      ("D4363967A261", "C00000000001"), ("d4363967a261", "c00000000001"),
    ])
  func textAddress(_ spelled: String, _ expected: String) throws {
    let steps: [Step] = [.write(.vendor, Array("mac=\(spelled);".utf8))]
    let redacted = try Self.redact(try Self.capture(steps), ["--keep-values"])
    #expect(redacted.values[Self.frame(ofStep: 0, steps)] == Array("mac=\(expected);".utf8))
    #expect(!Self.contains(redacted.bytes, spelled))
  }

  @Test(
    "the device-specific half (last three octets) in a serial-like text, in binary, in another MAC",
    arguments: [
      ("MH267A261", "MH2000001"), ("sn:67a261", "sn:000001"), ("wifi AA:BB:CC:67:A2:61", "wifi AA:BB:CC:00:00:01"),
      ("67-A2-61", "00-00-01"),
    ])
  func half(_ text: String, _ expected: String) throws {
    let steps: [Step] = [
      .write(.vendor, Array(text.utf8)), .write(.vendor, [0x10, 0x61, 0xA2, 0x67, 0x20]),
      .write(.vendor, [0x10, 0x67, 0xA2, 0x61, 0x20]),
    ]
    let redacted = try Self.redact(try Self.capture(steps), ["--keep-values"])
    #expect(redacted.values[Self.frame(ofStep: 0, steps)] == Array(expected.utf8))
    #expect(redacted.values[Self.frame(ofStep: 1, steps)] == [0x10, 0x01, 0x00, 0x00, 0x20])
    #expect(redacted.values[Self.frame(ofStep: 2, steps)] == [0x10, 0x00, 0x00, 0x01, 0x20])
  }

  @Test("a replaced name inside a longer value, in any case")
  func nameInsideValue() throws {
    let steps: [Step] = [
      .read(.deviceName, Array("Lamp-7".utf8)), .write(.vendor, Array("owner=Lamp-7;".utf8)),
      .write(.vendor, Array("LAMP-7!".utf8)),
    ]
    let redacted = try Self.redact(try Self.capture(steps), ["--keep-values"])
    #expect(redacted.values[Self.frame(ofStep: 1, steps)] == Array("owner=dev-1".utf8) + [0, 0x3B])
    #expect(redacted.values[Self.frame(ofStep: 2, steps)] == Array("dev-1".utf8) + [0, 0x21])
    #expect(!Self.contains(redacted.bytes, "Lamp-7") && !Self.contains(redacted.bytes, "LAMP-7"))
  }

  @Test("a value known to be safe stays, and is listed")
  func safeValue() throws {
    let steps: [Step] = [.read(.batteryLevel, [0x57])]
    let redacted = try Self.redact(try Self.capture(steps))
    #expect(redacted.values[Self.frame(ofStep: 0, steps)] == [0x57])
    #expect(redacted.stderr.contains("  Battery Level (2a19): 1 value, 1 byte"), "\(redacted.stderr)")
  }

  // MARK: - Damaged air packets

  /// ADV_IND from C0:48:FF:F5:9D:B8 (random) named "Lv4-Lock" (#1); the same received
  /// with a bad CRC and bits flipped in AdvA (C0:48:FF:D5:9D:B8) and the name
  /// ("Lv4-Lodk") (#2); a SCAN_REQ with a bad CRC cut short after ScanA and three octets
  /// of AdvA (#3: its length says 12, the packet holds 9 and the CRC).
  static func damagedCapture() throws -> URL {
    func advInd(_ address: String, _ name: String) -> [UInt8] {
      let ad: [UInt8] = [0x02, 0x01, 0x06, UInt8(name.utf8.count + 1), 0x09] + Array(name.utf8)
      return AirCaptures.advertisingPDU(0x00, AirCaptures.address(address) + ad, txRandom: true)
    }
    let cut = [0x03, 12] + AirCaptures.address("79:3D:7D:DF:EF:B3") + AirCaptures.address("C0:48:FF:F5:9D:B8")[0..<3]
    return try AirCaptures.pcap([
      .advertising(at: 0, advInd("C0:48:FF:F5:9D:B8", "Lv4-Lock")),
      .advertising(at: 10_000, advInd("C0:48:FF:D5:9D:B8", "Lv4-Lodk"), crcGood: false),
      .advertising(at: 20_000, Array(cut), crcGood: false),
    ])
  }

  @Test("a damaged air packet: addresses pseudonymised as far as they parse, the rest blanked; --keep-damaged warns")
  func damagedAirPacket() throws {
    let capture = try Self.damagedCapture()
    let output = Paths.scratchFile("damaged.pcap")
    defer { try? FileManager.default.removeItem(at: output) }
    let result = run(["redact", capture.path, output.path])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = [UInt8](try Data(contentsOf: output))
    for address in ["C0:48:FF:F5:9D:B8", "C0:48:FF:D5:9D:B8", "79:3D:7D:DF:EF:B3"] {
      #expect(!RedactValueOracleTests.contains(bytes, AirCaptures.address(address)), "\(address) is left")
    }
    #expect(!RedactValueOracleTests.contains(bytes, [0xB8, 0x9D, 0xF5]), "the cut AdvA's octets are left")
    #expect(!Self.contains(bytes, "Lv4-Lo"))
    #expect(result.stderr.contains("2 air packets with a bad CRC: address fields pseudonymised"), "\(result.stderr)")
    // The structure is the same, and the CRCs as good or bad as they were.
    let shown = lines(run(["show", output.path]).stdout).filter { $0.contains("ADV_IND") || $0.contains("SCAN_REQ") }
    #expect(shown.count == 3)
    let crc = lines(run(["show", "--format", "ndjson", output.path]).stdout).map { $0.contains("\"crc_ok\":true") }
    #expect(crc == [true, false, false])

    let kept = run(["redact", capture.path, output.path, "--keep-damaged"])
    #expect(kept.status == 0)
    #expect(kept.stderr.contains("warning: kept 2 air packets with a bad CRC"), "\(kept.stderr)")
    #expect(Self.contains([UInt8](try Data(contentsOf: output)), "Lv4-Lodk"))
  }
}
