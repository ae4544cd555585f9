import Foundation
import Testing

/// Every capture in ../shared/captures/{real,synthetic}, as "real/NAME" or "synthetic/NAME".
func sharedCaptureFiles() -> [String] {
  ["real", "synthetic"].flatMap { folder in
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: Paths.captures.appending(path: folder).path)) ?? []
    return names.filter { name in [".btsnoop", ".pcap", ".pcapng"].contains { name.hasSuffix($0) } }
      .sorted().map { "\(folder)/\($0)" }
  }
}

/// `show --format ndjson` against tshark on every shared capture: the same frames, in the
/// same order, at the same microsecond, in the same direction.
@Suite("tshark oracle: frames, timestamps and directions")
struct TsharkOracleTests {
  @Test(
    "show --format ndjson agrees with tshark",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: sharedCaptureFiles())
  func framesAgree(_ file: String) throws {
    let url = Paths.captures.appending(path: file)
    let output = runRaw(["show", "--format", "ndjson", url.path])
    #expect(output.status == 0, "exit status; stderr: \(output.stderr)")
    // Only frame, ts and dir are read, as printed: 500 000 records stay cheap.
    let ours = recordLines(output.stdout, objects: false)
    #expect(!ours.isEmpty)

    var comparison = SequenceComparison("\(file): frame ts dir, tshark against bleanalyze")
    var count = 0
    let fields = [
      "frame.number", "frame.time_epoch", "frame.p2p_dir", "hci_mon.opcode", "btle.data_header.llid",
      "nordic_ble.direction", "btle_rf.pdu_type", "ppi.dlt",
    ]
    tsharkFields(url, fields) { columns in
      defer { count += 1 }
      guard columns.count == fields.count else {
        comparison.check(count, expected: columns.joined(separator: "\t"), actual: "<malformed tshark line>")
        return
      }
      var direction = tsharkDirection(p2pDir: columns[2], monitorOpcode: columns[3])
      if !columns[4].isEmpty {
        // An LL data channel PDU: the sniffer's direction, central→peripheral as tx.
        // Where the sniffer does not say (btle_rf PDU type 0, DLT 251, PPI), tshark
        // gives none and ours comes from the connection event's timing: not compared.
        switch (columns[5], columns[6]) {
        case ("1", _), (_, "2"): direction = "tx"
        case ("0", _), (_, "3"): direction = "rx"
        default: direction = count < ours.count ? ours[count].dir : "null"
        }
      } else if !columns[7].isEmpty {
        // PPI around a user DLT (Ubertooth): tshark does not decode the packet.
        direction = count < ours.count ? ours[count].dir : "null"
      }
      let expected = [String(columns[0]), microseconds(columns[1]), direction].joined(separator: " ")
      let actual = count < ours.count ? "\(ours[count].frame) \(ours[count].ts) \(ours[count].dir)" : "<missing>"
      comparison.check(count, expected: expected, actual: actual)
    }
    comparison.report(expectedCount: count, actualCount: ours.count)
  }
}
