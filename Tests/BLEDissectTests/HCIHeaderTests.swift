import BLECapture
import Testing

@testable import BLEDissect

/// One fixture per kind of HCI header, written as btmon would print it.
struct HCIHeaderFixture: CustomTestStringConvertible, Sendable {
  var name: String
  var type: UInt8
  var bytes: [UInt8]
  var expected: HCILayer
  var acl: ACLLayer? = nil
  var diagnostics: [String] = []

  var testDescription: String { name }
}

@Suite struct HCIHeaderTests {
  static let fixtures: [HCIHeaderFixture] = [
    // < HCI Command: Reset (0x03|0x0003) plen 0
    .init(
      name: "command", type: 0x01, bytes: [0x03, 0x0C, 0x00],
      expected: .init(type: .command, opcode: 0x0C03)),
    // > HCI Event: Command Complete (0x0e) plen 4: Reset (0x03|0x0003) ncmd 1, Status: Success
    .init(
      name: "command complete", type: 0x04, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],
      expected: .init(type: .event, opcode: 0x0C03, event: 0x0E, status: 0x00)),
    // > HCI Event: Command Status (0x0f) plen 4: LE Create Connection (0x08|0x000d) ncmd 1, Status: 0x0c
    .init(
      name: "command status", type: 0x04, bytes: [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20],
      expected: .init(type: .event, opcode: 0x200D, event: 0x0F, status: 0x0C)),
    // > HCI Event: LE Meta Event (0x3e) plen 19: LE Connection Complete (0x01), Status: 0x02
    .init(
      name: "LE connection complete", type: 0x04,
      bytes: [0x3E, 0x13, 0x01, 0x02, 0x40, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4]
        + [0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00],
      expected: .init(type: .event, event: 0x3E, subevent: 0x01, status: 0x02)),
    // > HCI Event: LE Meta Event (0x3e) plen 2: LE Advertising Report (0x02), no status
    .init(
      name: "LE advertising report", type: 0x04, bytes: [0x3E, 0x02, 0x02, 0x00],
      expected: .init(type: .event, event: 0x3E, subevent: 0x02)),
    // > HCI Event: Disconnect Complete (0x05) plen 4: Status 0x00, Handle 64, Reason 0x13
    .init(
      name: "disconnection complete", type: 0x04, bytes: [0x05, 0x04, 0x00, 0x40, 0x00, 0x13],
      expected: .init(type: .event, event: 0x05, status: 0x00)),
    // > ACL Data RX: Handle 64 flags 0x02 dlen 7
    .init(
      name: "ACL", type: 0x02, bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x05, 0x02],
      expected: .init(type: .acl, handle: 0x40),
      acl: ACLLayer(handle: 0x40, pb: 2, bc: 0, length: 7)),
    // > ACL Data RX: Handle 64 flags 0x01 dlen 2 (continuation)
    .init(
      name: "ACL continuation", type: 0x02, bytes: [0x40, 0x10, 0x02, 0x00, 0xAA, 0xBB],
      expected: .init(type: .acl, handle: 0x40),
      acl: ACLLayer(handle: 0x40, pb: 1, bc: 0, length: 2), diagnostics: ["acl.continuation.unexpected"]),
    // > SCO Data RX: Handle 3 dlen 2
    .init(
      name: "SCO", type: 0x03, bytes: [0x03, 0x00, 0x02, 0xAA, 0xBB],
      expected: .init(type: .sco, handle: 3)),
    // > ISO Data RX: Handle 96 flags 0x02 dlen 0
    .init(
      name: "ISO", type: 0x05, bytes: [0x60, 0x20, 0x00, 0x00],
      expected: .init(type: .iso, handle: 0x60)),
    // < HCI Command: Reset plen 1, but no parameter byte present
    .init(
      name: "length mismatch", type: 0x01, bytes: [0x03, 0x0C, 0x01],
      expected: .init(type: .command, opcode: 0x0C03), diagnostics: ["hci.length.mismatch"]),
    // > HCI Event: Command Complete (0x0e) plen 4, cut after ncmd
    .init(
      name: "truncated command complete", type: 0x04, bytes: [0x0E, 0x04, 0x01],
      expected: .init(type: .event), diagnostics: ["hci.length.mismatch", "hci.truncated"]),
    // > ACL Data RX: header cut after the handle
    .init(
      name: "truncated ACL header", type: 0x02, bytes: [0x40, 0x20],
      expected: .init(type: .acl), diagnostics: ["acl.truncated"]),
  ]

  @Test(arguments: fixtures)
  func decodesHeader(_ fixture: HCIHeaderFixture) {
    let decoded = decode(fixture.bytes, kind: .hci(fixture.type))
    #expect(decoded.hci == fixture.expected)
    #expect(decoded.acl == fixture.acl)
    #expect(decoded.diagnostics.map(\.id) == fixture.diagnostics)
  }

  @Test func packetTypeNamesAreUniqueAndUnknownSurvives() {
    let names = HCIPacketType.table.compactMap { $0 }
    #expect(Set(names).count == names.count)
    #expect(HCIPacketType(rawValue: 0x06).name == "unknown_0x06")
  }

  @Test func recordCutBySourceIsNotMalformed() {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 9, only 6 bytes kept by an Android filtered log
    let decoded = decode([0x40, 0x20, 0x09, 0x00, 0x05, 0x00], kind: .hci(0x02), originalLength: 13)
    #expect(decoded.diagnostics.map(\.id) == ["capture.cut"])
    #expect(decoded.acl?.length == 9)
  }

  @Test func cutRecordStillChecksLengthAgainstOriginalSize() {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 12, 6 of 13 bytes kept: the packet had 9 data bytes, not 12
    let decoded = decode([0x40, 0x20, 0x0C, 0x00, 0x05, 0x00], kind: .hci(0x02), originalLength: 13)
    #expect(decoded.diagnostics.map(\.id) == ["capture.cut", "hci.length.mismatch"])
    #expect(decoded.diagnostics.last?.message == "header says 12 bytes follow, the packet has 9")
  }

  @Test func unframedRecordGetsDiagnostic() {
    let decoded = decode([], kind: .unframed)
    #expect(decoded.hci == nil)
    #expect(decoded.typeName == "unframed")
    #expect(decoded.diagnostics.map(\.id) == ["hci.truncated"])
  }

  private func decode(_ bytes: [UInt8], kind: RecordKind, originalLength: Int? = nil) -> DecodedRecord {
    bytes.withUnsafeBufferPointer { buffer in
      let record = Record(
        frame: 1, timestamp: Timestamp(unixMicroseconds: 0), direction: .received, adapter: nil, kind: kind,
        bytes: buffer, originalLength: originalLength ?? bytes.count, fileOffset: 0)
      var decoder = RecordDecoder()
      return decoder.decode(record)
    }
  }
}

extension HCILayer {
  init(
    type: HCIPacketType, opcode: UInt16? = nil, event: UInt8? = nil, subevent: UInt8? = nil, status: UInt8? = nil,
    handle: UInt16? = nil
  ) {
    self.init(type: type)
    self.opcode = opcode
    self.event = event
    self.subevent = subevent
    self.status = status
    self.handle = handle
  }
}
