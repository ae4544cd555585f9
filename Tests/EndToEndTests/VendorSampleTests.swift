import Foundation
import Testing

/// Samples/vendor-gatt.btsnoop: show's text and NDJSON against golden files, the filter
/// fields of each protocol, and the same capture with its vendor values corrupted.
@Suite("vendor protocols on Samples/vendor-gatt.btsnoop")
struct VendorSampleTests {
  static let sample = "Samples/vendor-gatt.btsnoop"

  @Test func goldenText() {
    checkGolden(["show", Self.sample], golden: "show-vendor-gatt.txt")
  }

  @Test func goldenNDJSON() {
    checkGolden(["show", "--format", "ndjson", Self.sample], golden: "show-vendor-gatt.ndjson")
  }

  /// Each protocol's filter fields select its records.
  @Test(arguments: [
    ("mcumgr.group == image and mcumgr.op == write_rsp", [103, 106, 109, 112, 115]),
    ("mcumgr.err_name == IMG_MGMT_ERR_NO_FREE_SLOT", [106]),
    ("mcumgr.progress.stalled_ms > 2000", [115, 118]),
    ("mcumgr.progress.ended", [118]),
    ("dfu.opcode == 0x11", [87, 92]),
    ("dfu.result_name == \"CRC Error\"", [99]),
    ("dfu.progress.percent >= 100", [92]),
    ("nus.line contains reboot", [54]),
    ("nus.stream == rx", [52]),
    ("hid.key == \"h\"", [49]),
    ("hid.modifier == \"Left Shift\"", [49]),
    ("hid.consumer == \"Volume Increment\"", [46]),
    ("hid.button == left", [51]),
    ("ancs.category == Social", [56]),
    ("ancs.attribute contains \"Ada\"", [60]),
    ("ancs.error_name", [62]),
    ("ams.attribute == Title", [63, 66]),
    ("ams.command == TogglePlayPause", [67]),
  ])
  func filter(_ expression: String, _ frames: [Int]) {
    let result = run(["show", "--format", "ndjson", "--filter", expression, Self.sample])
    #expect(result.status == 0, "\(result.stderr)")
    let got = lines(result.stdout).compactMap { line -> Int? in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
      return object["frame"] as? Int
    }
    #expect(got == frames, "\(expression)")
  }

  /// The sample with the values of its vendor characteristics scrambled (the HCI, L2CAP
  /// and ATT framing kept): every record still decodes, with diagnostics, and nothing crashes.
  @Test(arguments: 0..<8)
  func scrambledValues(_ seed: UInt64) throws {
    var bytes = [UInt8](try Data(contentsOf: Paths.samples.appending(path: "vendor-gatt.btsnoop")))
    var random = SplitMix64(seed: seed)
    var offset = 16
    var scrambled = 0
    while offset + 24 <= bytes.count {
      let length =
        Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8
        | Int(bytes[offset + 7])
      let data = offset + 24
      // H4 ACL, L2CAP CID 4, an ATT PDU that carries a handle and a value at byte 8 of the L2CAP payload.
      if bytes[data] == 0x02, length > 12, bytes[data + 7] == 0x04, [0x12, 0x52, 0x1B, 0x1D].contains(bytes[data + 9]),
        bytes[data + 10] >= 0x12
      {
        for index in data + 12..<data + length where random.next() % 3 == 0 {
          bytes[index] = UInt8(truncatingIfNeeded: random.next())
          scrambled += 1
        }
      }
      offset = data + length
    }
    #expect(scrambled > 500)
    let file = Paths.scratchFile("scrambled-\(seed).btsnoop")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    for arguments in [["show", "-v", "--format", "ndjson"], ["show", "-v"], ["timeline", "--format", "json"]] {
      let output = execute(Paths.binary, arguments + [file.path], timeLimit: 20)
      #expect(output.signal == nil && !output.timedOut && output.status == 0, "\(arguments): \(output.stderr)")
    }
  }
}
