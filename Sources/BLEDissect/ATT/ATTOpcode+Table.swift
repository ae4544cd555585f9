/// One ATT opcode: its spec name, its pairing, its parameter length rule and how to
/// read its parameters. The dispatcher checks the length, so the parser only reads.
struct ATTOpcodeRow: Sendable {
  typealias Parse = @Sendable (inout ByteCursor) throws(DecodeError) -> ATTParameters

  let opcode: UInt8
  let name: StaticString
  let kind: ATTOpcode.Kind
  let length: PDULength
  let parse: Parse

  init(_ opcode: UInt8, _ name: StaticString, _ kind: ATTOpcode.Kind, _ length: PDULength, _ parse: @escaping Parse) {
    self.opcode = opcode
    self.name = name
    self.kind = kind
    self.length = length
    self.parse = parse
  }
}

extension ATTOpcode {
  /// Every ATT PDU of Core 6.0, Vol 3, Part F, 3.4 (Table 3.37 lists them).
  static let table: [ATTOpcodeRow] = [
    // 3.4.1.1: Request Opcode In Error, Attribute Handle In Error, Error Code.
    .init(0x01, "Error Response", .error, .exactly(4)) { c throws(DecodeError) in
      .error(
        request: ATTOpcode(rawValue: try c.readUInt8()), handle: try c.readHandle(),
        code: ATTErrorCode(rawValue: try c.readUInt8()))
    },
    // 3.4.2: Client Rx MTU / Server Rx MTU.
    .init(0x02, "Exchange MTU Request", .request(response: 0x03), .exactly(2)) { c throws(DecodeError) in
      .mtu(try c.readUInt16())
    },
    .init(0x03, "Exchange MTU Response", .response(request: 0x02), .exactly(2)) { c throws(DecodeError) in
      .mtu(try c.readUInt16())
    },
    // 3.4.3: discovery.
    .init(0x04, "Find Information Request", .request(response: 0x05), .exactly(4)) { c throws(DecodeError) in
      .handleRange(start: try c.readHandle(), end: try c.readHandle())
    },
    .init(0x05, "Find Information Response", .response(request: 0x04), .atLeast(5)) { c throws(DecodeError) in
      .findInformation(format: try c.readUInt8(), list: c.readRemainingRange())
    },
    .init(0x06, "Find By Type Value Request", .request(response: 0x07), .atLeast(6)) { c throws(DecodeError) in
      .findByTypeValue(
        start: try c.readHandle(), end: try c.readHandle(), type: try c.readUInt16(), value: c.readRemainingRange())
    },
    .init(0x07, "Find By Type Value Response", .response(request: 0x06), .atLeast(4)) { c throws(DecodeError) in
      .handlesInformationList(c.readRemainingRange())
    },
    // 3.4.4: reading.
    .init(0x08, "Read By Type Request", .request(response: 0x09), .either(6, 20)) { c throws(DecodeError) in
      .readByType(start: try c.readHandle(), end: try c.readHandle(), type: try c.readUUID(byteCount: c.remaining))
    },
    .init(0x09, "Read By Type Response", .response(request: 0x08), .atLeast(3)) { c throws(DecodeError) in
      .attributeDataList(length: try c.readUInt8(), list: c.readRemainingRange())
    },
    .init(0x0A, "Read Request", .request(response: 0x0B), .exactly(2)) { c throws(DecodeError) in
      .handle(try c.readHandle())
    },
    .init(0x0B, "Read Response", .response(request: 0x0A), .atLeast(0)) { c throws(DecodeError) in
      .value(c.readRemainingRange())
    },
    .init(0x0C, "Read Blob Request", .request(response: 0x0D), .exactly(4)) { c throws(DecodeError) in
      .readBlob(handle: try c.readHandle(), offset: try c.readUInt16())
    },
    .init(0x0D, "Read Blob Response", .response(request: 0x0C), .atLeast(0)) { c throws(DecodeError) in
      .value(c.readRemainingRange())
    },
    .init(0x0E, "Read Multiple Request", .request(response: 0x0F), .atLeast(4)) { c throws(DecodeError) in
      .handleList(c.readRemainingRange())
    },
    .init(0x0F, "Read Multiple Response", .response(request: 0x0E), .atLeast(0)) { c throws(DecodeError) in
      .value(c.readRemainingRange())
    },
    .init(0x10, "Read By Group Type Request", .request(response: 0x11), .either(6, 20)) { c throws(DecodeError) in
      .readByType(start: try c.readHandle(), end: try c.readHandle(), type: try c.readUUID(byteCount: c.remaining))
    },
    .init(0x11, "Read By Group Type Response", .response(request: 0x10), .atLeast(5)) { c throws(DecodeError) in
      .attributeDataList(length: try c.readUInt8(), list: c.readRemainingRange())
    },
    .init(0x20, "Read Multiple Variable Request", .request(response: 0x21), .atLeast(4)) { c throws(DecodeError) in
      .handleList(c.readRemainingRange())
    },
    .init(0x21, "Read Multiple Variable Response", .response(request: 0x20), .atLeast(4)) { c throws(DecodeError) in
      .lengthValueList(c.readRemainingRange())
    },
    // 3.4.5: writing.
    .init(0x12, "Write Request", .request(response: 0x13), .atLeast(2)) { c throws(DecodeError) in
      .handleValue(handle: try c.readHandle(), value: c.readRemainingRange())
    },
    .init(0x13, "Write Response", .response(request: 0x12), .exactly(0)) { _ throws(DecodeError) in .none },
    .init(0x52, "Write Command", .command, .atLeast(2)) { c throws(DecodeError) in
      .handleValue(handle: try c.readHandle(), value: c.readRemainingRange())
    },
    // The signature is the last 12 bytes; the length rule guarantees them.
    .init(0xD2, "Signed Write Command", .command, .atLeast(14)) { c throws(DecodeError) in
      .signedWrite(
        handle: try c.readHandle(), value: try c.readRange(c.remaining - 12), signature: try c.readRange(12))
    },
    // 3.4.6: queued writes.
    .init(0x16, "Prepare Write Request", .request(response: 0x17), .atLeast(4)) { c throws(DecodeError) in
      .prepareWrite(handle: try c.readHandle(), offset: try c.readUInt16(), value: c.readRemainingRange())
    },
    .init(0x17, "Prepare Write Response", .response(request: 0x16), .atLeast(4)) { c throws(DecodeError) in
      .prepareWrite(handle: try c.readHandle(), offset: try c.readUInt16(), value: c.readRemainingRange())
    },
    .init(0x18, "Execute Write Request", .request(response: 0x19), .exactly(1)) { c throws(DecodeError) in
      .executeWrite(flags: try c.readUInt8())
    },
    .init(0x19, "Execute Write Response", .response(request: 0x18), .exactly(0)) { _ throws(DecodeError) in .none },
    // 3.4.7: server initiated.
    .init(0x1B, "Handle Value Notification", .notification, .atLeast(2)) { c throws(DecodeError) in
      .handleValue(handle: try c.readHandle(), value: c.readRemainingRange())
    },
    .init(0x1D, "Handle Value Indication", .indication(confirmation: 0x1E), .atLeast(2)) { c throws(DecodeError) in
      .handleValue(handle: try c.readHandle(), value: c.readRemainingRange())
    },
    .init(0x1E, "Handle Value Confirmation", .confirmation, .exactly(0)) { _ throws(DecodeError) in .none },
    .init(0x23, "Multiple Handle Value Notification", .notification, .atLeast(8)) { c throws(DecodeError) in
      .multipleHandleValue(c.readRemainingRange())
    },
  ]

  /// The rows' names as Strings, made once.
  static let names: [String] = table.map { "\($0.name)" }

  /// Opcode → index into `table`, -1 for unknown opcodes (no hashing per PDU).
  static let rowIndex: [Int16] = {
    var index = [Int16](repeating: -1, count: 256)
    for (position, row) in table.enumerated() { index[Int(row.opcode)] = Int16(position) }
    return index
  }()
}
