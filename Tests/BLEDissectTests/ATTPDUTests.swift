import Testing

@testable import BLEDissect

/// What decoding one ATT PDU gave, taken out of the closure that holds the cursor.
struct ATTDecoded {
  var pdu: ATTPDU
  var diagnostics: [Diagnostic]
  var fields: [Field]
  var handles: [UInt16]
  var atEnd: Bool
  var ids: [String] { diagnostics.map(\.id) }
}

/// Decodes `bytes` as an ATT PDU after `skip` bytes (an L2CAP header, say), so that
/// ranges are offsets in the whole buffer.
func decodeATT(_ bytes: [UInt8], skip: Int = 0) throws(DecodeError) -> ATTDecoded {
  try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
    let raw = UnsafeRawBufferPointer(buffer)
    var c = ByteCursor(raw.bytes, base: 0, layer: .att)
    _ = try c.readRange(skip)
    var diagnostics: [Diagnostic] = []
    let pdu = try ATTPDU.decode(&c, diagnostics: &diagnostics)
    var handles: [UInt16] = []
    pdu.forEachHandle(raw) { handles.append($0) }
    return ATTDecoded(
      pdu: pdu, diagnostics: diagnostics, fields: pdu.fields(raw), handles: handles, atEnd: c.isAtEnd)
  }
}

/// One well-formed PDU per table row, written as btmon or Wireshark would print it.
struct ATTFixture: CustomTestStringConvertible, Sendable {
  var name: String
  var bytes: [UInt8]
  var parameters: ATTParameters
  var handles: [UInt16] = []
  /// One field of the verbose tree and its value.
  var field: String
  var value: FieldValue

  var testDescription: String { name }
}

private func range(_ start: Int, _ count: Int) -> ByteRange { ByteRange(start: start, count: count) }
private func hex4(_ value: UInt64) -> FieldValue { .unsigned(value, hexDigits: 4) }

@Suite struct ATTPDUTests {
  static let fixtures: [ATTFixture] = [
    // Error Response: Read By Group Type Request (0x10), Handle 0x0001, Attribute Not Found (0x0a)
    .init(
      name: "Error Response", bytes: [0x01, 0x10, 0x01, 0x00, 0x0A],
      parameters: .error(request: .readByGroupTypeRequest, handle: 1, code: .attributeNotFound), handles: [1],
      field: "Error Code", value: .code(0x0A, hexDigits: 2, name: "Attribute Not Found")),
    // Exchange MTU Request: Client RX MTU 247
    .init(
      name: "Exchange MTU Request", bytes: [0x02, 0xF7, 0x00], parameters: .mtu(247),
      field: "Client Rx MTU", value: .unsigned(247, hexDigits: 0)),
    // Exchange MTU Response: Server RX MTU 512
    .init(
      name: "Exchange MTU Response", bytes: [0x03, 0x00, 0x02], parameters: .mtu(512),
      field: "Server Rx MTU", value: .unsigned(512, hexDigits: 0)),
    // Find Information Request: Handle range 0x0001-0xffff
    .init(
      name: "Find Information Request", bytes: [0x04, 0x01, 0x00, 0xFF, 0xFF],
      parameters: .handleRange(start: 1, end: 0xFFFF), handles: [1], field: "Ending Handle", value: hex4(0xFFFF)),
    // Find Information Response: Format 0x01; Handle 0x000e UUID 0x2902; Handle 0x000f UUID 0x2901
    .init(
      name: "Find Information Response", bytes: [0x05, 0x01, 0x0E, 0x00, 0x02, 0x29, 0x0F, 0x00, 0x01, 0x29],
      parameters: .findInformation(format: 1, list: range(2, 8)), handles: [0x0E, 0x0F],
      field: "UUID", value: .uuid(BluetoothUUID(uuid16: 0x2902))),
    // Find By Type Value Request: Handle range 0x0001-0xffff, Type 0x2800, Value 0d 18 (Heart Rate)
    .init(
      name: "Find By Type Value Request", bytes: [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18],
      parameters: .findByTypeValue(start: 1, end: 0xFFFF, type: 0x2800, value: range(7, 2)), handles: [1],
      field: "Attribute Type", value: .uuid(BluetoothUUID(uuid16: 0x2800))),
    // Find By Type Value Response: Handle range 0x0010-0x0018
    .init(
      name: "Find By Type Value Response", bytes: [0x07, 0x10, 0x00, 0x18, 0x00],
      parameters: .handlesInformationList(range(1, 4)), handles: [0x10],
      field: "Group End Handle", value: hex4(0x18)),
    // Read By Type Request: Handle range 0x0001-0xffff, Attribute type: Characteristic (0x2803)
    .init(
      name: "Read By Type Request", bytes: [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],
      parameters: .readByType(start: 1, end: 0xFFFF, type: BluetoothUUID(uuid16: 0x2803)), handles: [1],
      field: "Attribute Type", value: .uuid(BluetoothUUID(uuid16: 0x2803))),
    // Read By Type Response: Attribute data length 7; Handle 0x0002 Value 10 03 00 00 2a
    .init(
      name: "Read By Type Response", bytes: [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x00, 0x2A],
      parameters: .attributeDataList(length: 7, list: range(2, 7)), handles: [2],
      field: "Attribute Value", value: .bytes([0x10, 0x03, 0x00, 0x00, 0x2A])),
    // Read Request: Handle 0x0003
    .init(
      name: "Read Request", bytes: [0x0A, 0x03, 0x00], parameters: .handle(3), handles: [3],
      field: "Attribute Handle", value: hex4(3)),
    // Read Response: Value 48 52
    .init(
      name: "Read Response", bytes: [0x0B, 0x48, 0x52], parameters: .value(range(1, 2)),
      field: "Attribute Value", value: .bytes([0x48, 0x52])),
    // Read Blob Request: Handle 0x0003 Offset 22
    .init(
      name: "Read Blob Request", bytes: [0x0C, 0x03, 0x00, 0x16, 0x00], parameters: .readBlob(handle: 3, offset: 22),
      handles: [3], field: "Value Offset", value: .unsigned(22, hexDigits: 0)),
    // Read Blob Response: Value 41 42 43
    .init(
      name: "Read Blob Response", bytes: [0x0D, 0x41, 0x42, 0x43], parameters: .value(range(1, 3)),
      field: "Part Attribute Value", value: .bytes([0x41, 0x42, 0x43])),
    // Read Multiple Request: Handles 0x0003 0x0005
    .init(
      name: "Read Multiple Request", bytes: [0x0E, 0x03, 0x00, 0x05, 0x00], parameters: .handleList(range(1, 4)),
      handles: [3, 5], field: "Attribute Handle", value: hex4(3)),
    // Read Multiple Response: Values 01 02 03
    .init(
      name: "Read Multiple Response", bytes: [0x0F, 0x01, 0x02, 0x03], parameters: .value(range(1, 3)),
      field: "Set Of Values", value: .bytes([0x01, 0x02, 0x03])),
    // Read By Group Type Request: Handle range 0x0001-0xffff, Attribute group type: Primary Service (0x2800)
    .init(
      name: "Read By Group Type Request", bytes: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
      parameters: .readByType(start: 1, end: 0xFFFF, type: BluetoothUUID(uuid16: 0x2800)), handles: [1],
      field: "Attribute Group Type", value: .uuid(BluetoothUUID(uuid16: 0x2800))),
    // Read By Group Type Response: Attribute data length 6
    //   Handle range 0x0001-0x0005 UUID 0x1800; Handle range 0x0006-0x0009 UUID 0x1801
    .init(
      name: "Read By Group Type Response",
      bytes: [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18],
      parameters: .attributeDataList(length: 6, list: range(2, 12)), handles: [1, 6],
      field: "End Group Handle", value: hex4(5)),
    // Write Request: Handle 0x000f Data 01 00
    .init(
      name: "Write Request", bytes: [0x12, 0x0F, 0x00, 0x01, 0x00],
      parameters: .handleValue(handle: 0x0F, value: range(3, 2)), handles: [0x0F],
      field: "Attribute Value", value: .bytes([0x01, 0x00])),
    // Write Response
    .init(
      name: "Write Response", bytes: [0x13], parameters: .none,
      field: "Opcode", value: .code(0x13, hexDigits: 2, name: "Write Response")),
    // Prepare Write Request: Handle 0x0015 Offset 0 Data 01 02 03
    .init(
      name: "Prepare Write Request", bytes: [0x16, 0x15, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03],
      parameters: .prepareWrite(handle: 0x15, offset: 0, value: range(5, 3)), handles: [0x15],
      field: "Part Attribute Value", value: .bytes([0x01, 0x02, 0x03])),
    // Prepare Write Response: Handle 0x0015 Offset 18 Data 04
    .init(
      name: "Prepare Write Response", bytes: [0x17, 0x15, 0x00, 0x12, 0x00, 0x04],
      parameters: .prepareWrite(handle: 0x15, offset: 18, value: range(5, 1)), handles: [0x15],
      field: "Value Offset", value: .unsigned(18, hexDigits: 0)),
    // Execute Write Request: Flags 0x01 (Immediately write all pending prepared values)
    .init(
      name: "Execute Write Request", bytes: [0x18, 0x01], parameters: .executeWrite(flags: 1),
      field: "Flags", value: .code(1, hexDigits: 2, name: "Immediately write all pending prepared values")),
    // Execute Write Response
    .init(
      name: "Execute Write Response", bytes: [0x19], parameters: .none,
      field: "Opcode", value: .code(0x19, hexDigits: 2, name: "Execute Write Response")),
    // Handle Value Notification: Handle 0x002a Data 00 48
    .init(
      name: "Handle Value Notification", bytes: [0x1B, 0x2A, 0x00, 0x00, 0x48],
      parameters: .handleValue(handle: 0x2A, value: range(3, 2)), handles: [0x2A],
      field: "Attribute Value", value: .bytes([0x00, 0x48])),
    // Handle Value Indication: Handle 0x0009 Data 01 00 ff ff (Service Changed)
    .init(
      name: "Handle Value Indication", bytes: [0x1D, 0x09, 0x00, 0x01, 0x00, 0xFF, 0xFF],
      parameters: .handleValue(handle: 0x09, value: range(3, 4)), handles: [0x09],
      field: "Attribute Handle", value: hex4(0x09)),
    // Handle Value Confirmation
    .init(
      name: "Handle Value Confirmation", bytes: [0x1E], parameters: .none,
      field: "Opcode", value: .code(0x1E, hexDigits: 2, name: "Handle Value Confirmation")),
    // Read Multiple Variable Request: Handles 0x0003 0x0005
    .init(
      name: "Read Multiple Variable Request", bytes: [0x20, 0x03, 0x00, 0x05, 0x00],
      parameters: .handleList(range(1, 4)), handles: [3, 5], field: "Attribute Handle", value: hex4(3)),
    // Read Multiple Variable Response: Length 1 Value 61; Length 2 Value 62 63
    .init(
      name: "Read Multiple Variable Response", bytes: [0x21, 0x01, 0x00, 0x61, 0x02, 0x00, 0x62, 0x63],
      parameters: .lengthValueList(range(1, 7)), field: "Value Length", value: .unsigned(1, hexDigits: 0)),
    // Multiple Handle Value Notification: Handle 0x0003 Length 1 Data 61; Handle 0x0005 Length 2 Data 62 63
    .init(
      name: "Multiple Handle Value Notification",
      bytes: [0x23, 0x03, 0x00, 0x01, 0x00, 0x61, 0x05, 0x00, 0x02, 0x00, 0x62, 0x63],
      parameters: .multipleHandleValue(range(1, 11)), handles: [3, 5],
      field: "Attribute Value", value: .bytes([0x61])),
    // Write Command: Handle 0x0012 Data 01
    .init(
      name: "Write Command", bytes: [0x52, 0x12, 0x00, 0x01],
      parameters: .handleValue(handle: 0x12, value: range(3, 1)), handles: [0x12],
      field: "Attribute Value", value: .bytes([0x01])),
    // Signed Write Command: Handle 0x0012 Data 01 Signature a0 a1 … ab
    .init(
      name: "Signed Write Command", bytes: [0xD2, 0x12, 0x00, 0x01] + Array(0xA0...0xAB),
      parameters: .signedWrite(handle: 0x12, value: range(3, 1), signature: range(4, 12)), handles: [0x12],
      field: "Authentication Signature", value: .bytes(Array(0xA0...0xAB))),
  ]

  @Test(arguments: fixtures)
  func fixtureDecodes(_ fixture: ATTFixture) throws {
    let decoded = try decodeATT(fixture.bytes)
    #expect(decoded.pdu.opcode.name == fixture.name)
    #expect(decoded.pdu.parameters == fixture.parameters)
    #expect(decoded.diagnostics.isEmpty, "\(decoded.diagnostics)")
    #expect(decoded.atEnd)
    #expect(decoded.handles == fixture.handles)
    #expect(decoded.pdu.handle == fixture.handles.first)
    #expect(decoded.fields.lookup(fixture.field)?.value == fixture.value, "\(decoded.fields)")
  }

  @Test func everyRowHasAFixture() {
    let covered = Set(Self.fixtures.map { $0.bytes[0] })
    let rows = Set(ATTOpcode.table.map(\.opcode))
    #expect(covered == rows)
    #expect(rows.count == 31)
  }

  @Test func codesAndNamesAreUnique() {
    let codes = ATTOpcode.table.map(\.opcode)
    let names = ATTOpcode.table.map { "\($0.name)" }
    #expect(Set(codes).count == codes.count)
    #expect(Set(names).count == names.count)
  }

  @Test func requestsAndResponsesPointBackAtEachOther() {
    for row in ATTOpcode.table {
      let opcode = ATTOpcode(rawValue: row.opcode)
      switch row.kind {
      case .request(let response):
        #expect(ATTOpcode(rawValue: response).kind == .response(request: row.opcode), "\(row.name)")
        #expect(opcode.response?.request == opcode)
      case .response(let request):
        #expect(ATTOpcode(rawValue: request).kind == .request(response: row.opcode), "\(row.name)")
      case .indication(let confirmation):
        #expect(ATTOpcode(rawValue: confirmation).kind == .confirmation, "\(row.name)")
      case .command:
        #expect(opcode.isCommand, "\(row.name)")
      case .notification, .confirmation, .error, .unknown:
        #expect(!opcode.isCommand, "\(row.name)")
      }
    }
  }

  @Test func opcodeBits() {
    #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
    #expect(ATTOpcode.signedWriteCommand.isCommand)
    #expect(ATTOpcode.signedWriteCommand.method == 0x12)
    #expect(ATTOpcode.writeCommand.method == ATTOpcode.writeRequest.rawValue)
    #expect(!ATTOpcode.writeRequest.isCommand)
    #expect(!ATTOpcode.writeCommand.hasAuthenticationSignature)
  }

  /// Every row whose rule needs parameter bytes, sent with one byte too few.
  static let shortRows: [UInt8] = ATTOpcode.table.filter { $0.length.minimum > 0 }.map(\.opcode)

  @Test(arguments: shortRows)
  func tooShortKeepsTheOpcode(_ code: UInt8) throws {
    let row = try #require(ATTOpcode(rawValue: code).row)
    let count = row.length.minimum - 1
    let decoded = try decodeATT([code] + [UInt8](repeating: 0x01, count: count))
    #expect(decoded.pdu.opcode.rawValue == code)
    #expect(decoded.pdu.parameters == .malformed(range(1, count)))
    #expect(decoded.ids == ["att.length.invalid"])
    let message = try #require(decoded.diagnostics.first?.message)
    #expect(message.contains("has \(count) parameter"), "\(message)")
    #expect(message.contains("needs \(row.length.text)"), "\(message)")
    #expect(decoded.atEnd)
    #expect(decoded.pdu.handle == nil)
    #expect(decoded.fields.lookup("Malformed Parameters") != nil)
  }

  @Test func lengthMessageNamesTheRule() throws {
    // Write Request, handle cut after one byte
    let decoded = try decodeATT([0x12, 0x2A])
    #expect(decoded.diagnostics.first?.message == "write request has 1 parameter byte, needs at least 2")
    // Exchange MTU Request with one byte
    let mtu = try decodeATT([0x02, 0x17])
    #expect(mtu.diagnostics.first?.message == "exchange MTU request has 1 parameter byte, needs exactly 2")
    #expect(mtu.diagnostics.first?.severity == .warning)
  }

  @Test func tooLongIsDecodedWithADiagnostic() throws {
    // Read Request: Handle 0x0003, one stray byte
    let decoded = try decodeATT([0x0A, 0x03, 0x00, 0xEE])
    #expect(decoded.pdu.parameters == .handle(3))
    #expect(decoded.ids == ["att.length.invalid"])
    #expect(decoded.atEnd)
  }

  @Test func readByTypeWith128BitAndOddUUIDs() throws {
    // Read By Type Request: Handle range 0x0001-0x00ff, 128-bit UUID 6e400001-b5a3-f393-e0a9-e50e24dcca9e
    let uuid: [UInt8] = [
      0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E,
    ]
    let wide = try decodeATT([0x08, 0x01, 0x00, 0xFF, 0x00] + uuid)
    #expect(
      wide.pdu.parameters
        == .readByType(start: 1, end: 0xFF, type: BluetoothUUID(uuid128: 0x6E40_0001_B5A3_F393_E0A9_E50E_24DC_CA9E)))
    #expect(wide.diagnostics.isEmpty)
    // A 32-bit UUID is not allowed here but still readable.
    let narrow = try decodeATT([0x08, 0x01, 0x00, 0xFF, 0x00, 0x95, 0xFE, 0x00, 0x00])
    #expect(narrow.pdu.parameters == .readByType(start: 1, end: 0xFF, type: BluetoothUUID(uuid32: 0xFE95)))
    #expect(narrow.ids == ["att.length.invalid"])
    // Three UUID bytes cannot be read at all.
    let odd = try decodeATT([0x10, 0x01, 0x00, 0xFF, 0x00, 0x00, 0x28, 0x00])
    #expect(odd.pdu.parameters == .malformed(range(1, 7)))
    #expect(odd.ids == ["att.length.invalid", "att.invalid"])
    #expect(odd.atEnd)
  }

  @Test func noOpcodeThrows() {
    var caught: DecodeError?
    do { _ = try decodeATT([]) } catch { caught = error }
    #expect(caught?.kind == .truncated(needed: 1, available: 0))
    #expect(caught?.offset == 0)
    #expect(caught?.layer == .att)
    #expect(caught?.diagnosticID == "att.truncated")
  }

  @Test func unknownOpcodeSurvives() throws {
    // Opcode 0x7f (unknown), parameters 01 02
    let decoded = try decodeATT([0x7F, 0x01, 0x02])
    #expect(decoded.pdu.opcode.name == "Unknown (0x7f)")
    #expect(decoded.pdu.opcode.kind == .unknown)
    #expect(!decoded.pdu.opcode.isKnown)
    #expect(decoded.pdu.parameters == .unknown(range(1, 2)))
    #expect(decoded.ids == ["att.opcode.unknown"])
    #expect(decoded.diagnostics.first?.severity == .info)
    #expect(decoded.fields.lookup("Parameters")?.value == .bytes([0x01, 0x02]))
    #expect(decoded.fields.lookup("Opcode")?.value == .code(0x7F, hexDigits: 2, name: "Unknown (0x7f)"))
  }

  @Test func rangesAreAbsoluteAfterAHeader() throws {
    // L2CAP: Length 5, CID 0x0004; ATT Write Request: Handle 0x0010 Data aa bb
    let decoded = try decodeATT([0x05, 0x00, 0x04, 0x00, 0x12, 0x10, 0x00, 0xAA, 0xBB], skip: 4)
    #expect(decoded.pdu.parameters == .handleValue(handle: 0x10, value: range(7, 2)))
    #expect(decoded.pdu.value == range(7, 2))
    #expect(decoded.fields.lookup("Attribute Value")?.value == .bytes([0xAA, 0xBB]))
  }

  @Test func conveniences() throws {
    let error = try decodeATT([0x01, 0x12, 0x2A, 0x00, 0x03]).pdu
    #expect(error.error == .writeNotPermitted)
    #expect(error.requestOpcode == .writeRequest)
    #expect(error.handle == 0x2A)
    // Ranges outside the buffer given to `fields` are clamped, not trusted.
    let fields = error.fields(UnsafeRawBufferPointer(start: nil, count: 0))
    #expect(fields.lookup("Error Code") != nil)
    let write = try decodeATT([0x12, 0x01, 0x00, 0xAA]).pdu
    #expect(write.fields(UnsafeRawBufferPointer(start: nil, count: 0)).lookup("Attribute Value")?.value == .bytes([]))
    #expect(try decodeATT([0x02, 0xF7, 0x00]).pdu.mtu == 247)
    #expect(try decodeATT([0x0B, 0x01]).pdu.value == range(1, 1))
    #expect(try decodeATT([0x0B, 0x01]).pdu.handle == nil)
    #expect(try decodeATT([0x13]).pdu.value == nil)
  }

  @Test func errorResponseFields() throws {
    let fields = try decodeATT([0x01, 0x0A, 0x03, 0x00, 0x05]).fields
    #expect(fields.lookup("Request Opcode In Error")?.value == .code(0x0A, hexDigits: 2, name: "Read Request"))
    #expect(fields.lookup("Attribute Handle In Error")?.value == hex4(3))
    #expect(fields.lookup("Error Code")?.value == .code(5, hexDigits: 2, name: "Insufficient Authentication"))
    #expect(fields.lookup("Command Flag")?.value == .unsigned(0, hexDigits: 0))
  }

  @Test func listEntriesAreGroups() throws {
    // Read By Group Type Response: two services
    let decoded = try decodeATT(Self.fixtures[16].bytes)
    let names = decoded.fields.map(\.name)
    #expect(names == ["Opcode", "Length", "Attribute Data[0]", "Attribute Data[1]"])
    let second = try #require(decoded.fields.last)
    #expect(second.children.map(\.name) == ["Attribute Handle", "End Group Handle", "Attribute Value"])
    #expect(second.lookup("Attribute Value")?.value == .bytes([0x01, 0x18]))
    // Find Information Response with 128-bit UUIDs
    let uuid: [UInt8] = Array(repeating: 0x11, count: 16)
    let info = try decodeATT([0x05, 0x02, 0x20, 0x00] + uuid + [0x21, 0x00] + uuid)
    #expect(info.handles == [0x20, 0x21])
    #expect(info.fields.lookup("Format")?.value == .code(2, hexDigits: 2, name: "Handles and 128-bit UUIDs"))
    #expect(info.fields.lookup("UUID")?.value == .uuid(BluetoothUUID(uuid128: UInt128.max / 255 * 0x11)))
  }

  @Test func partialListsAreReported() throws {
    // Read By Type Response: length 7 but 9 list bytes
    let partial = try decodeATT([0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x00, 0x2A, 0x04, 0x00])
    #expect(partial.ids == ["att.list.invalid"])
    #expect(partial.handles == [2])
    #expect(partial.fields.lookup("Incomplete Entry")?.value == .bytes([0x04, 0x00]))
    // Read By Type Response: length 0 (no entries can be found, nor loop forever)
    let zero = try decodeATT([0x09, 0x00, 0x02, 0x00])
    #expect(zero.ids == ["att.list.invalid"])
    #expect(zero.handles.isEmpty)
    #expect(zero.pdu.handle == 2)
    // Read By Group Type Response: length 3 is below the 4 bytes of its two handles
    let group = try decodeATT([0x11, 0x03, 0x01, 0x00, 0x05, 0x00])
    #expect(group.ids == ["att.list.invalid"])
    #expect(group.handles.isEmpty)
    // Find Information Response: Format 0x03
    let format = try decodeATT([0x05, 0x03, 0x01, 0x00, 0x00, 0x28])
    #expect(format.ids == ["att.format.invalid"])
    #expect(format.handles.isEmpty)
    #expect(format.fields.lookup("Format")?.value == .code(3, hexDigits: 2, name: "Unknown (0x03)"))
    // Read Multiple Request: three handles and a half
    let odd = try decodeATT([0x0E, 0x01, 0x00, 0x02, 0x00, 0x03])
    #expect(odd.ids == ["att.list.invalid"])
    #expect(odd.handles == [1, 2])
    // Find By Type Value Response: one entry and two stray bytes
    let found = try decodeATT([0x07, 0x10, 0x00, 0x18, 0x00, 0x20, 0x00])
    #expect(found.ids == ["att.list.invalid"])
    #expect(found.handles == [0x10])
  }

  @Test func multipleHandleValueTupleOverrun() throws {
    // Handle 0x0003 Length 1 Data 61; Handle 0x0005 Length 9 but only 1 byte
    let decoded = try decodeATT([0x23, 0x03, 0x00, 0x01, 0x00, 0x61, 0x05, 0x00, 0x09, 0x00, 0x62])
    #expect(decoded.ids == ["att.list.invalid"])
    #expect(decoded.diagnostics.first?.message.contains("needs 9 value bytes, 1 left") == true)
    #expect(decoded.handles == [3, 5])
    #expect(decoded.fields.lookup("Handle Length Value Tuple[1]")?.lookup("Attribute Value")?.value == .bytes([0x62]))
    // Two tuples and two stray bytes
    let stray = try decodeATT([0x23, 0x03, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00])
    #expect(stray.ids == ["att.list.invalid"])
    #expect(stray.handles == [3, 5])
  }

  @Test func readMultipleVariableResponseMayCutTheLastValue() throws {
    // Length 1 Value 61; Length 5 Value 62 63 (cut to fit the MTU)
    let decoded = try decodeATT([0x21, 0x01, 0x00, 0x61, 0x05, 0x00, 0x62, 0x63])
    #expect(decoded.diagnostics.isEmpty)
    let last = try #require(decoded.fields.lookup("Length Value Tuple[1]"))
    #expect(last.lookup("Value Length")?.value == .unsigned(5, hexDigits: 0))
    #expect(last.lookup("Attribute Value")?.value == .bytes([0x62, 0x63]))
  }

  @Test func smallMTUIsReported() throws {
    let decoded = try decodeATT([0x03, 0x14, 0x00])
    #expect(decoded.pdu.mtu == 20)
    #expect(decoded.ids == ["att.mtu.invalid"])
    #expect(decoded.diagnostics.first?.message == "server rx MTU 20 is below the minimum 23")
  }

  @Test func messageNamesKeepAcronyms() {
    #expect(messageName("Exchange MTU Request") == "exchange MTU request")
    #expect(messageName("Pairing DHKey Check") == "pairing DHKey check")
    #expect(messageName("Write Command") == "write command")
  }

  /// Every opcode with every length up to 24 bytes of pseudo-random data: nothing
  /// crashes, the cursor ends at the end, and every diagnostic id is documented.
  @Test func anyBytesDecodeWithDocumentedDiagnostics() throws {
    let documented = Set(ATTPDU.diagnosticIDs.map(\.id))
    #expect(documented.count == ATTPDU.diagnosticIDs.count)
    var state: UInt32 = 0x1234_5678
    func next() -> UInt8 {
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
    for opcode in 0...255 {
      for length in 0...24 {
        let bytes = [UInt8(opcode)] + (0..<length).map { _ in next() }
        let decoded = try decodeATT(bytes)
        #expect(decoded.atEnd)
        #expect(decoded.fields.first?.name == "Opcode")
        for id in decoded.ids { #expect(documented.contains(id), "\(id)") }
      }
    }
  }
}
