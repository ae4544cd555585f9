import Foundation
import Testing

/// The tshark fields whose values `convert` must keep, in one place.
enum ConvertField: String, CaseIterable {
  case time = "frame.time_epoch"
  case p2pDir = "frame.p2p_dir"
  case monitorOpcode = "hci_mon.opcode"
  case adapter = "hci_mon.adapter_id"
  case h4Type = "hci_h4.type"
  case commandOpcode = "bthci_cmd.opcode"
  case eventCode = "bthci_evt.code"
  case aclHandle = "bthci_acl.chandle"
  case l2capCID = "btl2cap.cid"
  case attOpcode = "btatt.opcode"
  case attHandle = "btatt.handle"
  // frame.len and frame.cap_len: tshark counts neither the 4-byte DLT 201/254 pseudo-header
  // (it becomes wiretap's pseudo-header) nor anything in btsnoop, and its PacketLogger frames
  // hold the type byte where H4 frames hold the H4 byte, so the lengths are equal in every
  // pair of formats here (checked by experiment with tshark 4.0.17); no adjustment is made.
  case length = "frame.len"
  case capturedLength = "frame.cap_len"
  /// Only in PacketLogger sources, where it stands in for hci_h4.type and the direction.
  case packetLoggerType = "packetlogger.type"
}

/// One tshark line of the fields above.
typealias FieldLine = [ConvertField: String]

/// A capture to convert, and what kind of records it holds.
struct ConvertSource: Sendable, CustomTestStringConvertible {
  enum Kind: Sendable {
    /// H4 records, with a direction: btsnoop 1002, pcap DLT 201.
    case hci
    /// Linux monitor records: btsnoop 2001, DLT 254.
    case monitor
    /// Apple PacketLogger.
    case packetLogger
    /// Link-layer sniffer records (DLT 272), which btsnoop cannot hold.
    case linkLayer
  }

  /// "Samples/NAME" (relative to the package root) or "shared:FOLDER/NAME" (in ../shared/captures).
  var path: String
  var kind: Kind

  var url: URL {
    path.hasPrefix("shared:")
      ? Paths.captures.appending(path: String(path.dropFirst("shared:".count)))
      : Paths.packageRoot.appending(path: path)
  }

  var testDescription: String { path }
}

/// `convert SRC OUT` keeps what tshark sees in SRC, record for record.
@Suite("tshark oracle: convert keeps every field")
struct ConvertOracleTests {
  static let formats = ["pcap", "pcapng", "btsnoop"]

  static let sampleSources = [
    ConvertSource(path: "Samples/hr-sensor.btsnoop", kind: .hci),
    ConvertSource(path: "Samples/hr-sensor-monitor.btsnoop", kind: .monitor),
    ConvertSource(path: "Samples/hr-sensor-ns-be.pcap", kind: .hci),
    ConvertSource(path: "Samples/hr-sensor.pklg", kind: .packetLogger),
  ]

  static let sharedSources = [
    ConvertSource(path: "shared:synthetic/ios-central-acl27.btsnoop", kind: .hci),
    ConvertSource(path: "shared:real/Projet_RP__ble_capture.btsnoop", kind: .monitor),
    ConvertSource(path: "shared:real/Tesi_BLE__capture.pcap", kind: .linkLayer),
    ConvertSource(path: "shared:real/bluetooth-pcap-test__bluetooth.pcap", kind: .hci),
  ]

  @Test(
    "convert Samples",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    arguments: sampleSources, formats)
  func convertSample(_ source: ConvertSource, _ format: String) throws {
    try checkConvert(source, format)
  }

  @Test(
    "convert shared captures",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping oracle test"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping oracle test"),
    arguments: sharedSources, formats)
  func convertShared(_ source: ConvertSource, _ format: String) throws {
    try checkConvert(source, format)
  }
}

/// tshark's reading of `file`, one dictionary per frame.
private func fieldLines(_ file: URL) -> [FieldLine] {
  let fields = ConvertField.allCases
  var result: [FieldLine] = []
  tsharkFields(file, fields.map(\.rawValue)) { columns in
    var line = FieldLine()
    for (index, field) in fields.enumerated() {
      line[field] = index < columns.count ? String(columns[index]) : "<none>"
    }
    result.append(line)
  }
  return result
}

/// What tshark should see in OUT for a line of SRC, or nil when the record has no place in OUT.
private func expectedLine(_ line: FieldLine, source: ConvertSource, format: String) -> FieldLine? {
  var expected = line
  // µs-only btsnoop cuts timestamps to microseconds; pcap and pcapng keep nanoseconds
  // (Convert's help says so), so their time strings must stay exactly the same.
  if format == "btsnoop" { expected[.time] = microseconds(line[.time]!) }
  switch source.kind {
  case .hci, .linkLayer:
    break
  case .monitor:
    // A pcapng writer records the direction a monitor opcode implies in the EPB flags, which
    // tshark shows as frame.p2p_dir; btsnoop 2001 and pcap DLT 254 have no such field.
    if format == "pcapng", line[.p2pDir] == "" {
      let opcode = line[.monitorOpcode]!.split(separator: ",").first.flatMap { number($0) }
      expected[.p2pDir] = monitorDirection(opcode).map { $0 == "tx" ? "0" : "1" } ?? ""
    }
  case .packetLogger:
    // tshark decodes PacketLogger with its own encapsulation: no hci_h4.type and no p2p_dir,
    // but packetlogger.type. Notes and other records without HCI have no place in OUT; the
    // HCI ones become H4 records whose type and direction come from the PacketLogger type.
    let type = number(line[.packetLoggerType]!)
    guard let h4 = h4Type(packetLoggerType: type) else { return nil }
    expected[.h4Type] = String(format: "0x%02x", h4)
    expected[.p2pDir] = packetLoggerDirection(type) == "tx" ? "0" : "1"
    expected[.packetLoggerType] = ""
  }
  return expected
}

private func checkConvert(
  _ source: ConvertSource, _ format: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let output = Paths.scratchFile("\(source.url.deletingPathExtension().lastPathComponent).\(format)")
  defer { try? FileManager.default.removeItem(at: output) }
  let result = run(["convert", source.url.path, output.path])

  if source.kind == .linkLayer && format == "btsnoop" {
    #expect(result.status == 1, "btsnoop cannot hold link-layer packets; stderr: \(result.stderr)")
    #expect(result.stderr.contains("btsnoop"), "the message should say why: \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output.path), "no output file is left behind")
    return
  }
  #expect(result.status == 0, "convert exit status; stderr: \(result.stderr)")
  try #require(FileManager.default.fileExists(atPath: output.path), "convert wrote no \(output.path)")

  let sourceLines = fieldLines(source.url)
  try #require(!sourceLines.isEmpty, "tshark read nothing from \(source.path)")
  let expected = sourceLines.compactMap { expectedLine($0, source: source, format: format) }
  let actual = fieldLines(output).map { line in
    var line = line
    if format == "btsnoop" { line[.time] = microseconds(line[.time]!) }
    return line
  }
  func text(_ line: FieldLine) -> String {
    ConvertField.allCases.map { "\($0.rawValue)=\(line[$0] ?? "")" }.joined(separator: " ")
  }
  var comparison = SequenceComparison("\(source.path) → .\(format): tshark fields of SRC against OUT")
  for index in 0..<min(expected.count, actual.count) {
    comparison.check(index, expected: text(expected[index]), actual: text(actual[index])) {
      "differing: "
        + ConvertField.allCases.filter { expected[index][$0] != actual[index][$0] }.map(\.rawValue).joined(
          separator: ", ")
    }
  }
  comparison.report(expectedCount: expected.count, actualCount: actual.count, sourceLocation: sourceLocation)
}
