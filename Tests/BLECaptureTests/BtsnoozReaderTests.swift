import Foundation
import Testing

@testable import BLECapture

@Suite struct BtsnoozReaderTests {
  @Test(arguments: ["bugreport-hr-sensor.txt", "bugreport-hr-sensor.zip"])
  func samplesMatchTheBtsnoopSampleButOneRecord(name: String) throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let snooz = try readAll(path: samplePath(name))
    #expect(snooz.family == .h4)
    #expect(snooz.damage == nil)
    #expect(snooz.records.count == btsnoop.records.count)
    #expect(snooz.formatDescription.contains("Android btsnooz v2"))
    #expect(!snooz.notes.isEmpty)
    // Samples/README.md: record 36 (the 73 bpm notification) is cut to length 14 (13
    // bytes after the type byte), its packet_length staying the full 16.
    for (snoozed, whole) in zip(snooz.records, btsnoop.records) where snoozed.frame != 36 {
      #expect(snoozed == whole)
    }
    let cut = try #require(snooz.records.first { $0.frame == 36 })
    let whole = btsnoop.records[35]
    #expect(cut.isCutBySource)
    #expect(cut.bytes == Array(whole.bytes.prefix(13)))
    #expect(cut.originalLength == whole.bytes.count)
    #expect(cut.timestamp == whole.timestamp)
    #expect(cut.kind == whole.kind)
    #expect(cut.direction == whole.direction)
  }

  @Test func textSampleRecordsPointAtTheSection() throws {
    let capture = try readAll(path: samplePath("bugreport-hr-sensor.txt"))
    let text = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samplePath("bugreport-hr-sensor.txt"))))
    let marker = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    let offset = try #require(text.indices.first { text[$0...].starts(with: marker) })
    #expect(Set(capture.fileOffsets) == [offset])
  }

  /// Text before the section, so that its offset is not 0.
  static let preamble = "Bluetooth Manager Connections:\n  D4:36:39:67:A2:61 HR-Sensor (disconnected)\n\n"

  /// A btsnooz version 1 section holding two records.
  ///
  /// The base64 decodes to version 0x01, last timestamp 0x00061866a5580931 (LE, Unix µs
  /// 1715679000004913 = 2024-05-14 09:30:00.004913), then a zlib stream of:
  ///
  ///     04 00 | 00 00 00 00 | 20 | 03 0c 00            length 4, delta 0, type 0x20 (command)
  ///       < HCI Command: Reset (0x03|0x0003) plen 0
  ///     07 00 | 31 13 00 00 | 10 | 0e 04 01 03 0c 00   length 7, delta 4913, type 0x10 (event)
  ///       > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
  static let version1Section = """
    --- BEGIN:BTSNOOP_LOG_SUMMARY (23 bytes in) ---
    ATEJWKVmGAYAeNpjYQABBWYeBnYGQ2EGBgE+FkYgBwAHqACx
    --- END:BTSNOOP_LOG_SUMMARY (57 bytes out) ---

    """

  static let version1Records = [
    RecordSnapshot(
      frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart), direction: .sent, kind: .hci(0x01),
      bytes: [0x03, 0x0C, 0x00]),
    RecordSnapshot(
      frame: 2, timestamp: Timestamp(unixMicroseconds: sessionStart + 4913), direction: .received,
      kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
  ]

  @Test func version1TimestampsRunBackFromTheLast() throws {
    let capture = try readAll(bytes: Array((Self.preamble + Self.version1Section).utf8))
    #expect(capture.damage == nil)
    #expect(capture.formatDescription.hasPrefix("Android btsnooz v1"))
    #expect(capture.fileOffsets == [Self.preamble.utf8.count, Self.preamble.utf8.count])
    expectSameRecords(capture.records, Self.version1Records)
  }

  @Test func cutStreamKeepsWhatInflated() throws {
    // The same section without the zlib stream's Adler-32 trailer (07 a8 00 b1)
    let text = """
      --- BEGIN:BTSNOOP_LOG_SUMMARY (23 bytes in) ---
      ATEJWKVmGAYAeNpjYQABBWYeBnYGQ2EGBgE+FkYgBwA=
      --- END:BTSNOOP_LOG_SUMMARY (53 bytes out) ---

      """
    let capture = try readAll(bytes: Array((Self.preamble + text).utf8))
    expectSameRecords(capture.records, Self.version1Records)
    #expect(capture.damage?.offset == Self.preamble.utf8.count)
    #expect(capture.damage?.message.contains("cut off") == true)
  }

  @Test func missingEndLineIsDamage() throws {
    // The section with its END line left out: the records are all there, but the dump was cut
    let text = """
      --- BEGIN:BTSNOOP_LOG_SUMMARY (23 bytes in) ---
      ATEJWKVmGAYAeNpjYQABBWYeBnYGQ2EGBgE+FkYgBwAHqACx

      """
    let capture = try readAll(bytes: Array((Self.preamble + text).utf8))
    expectSameRecords(capture.records, Self.version1Records)
    #expect(capture.damage?.offset == Self.preamble.utf8.count)
    #expect(capture.damage?.message.contains("no END line") == true)
  }

  @Test func invalidBase64IsADamagedHeader() throws {
    // A section whose body has characters outside the base64 alphabet
    let text = """
      --- BEGIN:BTSNOOP_LOG_SUMMARY (23 bytes in) ---
      ATEJ!!!!
      --- END:BTSNOOP_LOG_SUMMARY (17 bytes out) ---

      """
    let error = try openError(Array((Self.preamble + text).utf8))
    #expect(error?.reason.damagedHeaderText?.contains("not valid base64") == true)
    #expect(error?.reason.damagedHeaderText?.contains("offset \(Self.preamble.utf8.count)") == true)
  }

  @Test func unknownVersionIsUnsupported() throws {
    // Base64 of 03 00 00 00 00 00 00 00 00: version 3, last timestamp 0, no records
    let text = """
      --- BEGIN:BTSNOOP_LOG_SUMMARY (0 bytes in) ---
      AwAAAAAAAAAA
      --- END:BTSNOOP_LOG_SUMMARY (21 bytes out) ---

      """
    let error = try openError(Array(text.utf8))
    #expect(error?.reason.unsupportedText?.contains("version 3") == true)
  }

  @Test func zipWithGarbageCentralDirectoryIsADamagedHeader() throws {
    let bytes: [UInt8] = [
      // Local file header: signature 0x04034b50, version 2.0, no flags, stored, no name, no data
      0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      // Central directory at offset 30, 46 bytes: garbage instead of signature 0x02014b50
      0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
      0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
      0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
      // End of central directory: signature 0x06054b50, disk 0, 1 entry, size 46, offset 30, no comment
      0x50, 0x4B, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x2E, 0x00, 0x00, 0x00,
      0x1E, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let error = try openError(bytes)
    #expect(error?.reason.damagedHeaderText?.contains("central directory damaged at byte offset 30") == true)
  }

  @Test func zipWithoutEndOfCentralDirectoryIsADamagedHeader() throws {
    // Local file header (signature 0x04034b50, stored, no name), then nothing
    let bytes: [UInt8] = [
      0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let error = try openError(bytes)
    #expect(error?.reason.damagedHeaderText?.contains("end of central directory not found") == true)
  }

  @Test func zipWithoutBugreportIsUnsupported() throws {
    let bytes: [UInt8] = [
      // Local file header: version 2.0, stored, 2024-05-14 09:31:00, CRC 0xf570d16c, size 3, name "version.txt"
      0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x4B, 0xAE, 0x58, 0x6C, 0xD1,
      0x70, 0xF5, 0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x76, 0x65,
      0x72, 0x73, 0x69, 0x6F, 0x6E, 0x2E, 0x74, 0x78, 0x74,
      // Data: "2.0"
      0x32, 0x2E, 0x30,
      // Central directory entry at offset 44: made by Unix 2.0, stored, same CRC and sizes, local header at 0,
      // mode 0644, name "version.txt"
      0x50, 0x4B, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x4B, 0xAE, 0x58,
      0x6C, 0xD1, 0x70, 0xF5, 0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xA4, 0x81, 0x00, 0x00, 0x00, 0x00, 0x76, 0x65,
      0x72, 0x73, 0x69, 0x6F, 0x6E, 0x2E, 0x74, 0x78, 0x74,
      // End of central directory: 1 entry, size 57, offset 44, no comment
      0x50, 0x4B, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x39, 0x00, 0x00, 0x00,
      0x2C, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let error = try openError(bytes)
    #expect(error?.reason.unsupportedText?.contains("holds no HCI log") == true)
  }
}

@Suite struct InflateBoundsTests {
  /// A zip entry's size field is only a hint: one no deflate stream of this length can
  /// reach reserves nothing (a fuzzed bugreport zip once asked for gigabytes).
  @Test(arguments: [Int.max, Int(UInt32.max), 5])
  func sizeFromAHeaderIsOnlyAHint(_ expectedSize: Int) throws {
    // raw deflate of "hello": cb 48 cd c9 c9 07 00
    let deflated: [UInt8] = [0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    let inflated = try deflated.withUnsafeBufferPointer {
      try Inflate.inflate($0, wrapper: .raw, expectedSize: expectedSize)
    }
    #expect(inflated == Array("hello".utf8))
  }
}
