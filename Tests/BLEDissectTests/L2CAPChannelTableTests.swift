import BLECapture
import Testing

@testable import BLEDissect

extension L2CAPChannelTable {
  /// Decodes one signaling command and observes it.
  mutating func observe(_ bytes: [UInt8], adapter: UInt16? = 0, handle: UInt16 = 0x40, direction: Direction?) {
    var diagnostics: [Diagnostic] = []
    guard let pdu = try? decodeSignaling(bytes, &diagnostics) else {
      Issue.record("fixture does not decode")
      return
    }
    #expect(diagnostics.isEmpty)
    bytes.withUnsafeBytes { observe(pdu, adapter: adapter, handle: handle, direction: direction, bytes: $0) }
  }

  func channel(_ direction: Direction?, _ cid: UInt16, adapter: UInt16? = 0, handle: UInt16 = 0x40) -> L2CAPChannel? {
    channel(adapter: adapter, handle: handle, direction: direction, cid: cid)
  }
}

@Suite struct L2CAPChannelTableTests {
  // < LE Credit Based Connection Request ident 1: SPSM 0x0080, Source CID 0x0040, MTU 512, MPS 247, credits 10
  static let leRequest: [UInt8] = [0x14, 0x01, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00]
  // > LE Credit Based Connection Response ident 1: Destination CID 0x0040, MTU 256, MPS 100, credits 5, success
  static let leResponse: [UInt8] = [0x15, 0x01, 0x0A, 0x00, 0x40, 0x00, 0x00, 0x01, 0x64, 0x00, 0x05, 0x00, 0x00, 0x00]

  @Test func leCreditBasedChannelIsKeyedByDirection() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    #expect(table.count == 0)
    table.observe(Self.leResponse, direction: .received)
    // Both sides chose 0x0040: the direction tells the endpoints apart.
    let toPeer = table.channel(.sent, 0x40)
    let fromPeer = table.channel(.received, 0x40)
    #expect(toPeer == L2CAPChannel(psm: 0x80, mode: .leCreditBased, mtu: 256, mps: 100, peerCID: 0x40))
    #expect(fromPeer == L2CAPChannel(psm: 0x80, mode: .leCreditBased, mtu: 512, mps: 247, peerCID: 0x40))
    #expect(toPeer?.carriesATT == false)
    #expect(table.channel(.sent, 0x41) == nil)
    #expect(table.channel(.sent, 0x40, handle: 0x41) == nil)
    #expect(table.channel(nil, 0x40) == nil)
  }

  @Test func responseMustAnswerARequestFromTheOtherSide() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    // Same identifier, same direction: not an answer.
    table.observe(Self.leResponse, direction: .sent)
    #expect(table.count == 0)
    // Another identifier: not an answer either.
    var otherIdentifier = Self.leResponse
    otherIdentifier[1] = 9
    table.observe(otherIdentifier, direction: .received)
    #expect(table.count == 0)
    table.observe(Self.leResponse, direction: .received)
    #expect(table.count == 2)
  }

  @Test func channelLimit() {
    var table = L2CAPChannelTable(maxChannels: 2)
    table.observe(Self.leRequest, direction: .sent)
    table.observe(Self.leResponse, direction: .received)
    #expect(table.count == 2)
    #expect(table.takeRefusal() == false)
    // The same exchange on another connection: two more endpoints do not fit.
    table.observe(Self.leRequest, handle: 0x41, direction: .sent)
    table.observe(Self.leResponse, handle: 0x41, direction: .received)
    #expect(table.count == 2)
    #expect(table.takeRefusal() == true)
    #expect(table.takeRefusal() == false, "reported once")
    // A disconnect frees the first connection's endpoints.
    table.reset(adapter: 0, handle: 0x40)
    table.observe(Self.leRequest, handle: 0x41, direction: .sent)
    table.observe(Self.leResponse, handle: 0x41, direction: .received)
    #expect(table.channel(.sent, 0x40, handle: 0x41) != nil)
  }

  @Test func refusedConnectionAddsNothing() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    // Result: Connection refused - insufficient authentication (0x0005)
    var refused = Self.leResponse
    refused[12] = 0x05
    refused[4] = 0x00
    table.observe(refused, direction: .received)
    #expect(table.count == 0)
    // The request is answered: a late success does not pair any more.
    table.observe(Self.leResponse, direction: .received)
    #expect(table.count == 0)
  }

  @Test func eattChannelsFromEnhancedCreditBasedConnection() {
    var table = L2CAPChannelTable()
    // > Credit Based Connection Request ident 3: SPSM 0x0027 (EATT), MTU 64, MPS 64, credits 10, Source CIDs 0x40 0x41
    table.observe(
      [0x17, 0x03, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00],
      direction: .received)
    // < Credit Based Connection Response ident 3: MTU 517, MPS 251, credits 8,
    //   Some connections refused - insufficient resources available, Destination CIDs 0x44, 0x0000
    table.observe(
      [0x18, 0x03, 0x0C, 0x00, 0x05, 0x02, 0xFB, 0x00, 0x08, 0x00, 0x04, 0x00, 0x44, 0x00, 0x00, 0x00],
      direction: .sent)
    // The peer's packets to us carry our CID 0x44; ours to it carry its 0x40.
    let fromPeer = table.channel(.received, 0x44)
    let toPeer = table.channel(.sent, 0x40)
    #expect(fromPeer == L2CAPChannel(psm: 0x27, mode: .enhancedCreditBased, mtu: 517, mps: 251, peerCID: 0x40))
    #expect(toPeer == L2CAPChannel(psm: 0x27, mode: .enhancedCreditBased, mtu: 64, mps: 64, peerCID: 0x44))
    #expect(fromPeer?.carriesATT == true)
    #expect(table.channel(.sent, 0x41) == nil)
    #expect(table.count == 2)
  }

  @Test func pendingEnhancedResponseWaitsForTheFinalOne() {
    var table = L2CAPChannelTable()
    table.observe(
      [0x17, 0x03, 0x0A, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x40, 0x00], direction: .sent)
    // All connections pending - authentication pending
    table.observe(
      [0x18, 0x03, 0x0A, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x0E, 0x00, 0x00, 0x00], direction: .received)
    #expect(table.count == 0)
    table.observe(
      [0x18, 0x03, 0x0A, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x45, 0x00], direction: .received)
    #expect(table.channel(.sent, 0x45)?.carriesATT == true)
    #expect(table.channel(.received, 0x40)?.mode == .enhancedCreditBased)
  }

  @Test func brEdrConnectionWithPendingResponse() {
    var table = L2CAPChannelTable()
    // < Connection Request ident 2: PSM 0x001F (ATT), Source CID 0x0040
    table.observe([0x02, 0x02, 0x04, 0x00, 0x1F, 0x00, 0x40, 0x00], direction: .sent)
    // > Connection Response ident 2: Destination CID 0x0050, Source CID 0x0040, pending, authentication pending
    table.observe([0x03, 0x02, 0x08, 0x00, 0x00, 0x00, 0x40, 0x00, 0x01, 0x00, 0x01, 0x00], direction: .received)
    #expect(table.count == 0)
    // > Connection Response ident 2: Destination CID 0x0050, Source CID 0x0040, success
    table.observe([0x03, 0x02, 0x08, 0x00, 0x50, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], direction: .received)
    #expect(table.channel(.sent, 0x50) == L2CAPChannel(psm: 0x1F, mode: .basic, peerCID: 0x40))
    #expect(table.channel(.received, 0x40)?.carriesATT == true)
  }

  @Test func disconnectionResponseRemovesBothEndpoints() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    var response = Self.leResponse
    response[4] = 0x41  // the peer's endpoint is 0x0041
    table.observe(response, direction: .received)
    #expect(table.channel(.sent, 0x41) != nil)
    #expect(table.channel(.received, 0x40) != nil)
    // > Disconnection Request ident 5: Destination CID 0x0040 (ours), Source CID 0x0041 (the peer's)
    table.observe([0x06, 0x05, 0x04, 0x00, 0x40, 0x00, 0x41, 0x00], direction: .received)
    #expect(table.count == 2)
    // < Disconnection Response ident 5: Destination CID 0x0040, Source CID 0x0041
    table.observe([0x07, 0x05, 0x04, 0x00, 0x40, 0x00, 0x41, 0x00], direction: .sent)
    #expect(table.count == 0)
  }

  @Test func reconfigureUpdatesTheRequestersEndpoints() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    table.observe(Self.leResponse, direction: .received)
    // < Credit Based Reconfigure Request ident 6: MTU 1024, MPS 250, Destination CID 0x0040 (ours)
    table.observe([0x19, 0x06, 0x06, 0x00, 0x00, 0x04, 0xFA, 0x00, 0x40, 0x00], direction: .sent)
    #expect(table.channel(.received, 0x40)?.mtu == 512)
    // > Credit Based Reconfigure Response ident 6: Reconfiguration successful
    table.observe([0x1A, 0x06, 0x02, 0x00, 0x00, 0x00], direction: .received)
    #expect(table.channel(.received, 0x40)?.mtu == 1024)
    #expect(table.channel(.received, 0x40)?.mps == 250)
    #expect(table.channel(.sent, 0x40)?.mtu == 256)
  }

  @Test func commandRejectAnswersTheRequest() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: .sent)
    // > Command Reject ident 1: Command not understood
    table.observe([0x01, 0x01, 0x02, 0x00, 0x00, 0x00], direction: .received)
    table.observe(Self.leResponse, direction: .received)
    #expect(table.count == 0)
  }

  @Test func captureWithoutDirections() {
    var table = L2CAPChannelTable()
    table.observe(Self.leRequest, direction: nil)
    table.observe(Self.leResponse, direction: nil)
    #expect(table.channel(nil, 0x40)?.psm == 0x80)
  }

  @Test func resetForgetsOnlyThatConnection() {
    var table = L2CAPChannelTable()
    for handle: UInt16 in [0x40, 0x41] {
      table.observe(Self.leRequest, handle: handle, direction: .sent)
      table.observe(Self.leResponse, handle: handle, direction: .received)
    }
    // A request left unanswered on 0x40
    var request = Self.leRequest
    request[1] = 7
    table.observe(request, handle: 0x40, direction: .sent)
    #expect(table.count == 4)
    table.reset(adapter: 0, handle: 0x40)
    #expect(table.count == 2)
    #expect(table.channel(.sent, 0x40, handle: 0x40) == nil)
    #expect(table.channel(.sent, 0x40, handle: 0x41) != nil)
    var response = Self.leResponse
    response[1] = 7
    table.observe(response, handle: 0x40, direction: .received)
    #expect(table.count == 2)
  }
}
