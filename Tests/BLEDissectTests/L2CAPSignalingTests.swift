import Testing

@testable import BLEDissect

/// One signaling command, written above as btmon would print it.
struct SignalingFixture: CustomTestStringConvertible, Sendable {
  var bytes: [UInt8]
  var parameters: L2CAPSignalingParameters
  /// Fields to find in the tree, with their values.
  var fields: [String: FieldValue] = [:]

  var code: UInt8 { bytes[0] }
  var testDescription: String { L2CAPSignalingCode(rawValue: code).name }
}

/// Decodes one command from `bytes` (offsets start at 0).
func decodeSignaling(
  _ bytes: [UInt8], isCut: Bool = false, _ diagnostics: inout [Diagnostic]
) throws(DecodeError) -> L2CAPSignalingPDU {
  try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
    var c = ByteCursor(buffer.span.bytes, base: 0, layer: .l2cap)
    return try L2CAPSignalingPDU.decode(&c, isCut: isCut, diagnostics: &diagnostics)
  }
}

func signalingFields(_ pdu: L2CAPSignalingPDU, _ bytes: [UInt8]) -> [Field] {
  bytes.withUnsafeBytes { pdu.fields($0) }
}

@Suite struct L2CAPSignalingTests {
  static let fixtures: [SignalingFixture] = [
    // L2CAP: Command Reject (0x01) ident 1 len 6
    //   Reason: Invalid CID in request (0x0002), Destination CID: 0x0040, Source CID: 0x0041
    .init(
      bytes: [0x01, 0x01, 0x06, 0x00, 0x02, 0x00, 0x40, 0x00, 0x41, 0x00],
      parameters: .commandReject(reason: 2, data: ByteRange(start: 6, count: 4)),
      fields: [
        "Reason": .code(2, hexDigits: 4, name: "Invalid CID in request"), "Local CID": .unsigned(0x40, hexDigits: 4),
        "Remote CID": .unsigned(0x41, hexDigits: 4),
      ]),
    // L2CAP: Connection Request (0x02) ident 2 len 4
    //   PSM: 31 (0x001f), Source CID: 64
    .init(
      bytes: [0x02, 0x02, 0x04, 0x00, 0x1F, 0x00, 0x40, 0x00],
      parameters: .connectionRequest(psm: 0x1F, sourceCID: 0x40),
      fields: ["PSM": .code(0x1F, hexDigits: 4, name: "ATT"), "Source CID": .unsigned(0x40, hexDigits: 4)]),
    // L2CAP: Connection Response (0x03) ident 2 len 8
    //   Destination CID: 65, Source CID: 64, Result: Connection successful (0x0000), Status: No further information
    .init(
      bytes: [0x03, 0x02, 0x08, 0x00, 0x41, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00],
      parameters: .connectionResponse(destinationCID: 0x41, sourceCID: 0x40, result: 0, status: 0),
      fields: [
        "Destination CID": .unsigned(0x41, hexDigits: 4),
        "Result": .code(0, hexDigits: 4, name: "Connection successful"),
        "Status": .code(0, hexDigits: 4, name: "No further information available"),
      ]),
    // L2CAP: Configuration Request (0x04) ident 3 len 8
    //   Destination CID: 65, Flags: 0x0000, Option: Maximum Transmission Unit (0x01) [mandatory] MTU: 672
    .init(
      bytes: [0x04, 0x03, 0x08, 0x00, 0x41, 0x00, 0x00, 0x00, 0x01, 0x02, 0xA0, 0x02],
      parameters: .configurationRequest(destinationCID: 0x41, flags: 0, options: ByteRange(start: 8, count: 4)),
      fields: [
        "Flags": .flags(0, hexDigits: 4, names: []), "Configuration Options": .bytes([0x01, 0x02, 0xA0, 0x02]),
      ]),
    // L2CAP: Configuration Response (0x05) ident 3 len 10
    //   Source CID: 64, Flags: 0x0001 (continuation), Result: Success (0x0000), Option: MTU 672
    .init(
      bytes: [0x05, 0x03, 0x0A, 0x00, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x02, 0xA0, 0x02],
      parameters: .configurationResponse(sourceCID: 0x40, flags: 1, result: 0, options: ByteRange(start: 10, count: 4)),
      fields: [
        "Flags": .flags(1, hexDigits: 4, names: ["Continuation"]), "Result": .code(0, hexDigits: 4, name: "Success"),
        "Config": .bytes([0x01, 0x02, 0xA0, 0x02]),
      ]),
    // L2CAP: Disconnection Request (0x06) ident 4 len 4
    //   Destination CID: 65, Source CID: 64
    .init(
      bytes: [0x06, 0x04, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00],
      parameters: .disconnection(destinationCID: 0x41, sourceCID: 0x40),
      fields: ["Destination CID": .unsigned(0x41, hexDigits: 4), "Source CID": .unsigned(0x40, hexDigits: 4)]),
    // L2CAP: Disconnection Response (0x07) ident 4 len 4
    //   Destination CID: 65, Source CID: 64
    .init(
      bytes: [0x07, 0x04, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00],
      parameters: .disconnection(destinationCID: 0x41, sourceCID: 0x40),
      fields: ["Destination CID": .unsigned(0x41, hexDigits: 4)]),
    // L2CAP: Echo Request (0x08) ident 5 len 2
    //   aa bb
    .init(
      bytes: [0x08, 0x05, 0x02, 0x00, 0xAA, 0xBB], parameters: .echo(data: ByteRange(start: 4, count: 2)),
      fields: ["Data": .bytes([0xAA, 0xBB])]),
    // L2CAP: Echo Response (0x09) ident 5 len 0
    .init(bytes: [0x09, 0x05, 0x00, 0x00], parameters: .echo(data: ByteRange(start: 4, count: 0))),
    // L2CAP: Information Request (0x0a) ident 6 len 2
    //   Type: Extended features supported (0x0002)
    .init(
      bytes: [0x0A, 0x06, 0x02, 0x00, 0x02, 0x00], parameters: .informationRequest(infoType: 2),
      fields: ["InfoType": .code(2, hexDigits: 4, name: "Extended features supported")]),
    // L2CAP: Information Response (0x0b) ident 6 len 8
    //   Type: Extended features supported (0x0002), Result: Success (0x0000), Features: 0x000002b8
    .init(
      bytes: [0x0B, 0x06, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0xB8, 0x02, 0x00, 0x00],
      parameters: .informationResponse(infoType: 2, result: 0, data: ByteRange(start: 8, count: 4)),
      fields: [
        "Result": .code(0, hexDigits: 4, name: "Success"), "Extended Features Mask": .unsigned(0x2B8, hexDigits: 8),
      ]),
    // L2CAP: Create Channel Request (0x0c) ident 7 len 5
    //   PSM: 4097 (0x1001), Source CID: 64, Controller ID: 1
    .init(
      bytes: [0x0C, 0x07, 0x05, 0x00, 0x01, 0x10, 0x40, 0x00, 0x01],
      parameters: .createChannelRequest(psm: 0x1001, sourceCID: 0x40, controllerID: 1),
      fields: [
        "PSM": .code(0x1001, hexDigits: 4, name: "Unknown (0x1001)"), "Controller ID": .unsigned(1, hexDigits: 2),
      ]),
    // L2CAP: Create Channel Response (0x0d) ident 7 len 8
    //   Destination CID: 0, Source CID: 64, Result: Connection refused - Controller ID not supported (0x0005)
    .init(
      bytes: [0x0D, 0x07, 0x08, 0x00, 0x00, 0x00, 0x40, 0x00, 0x05, 0x00, 0x00, 0x00],
      parameters: .connectionResponse(destinationCID: 0, sourceCID: 0x40, result: 5, status: 0),
      fields: ["Result": .code(5, hexDigits: 4, name: "Connection refused - Controller ID not supported")]),
    // L2CAP: Move Channel Request (0x0e) ident 8 len 3
    //   Initiator CID: 64, Dest Controller ID: 1
    .init(
      bytes: [0x0E, 0x08, 0x03, 0x00, 0x40, 0x00, 0x01],
      parameters: .moveChannelRequest(initiatorCID: 0x40, controllerID: 1),
      fields: ["Initiator CID": .unsigned(0x40, hexDigits: 4), "Dest Controller ID": .unsigned(1, hexDigits: 2)]),
    // L2CAP: Move Channel Response (0x0f) ident 8 len 4
    //   Initiator CID: 64, Result: Move pending (0x0001)
    .init(
      bytes: [0x0F, 0x08, 0x04, 0x00, 0x40, 0x00, 0x01, 0x00],
      parameters: .moveChannelResult(initiatorCID: 0x40, result: 1),
      fields: ["Result": .code(1, hexDigits: 4, name: "Move pending")]),
    // L2CAP: Move Channel Confirmation Request (0x10) ident 9 len 4
    //   Initiator CID: 64, Result: Move success (0x0000)
    .init(
      bytes: [0x10, 0x09, 0x04, 0x00, 0x40, 0x00, 0x00, 0x00],
      parameters: .moveChannelResult(initiatorCID: 0x40, result: 0),
      fields: ["Result": .code(0, hexDigits: 4, name: "Move success")]),
    // L2CAP: Move Channel Confirmation Response (0x11) ident 9 len 2
    //   Initiator CID: 64
    .init(
      bytes: [0x11, 0x09, 0x02, 0x00, 0x40, 0x00], parameters: .moveChannelConfirmationResponse(initiatorCID: 0x40),
      fields: ["Initiator CID": .unsigned(0x40, hexDigits: 4)]),
    // LE L2CAP: Connection Parameter Update Request (0x12) ident 10 len 8
    //   Min interval: 6, Max interval: 12, Peripheral latency: 0, Timeout multiplier: 200
    .init(
      bytes: [0x12, 0x0A, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00],
      parameters: .connectionParameterUpdateRequest(intervalMin: 6, intervalMax: 12, latency: 0, timeout: 200),
      fields: [
        "Interval Min": .measure(6, hexDigits: 4, value: 7.5, unit: "ms"),
        "Interval Max": .measure(12, hexDigits: 4, value: 15, unit: "ms"), "Latency": .unsigned(0, hexDigits: 0),
        "Timeout": .measure(200, hexDigits: 4, value: 2000, unit: "ms"),
      ]),
    // LE L2CAP: Connection Parameter Update Response (0x13) ident 10 len 2
    //   Result: Connection Parameters accepted (0x0000)
    .init(
      bytes: [0x13, 0x0A, 0x02, 0x00, 0x00, 0x00], parameters: .result(0),
      fields: ["Result": .code(0, hexDigits: 4, name: "Connection Parameters accepted")]),
    // LE L2CAP: LE Connection Request (0x14) ident 11 len 10
    //   PSM: 128 (0x0080), Source CID: 64, MTU: 512, MPS: 247, Credits: 10
    .init(
      bytes: [0x14, 0x0B, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00],
      parameters: .leCreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x40, mtu: 512, mps: 247, initialCredits: 10),
      fields: [
        "SPSM": .code(0x80, hexDigits: 4, name: "Unknown (0x0080)"), "MTU": .unsigned(512, hexDigits: 0),
        "MPS": .unsigned(247, hexDigits: 0), "Initial Credits": .unsigned(10, hexDigits: 0),
      ]),
    // LE L2CAP: LE Connection Response (0x15) ident 11 len 10
    //   Destination CID: 65, MTU: 256, MPS: 247, Credits: 5, Result: Connection successful (0x0000)
    .init(
      bytes: [0x15, 0x0B, 0x0A, 0x00, 0x41, 0x00, 0x00, 0x01, 0xF7, 0x00, 0x05, 0x00, 0x00, 0x00],
      parameters: .leCreditBasedConnectionResponse(
        destinationCID: 0x41, mtu: 256, mps: 247, initialCredits: 5, result: 0),
      fields: ["MTU": .unsigned(256, hexDigits: 0), "Result": .code(0, hexDigits: 4, name: "Connection successful")]),
    // LE L2CAP: LE Flow Control Credit (0x16) ident 12 len 4
    //   Source CID: 64, Credits: 3
    .init(
      bytes: [0x16, 0x0C, 0x04, 0x00, 0x40, 0x00, 0x03, 0x00],
      parameters: .flowControlCreditIndication(cid: 0x40, credits: 3),
      fields: ["CID": .unsigned(0x40, hexDigits: 4), "Credits": .unsigned(3, hexDigits: 0)]),
    // LE L2CAP: Enhanced Credit Connection Request (0x17) ident 13 len 12
    //   PSM: 39 (0x0027), MTU: 64, MPS: 64, Credits: 10, Source CID: 64, Source CID: 65
    .init(
      bytes: [0x17, 0x0D, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00],
      parameters: .creditBasedConnectionRequest(
        spsm: 0x27, mtu: 64, mps: 64, initialCredits: 10, sourceCIDs: ByteRange(start: 12, count: 4)),
      fields: [
        "SPSM": .code(0x27, hexDigits: 4, name: "EATT"), "Source CID[0]": .unsigned(0x40, hexDigits: 4),
        "Source CID[1]": .unsigned(0x41, hexDigits: 4),
      ]),
    // LE L2CAP: Enhanced Credit Connection Response (0x18) ident 13 len 12
    //   MTU: 64, MPS: 64, Credits: 10, Result: Connection successful (0x0000), Destination CID: 66, 67
    .init(
      bytes: [0x18, 0x0D, 0x0C, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x42, 0x00, 0x43, 0x00],
      parameters: .creditBasedConnectionResponse(
        mtu: 64, mps: 64, initialCredits: 10, result: 0, destinationCIDs: ByteRange(start: 12, count: 4)),
      fields: [
        "Result": .code(0, hexDigits: 4, name: "All connections successful"),
        "Destination CID[0]": .unsigned(0x42, hexDigits: 4), "Destination CID[1]": .unsigned(0x43, hexDigits: 4),
      ]),
    // LE L2CAP: Enhanced Credit Reconfigure Request (0x19) ident 14 len 6
    //   MTU: 512, MPS: 64, Destination CID: 64
    .init(
      bytes: [0x19, 0x0E, 0x06, 0x00, 0x00, 0x02, 0x40, 0x00, 0x40, 0x00],
      parameters: .creditBasedReconfigureRequest(mtu: 512, mps: 64, destinationCIDs: ByteRange(start: 8, count: 2)),
      fields: ["MTU": .unsigned(512, hexDigits: 0), "Destination CID[0]": .unsigned(0x40, hexDigits: 4)]),
    // LE L2CAP: Enhanced Credit Reconfigure Response (0x1a) ident 14 len 2
    //   Result: Reconfiguration successful (0x0000)
    .init(
      bytes: [0x1A, 0x0E, 0x02, 0x00, 0x00, 0x00], parameters: .result(0),
      fields: ["Result": .code(0, hexDigits: 4, name: "Reconfiguration successful")]),
  ]

  @Test(arguments: fixtures)
  func decodesEveryCommand(_ fixture: SignalingFixture) throws {
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(fixture.bytes, &diagnostics)
    #expect(diagnostics.isEmpty)
    #expect(pdu.code.rawValue == fixture.code)
    #expect(pdu.identifier == fixture.bytes[1])
    #expect(Int(pdu.length) == fixture.bytes.count - 4)
    #expect(pdu.parameters == fixture.parameters)
    #expect(pdu.dataRange == ByteRange(start: 4, count: fixture.bytes.count - 4))
    let fields = signalingFields(pdu, fixture.bytes)
    #expect(fields.lookup("Code")?.value == .code(UInt64(fixture.code), hexDigits: 2, name: pdu.code.name))
    for (name, value) in fixture.fields {
      #expect(fields.lookup(name)?.value == value, "\(name)")
    }
  }

  @Test func everyCodeHasOneRowAndOneFixture() {
    let table = L2CAPSignalingCode.table
    #expect(table.map(\.code) == Array(0x01...0x1A))
    #expect(Set(table.map(\.name)).count == table.count)
    #expect(Self.fixtures.map(\.code) == Array(0x01...0x1A))
    #expect(L2CAPSignalingCode(rawValue: 0x1B).name == "Unknown (0x1b)")
    #expect(L2CAPSignalingCode(rawValue: 0x00).name == "Unknown (0x00)")
    #expect(L2CAPSignalingCode.creditBasedReconfigureResponse.name == "Credit Based Reconfigure Response")
  }

  @Test func requestsAndResponsesPairBothWays() {
    for row in L2CAPSignalingCode.table {
      let code = L2CAPSignalingCode(rawValue: row.code)
      if let response = code.response {
        #expect(response.request == code, "\(code.name)")
        #expect(response.response == nil)
        #expect(response.name.hasSuffix("Response"))
        #expect(code.name.hasSuffix("Request"))
      }
    }
    #expect(L2CAPSignalingCode.leCreditBasedConnectionRequest.response == .leCreditBasedConnectionResponse)
    #expect(L2CAPSignalingCode.commandReject.request == nil)
  }

  @Test func layoutsFitLengthRules() {
    // Each row's fixed fields add up to its length rule's minimum.
    for row in L2CAPSignalingCode.table {
      let fixed = row.layout.reduce(0) { sum, item in
        switch item.kind {
        case .cid, .psm, .count, .named, .flags, .milliseconds: sum + 2
        case .uint8: sum + 1
        case .rejectData, .informationData, .cidList, .rest: sum
        }
      }
      switch row.length {
      case .exactly(let n), .atLeast(let n): #expect(fixed == n, "\(row.name)")
      case .cidList(let n, _): #expect(fixed == n, "\(row.name)")
      }
    }
  }

  @Test func resultNames() {
    #expect(L2CAPSignalingCode.connectionResponse.resultName(2) == "Connection refused - PSM not supported")
    #expect(
      L2CAPSignalingCode.creditBasedConnectionResponse.resultName(0x0D)?.hasPrefix("All connections pending") == true)
    #expect(L2CAPSignalingCode.informationResponse.resultName(1) == "Not supported")
    #expect(L2CAPSignalingCode.informationRequest.resultName(1) == nil)
    #expect(L2CAPSignalingCode.connectionRequest.resultName(0) == nil)
  }

  @Test func truncatedCommandDecodesAsFarAsTheBytesGo() throws {
    // L2CAP: Connection Request (0x02) ident 2 len 4, frame ends after the PSM
    let bytes: [UInt8] = [0x02, 0x02, 0x04, 0x00, 0x1F, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.truncated"])
    #expect(diagnostics.first?.message == "connection request says 4 data bytes, 2 present")
    #expect(pdu.parameters == .undecoded(ByteRange(start: 4, count: 2)))
    let fields = signalingFields(pdu, bytes)
    #expect(fields.lookup("PSM")?.value.integer == 0x1F)
    #expect(fields.lookup("Source CID") == nil)

    // The same, cut by the capture source: no diagnostic
    var quiet: [Diagnostic] = []
    _ = try decodeSignaling(bytes, isCut: true, &quiet)
    #expect(quiet.isEmpty)
  }

  @Test func wrongLengthStillDecodesTheKnownFields() throws {
    // Disconnection Request with 2 extra bytes
    let bytes: [UInt8] = [0x06, 0x04, 0x06, 0x00, 0x41, 0x00, 0x40, 0x00, 0xEE, 0xEE]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.length.invalid"])
    #expect(diagnostics.first?.message == "disconnection request has 6 data bytes, needs 4")
    #expect(pdu.parameters == .disconnection(destinationCID: 0x41, sourceCID: 0x40))
  }

  @Test func tooShortForItsCode() throws {
    // Connection Response with 4 data bytes instead of 8
    let bytes: [UInt8] = [0x03, 0x02, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.length.invalid"])
    #expect(pdu.parameters == .undecoded(ByteRange(start: 4, count: 4)))
    #expect(signalingFields(pdu, bytes).lookup("Source CID")?.value.integer == 0x40)
  }

  @Test(arguments: [
    // Credit Based Connection Request with no CID, 6 CIDs, an odd byte
    [0x17, 0x01, 0x08, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00] as [UInt8],
    [0x17, 0x01, 0x14, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00] + [UInt8](repeating: 0x40, count: 12),
    [0x19, 0x01, 0x05, 0x00, 0x40, 0x00, 0x40, 0x00, 0x40],
  ])
  func badCIDLists(_ bytes: [UInt8]) throws {
    var diagnostics: [Diagnostic] = []
    _ = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.length.invalid"])
  }

  @Test func refusalWithoutCIDsIsValid() throws {
    // Credit Based Connection Response, All connections refused - invalid parameters, no CIDs
    let bytes: [UInt8] = [0x18, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.isEmpty)
    #expect(
      pdu.parameters
        == .creditBasedConnectionResponse(
          mtu: 0, mps: 0, initialCredits: 0, result: 0x0C, destinationCIDs: ByteRange(start: 12, count: 0)))
  }

  @Test func unknownCode() throws {
    let bytes: [UInt8] = [0x1B, 0x01, 0x02, 0x00, 0xAA, 0xBB]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.code.unknown"])
    #expect(pdu.parameters == .undecoded(ByteRange(start: 4, count: 2)))
    let fields = signalingFields(pdu, bytes)
    #expect(fields.lookup("Code")?.value == .code(0x1B, hexDigits: 2, name: "Unknown (0x1b)"))
    #expect(fields.lookup("Data")?.value == .bytes([0xAA, 0xBB]))
  }

  @Test func identifierZero() throws {
    var diagnostics: [Diagnostic] = []
    _ = try decodeSignaling([0x13, 0x00, 0x02, 0x00, 0x00, 0x00], &diagnostics)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.identifier.invalid"])
  }

  @Test func commandRejectData() throws {
    // Command Reject: Signaling MTU exceeded, Actual sigMTU 48
    let bytes: [UInt8] = [0x01, 0x07, 0x04, 0x00, 0x01, 0x00, 0x30, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdu = try decodeSignaling(bytes, &diagnostics)
    #expect(signalingFields(pdu, bytes).lookup("Actual sigMTU")?.value == .unsigned(48, hexDigits: 0))
  }

  @Test func headerCutShortThrows() {
    var diagnostics: [Diagnostic] = []
    let error = #expect(throws: DecodeError.self) {
      try decodeSignaling([0x12, 0x01, 0x08], &diagnostics)
    }
    #expect(error?.offset == 0)
    #expect(error?.diagnosticID == "l2cap.truncated")
  }

  /// Decodes all commands of a C-frame payload on `cid`.
  func decodeAll(_ bytes: [UInt8], cid: UInt16, _ diagnostics: inout [Diagnostic]) throws -> [L2CAPSignalingPDU] {
    var pdus: [L2CAPSignalingPDU] = []
    try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
      var c = ByteCursor(buffer.span.bytes, base: 0, layer: .l2cap)
      try L2CAPSignalingPDU.decodeAll(&c, cid: cid, diagnostics: &diagnostics) { pdus.append($0) }
    }
    return pdus
  }

  @Test func brEdrFrameHoldsSeveralCommands() throws {
    // Configuration Request + Information Request in one C-frame on CID 0x0001
    let bytes: [UInt8] = [0x04, 0x03, 0x04, 0x00, 0x41, 0x00, 0x00, 0x00, 0x0A, 0x06, 0x02, 0x00, 0x03, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdus = try decodeAll(bytes, cid: 0x0001, &diagnostics)
    #expect(pdus.map(\.code) == [.configurationRequest, .informationRequest])
    #expect(pdus.last?.parameters == .informationRequest(infoType: 3))
    #expect(pdus.last?.dataRange == ByteRange(start: 12, count: 2))
    #expect(diagnostics.isEmpty)
  }

  @Test func leFrameHoldsOneCommand() throws {
    let bytes: [UInt8] = [0x13, 0x01, 0x02, 0x00, 0x00, 0x00, 0x13, 0x02, 0x02, 0x00, 0x00, 0x00]
    var diagnostics: [Diagnostic] = []
    let pdus = try decodeAll(bytes, cid: 0x0005, &diagnostics)
    #expect(pdus.count == 1)
    #expect(diagnostics.map(\.id) == ["l2cap.signaling.extra"])
  }

  @Test func cidListsAreRead() {
    let bytes: [UInt8] = [0x00, 0x40, 0x00, 0x41, 0x00, 0x99]
    bytes.withUnsafeBytes { raw in
      #expect(L2CAPSignalingPDU.cids(ByteRange(start: 1, count: 5), in: raw) == [0x40, 0x41])
      #expect(L2CAPSignalingPDU.cids(ByteRange(start: 4, count: 9), in: raw) == [])
    }
  }

  @Test func everyDiagnosticIsListed() {
    let ids = L2CAPSignalingPDU.diagnosticIDs.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.hasPrefix("l2cap.signaling.") })
  }

  /// No input makes the decoder crash: every prefix of every fixture, and noise.
  @Test func neverCrashes() {
    var rng = SplitMix(state: 7)
    var inputs = Self.fixtures.flatMap { f in (0...f.bytes.count).map { Array(f.bytes[..<$0]) } }
    for _ in 0..<2000 {
      let count = Int.random(in: 0..<24, using: &rng)
      var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      if count > 0 { bytes[0] = UInt8.random(in: 0...0x1C, using: &rng) }
      inputs.append(bytes)
    }
    for bytes in inputs {
      for cid: UInt16 in [0x0001, 0x0005] {
        var diagnostics: [Diagnostic] = []
        var pdus: [L2CAPSignalingPDU] = []
        try? bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
          var c = ByteCursor(buffer.span.bytes, base: 0, layer: .l2cap)
          try L2CAPSignalingPDU.decodeAll(&c, cid: cid, diagnostics: &diagnostics) { pdus.append($0) }
        }
        for pdu in pdus { _ = signalingFields(pdu, bytes) }
      }
    }
  }
}
