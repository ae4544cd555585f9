import Foundation
import Testing

/// `bleanalyze dissectors`: listing, --decode, and user files that change a decode with no
/// rebuild.
@Suite struct DissectorsCommandTests {
  /// A fresh directory holding `files` (name → text).
  func directory(_ files: [String: String]) throws -> URL {
    let url = Paths.scratchFile("dissectors")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    for (name, text) in files {
      let file = url.appending(path: name)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: file, atomically: true, encoding: .utf8)
    }
    return url
  }

  @Test func listsEveryBuiltinFormatAsDissectorText() {
    let result = run(["dissectors"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.hasPrefix(
        "# 315 formats: 0 services, 300 characteristics, 15 descriptors (315 built-in, 0 from files)\n"))
    #expect(
      result.stdout.contains(
        "characteristic 2a37 \"Heart Rate Measurement\"  # built-in Dissectors/characteristics/heart-rate.dissector:2\n"
          + "  field flags u8 \"Flags\"\n"))
    #expect(
      result.stdout.contains("  field rr_interval u16 \"RR-Interval\" unit=s scale=1/1024 if=rr_present repeat\n"))
  }

  @Test func listsAsJSONAndNDJSON() throws {
    let json = runRaw(["dissectors", "--format", "json"])
    #expect(json.status == 0)
    let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
    let formats = try #require(document["formats"] as? [[String: Any]])
    #expect(formats.count == 315)
    #expect(formats.count { $0["kind"] as? String == "characteristic" } >= 250)
    let heartRate = try #require(formats.first { $0["uuid"] as? String == "2a37" })
    #expect(heartRate["builtin"] as? Bool == true)
    #expect(heartRate["path"] as? String == "Dissectors/characteristics/heart-rate.dissector")
    let ndjson = run(["dissectors", "--format", "ndjson"])
    #expect(lines(ndjson.stdout).count == 315)
  }

  @Test func decodesAValue() {
    let result = run(["dissectors", "--decode", "2a37", "16:48:03:03:21:03"])
    #expect(result.status == 0)
    #expect(
      lines(result.stdout).first
        == "2a37 Heart Rate Measurement: Sensor Contact Status Detected, Heart Rate Measurement Value 72 bpm, "
        + "RR-Interval 0.75293 s, 0.78223 s")
    #expect(result.stdout.contains("\n  Heart Rate Measurement Value: 0x48 (72 bpm)\n"))
  }

  @Test func aTruncatedValueIsReportedNotFatal() {
    let result = run(["dissectors", "--format", "json", "--decode", "2a37", "1148"])
    #expect(result.status == 0)
    #expect(result.stdout.contains(#""diagnostics":[{"id":"att.decoded.truncated","severity":"warning""#))
  }

  @Test(
    "bad --decode arguments are usage errors",
    arguments: [
      ["--decode", "2a37"], ["--decode", "2x37", "00"], ["--decode", "2a37", "123"], ["--decode", "ffee", "00"],
      ["--decode", "7b3c0004-1b2a-4c5d-8e9f-a0b1c2d3e4f5", "00", "--dissectors", "Samples"],
    ])
  func badDecode(arguments: [String]) {
    let result = run(["dissectors"] + arguments)
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(!result.stderr.isEmpty)
  }

  /// The done-when item of the issue: a user-written file changes the decode of its
  /// characteristic with no rebuild.
  @Test func aUserFileReplacesTheBuiltinBatteryLevel() throws {
    let before = run(["dissectors", "--decode", "2a19", "100e"])
    #expect(lines(before.stdout).first == "2a19 Battery Level: Battery Level 16 %, Extra bytes 0e")
    let folder = try directory([
      "battery.dissector": """
      # A battery that reports millivolts
      characteristic 2a19 "Battery Level"
        field millivolts u16 "Battery Voltage" unit=mV
      """
    ])
    let after = run(["dissectors", "--dissectors", folder.path, "--decode", "2a19", "100e"])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(lines(after.stdout).first == "2a19 Battery Level: Battery Voltage 3600 mV")
    let listing = run(["dissectors", "--dissectors", folder.path])
    #expect(listing.stdout.contains("characteristic 2a19 \"Battery Level\"  # \(folder.path)/battery.dissector:2\n"))
    #expect(
      listing.stdout.hasPrefix(
        "# 315 formats: 0 services, 300 characteristics, 15 descriptors (314 built-in, 1 from files)"))
  }

  /// The same capture, the same binary: a user file for Heart Rate Measurement changes
  /// `att.decoded` in `show`, and a vendor file names a service.
  @Test func aUserFileChangesTheDecodeInShow() throws {
    let sample = "Samples/hr-sensor.btsnoop"
    let filter = ["--filter", "att.opcode == 0x1b", "--format", "ndjson"]
    let builtin = runRaw(["show"] + filter + [sample])
    let folder = try directory([
      "mine.dissector": """
      characteristic 2a37 "Heart Rate Measurement"
        field raw_flags u8 "Raw Flags"
        field rest bytes "Rest"
      service 180d "My Heart Rate"
      """
    ])
    let user = runRaw(["show"] + filter + ["--dissectors", folder.path, sample])
    #expect(builtin.status == 0 && user.status == 0, "\(user.stderr)")
    let before = recordLines(builtin.stdout).compactMap {
      ($0.object["att"] as? [String: Any])?["decoded"] as? [String: Any]
    }
    let after = recordLines(user.stdout).compactMap { $0.object["att"] as? [String: Any] }
    #expect(before.count == 5 && after.count == 5)
    #expect(before.allSatisfy { $0["heart_rate"] != nil })
    #expect(
      after.allSatisfy {
        ($0["decoded"] as? [String: Any])?["raw_flags"] != nil
          && ($0["decoded"] as? [String: Any])?["heart_rate"] == nil
      })
    #expect(
      after.allSatisfy { $0["service_name"] as? String == "Heart Rate" }, "assigned numbers come before user names")
  }

  @Test func aUserFileAddsAVendorCharacteristic() throws {
    let uuid = "12345678-1234-5678-1234-56789abcdef0"
    #expect(run(["dissectors", "--decode", uuid, "0102"]).status == 1)
    let folder = try directory([
      "nested/vendor.dissector": "",
      "vendor.dissector": """
      characteristic \(uuid) "Acme Counter"
        field count u16 "Count" unit=presses
      """, "notes.txt": "not a dissector",
    ])
    let result = run(["dissectors", "--dissectors", folder.path, "--format", "json", "--decode", uuid, "0201"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#""decoded":{"count":258}"#), "\(result.stdout)")
  }

  @Test func theSampleVendorFileDecodes() {
    let result = run([
      "dissectors", "--dissectors", "Samples", "--decode", "7b3c0003-1b2a-4c5d-8e9f-a0b1c2d3e4f5",
      "03011e00340805140007 08",
    ])
    #expect(
      lines(result.stdout).first
        == "7b3c0003-1b2a-4c5d-8e9f-a0b1c2d3e4f5 Acme Control Point: Op Code Set Schedule, Schedule Slot "
        + "(Day Monday, Start 30 min, Setpoint 21 °C), (Day Friday, Start 20 min, Setpoint 20.55 °C)")
  }

  @Test func aBadUserFileIsAUsageErrorWithItsPosition() throws {
    let folder = try directory(["bad.dissector": "characteristic ff01 \"X\"\n  field a u17 \"A\"\n"])
    let result = run(["dissectors", "--dissectors", folder.path])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr.hasPrefix("bleanalyze: \(folder.path)/bad.dissector:2:11: unknown type 'u17'"), "\(result.stderr)")
  }

  @Test func aMissingDirectoryIsAUsageError() {
    let result = run(["dissectors", "--dissectors", "/nonexistent/dissectors"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("/nonexistent/dissectors: No such file or directory"))
  }
}
