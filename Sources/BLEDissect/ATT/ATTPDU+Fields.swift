extension ATTPDU {
  /// The verbose field tree, with the spec's parameter names. `bytes` is the buffer
  /// the decoding cursor was made over. Builds arrays and strings (not the hot path).
  public func fields(_ bytes: UnsafeRawBufferPointer) -> [Field] {
    var fields = [opcodeField]
    func handle(_ name: String, _ value: UInt16) -> Field {
      Field(name, .unsigned(UInt64(value), hexDigits: 4))
    }
    func data(_ name: String, _ range: ByteRange) -> Field {
      Field(name, .bytes(bytes.copy(range)))
    }
    switch parameters {
    case .none:
      break
    case .error(let request, let attribute, let code):
      fields += [
        Field("Request Opcode In Error", .code(UInt64(request.rawValue), hexDigits: 2, name: request.name)),
        handle("Attribute Handle In Error", attribute),
        Field("Error Code", .code(UInt64(code.rawValue), hexDigits: 2, name: code.name)),
      ]
    case .mtu(let mtu):
      let name = opcode == .exchangeMTURequest ? "Client Rx MTU" : "Server Rx MTU"
      fields.append(Field(name, .unsigned(UInt64(mtu), hexDigits: 0)))
    case .handleRange(let start, let end):
      fields += [handle("Starting Handle", start), handle("Ending Handle", end)]
    case .findInformation(let format, let list):
      fields.append(Field("Format", .code(UInt64(format), hexDigits: 2, name: Self.formatName(format))))
      let size = ATTParameters.findInformationEntrySize(format: format) ?? 0
      fields += entries(bytes, list, size: size, name: "Information Data") { offset in
        [
          handle("Handle", bytes.littleEndianUInt16(at: offset) ?? 0),
          Field("UUID", .uuid(Self.uuid(bytes, at: offset + 2, width: size - 2))),
        ]
      }
    case .findByTypeValue(let start, let end, let type, let value):
      fields += [
        handle("Starting Handle", start), handle("Ending Handle", end),
        Field("Attribute Type", .uuid(BluetoothUUID(uuid16: type))), data("Attribute Value", value),
      ]
    case .handlesInformationList(let list):
      fields += entries(bytes, list, size: 4, name: "Handles Information") { offset in
        [
          handle("Found Attribute Handle", bytes.littleEndianUInt16(at: offset) ?? 0),
          handle("Group End Handle", bytes.littleEndianUInt16(at: offset + 2) ?? 0),
        ]
      }
    case .readByType(let start, let end, let type):
      let name = opcode == .readByGroupTypeRequest ? "Attribute Group Type" : "Attribute Type"
      fields += [handle("Starting Handle", start), handle("Ending Handle", end), Field(name, .uuid(type))]
    case .attributeDataList(let length, let list):
      fields.append(Field("Length", .unsigned(UInt64(length), hexDigits: 0)))
      let grouped = opcode == .readByGroupTypeResponse
      let header = attributeDataHeader
      let size = Int(length) >= header ? Int(length) : 0
      fields += entries(bytes, list, size: size, name: "Attribute Data") { offset in
        var entry = [handle("Attribute Handle", bytes.littleEndianUInt16(at: offset) ?? 0)]
        if grouped { entry.append(handle("End Group Handle", bytes.littleEndianUInt16(at: offset + 2) ?? 0)) }
        entry.append(data("Attribute Value", ByteRange(start: offset + header, count: size - header)))
        return entry
      }
    case .handle(let attribute):
      fields.append(handle("Attribute Handle", attribute))
    case .readBlob(let attribute, let offset):
      fields += [handle("Attribute Handle", attribute), Field("Value Offset", .unsigned(UInt64(offset), hexDigits: 0))]
    case .value(let value):
      let name =
        switch opcode {
        case .readBlobResponse: "Part Attribute Value"
        case .readMultipleResponse: "Set Of Values"
        default: "Attribute Value"
        }
      fields.append(data(name, value))
    case .handleList(let list):
      var handles: [Field] = []
      forEachHandle(bytes) { handles.append(handle("Attribute Handle", $0)) }
      if list.count % 2 != 0 {
        handles.append(data("Incomplete Entry", ByteRange(start: list.start + list.count - 1, count: 1)))
      }
      fields.append(.group("Set Of Handles", handles))
    case .handleValue(let attribute, let value):
      fields += [handle("Attribute Handle", attribute), data("Attribute Value", value)]
    case .prepareWrite(let attribute, let offset, let value):
      fields += [
        handle("Attribute Handle", attribute), Field("Value Offset", .unsigned(UInt64(offset), hexDigits: 0)),
        data("Part Attribute Value", value),
      ]
    case .executeWrite(let flags):
      fields.append(Field("Flags", .code(UInt64(flags), hexDigits: 2, name: Self.executeWriteFlagsName(flags))))
    case .signedWrite(let attribute, let value, let signature):
      fields += [
        handle("Attribute Handle", attribute), data("Attribute Value", value),
        data("Authentication Signature", signature),
      ]
    case .multipleHandleValue(let list):
      fields += tuples(bytes, list, withHandles: true)
    case .lengthValueList(let list):
      fields += tuples(bytes, list, withHandles: false)
    case .unknown(let range):
      fields.append(data("Parameters", range))
    case .malformed(let range):
      fields.append(data("Malformed Parameters", range))
    }
    return fields
  }

  private var opcodeField: Field {
    Field(
      "Opcode", .code(UInt64(opcode.rawValue), hexDigits: 2, name: opcode.name),
      children: [
        Field("Method", .unsigned(UInt64(opcode.method), hexDigits: 2)),
        Field("Command Flag", .unsigned(opcode.isCommand ? 1 : 0, hexDigits: 0)),
        Field("Authentication Signature Flag", .unsigned(opcode.hasAuthenticationSignature ? 1 : 0, hexDigits: 0)),
      ])
  }

  /// One group per whole entry of `size` bytes (`Information Data[0]`…), then any
  /// bytes left over.
  private func entries(
    _ bytes: UnsafeRawBufferPointer, _ list: ByteRange, size: Int, name: String, _ entry: (Int) -> [Field]
  ) -> [Field] {
    let span = bytes.bounds(of: list)
    guard size > 0 else { return [Field("Unparsed Bytes", .bytes(bytes.copy(list)))] }
    var fields: [Field] = []
    var offset = span.lowerBound
    while span.upperBound - offset >= size {
      fields.append(.group("\(name)[\(fields.count)]", entry(offset)))
      offset += size
    }
    if offset < span.upperBound {
      fields.append(Field("Incomplete Entry", .bytes(Array(bytes[offset..<span.upperBound]))))
    }
    return fields
  }

  /// Handle Length Value or Length Value tuples; a value cut short shows what is there.
  private func tuples(_ bytes: UnsafeRawBufferPointer, _ list: ByteRange, withHandles: Bool) -> [Field] {
    let span = bytes.bounds(of: list)
    let header = withHandles ? 4 : 2
    let name = withHandles ? "Handle Length Value Tuple" : "Length Value Tuple"
    var fields: [Field] = []
    var offset = span.lowerBound
    while span.upperBound - offset >= header {
      var entry: [Field] = []
      if withHandles {
        entry.append(
          Field("Attribute Handle", .unsigned(UInt64(bytes.littleEndianUInt16(at: offset) ?? 0), hexDigits: 4)))
      }
      let length = Int(bytes.littleEndianUInt16(at: offset + header - 2) ?? 0)
      entry.append(Field("Value Length", .unsigned(UInt64(length), hexDigits: 0)))
      let valueStart = offset + header
      let valueEnd = min(valueStart + length, span.upperBound)
      entry.append(Field("Attribute Value", .bytes(Array(bytes[valueStart..<valueEnd]))))
      fields.append(.group("\(name)[\(fields.count)]", entry))
      offset = valueStart + length
    }
    if offset < span.upperBound {
      fields.append(Field("Incomplete Entry", .bytes(Array(bytes[offset..<span.upperBound]))))
    }
    return fields
  }

  private static func uuid(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> BluetoothUUID {
    bytes.bluetoothUUID(at: offset, width: width) ?? BluetoothUUID(uuid16: 0)
  }

  /// Find Information Response Format (Core 6.0, Vol 3, Part F, 3.4.3.2, Table 3.8).
  static func formatName(_ format: UInt8) -> String {
    switch format {
    case 0x01: "Handles and 16-bit Bluetooth UUIDs"
    case 0x02: "Handles and 128-bit UUIDs"
    default: "Unknown (0x" + hex(format) + ")"
    }
  }

  /// Execute Write Request Flags (Core 6.0, Vol 3, Part F, 3.4.6.3, Table 3.34).
  static func executeWriteFlagsName(_ flags: UInt8) -> String {
    switch flags {
    case 0x00: "Cancel all prepared writes"
    case 0x01: "Immediately write all pending prepared values"
    default: "Unknown (0x" + hex(flags) + ")"
    }
  }
}
