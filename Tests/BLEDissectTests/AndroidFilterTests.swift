import BLECapture
import Testing

@testable import BLEDissect

/// Records shaped like those of Android's filtered snoop log (AOSP snoop_logger.cc, see
/// FORMATS.md section 4): cut by the capture source, they decode as far as their bytes go
/// with `capture.cut` and never a "malformed" diagnostic; a payload replaced with
/// "PROHIBITED" is recognised and not decoded.
@Suite struct AndroidFilterTests {
  /// One ACL record: bytes after the H4 type, and the length the packet had.
  struct Fragment {
    var bytes: [UInt8]
    var originalLength: Int
    var direction: Direction = .received
  }

  func decode(_ fragments: [Fragment]) -> [DecodedRecord] {
    var decoder = RecordDecoder()
    return fragments.enumerated().map { index, fragment in
      fragment.bytes.withUnsafeBufferPointer { buffer in
        decoder.decode(
          Record(
            frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index)), direction: fragment.direction,
            adapter: nil, kind: .hci(0x02), bytes: buffer, originalLength: fragment.originalLength, fileOffset: 0))
      }
    }
  }

  @Test func headersFilterCutsANotification() {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 27, 13 of 31 bytes kept (14 with the H4 type)
    //     ATT: Handle Value Notification (0x1b) len 23
    //       Handle: 0x0010, Data: aabb… (18 of 22 value bytes left out)
    let records = decode([Fragment(bytes: hex("40201b00 17000400 1b1000aabb"), originalLength: 31)])
    #expect(records[0].diagnostics.map(\.id) == ["capture.cut"])
    #expect(
      records[0].diagnostics.first?.message == "record filtered or truncated by the capture source: 13 of 31 bytes kept"
    )
    #expect(records[0].diagnostics.first?.severity == .info)
    #expect(records[0].att?.opcode == .handleValueNotification)
    #expect(records[0].att?.handle == 0x0010)
  }

  /// A PDU in two fragments, the first cut, the continuation whole or cut too.
  @Test(arguments: [37, 13])
  func headersFilterCutsAFragmentedPDU(keptOfContinuation: Int) {
    // < ACL Data TX: Handle 64 flags 0x00 dlen 27, 13 of 31 bytes kept
    //     ATT: Write Request (0x12) len 60: Handle 0x002a, 57 value bytes
    // < ACL Data TX: Handle 64 flags 0x01 dlen 37, the rest of the PDU
    let start = hex("40001b00 3c000400 122a000102")
    let continuation = hex("40102500") + [UInt8](repeating: 0x55, count: 37)
    let records = decode([
      Fragment(bytes: start, originalLength: 31, direction: .sent),
      Fragment(bytes: Array(continuation.prefix(4 + keptOfContinuation)), originalLength: 41, direction: .sent),
    ])
    #expect(records[0].diagnostics.map(\.id) == ["capture.cut"])
    #expect(records[1].diagnostics.map(\.id) == (keptOfContinuation < 37 ? ["capture.cut"] : []))
    #expect(records[1].att?.opcode == .writeRequest)
    #expect(records[1].att?.handle == 0x002A)
    #expect(records[1].l2cap?.isCut == true)
  }

  /// Cut inside the L2CAP header, or inside the ACL header's length: not malformed.
  @Test(arguments: [5, 6, 7])
  func cutInsideHeaders(kept: Int) {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 27, only `kept` bytes
    let bytes = hex("40201b00 17000400 1b1000aabb")
    let records = decode([Fragment(bytes: Array(bytes.prefix(kept)), originalLength: 31)])
    #expect(records[0].diagnostics.map(\.id) == ["capture.cut"])
  }

  @Test func magicFilterReplacesThePayload() {
    // < ACL Data TX: Handle 3 flags 0x02 dlen 14
    //     L2CAP: cid 0x0041 len 10: "PROHIBITED" (a PBAP PDU, payload replaced, lengths rewritten)
    // < ACL Data TX: Handle 3 flags 0x01 dlen 240, cut to its ACL header
    let records = decode([
      Fragment(bytes: hex("03200e00 0a004100 50524f48494249544544"), originalLength: 18, direction: .sent),
      Fragment(bytes: hex("0310f000"), originalLength: 244, direction: .sent),
    ])
    #expect(records[0].diagnostics.map(\.id) == ["capture.prohibited"])
    #expect(records[0].l2cap?.cid == 0x0041)
    #expect(records[1].diagnostics.map(\.id) == ["capture.cut"])
  }

  /// On the ATT channel the magic would read as opcode 0x50: it is not decoded.
  @Test func magicOnTheATTChannelIsNotATT() {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 14
    //     L2CAP: cid 0x0004 len 10: "PROHIBITED"
    let records = decode([Fragment(bytes: hex("40200e00 0a000400 50524f48494249544544"), originalLength: 18)])
    #expect(records[0].diagnostics.map(\.id) == ["capture.prohibited"])
    #expect(records[0].att == nil)
  }

  /// The RFCOMM header may stay before the magic.
  @Test func magicAfterAnRFCOMMHeader() {
    // > ACL Data RX: Handle 64 flags 0x02 dlen 17
    //     L2CAP: cid 0x0042 len 13: RFCOMM address 0x0b, control 0xef, length 0x15, then "PROHIBITED"
    let records = decode([Fragment(bytes: hex("40201100 0d004200 0bef15 50524f48494249544544"), originalLength: 21)])
    #expect(records[0].diagnostics.map(\.id) == ["capture.prohibited"])
  }

  /// A whole continuation with nothing started is still worth a warning.
  @Test func uncutOrphanContinuationIsStillReported() {
    // > ACL Data RX: Handle 64 flags 0x01 dlen 2
    let records = decode([Fragment(bytes: hex("40100200 aabb"), originalLength: 6)])
    #expect(records[0].diagnostics.map(\.id) == ["acl.continuation.unexpected"])
  }
}

/// Bytes from hex digits; spaces are ignored.
private func hex(_ text: String) -> [UInt8] {
  let digits = text.compactMap(\.hexDigitValue)
  return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
}
