import Foundation
import Testing

@testable import BLECapture

@Suite struct PcapReaderTests {
  /// pcap, three packets of link type 201.
  static let h4WithPHDR: [UInt8] = [
    // Magic 0xa1b2c3d4 (µs, little-endian), Version 2.4, Thiszone 0, Sigfigs 0, Snaplen 65535,
    // Link type 201 (BLUETOOTH_HCI_H4_WITH_PHDR)
    0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xFF, 0xFF, 0x00, 0x00, 0xC9, 0x00, 0x00, 0x00,
    // Frame 1 at offset 24: 2024-05-14 09:30:00.000001, 8 bytes captured, 8 on wire
    0x18, 0x2F, 0x43, 0x66, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
    //   Direction: Sent (0x00000000)
    //   < HCI Command: Reset (0x03|0x0003) plen 0
    0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x0C, 0x00,
    // Frame 2 at offset 48: 2024-05-14 09:30:00.004913, 11 bytes captured, 11 on wire
    0x18, 0x2F, 0x43, 0x66, 0x31, 0x13, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00,
    //   Direction: Received (0x00000001)
    //   > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
    0x00, 0x00, 0x00, 0x01, 0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
    // Frame 3 at offset 75: 2024-05-14 09:30:01.000000, 18 bytes captured, 20 on wire
    0x19, 0x2F, 0x43, 0x66, 0x00, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
    //   Direction: Received (0x00000001)
    //   > ACL Data RX: Handle 64 flags 0x02 dlen 11
    //     ATT: Handle Value Notification (0x1b) len 7, Handle: 0x000e, Data: 1049 (RR interval cut off)
    0x00, 0x00, 0x00, 0x01, 0x02, 0x40, 0x20, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00,
    0x10, 0x49,
  ]

  @Test func h4WithPseudoHeader() throws {
    let capture = try readAll(bytes: Self.h4WithPHDR)
    #expect(capture.family == .h4)
    #expect(capture.resolution == .microseconds)
    #expect(capture.damage == nil)
    #expect(capture.fileOffsets == [24, 48, 75])
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart + 1), direction: .sent, kind: .hci(0x01),
          bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: sessionStart + 4913), direction: .received,
          kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: sessionStart + 1_000_000), direction: .received,
          kind: .hci(0x02), bytes: [0x40, 0x20, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00, 0x10, 0x49],
          originalLength: 20 - 4 - 1),
      ])
  }

  @Test func linuxMonitorNanosecondsBigEndian() throws {
    let bytes: [UInt8] = [
      // Magic 0xa1b23c4d (ns, big-endian), Version 2.4, Thiszone 0, Sigfigs 0, Snaplen 65535,
      // Link type 254 (BLUETOOTH_LINUX_MONITOR)
      0xA1, 0xB2, 0x3C, 0x4D, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0xFE,
      // Frame 1 at offset 24: 2024-05-14 09:30:00.123456789, 20 bytes
      0x66, 0x43, 0x2F, 0x18, 0x07, 0x5B, 0xCD, 0x15, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x14,
      //   Adapter Id: 0, Opcode: New Index (0)
      //   = New Index: 4D:C1:64:29:99:6D (Primary,USB,hci0)
      0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x6D, 0x99, 0x29, 0x64, 0xC1, 0x4D, 0x68, 0x63, 0x69, 0x30,
      0x00, 0x00, 0x00, 0x00,
      // Frame 2 at offset 60: 2024-05-14 09:30:00.123456790, 9 bytes
      0x66, 0x43, 0x2F, 0x18, 0x07, 0x5B, 0xCD, 0x16, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x09,
      //   Adapter Id: 65535, Opcode: System Note (12)
      //   = Note: note
      0xFF, 0xFF, 0x00, 0x0C, 0x6E, 0x6F, 0x74, 0x65, 0x00,
      // Frame 3 at offset 85: 2024-05-14 09:30:00.123457000, 7 bytes
      0x66, 0x43, 0x2F, 0x18, 0x07, 0x5B, 0xCD, 0xE8, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07,
      //   Adapter Id: 0, Opcode: Command Packet (2)
      //   < HCI Command: Reset (0x03|0x0003) plen 0
      0x00, 0x00, 0x00, 0x02, 0x03, 0x0C, 0x00,
      // Frame 4 at offset 108: 2024-05-14 09:30:01.000000999, 10 bytes
      0x66, 0x43, 0x2F, 0x19, 0x00, 0x00, 0x03, 0xE7, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x0A,
      //   Adapter Id: 0, Opcode: Event Packet (3)
      //   > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
      0x00, 0x00, 0x00, 0x03, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
      // Frame 5 at offset 134: 2024-05-14 09:30:01.000005000, 14 bytes
      0x66, 0x43, 0x2F, 0x19, 0x00, 0x00, 0x13, 0x88, 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x0E,
      //   Adapter Id: 1, Opcode: ACL RX Packet (5)
      //   > ACL Data RX: Handle 64 flags 0x02 dlen 6, ATT: Read Response (0x0b) len 1, Value: 01
      0x00, 0x01, 0x00, 0x05, 0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01,
    ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.family == .monitor)
    #expect(capture.resolution == .nanoseconds)
    #expect(capture.damage == nil)
    #expect(capture.fileOffsets == [24, 60, 85, 108, 134])
    let t = sessionStart
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: t + 123_456, nanoseconds: 789), direction: nil,
          adapter: 0, kind: .monitor(MonitorOpcode(rawValue: 0)),
          bytes: [0x00, 0x01, 0x6D, 0x99, 0x29, 0x64, 0xC1, 0x4D, 0x68, 0x63, 0x69, 0x30, 0x00, 0x00, 0x00, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: t + 123_456, nanoseconds: 790), direction: nil,
          adapter: nil, kind: .monitor(MonitorOpcode(rawValue: 12)), bytes: [0x6E, 0x6F, 0x74, 0x65, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: t + 123_457, nanoseconds: 0), direction: .sent,
          adapter: 0, kind: .hci(0x01), bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 4, timestamp: Timestamp(unixMicroseconds: t + 1_000_000, nanoseconds: 999), direction: .received,
          adapter: 0, kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 5, timestamp: Timestamp(unixMicroseconds: t + 1_000_005, nanoseconds: 0), direction: .received,
          adapter: 1, kind: .hci(0x02), bytes: [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01]),
      ])
  }

  @Test func h4WithoutDirectionIsGuessed() throws {
    let bytes: [UInt8] = [
      // Magic 0xa1b2c3d4 (µs, little-endian), Version 2.4, Snaplen 65535, Link type 187 (BLUETOOTH_HCI_H4)
      0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0xFF, 0xFF, 0x00, 0x00, 0xBB, 0x00, 0x00, 0x00,
      // Frame 1: 2024-05-14 09:30:00.000001, 4 bytes
      0x18, 0x2F, 0x43, 0x66, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
      //   HCI Command: Reset (0x03|0x0003) plen 0
      0x01, 0x03, 0x0C, 0x00,
      // Frame 2: 2024-05-14 09:30:00.000002, 7 bytes
      0x18, 0x2F, 0x43, 0x66, 0x02, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
      //   HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
      0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00,
      // Frame 3: 2024-05-14 09:30:00.000003, 11 bytes
      0x18, 0x2F, 0x43, 0x66, 0x03, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00,
      //   ACL Data: Handle 64 flags 0x02 dlen 6, ATT: Read Response (0x0b) len 1, Value: 01
      0x02, 0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01,
    ]
    let capture = try readAll(bytes: bytes)
    #expect(capture.family == .h4)
    #expect(capture.damage == nil)
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart + 1), direction: .sent, kind: .hci(0x01),
          bytes: [0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 2, timestamp: Timestamp(unixMicroseconds: sessionStart + 2), direction: .received,
          kind: .hci(0x04), bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        RecordSnapshot(
          frame: 3, timestamp: Timestamp(unixMicroseconds: sessionStart + 3), direction: nil, kind: .hci(0x02),
          bytes: [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x01]),
      ])
  }

  @Test func linkLayerStaysRaw() throws {
    let packet: [UInt8] = [
      // nRF Sniffer for Bluetooth LE: Board 0, Length of payload 25, Protocol version 3, Packet counter 1,
      // Packet ID 2; Length of packet 10, Flags 0x01 (CRC Ok, LE 1M), Channel 37, RSSI -59 dBm,
      // Event counter 0, Timestamp 0µs
      0x00, 0x19, 0x00, 0x03, 0x01, 0x00, 0x02, 0x0A, 0x01, 0x25, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00,
      // Bluetooth Low Energy Link Layer: Access Address 0x8e89bed6, ADV_IND, Length 6,
      // Advertising Address d4:36:39:67:a2:61, CRC
      0xD6, 0xBE, 0x89, 0x8E, 0x00, 0x06, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x20, 0xBB, 0x56,
    ]
    let bytes: [UInt8] =
      [
        // Magic 0xa1b2c3d4 (µs, little-endian), Version 2.4, Snaplen 65535, Link type 272 (NORDIC_BLE)
        0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xFF, 0xFF, 0x00, 0x00, 0x10, 0x01, 0x00, 0x00,
        // Frame 1: 2024-05-14 09:30:00.000007, 32 bytes
        0x18, 0x2F, 0x43, 0x66, 0x07, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
      ] + packet
    let capture = try readAll(bytes: bytes)
    #expect(capture.family == .linkLayer(LinkType(rawValue: 272)))
    #expect(capture.damage == nil)
    expectSameRecords(
      capture.records,
      [
        RecordSnapshot(
          frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart + 7), direction: nil,
          kind: .linkLayer(LinkType(rawValue: 272)), bytes: packet)
      ])
  }

  @Test func ethernetIsUnsupported() throws {
    let bytes: [UInt8] = [
      // Magic 0xa1b2c3d4 (µs, little-endian), Version 2.4, Snaplen 65535, Link type 1 (ETHERNET)
      0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0xFF, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
      // Frame 1: 2024-05-14 09:30:00.000000, 14 bytes
      0x18, 0x2F, 0x43, 0x66, 0x00, 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00,
      //   Ethernet II, Src: 02:00:00:00:00:01, Dst: Broadcast (ff:ff:ff:ff:ff:ff), Type: ARP (0x0806)
      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06,
    ]
    let error = try openError(bytes)
    let text = error?.reason.unsupportedText
    #expect(text?.contains("link type 1 ") == true, "\(String(describing: text))")
  }

  /// A cut of `h4WithPHDR`, inside frame 2 (at offset 48).
  @Test(arguments: [("inside frame 2 header", 48 + 10), ("inside frame 2 body", 48 + 16 + 5)])
  func cutFileKeepsCompleteRecords(name: String, keep: Int) throws {
    try withTemporaryFile(Array(Self.h4WithPHDR.prefix(keep))) { path in
      let source = try CaptureFile.open(path)
      let capture = readAll(source)
      #expect(capture.records.map(\.frame) == [1])
      #expect(capture.damage?.offset == 48)
      #expect(capture.damage?.message.hasPrefix("record 2: ") == true)
      #expect(capture.damage?.message.contains("truncated") == true)
      #expect(source.next() == nil)
    }
  }

  @Test func pcapSamplesMatchTheBtsnoopSample() throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let pcap = try readAll(path: samplePath("hr-sensor.pcap"))
    #expect(pcap.resolution == .microseconds)
    #expect(pcap.damage == nil)
    expectSameRecords(pcap.records, btsnoop.records)

    // Big-endian nanoseconds: the same records, 123 ns later.
    let nanoseconds = try readAll(path: samplePath("hr-sensor-ns-be.pcap"))
    #expect(nanoseconds.resolution == .nanoseconds)
    #expect(nanoseconds.damage == nil)
    var later = btsnoop.records
    for i in later.indices { later[i].timestamp.nanoseconds = 123 }
    expectSameRecords(nanoseconds.records, later)
  }

  @Test func monitorPcapSampleMatchesTheMonitorBtsnoopSample() throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor-monitor.btsnoop"))
    let pcap = try readAll(path: samplePath("hr-sensor-monitor.pcap"))
    #expect(btsnoop.records.count == 53)
    #expect(pcap.family == .monitor)
    #expect(pcap.damage == nil)
    expectSameRecords(pcap.records, btsnoop.records)
  }

  @Test func pcapngSampleMatchesTheBtsnoopSample() throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor.btsnoop"))
    let pcapng = try readAll(path: samplePath("hr-sensor.pcapng"))
    #expect(btsnoop.records.count == 49)
    #expect(pcapng.family == .h4)
    #expect(pcapng.resolution == .microseconds)
    #expect(pcapng.damage == nil)
    #expect(pcapng.formatDescription.hasPrefix("pcapng"))
    expectSameRecords(pcapng.records, btsnoop.records)
  }

  /// The offsets of the Enhanced Packet Blocks (type 6) of a little-endian pcapng file.
  static func packetBlockOffsets(_ bytes: [UInt8]) -> [Int] {
    func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    var offsets: [Int] = []
    var block = 0
    while block + 12 <= bytes.count {
      if u32(block) == 6 { offsets.append(block) }
      block += u32(block + 4)
    }
    return offsets
  }

  @Test func pcapngRecordOffsetsAreBlockOffsets() throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samplePath("hr-sensor.pcapng"))))
    let blocks = Self.packetBlockOffsets(bytes)
    #expect(blocks.count == 49)
    #expect(try readAll(path: samplePath("hr-sensor.pcapng")).fileOffsets == blocks)
  }

  @Test func pcapngCutInsideABlockIsDamage() throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samplePath("hr-sensor.pcapng"))))
    let blocks = Self.packetBlockOffsets(bytes)
    // Keep nine packets and the first 20 bytes of the tenth block.
    let capture = try readAll(bytes: Array(bytes.prefix(blocks[9] + 20)))
    let whole = try readAll(path: samplePath("hr-sensor.pcapng"))
    expectSameRecords(capture.records, Array(whole.records.prefix(9)))
    #expect(capture.damage?.offset == blocks[9])
    #expect(capture.damage?.message.hasPrefix("record 10: ") == true)
  }

  @Test func pcapHeaderCutOffIsADamagedHeader() throws {
    // The first 10 bytes of a pcap file header: magic 0xa1b2c3d4 (µs, little-endian), version 2.4, thiszone
    let error = try openError([0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00])
    #expect(error?.reason.damagedHeaderText?.hasPrefix("cannot read as pcap: ") == true)
  }
}
