import Foundation
import Testing

@testable import BLECapture

/// A record copied out of a source, so it outlives the next `next()` call.
struct RecordSnapshot: Equatable, Sendable, CustomStringConvertible {
  var frame: Int
  var timestamp: Timestamp
  var direction: Direction?
  var adapter: UInt16?
  var kind: RecordKind
  var bytes: [UInt8]
  var originalLength: Int
  var isCutBySource: Bool

  init(
    frame: Int, timestamp: Timestamp, direction: Direction?, adapter: UInt16? = nil, kind: RecordKind,
    bytes: [UInt8], originalLength: Int? = nil
  ) {
    self.frame = frame
    self.timestamp = timestamp
    self.direction = direction
    self.adapter = adapter
    self.kind = kind
    self.bytes = bytes
    self.originalLength = originalLength ?? bytes.count
    self.isCutBySource = self.originalLength > bytes.count
  }

  init(_ record: Record) {
    frame = record.frame
    timestamp = record.timestamp
    direction = record.direction
    adapter = record.adapter
    kind = record.kind
    bytes = Array(record.bytes)
    originalLength = record.originalLength
    isCutBySource = record.isCutBySource
  }

  var description: String {
    let hex = bytes.map { String($0, radix: 16) }.joined(separator: " ")
    return "#\(frame) \(timestamp.unixMicroseconds).\(timestamp.nanoseconds) \(direction.map { "\($0)" } ?? "-") "
      + "hci\(adapter.map(String.init) ?? "-") \(kind) [\(hex)] of \(originalLength)"
  }
}

/// Everything a source yields, read to its end.
struct CaptureContents {
  var records: [RecordSnapshot]
  var fileOffsets: [Int]
  var damage: CaptureDamage?
  var family: LinkFamily
  var resolution: TimestampResolution
  var formatDescription: String
  var notes: [String]
}

/// Reads `source` to its end (or its damage), copying every record.
func readAll(_ source: any RecordSource) -> CaptureContents {
  var records: [RecordSnapshot] = []
  var offsets: [Int] = []
  while let record = source.next() {
    records.append(RecordSnapshot(record))
    offsets.append(record.fileOffset)
  }
  return CaptureContents(
    records: records, fileOffsets: offsets, damage: source.damage, family: source.family,
    resolution: source.resolution, formatDescription: source.formatDescription, notes: source.notes)
}

/// Opens the capture at `path` and reads it whole.
func readAll(path: String) throws(CaptureError) -> CaptureContents {
  readAll(try CaptureFile.open(path))
}

/// The path of a file in the package's `Samples/` directory.
func samplePath(_ name: String) -> String {
  URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // BLECaptureTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Samples").appendingPathComponent(name).path
}

/// A fresh path in the temporary directory; the file is removed after `body`.
func withTemporaryPath<T>(extension ext: String = "tmp", _ body: (String) throws -> T) rethrows -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("BLECaptureTests-\(UUID().uuidString).\(ext)").path
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

/// `bytes` written to a temporary file for the duration of `body`.
func withTemporaryFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
  try withTemporaryPath { path in
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return try body(path)
  }
}

/// Reads `bytes` as a capture file.
func readAll(bytes: [UInt8]) throws -> CaptureContents {
  try withTemporaryFile(bytes) { path in try readAll(path: path) }
}

/// The error `CaptureFile.open` throws for `bytes`, nil (and a failed expectation) when it opens.
func openError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> CaptureError? {
  try withTemporaryFile(bytes) { path in
    #expect(throws: CaptureError.self, sourceLocation: sourceLocation) { try CaptureFile.open(path) }
  }
}

/// Compares two record lists one by one, so a failure names the first differing record.
func expectSameRecords(
  _ actual: [RecordSnapshot], _ expected: [RecordSnapshot], sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(actual.count == expected.count, sourceLocation: sourceLocation)
  for (a, e) in zip(actual, expected) where a != e {
    #expect(a == e, sourceLocation: sourceLocation)
    return
  }
}

extension CaptureError.Reason {
  /// The text of `.unsupported` and `.damagedHeader`, nil for the other reasons.
  var unsupportedText: String? {
    if case .unsupported(let text) = self { return text }
    return nil
  }

  var damagedHeaderText: String? {
    if case .damagedHeader(let text) = self { return text }
    return nil
  }
}

/// The btsnoop epoch (0000-01-01 00:00) in µs before the Unix epoch, written out here
/// rather than taken from `Timestamp`, so the tests check the reader's constant.
let btsnoopEpochDelta: Int64 = 0x00DC_DDB3_0F2F_8000

/// 2024-05-14T09:30:00.000000Z in Unix µs, the first record of every fixture and sample.
let sessionStart: Int64 = 1_715_679_000_000_000
