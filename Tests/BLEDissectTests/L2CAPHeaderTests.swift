import Testing

@testable import BLEDissect

@Suite struct L2CAPHeaderTests {
  @Test func parsesLengthAndCID() throws {
    // ACL payload: L2CAP length 5, CID 0x0004 (ATT), then the ATT PDU
    let bytes: [UInt8] = [0x05, 0x00, 0x04, 0x00, 0x1B, 0x2A, 0x00, 0x01, 0x02]
    let header = try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
      var c = ByteCursor(buffer.span.bytes, base: 4, layer: .l2cap)
      let header = try L2CAPHeader(parsing: &c)
      #expect(c.offset == 8)
      return header
    }
    #expect(header == L2CAPHeader(length: 5, cid: 4))
    #expect(header.pduLength == 9)
    #expect(header.fields.lookup("Channel ID")?.value == .code(4, hexDigits: 4, name: "Attribute protocol"))
  }

  @Test func shortHeaderThrowsAtItsStart() {
    let error = #expect(throws: DecodeError.self) {
      try ([0x05, 0x00, 0x04] as [UInt8]).withUnsafeBufferPointer { buffer throws(DecodeError) in
        var c = ByteCursor(buffer.span.bytes, base: 4, layer: .l2cap)
        _ = try L2CAPHeader(parsing: &c)
      }
    }
    #expect(error?.offset == 4)
    #expect(error?.kind == .truncated(needed: 4, available: 3))
  }

  @Test(
    arguments: [
      (0x0001, "L2CAP Signaling channel"), (0x0002, "Connectionless channel"), (0x0003, "AMP Manager"),
      (0x0004, "Attribute protocol"), (0x0005, "LE L2CAP Signaling channel"), (0x0006, "Security Manager protocol"),
      (0x0007, "BR/EDR Security Manager"), (0x003F, "AMP Test Manager"), (0x0000, "Null identifier"),
      (0x0008, "Unknown (0x0008)"), (0x0040, "Dynamically allocated channel"),
      (0xFFFF, "Dynamically allocated channel"),
    ] as [(UInt16, String)])
  func channelNames(cid: UInt16, name: String) {
    #expect(L2CAPChannelID(rawValue: cid).name == name)
  }

  @Test func dynamicRanges() {
    #expect(L2CAPChannelID(rawValue: 0x007F).isLEDynamic)
    #expect(!L2CAPChannelID(rawValue: 0x0080).isLEDynamic)
    #expect(L2CAPChannelID(rawValue: 0x0080).isDynamic)
    #expect(!L2CAPChannelID.leSignaling.isDynamic)
  }

  @Test func psmNames() {
    #expect(L2CAPPSM.eatt.name == "EATT")
    #expect(L2CAPPSM.att.name == "ATT")
    #expect(L2CAPPSM(rawValue: 0x0001).name == "SDP")
    #expect(L2CAPPSM(rawValue: 0x0081).name == "Unknown (0x0081)")
  }
}
