/// The parameters of an ATT PDU, one case per shape (Core 6.0, Vol 3, Part F, 3.4).
/// Lists are not copied: they are a `ByteRange` into the record, and the entry size
/// comes from the shape (`Format`, `Length`, or fixed).
public enum ATTParameters: Hashable, Sendable {
  /// Write Response, Execute Write Response, Handle Value Confirmation.
  case none
  /// Error Response: Request Opcode In Error, Attribute Handle In Error, Error Code.
  case error(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
  /// Exchange MTU Request (Client Rx MTU) and Response (Server Rx MTU).
  case mtu(UInt16)
  /// Find Information Request: Starting Handle, Ending Handle.
  case handleRange(start: UInt16, end: UInt16)
  /// Find Information Response: Format (0x01 16-bit UUIDs, 0x02 128-bit UUIDs) and
  /// Information Data, entries of handle + UUID (4 or 18 bytes).
  case findInformation(format: UInt8, list: ByteRange)
  /// Find By Type Value Request: Starting Handle, Ending Handle, Attribute Type
  /// (16-bit UUID), Attribute Value.
  case findByTypeValue(start: UInt16, end: UInt16, type: UInt16, value: ByteRange)
  /// Find By Type Value Response: Handles Information List, entries of Found Attribute
  /// Handle + Group End Handle (4 bytes).
  case handlesInformationList(ByteRange)
  /// Read By Type and Read By Group Type Requests: Starting Handle, Ending Handle,
  /// Attribute (Group) Type.
  case readByType(start: UInt16, end: UInt16, type: BluetoothUUID)
  /// Read By Type and Read By Group Type Responses: Length of each entry and the
  /// Attribute Data List (handle [+ End Group Handle] + value).
  case attributeDataList(length: UInt8, list: ByteRange)
  /// Read Request: Attribute Handle.
  case handle(UInt16)
  /// Read Blob Request: Attribute Handle, Value Offset.
  case readBlob(handle: UInt16, offset: UInt16)
  /// Read, Read Blob and Read Multiple Responses: the value bytes.
  case value(ByteRange)
  /// Read Multiple (Variable) Request: Set Of Handles (2 bytes each).
  case handleList(ByteRange)
  /// Write Request, Write Command, Handle Value Notification and Indication.
  case handleValue(handle: UInt16, value: ByteRange)
  /// Prepare Write Request and Response: Attribute Handle, Value Offset, Part
  /// Attribute Value.
  case prepareWrite(handle: UInt16, offset: UInt16, value: ByteRange)
  /// Execute Write Request: Flags (0x00 cancel, 0x01 write).
  case executeWrite(flags: UInt8)
  /// Signed Write Command: Attribute Handle, Attribute Value, Authentication
  /// Signature (12 bytes).
  case signedWrite(handle: UInt16, value: ByteRange, signature: ByteRange)
  /// Multiple Handle Value Notification: Handle Length Value Tuple List.
  case multipleHandleValue(ByteRange)
  /// Read Multiple Variable Response: Length Value Tuple List (the last value may be
  /// cut to fit the MTU).
  case lengthValueList(ByteRange)
  /// The parameters of an opcode this decoder does not know.
  case unknown(ByteRange)
  /// Parameters that break the opcode's length rule or could not be read.
  case malformed(ByteRange)
}

extension ATTParameters {
  /// Find Information Response: the size of one entry for `format`, nil for a
  /// reserved format.
  public static func findInformationEntrySize(format: UInt8) -> Int? {
    switch format {
    case 0x01: 4
    case 0x02: 18
    default: nil
    }
  }
}
