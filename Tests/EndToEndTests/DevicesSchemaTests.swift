import Foundation
import Testing

/// `devices` output against device.schema.json and devices.schema.json, and show's `adv`
/// objects against show-record.schema.json (with advertising.schema.json).
@Suite(
  "JSON Schemas of devices and adv",
  .enabled(if: jsonschemaAvailable, "python3 -c 'import jsonschema' failed; skipping schema tests"))
struct DevicesSchemaTests {
  static let device = Schemas.folder.appending(path: "device.schema.json")
  static let devices = Schemas.folder.appending(path: "devices.schema.json")

  /// Samples with advertising, and the synthetic captures when ../shared is there.
  static func captures() -> [String] {
    var paths = ["Samples/hr-sensor.btsnoop", "Samples/scanner.btsnoop", "Samples/hr-sensor-monitor.btsnoop"]
    if sharedAvailable {
      paths += ["ios-central.btsnoop", "ios-central.peripheral.btsnoop"].map {
        Paths.captures.appending(path: "synthetic/\($0)").path
      }
      paths.append(Paths.captures.appending(path: "real/bluethooth_light_controll__btsnoop_hci.btsnoop").path)
    }
    return paths
  }

  @Test("every device of devices --format ndjson validates", arguments: captures())
  func devicesValidate(_ path: String) {
    let output = runRaw(["devices", "--format", "ndjson", "--irk", "ec0234a357c8ad05341010a60a397d9b", path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let result = Schemas.validate(output.stdout, against: Self.device)
    #expect(result.status == 0, "\(path):\n\(result.text)\(result.stderr)")
  }

  @Test("the devices --format json document validates")
  func documentValidates() {
    let output = runRaw(["devices", "--format", "json", "Samples/hr-sensor.btsnoop", "Samples/scanner.btsnoop"])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let result = Schemas.validate(output.stdout, against: Self.devices)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
  }

  @Test("show's adv objects validate", arguments: captures())
  func showValidates(_ path: String) {
    let output = runRaw(["show", "--format", "ndjson", "--filter", "adv", path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let result = Schemas.validate(output.stdout, against: Schemas.record)
    #expect(result.status == 0, "\(path):\n\(result.text)\(result.stderr)")
  }

  @Test(
    "a device that breaks the contract is rejected",
    arguments: [
      (#"{"address":"d4:36:39:67:a2:61"}"#, "address:"),
      (
        #"{"address":"D4:36:39:67:A2:61","address_type":"public","names":[],"report_counts":{"ADV_FOO":1},"rssi_stats":null,"interval_ms":null,"service_uuids":[],"manufacturer":[],"tx_power":null,"appearance":null,"beacon":null,"first_frame":1,"last_frame":1,"first_ts":0,"last_ts":0}"#,
        "report_counts:"
      ),
      (
        #"{"address":"D4:36:39:67:A2:61","address_type":"public","names":[],"report_counts":{},"rssi_stats":{"min":-1,"max":-1},"interval_ms":null,"service_uuids":[],"manufacturer":[],"tx_power":null,"appearance":null,"beacon":null,"first_frame":1,"last_frame":1,"first_ts":0,"last_ts":0}"#,
        "rssi_stats:"
      ),
    ])
  func badDeviceIsRejected(device: String, place: String) {
    let result = Schemas.validate(Data((device + "\n").utf8), against: Self.device)
    #expect(result.status == 1, "\(result.text)\(result.stderr)")
    #expect(result.text.contains(place), "\(result.text)\(result.stderr)")
  }
}
