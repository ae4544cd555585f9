import Foundation
import Testing

/// A sample that holds the hr-sensor session in another container.
struct SessionSample: Sendable, CustomTestStringConvertible {
  var file: String
  /// Records without an HCI packet before the session (PacketLogger note, monitor index records).
  var leadingOtherRecords = 0
  /// Records the capture source cut (they carry "original_length").
  var cutRecords = 0

  var testDescription: String { file }
}

/// The same 49 HCI records, whatever the container.
@Suite("The hr-sensor session in every sample format")
struct SampleFormatTests {
  static let samples: [SessionSample] = [
    SessionSample(file: "hr-sensor.btsnoop"),
    SessionSample(file: "hr-sensor-h1.btsnoop"),
    SessionSample(file: "hr-sensor.pcap"),
    SessionSample(file: "hr-sensor-ns-be.pcap"),
    SessionSample(file: "hr-sensor.pcapng"),
    SessionSample(file: "hr-sensor.pklg", leadingOtherRecords: 1),
    SessionSample(file: "hr-sensor-v1.pklg", leadingOtherRecords: 1),
    SessionSample(file: "bugreport-hr-sensor.txt", cutRecords: 1),
    SessionSample(file: "bugreport-hr-sensor.zip", cutRecords: 1),
    SessionSample(file: "hr-sensor-monitor.btsnoop", leadingOtherRecords: 4),
    SessionSample(file: "hr-sensor-monitor.pcap", leadingOtherRecords: 4),
  ]

  /// (ts, dir, hci.type, length or original_length, hci.opcode, hci.event) of each record
  /// that carries an `hci` object, and how many records had none.
  static func session(_ file: String) -> (hci: [String], others: [Int], cut: Int, records: Int) {
    let output = runRaw(["show", "--format", "ndjson", "Samples/\(file)"])
    #expect(output.status == 0, "exit status on \(file): \(output.stderr)")
    var hci: [String] = []
    var others: [Int] = []
    var cut = 0
    let records = recordLines(output.stdout)
    for (index, record) in records.enumerated() {
      guard let layer = record.object["hci"] as? [String: Any] else {
        others.append(index + 1)
        continue
      }
      let length = record.object["original_length"] ?? record.object["length"]
      if record.object["original_length"] != nil { cut += 1 }
      hci.append(
        [
          record.ts, record.dir, jsonText(layer["type"]), jsonText(length), jsonText(layer["opcode"]),
          jsonText(layer["event"]),
        ]
        .joined(separator: " "))
    }
    return (hci, others, cut, records.count)
  }

  @Test("hr-sensor.btsnoop holds the session README describes")
  func baseline() {
    let baseline = Self.session("hr-sensor.btsnoop")
    #expect(baseline.records == 49)
    #expect(baseline.hci.count == 49)
    #expect(baseline.hci.first?.hasPrefix("1715679000.000000 tx command ") == true)
    #expect(baseline.hci.last?.hasPrefix("1715679004.917479 rx event ") == true)
  }

  @Test("same HCI records as hr-sensor.btsnoop", arguments: samples)
  func sameRecords(_ sample: SessionSample) {
    let baseline = Self.session("hr-sensor.btsnoop")
    let session = Self.session(sample.file)
    SequenceComparison.compare(
      "\(sample.file) against hr-sensor.btsnoop (ts dir type length opcode event)",
      expected: baseline.hci, actual: session.hci)
    // The other records come first and only there.
    #expect(session.others == Array(1..<(1 + sample.leadingOtherRecords)), "frames without an hci object")
    #expect(session.cut == sample.cutRecords, "records with original_length")
  }
}
