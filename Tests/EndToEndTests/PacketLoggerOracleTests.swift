import Foundation
import Testing

/// A PacketLogger file the test writes from a shared btsnoop capture.
struct PacketLoggerCase: Sendable, CustomTestStringConvertible {
  /// Under ../shared/captures.
  var source: String
  var byteOrder: PacketLoggerWriter.ByteOrder

  var testDescription: String { "\(source) as \(byteOrder) PacketLogger" }
}

/// bleanalyze has no PacketLogger writer, so the test writes .pklg files itself from H4
/// btsnoop captures and checks bleanalyze's reading of them against tshark's reading of the
/// same file and against bleanalyze's reading of the source.
@Suite("tshark oracle: PacketLogger files made from btsnoop captures")
struct PacketLoggerOracleTests {
  static let cases: [PacketLoggerCase] = [
    "synthetic/ios-central.btsnoop", "real/horizon-74-at-ble__btsnoop_hci.btsnoop",
  ]
  .flatMap { source in [.big, .little].map { PacketLoggerCase(source: source, byteOrder: $0) } }

  @Test(
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: cases)
  func packetLogger(_ pklgCase: PacketLoggerCase) throws {
    let source = Paths.captures.appending(path: pklgCase.source)
    let btsnoop = try BTSnoopFile(Data(contentsOf: source))
    try #require(btsnoop.incompleteRecordOffset == nil)
    let pklg = Paths.scratchFile("\(source.deletingPathExtension().lastPathComponent)-\(pklgCase.byteOrder).pklg")
    try PacketLoggerWriter.convert(btsnoop, byteOrder: pklgCase.byteOrder).write(to: pklg)
    defer { try? FileManager.default.removeItem(at: pklg) }

    let output = runRaw(["show", "--format", "ndjson", pklg.path])
    #expect(output.status == 0, "exit status; stderr: \(output.stderr)")
    let ours = recordLines(output.stdout)
    #expect(ours.count == btsnoop.records.count)

    // 1. tshark on the same .pklg: frame numbers, µs timestamps and directions. tshark's
    // PacketLogger reader sets no frame.p2p_dir, so the direction comes from the type it decodes.
    var comparison = SequenceComparison("\(pklgCase.testDescription): frame ts dir, tshark against bleanalyze")
    var count = 0
    tsharkFields(pklg, ["frame.number", "frame.time_epoch", "frame.p2p_dir", "packetlogger.type"]) { columns in
      defer { count += 1 }
      let expected =
        columns.count == 4
        ? [
          String(columns[0]), microseconds(columns[1]),
          tsharkDirection(p2pDir: columns[2], monitorOpcode: "", packetLoggerType: columns[3]),
        ].joined(separator: " ") : columns.joined(separator: "\t")
      let actual = count < ours.count ? "\(ours[count].frame) \(ours[count].ts) \(ours[count].dir)" : "<missing>"
      comparison.check(count, expected: expected, actual: actual)
    }
    comparison.report(expectedCount: count, actualCount: ours.count)
    #expect(count == btsnoop.records.count, "tshark frames in the .pklg")

    // 2. bleanalyze on the source btsnoop: ts, dir, HCI type and length, record by record.
    let fromSource = runRaw(["show", "--format", "ndjson", source.path])
    #expect(fromSource.status == 0)
    func key(_ record: RecordLine) -> String {
      let hci = record.object["hci"] as? [String: Any]
      return "\(record.ts) \(record.dir) \(jsonText(hci?["type"])) \(jsonText(record.object["length"]))"
    }
    SequenceComparison.compare(
      "\(pklgCase.testDescription): ts dir type length, bleanalyze on the btsnoop against bleanalyze on the .pklg",
      expected: recordLines(fromSource.stdout).map(key), actual: ours.map(key))
  }
}
