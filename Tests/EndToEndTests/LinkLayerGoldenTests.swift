import Foundation
import Testing

/// `show` and `timeline` on Samples/air-sensor.pcap (DLT 256, made by make-samples.py),
/// compared byte for byte with Golden/; `BLEANALYZE_RECORD=1` rewrites them.
@Suite("Golden output on an air sniffer capture")
struct LinkLayerGoldenTests {
  @Test("show, show -v, ndjson and timeline on air-sensor.pcap")
  func airSensor() throws {
    checkGolden(["show", "Samples/air-sensor.pcap"], golden: "show-air-sensor.txt")
    checkGolden(["show", "-v", "--filter", "frame <= 7", "Samples/air-sensor.pcap"], golden: "show-v-air-sensor.txt")
    let stdout = checkGolden(
      ["show", "--format", "ndjson", "Samples/air-sensor.pcap"], golden: "show-air-sensor.ndjson")
    let records = recordLines(stdout)
    #expect(records.count == 24)
    // The write sent again and the damaged packet count, and stay out of the transaction.
    #expect(records[16].object["conn"] == nil)
    #expect((records[16].object["ll"] as? [String: Any])?["retransmission"] as? Bool == true)
    #expect((records[15].object["ll"] as? [String: Any])?["crc_ok"] as? Bool == false)
    checkGolden(["timeline", "Samples/air-sensor.pcap"], golden: "timeline-air-sensor.txt")
  }

  @Test("devices on air-sensor.pcap counts each channel's ADV_IND")
  func devices() throws {
    let output = run(["devices", "--format", "json", "Samples/air-sensor.pcap"])
    #expect(output.status == 0)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    let devices = try #require(document["devices"] as? [[String: Any]])
    #expect(devices.count == 1)
    #expect(devices.first?["address"] as? String == "D4:36:39:67:A2:61")
    #expect(devices.first?["names"] as? [String] == ["HR-Sensor"])
    #expect((devices.first?["report_counts"] as? [String: Int]) == ["ADV_IND": 3, "SCAN_RSP": 1])
  }
}
