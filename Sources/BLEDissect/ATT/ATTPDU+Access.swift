extension ATTPDU {
  /// The handle the PDU names: the attribute of a request, command, notification or
  /// indication, the Attribute Handle In Error, the Starting Handle of a range, and
  /// for list-shaped PDUs the first handle listed.
  public var handle: UInt16? {
    switch parameters {
    case .error(_, let handle, _), .handle(let handle), .readBlob(let handle, _), .handleValue(let handle, _),
      .prepareWrite(let handle, _, _), .signedWrite(let handle, _, _):
      handle
    case .handleRange(let start, _), .findByTypeValue(let start, _, _, _), .readByType(let start, _, _):
      start
    case .findInformation, .handlesInformationList, .attributeDataList, .handleList, .multipleHandleValue:
      firstListedHandle
    case .none, .mtu, .value, .executeWrite, .lengthValueList, .unknown, .malformed:
      nil
    }
  }

  /// The attribute value the PDU carries (written, read, notified, indicated, queued,
  /// or searched for by Find By Type Value).
  public var value: ByteRange? {
    switch parameters {
    case .value(let value), .handleValue(_, let value), .prepareWrite(_, _, let value), .signedWrite(_, let value, _),
      .findByTypeValue(_, _, _, let value):
      value
    default: nil
    }
  }

  /// The Error Code of an Error Response.
  public var error: ATTErrorCode? {
    if case .error(_, _, let code) = parameters { return code }
    return nil
  }

  /// The Request Opcode In Error of an Error Response.
  public var requestOpcode: ATTOpcode? {
    if case .error(let request, _, _) = parameters { return request }
    return nil
  }

  /// Client Rx MTU (request) or Server Rx MTU (response) of an MTU exchange.
  public var mtu: UInt16? {
    if case .mtu(let mtu) = parameters { return mtu }
    return nil
  }

  /// Calls `body` with every attribute handle the PDU carries, in order: each entry
  /// of a list response (its attribute handle, not a Group End Handle), each handle
  /// of a Read Multiple (Variable) Request, each tuple of a Multiple Handle Value
  /// Notification; otherwise `handle`, if any. `bytes` is the buffer the decoding
  /// cursor was made over (ranges are offsets in it). Entries cut short are skipped.
  public func forEachHandle(_ bytes: UnsafeRawBufferPointer, _ body: (UInt16) -> Void) {
    func entries(_ list: ByteRange, size: Int) {
      guard size >= 2 else { return }
      let span = bytes.bounds(of: list)
      var offset = span.lowerBound
      while span.upperBound - offset >= size, let handle = bytes.littleEndianUInt16(at: offset) {
        body(handle)
        offset += size
      }
    }
    switch parameters {
    case .findInformation(let format, let list):
      entries(list, size: ATTParameters.findInformationEntrySize(format: format) ?? 0)
    case .handlesInformationList(let list):
      entries(list, size: 4)
    case .attributeDataList(let length, let list):
      entries(list, size: Int(length) >= attributeDataHeader ? Int(length) : 0)
    case .handleList(let list):
      entries(list, size: 2)
    case .multipleHandleValue(let list):
      let span = bytes.bounds(of: list)
      var offset = span.lowerBound
      while span.upperBound - offset >= 4, let handle = bytes.littleEndianUInt16(at: offset),
        let length = bytes.littleEndianUInt16(at: offset + 2)
      {
        body(handle)
        offset += 4 + Int(length)
      }
    default:
      if let handle { body(handle) }
    }
  }
}

extension ATTPDU {
  /// The handles at the start of each Attribute Data entry: the Attribute Handle, and
  /// in a Read By Group Type Response the End Group Handle too.
  var attributeDataHeader: Int { opcode == .readByGroupTypeResponse ? 4 : 2 }
}

extension UnsafeRawBufferPointer {
  /// The offsets `range` covers, clamped to the buffer.
  public func bounds(of range: ByteRange) -> Range<Int> {
    let start = Swift.max(0, Swift.min(range.start, count))
    let end = Swift.max(start, Swift.min(range.start &+ Swift.max(0, range.count), count))
    return start..<end
  }
}
