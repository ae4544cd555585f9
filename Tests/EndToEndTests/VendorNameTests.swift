import Foundation
import Testing

/// Vendor UUIDs (Dissectors/vendor-uuids/) are named wherever SIG UUIDs are: the show
/// line and its `att.service`/`att.characteristic`, gatt, timeline, stats and app.
@Suite("vendor UUID names in every command")
struct VendorNameTests {
  static let commands = ["show", "gatt", "timeline", "stats", "app"]

  /// The vendor UUIDs of ../shared's vendor.btsnoop (its truth's GATT databases) and
  /// their names in bluetooth-numbers-database (mcumgr from the hand-kept table).
  static let vendorCapture: [String: String] = [
    "fe59": "Secure DFU Service",
    "8ec90001-f315-4f60-9fb8-838830daea50": "DFU Control Point",
    "8ec90002-f315-4f60-9fb8-838830daea50": "DFU Packet",
    "8ec90003-f315-4f60-9fb8-838830daea50": "Buttonless DFU Without Bonds",
    "8d53dc1d-1db7-4cd3-868b-8a527460aa84": "mcumgr Service",
    "da2e7828-fbce-4e01-ae9e-261174997c48": "mcumgr Characteristic",
    "6e400001-b5a3-f393-e0a9-e50e24dcca9e": "Nordic UART Service",
    "6e400002-b5a3-f393-e0a9-e50e24dcca9e": "UART RX Characteristic",
    "6e400003-b5a3-f393-e0a9-e50e24dcca9e": "UART TX Characteristic",
  ]

  /// Every (UUID, name) pair a command's JSON holds: an object's `uuid` and `name`, and
  /// its `service_uuid`/`service_name`, `characteristic_uuid`/`characteristic_name` (also
  /// after `write_` and `notify_`).
  static func namedUUIDs(_ command: String, _ file: String) -> [String: Set<String>] {
    let format = command == "show" ? "ndjson" : "json"
    let output = runRaw([command, "--format", format, file])
    #expect(output.status == 0, "\(command): \(output.stderr)")
    var names: [String: Set<String>] = [:]
    func add(_ uuid: Any?, _ name: Any?) {
      if let uuid = uuid as? String, let name = name as? String { names[uuid, default: []].insert(name) }
    }
    if command == "show" {
      for line in recordLines(output.stdout) {
        guard let att = line.object["att"] as? [String: Any] else { continue }
        add(att["characteristic_uuid"], att["characteristic_name"])
        add(att["service_uuid"], att["service_name"])
      }
      return names
    }
    func walk(_ value: Any) {
      if let object = value as? [String: Any] {
        add(object["uuid"], object["name"])
        for prefix in ["", "write_", "notify_"] {
          add(object[prefix + "service_uuid"], object[prefix + "service_name"])
          add(object[prefix + "characteristic_uuid"], object[prefix + "characteristic_name"])
        }
        object.values.forEach(walk)
      } else if let array = value as? [Any] {
        array.forEach(walk)
      }
    }
    walk((try? JSONSerialization.jsonObject(with: output.stdout)) ?? [:])
    return names
  }

  /// Each name given to a listed UUID is the expected one (or a descriptor "of" it);
  /// returns how many listed UUIDs the output named.
  static func check(_ names: [String: Set<String>], _ expected: [String: String], _ context: String) -> Int {
    var named = 0
    for (uuid, name) in expected {
      guard let given = names[uuid] else { continue }
      named += 1
      // A descriptor's transaction is named after its characteristic ("… of UART TX Characteristic").
      let wrong = given.filter { $0 != name && !$0.hasSuffix(" of \(name)") }
      #expect(given.contains(name) && wrong.isEmpty, "\(context): \(uuid) named \(given.sorted()), expected \(name)")
    }
    return named
  }

  @Test("an inline Nordic UART capture names its service and characteristics", arguments: commands)
  func inlineCapture(command: String) throws {
    let file = try VendorNameCaptures.nordicUART().path
    let names = Self.namedUUIDs(command, file)
    let expected = Self.vendorCapture.filter { $0.key.hasPrefix("6e4000") }
    // show names characteristics only (a service declaration's value is not an attribute of it).
    let least = command == "show" ? 2 : command == "gatt" || command == "app" ? 3 : 2
    #expect(Self.check(names, expected, command) >= least, "\(command): \(names)")
  }

  @Test("show's line carries the vendor names")
  func showLine() throws {
    let output = run(["show", try VendorNameCaptures.nordicUART().path])
    #expect(output.stdout.contains("0x0010-0x0015 Nordic UART Service (6e400001-b5a3-f393-e0a9-e50e24dcca9e)"))
    #expect(output.stdout.contains("ATT Handle Value Notification attr 0x0012 (UART TX Characteristic) value 6f6b"))
    #expect(output.stdout.contains("ATT Write Command attr 0x0015 (UART RX Characteristic) value 6869"))
  }

  @Test(
    "vendor.btsnoop: every vendor UUID named the same in every command",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"), arguments: commands)
  func sharedVendorCapture(command: String) throws {
    let file = Paths.captures.appending(path: "synthetic/vendor.btsnoop").path
    let names = Self.namedUUIDs(command, file)
    let named = Self.check(names, Self.vendorCapture, command)
    // gatt lists the whole databases; the others name what the capture used.
    #expect(named >= (command == "gatt" ? Self.vendorCapture.count : 4), "\(command): \(named) named")
  }

  /// Real captures whose servers have vendor services: Nordic's LED Button Service,
  /// Apple's ANCS, TI's OAD.
  @Test(
    "real captures: vendor services and characteristics named in gatt",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: [
      (
        "Tesi_BLE__capture.pcap",
        [
          "00001523-1212-efde-1523-785feabcd123": "Nordic LED and Button Service",
          "00001524-1212-efde-1523-785feabcd123": "Blinky Button State",
          "00001525-1212-efde-1523-785feabcd123": "Blinky LED State",
        ]
      ),
      (
        "Tesi_BLE__mouse.pcapng",
        [
          "7905f431-b5ce-4e99-a40f-4b1e122d00d0": "Apple Notification Center Service",
          "9fbf120d-6301-42d9-8c58-25e699a21dbd": "Apple Notification Source",
          "22eac6e9-24d6-4bb5-be44-b36ace7c7bfb": "Apple Data Source",
        ]
      ),
      (
        "whad-client__ble_pairing.pcap",
        [
          "f000ffc0-0451-4000-b000-000000000000": "Texas Instruments Over-the-Air Download (OAD) Service",
          "f000ffc1-0451-4000-b000-000000000000": "Texas Instruments Image Identify",
        ]
      ),
    ])
  func realCapture(file: String, expected: [String: String]) {
    let names = Self.namedUUIDs("gatt", Paths.captures.appending(path: "real/\(file)").path)
    #expect(Self.check(names, expected, file) == expected.count, "\(file): \(names)")
  }
}

/// A capture made on the spot: a central discovers the Nordic UART Service, subscribes to
/// its TX characteristic, writes to RX and gets a notification.
enum VendorNameCaptures {
  /// 6e40000N-b5a3-f393-e0a9-e50e24dcca9e, little-endian as ATT carries it.
  static func nordicUART(_ n: UInt8) -> [UInt8] {
    [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, n, 0x00, 0x40, 0x6E]
  }

  static func nordicUART() throws -> URL {
    let acl = ReadingCaptures.acl
    return try ReadingCaptures.capture([
      (ReadingCaptures.connectionComplete, 3),
      // Read By Group Type Request 0x0001-0xffff, Primary Service; response: 0x0010-0x0015 NUS
      (acl([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]), 0),
      (acl([0x11, 0x14, 0x10, 0x00, 0x15, 0x00] + nordicUART(1)), 1),
      // Read By Type Request 0x0010-0x0015, Characteristic; response: 0x0011 Notify → 0x0012 TX
      (acl([0x08, 0x10, 0x00, 0x15, 0x00, 0x03, 0x28]), 0),
      (acl([0x09, 0x15, 0x11, 0x00, 0x10, 0x12, 0x00] + nordicUART(3)), 1),
      // Read By Type Request 0x0012-0x0015; response: 0x0014 Write|Write Without Response → 0x0015 RX
      (acl([0x08, 0x12, 0x00, 0x15, 0x00, 0x03, 0x28]), 0),
      (acl([0x09, 0x15, 0x14, 0x00, 0x0C, 0x15, 0x00] + nordicUART(2)), 1),
      // Find Information 0x0013; response: 0x0013 CCCD (2902)
      (acl([0x04, 0x13, 0x00, 0x13, 0x00]), 0), (acl([0x05, 0x01, 0x13, 0x00, 0x02, 0x29]), 1),
      // Write Request CCCD 0x0013 = 0x0001 (notify); Write Response
      (acl([0x12, 0x13, 0x00, 0x01, 0x00]), 0), (acl([0x13]), 1),
      // Write Command 0x0015 "hi"; Handle Value Notification 0x0012 "ok"
      (acl([0x52, 0x15, 0x00, 0x68, 0x69]), 0), (acl([0x1B, 0x12, 0x00, 0x6F, 0x6B]), 1),
    ])
  }
}
