import Testing

@testable import BLECapture

@Suite struct PacketLoggerReaderTests {
  @Test(arguments: ["hr-sensor.pklg", "hr-sensor-v1.pklg"])
  func samplesMatchTheBtsnoopSample(name: String) throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let pklg = try readAll(path: samplePath(name))
    #expect(pklg.family == .h4)
    #expect(pklg.damage == nil)
    #expect(pklg.records.count == 50)
    let note = try #require(pklg.records.first)
    #expect(note.kind == .packetLogger(0xFC))
    #expect(note.direction == nil)
    #expect(note.frame == 1)
    #expect(note.bytes == Array("bleanalyze sample".utf8))
    #expect(note.timestamp == btsnoop.records.first?.timestamp)
    // Frame numbers count the note, so the session is one frame later.
    var session = btsnoop.records
    for i in session.indices { session[i].frame += 1 }
    expectSameRecords(Array(pklg.records.dropFirst()), session)
  }

  @Test func byteOrderIsDetected() throws {
    #expect(try readAll(path: samplePath("hr-sensor.pklg")).formatDescription.contains("little-endian"))
    #expect(try readAll(path: samplePath("hr-sensor-v1.pklg")).formatDescription.contains("big-endian"))
  }

  /// PacketLogger v2 (little-endian): five good records, then one whose length is below 9.
  static let shortRecord: [UInt8] = [
    // Record 1 at offset 0: Length 11, 1715679000 s 0 µs, Type 0xFC (Note): "hi"
    0x0B, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x00, 0x00, 0x00, 0x00, 0xFC,
    0x68, 0x69,
    // Record 2 at offset 15: Length 12, 1715679000 s 1 µs, Type 0x00 (HCI Command)
    0x0C, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x01, 0x00, 0x00, 0x00, 0x00,
    //   < HCI Command: Reset (0x03|0x0003) plen 0
    0x03, 0x0C, 0x00,
    // Record 3 at offset 31: Length 15, 1715679000 s 2 µs, Type 0x01 (HCI Event)
    0x0F, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x02, 0x00, 0x00, 0x00, 0x01,
    //   > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
    0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
    // Record 4 at offset 50: Length 20, 1715679000 s 3 µs, Type 0x02 (Sent ACL Data)
    0x14, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x03, 0x00, 0x00, 0x00, 0x02,
    //   < ACL Data TX: Handle 64 flags 0x02 dlen 7, ATT: Read Request (0x0a) len 2, Handle: 0x0011
    0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00,
    // Record 5 at offset 74: Length 19, 1715679000 s 4 µs, Type 0x03 (Received ACL Data)
    0x13, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x04, 0x00, 0x00, 0x00, 0x03,
    //   > ACL Data RX: Handle 64 flags 0x02 dlen 6, ATT: Read Response (0x0b) len 1, Value: 01
    0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01,
    // Record 6 at offset 97: Length 8 (below the 9-byte minimum), 1715679000 s 5 µs, Type 0x00
    0x08, 0x00, 0x00, 0x00, 0x18, 0x2F, 0x43, 0x66, 0x05, 0x00, 0x00, 0x00, 0x00,
  ]

  @Test func recordShorterThanItsHeaderIsDamage() throws {
    let capture = try readAll(bytes: Self.shortRecord)
    #expect(capture.fileOffsets == [0, 15, 31, 50, 74])
    let t = sessionStart
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: t), direction: nil, kind: .packetLogger(0xFC),
          bytes: [0x68, 0x69]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: t + 1), direction: .sent, kind: .hci(0x01),
          bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: t + 2), direction: .received, kind: .hci(0x04),
          bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 4, timestamp: Timestamp(unixMicroseconds: t + 3), direction: .sent, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00]),
        RecordSnapshot(
          frame: 5, timestamp: Timestamp(unixMicroseconds: t + 4), direction: .received, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01]),
      ])
    #expect(capture.damage?.offset == 97)
    #expect(capture.damage?.message.contains("length 8") == true)
  }

  @Test func cutRecordIsDamage() throws {
    // The first five records of `shortRecord`, then record 5 again with its last byte cut off
    let bytes = Array(Self.shortRecord.prefix(97)) + Array(Self.shortRecord[74..<96])
    let capture = try readAll(bytes: bytes)
    #expect(capture.records.count == 5)
    #expect(capture.damage?.offset == 97)
    #expect(capture.damage?.message.contains("cut off") == true)
  }
}
