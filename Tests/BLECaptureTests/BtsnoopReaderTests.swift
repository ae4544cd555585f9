import Testing

@testable import BLECapture

@Suite struct BtsnoopReaderTests {
  /// btsnoop version 1, datalink 1002 (HCI UART H4), two records.
  static let header: [UInt8] = [
    // Identification "btsnoop\0", Version 1, Datalink 1002 (H4)
    0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03, 0xEA,
  ]
  static let resetRecord: [UInt8] = [
    // Record 1 at offset 16: Original Length 4, Included Length 4, Flags 0x2 (Sent, Command),
    // Cumulative Drops 0, Timestamp 0x00E2F619B4877600 (2024-05-14 09:30:00.000000 UTC)
    0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
    // < HCI Command: Reset (0x03|0x0003) plen 0
    0x01, 0x03, 0x0C, 0x00,
  ]
  static let resetCompleteRecord: [UInt8] = [
    // Record 2 at offset 16 + 24 + 4 = 44: Original Length 7, Included Length 7,
    // Flags 0x3 (Received, Event), Cumulative Drops 0,
    // Timestamp 0x00E2F619B4878931 (2024-05-14 09:30:00.004913 UTC)
    0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x89, 0x31,
    // > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success (0x00)
    0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
  ]
  static let twoRecords = header + resetRecord + resetCompleteRecord

  @Test func h4RecordsLoseTheirTypeByte() throws {
    let capture = try readAll(bytes: Self.twoRecords)
    #expect(capture.family == .h4)
    #expect(capture.resolution == .microseconds)
    #expect(capture.damage == nil)
    #expect(capture.fileOffsets == [16, 16 + 24 + 4])
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: 0x00E2_F619_B487_7600 - btsnoopEpochDelta),
          direction: .sent, kind: .hci(0x01), bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: 0x00E2_F619_B487_8931 - btsnoopEpochDelta),
          direction: .received, kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
      ])
  }

  @Test func timestampCountsFromYearZero() throws {
    let capture = try readAll(bytes: Self.twoRecords)
    #expect(capture.records.map(\.timestamp.unixMicroseconds) == [sessionStart, sessionStart + 4913])
    #expect(capture.records.map(\.timestamp.nanoseconds) == [0, 0])
  }

  @Test func h1FlagsGiveThePacketType() throws {
    // btsnoop version 1, datalink 1001 (HCI UART H1): no H4 byte, the flags say what it is
    let bytes: [UInt8] = [
      0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03, 0xE9,
      // Record 1: orig 3, incl 3, flags 0x2 (Sent, Command), 09:30:00.000000
      0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
      // < HCI Command: Reset (0x03|0x0003) plen 0
      0x03, 0x0C, 0x00,
      // Record 2: orig 6, incl 6, flags 0x3 (Received, Event), 09:30:00.000001
      0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x01,
      // > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
      0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
      // Record 3: orig 11, incl 11, flags 0x0 (Sent, Data), 09:30:00.000002
      0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x02,
      // < ACL Data TX: Handle 64 flags 0x02 dlen 7, ATT: Read Request (0x0a) len 2, Handle: 0x0011
      0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00,
      // Record 4: orig 10, incl 10, flags 0x1 (Received, Data), 09:30:00.000003
      0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x03,
      // > ACL Data RX: Handle 64 flags 0x02 dlen 6, ATT: Read Response (0x0b) len 1, Value: 01
      0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01,
    ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.family == .h4)
    #expect(capture.damage == nil)
    #expect(capture.fileOffsets == [16, 43, 73, 108])
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart), direction: .sent, kind: .hci(0x01),
          bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: sessionStart + 1), direction: .received, kind: .hci(0x04),
          bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: sessionStart + 2), direction: .sent, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00]),
        RecordSnapshot(
          frame: 4, timestamp: Timestamp(unixMicroseconds: sessionStart + 3), direction: .received, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01]),
      ])
  }

  @Test func h1SampleMatchesTheH4Sample() throws {
    // The session holds only commands, events and ACL, which H1 flags tell apart.
    let h4 = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let h1 = try readAll(path: samplePath("hr-sensor-h1.btsnoop"))
    #expect(h1.formatDescription.contains("1001"))
    #expect(h1.damage == nil)
    expectSameRecords(h1.records, h4.records)
  }

  @Test func monitorFlagsGiveOpcodeAndAdapter() throws {
    // btsnoop version 1, datalink 2001 (Linux monitor), flags = (index << 16) | opcode
    let bytes: [UInt8] = [
      0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x07, 0xD1,
      // Record 1: orig 16, incl 16, flags 0x00000000 (hci0, NEW_INDEX), 09:30:00.000000
      0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
      // = New Index: 4D:C1:64:29:99:6D (Primary,USB,hci0)
      0x00, 0x01, 0x6D, 0x99, 0x29, 0x64, 0xC1, 0x4D, 0x68, 0x63, 0x69, 0x30, 0x00, 0x00, 0x00, 0x00,
      // Record 2: orig 5, incl 5, flags 0xFFFF000C (no index, SYSTEM_NOTE), 09:30:00.000000
      0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x05, 0xFF, 0xFF, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
      // = Note: note
      0x6E, 0x6F, 0x74, 0x65, 0x00,
      // Record 3: orig 3, incl 3, flags 0x00000002 (hci0, COMMAND_PKT), 09:30:00.000001
      0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x01,
      // < HCI Command: Reset (0x03|0x0003) plen 0
      0x03, 0x0C, 0x00,
      // Record 4: orig 6, incl 6, flags 0x00000003 (hci0, EVENT_PKT), 09:30:00.000002
      0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x02,
      // > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
      0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
      // Record 5: orig 11, incl 11, flags 0x00010004 (hci1, ACL_TX_PKT), 09:30:00.000003
      0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x03,
      // < ACL Data TX: Handle 64 flags 0x02 dlen 7, ATT: Read Request (0x0a) len 2, Handle: 0x0011
      0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00,
      // Record 6: orig 10, incl 10, flags 0x00010005 (hci1, ACL_RX_PKT), 09:30:00.000004
      0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x04,
      // > ACL Data RX: Handle 64 flags 0x02 dlen 6, ATT: Read Response (0x0b) len 1, Value: 01
      0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01,
    ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.family == .monitor)
    #expect(capture.damage == nil)
    let t = sessionStart
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: t), direction: nil, adapter: 0,
          kind: .monitor(MonitorOpcode(rawValue: 0)),
          bytes: [0x00, 0x01, 0x6D, 0x99, 0x29, 0x64, 0xC1, 0x4D, 0x68, 0x63, 0x69, 0x30, 0x00, 0x00, 0x00, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: t), direction: nil, adapter: nil,
          kind: .monitor(MonitorOpcode(rawValue: 12)), bytes: [0x6E, 0x6F, 0x74, 0x65, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: t + 1), direction: .sent, adapter: 0, kind: .hci(0x01),
          bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 4, timestamp: Timestamp(unixMicroseconds: t + 2), direction: .received, adapter: 0,
          kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 5, timestamp: Timestamp(unixMicroseconds: t + 3), direction: .sent, adapter: 1, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00]),
        RecordSnapshot(
          frame: 6, timestamp: Timestamp(unixMicroseconds: t + 4), direction: .received, adapter: 1,
          kind: .hci(0x02), bytes: [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01]),
      ])
  }

  @Test func filteredRecordIsCutBySource() throws {
    // btsnoop 1002 as Android's filtered snoop log writes it: the notification keeps 14 of 16 bytes
    let bytes: [UInt8] = [
      0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03, 0xEA,
      // Record 1: Original Length 16, Included Length 14, flags 0x1 (Received, Data), 09:30:00.000000
      0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
      // > ACL Data RX: Handle 64 flags 0x02 dlen 11
      //   ATT: Handle Value Notification (0x1b) len 7, Handle: 0x000e, Data: 1049 (RR interval cut off)
      0x02, 0x40, 0x20, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00, 0x10, 0x49,
    ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.damage == nil)
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart), direction: .received, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00, 0x10, 0x49],
          originalLength: 16 - 1)
      ])
    #expect(capture.records.first?.isCutBySource == true)
  }

  @Test func recordWithoutTypeByteIsUnframed() throws {
    // btsnoop 1002, one record with no bytes at all (not even the H4 type)
    let bytes: [UInt8] =
      Self.header + [
        // Record 1: orig 0, incl 0, flags 0x1 (Received, Data), 09:30:00.000000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
        0x00, 0xE2, 0xF6, 0x19, 0xB4, 0x87, 0x76, 0x00,
      ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.damage == nil)
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart), direction: .received, kind: .unframed,
          bytes: [])
      ])
  }

  /// A btsnoop file cut short, and where the damage must be reported.
  struct Cut: Sendable, CustomTestStringConvertible {
    var name: String
    var keep: Int
    var records: Int
    var damageOffset: Int
    var message: String
    var testDescription: String { name }
  }

  static let cuts: [Cut] = [
    .init(name: "inside record 1 header", keep: 16 + 10, records: 0, damageOffset: 16, message: "header cut off"),
    .init(name: "inside record 1 body", keep: 16 + 24 + 2, records: 0, damageOffset: 16, message: "cut off"),
    .init(name: "inside record 2 header", keep: 44 + 23, records: 1, damageOffset: 44, message: "header cut off"),
    .init(name: "inside record 2 body", keep: 44 + 24 + 6, records: 1, damageOffset: 44, message: "cut off"),
  ]

  @Test(arguments: cuts)
  func cutFileKeepsCompleteRecords(cut: Cut) throws {
    try withTemporaryFile(Array(Self.twoRecords.prefix(cut.keep))) { path in
      let source = try CaptureFile.open(path)
      let capture = readAll(source)
      #expect(capture.records.map(\.frame) == Array(0..<cut.records).map { $0 + 1 })
      #expect(capture.damage?.offset == cut.damageOffset)
      #expect(capture.damage?.message.contains(cut.message) == true)
      #expect(capture.damage?.message.contains("record \(cut.records + 1)") == true)
      // Reading on after the damage yields nothing more.
      #expect(source.next() == nil)
      #expect(source.damage?.offset == cut.damageOffset)
    }
  }

  @Test func cutOffSampleStopsAtRecordTen() throws {
    let full = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let cut = try readAll(path: samplePath("cut-off.btsnoop"))
    expectSameRecords(cut.records, Array(full.records.prefix(9)))
    #expect(full.fileOffsets.count == 49)
    #expect(cut.damage?.offset == full.fileOffsets[9])
  }

  @Test func headerOnlyHasNoRecordsAndNoDamage() throws {
    let capture = try readAll(bytes: Self.header)
    #expect(capture.records.isEmpty)
    #expect(capture.damage == nil)
    let sample = try readAll(path: samplePath("header-only.btsnoop"))
    #expect(sample.records.isEmpty)
    #expect(sample.damage == nil)
  }

  @Test func progressReachesTheEnd() throws {
    try withTemporaryFile(Self.twoRecords) { path in
      let source = try CaptureFile.open(path)
      #expect(source.progress.done == 16)
      #expect(source.progress.total == Self.twoRecords.count)
      _ = readAll(source)
      #expect(source.progress.done == Self.twoRecords.count)
    }
  }

  @Test func unsupportedVersion() throws {
    // btsnoop header with Version 2
    let bytes: [UInt8] = [
      0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0xEA,
    ]
    let error = try openError(bytes)
    #expect(error?.reason.unsupportedText?.contains("version 2") == true)
  }

  @Test func unsupportedDatalink() throws {
    // btsnoop header with Datalink 1003 (HCI BCSP), then the Reset record
    let bytes: [UInt8] =
      [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03, 0xEB]
      + Self.resetRecord
    let error = try openError(bytes)
    #expect(error?.reason.unsupportedText?.contains("1003") == true)
    let sample = #expect(throws: CaptureError.self) { try CaptureFile.open(samplePath("bad-datalink.btsnoop")) }
    #expect(sample?.reason.unsupportedText?.contains("1003") == true)
  }

  @Test func truncatedMagicIsADamagedHeader() throws {
    // "btsn": the first four bytes of a btsnoop header
    let error = try openError([0x62, 0x74, 0x73, 0x6E])
    #expect(error?.reason.damagedHeaderText?.contains("4 of 16 bytes") == true)
  }
}
