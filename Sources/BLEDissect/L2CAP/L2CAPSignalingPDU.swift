/// One L2CAP signaling command, as a C-frame on CID 0x0001 (BR/EDR) or 0x0005 (LE)
/// carries it.
///
/// Core 6.0, Vol 3, Part A, 4.
///
///     0      1            2        4
///     +------+------------+--------+--------------------+
///     | code | identifier | length | data (length bytes) |
///     +------+------------+--------+--------------------+
///
/// A BR/EDR C-frame may hold several commands one after the other; an LE C-frame
/// holds exactly one. `decodeAll` handles both.
public struct L2CAPSignalingPDU: Hashable, Sendable {
  public var code: L2CAPSignalingCode
  /// Pairs a response with its request (0x00 is never valid).
  public var identifier: UInt8
  /// The Length field: how many data bytes the command declares.
  public var length: UInt16
  public var parameters: L2CAPSignalingParameters
  /// Where the command's data is, clipped to the bytes present.
  public var dataRange: ByteRange

  public init(
    code: L2CAPSignalingCode, identifier: UInt8, length: UInt16, parameters: L2CAPSignalingParameters,
    dataRange: ByteRange
  ) {
    self.code = code
    self.identifier = identifier
    self.length = length
    self.parameters = parameters
    self.dataRange = dataRange
  }

  /// Every diagnostic id the signaling decoder emits.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("l2cap.signaling.truncated", "a signaling command has fewer data bytes than its Length field says"),
    ("l2cap.signaling.length.invalid", "a signaling command's Length field does not fit its code"),
    ("l2cap.signaling.code.unknown", "a signaling command code that Core 6.0 does not define"),
    ("l2cap.signaling.identifier.invalid", "a signaling command with identifier 0x00, which is never valid"),
    ("l2cap.signaling.extra", "an LE signaling C-frame holds bytes after its single command"),
  ]

  /// Decodes one command. Throws only when the 4-byte command header itself is cut
  /// short; otherwise the data is decoded as far as the bytes go, and a malformed
  /// command gets a diagnostic and `.undecoded` parameters when too short to read.
  /// `isCut` says the capture source cut the record, which explains missing bytes.
  public static func decode(
    _ c: inout ByteCursor, isCut: Bool = false, diagnostics: inout [Diagnostic]
  ) throws(DecodeError) -> L2CAPSignalingPDU {
    guard c.remaining >= 4 else {
      throw DecodeError(.truncated(needed: 4, available: c.remaining), at: c.offset, layer: .l2cap)
    }
    let code = L2CAPSignalingCode(rawValue: try c.readUInt8())
    let identifier = try c.readUInt8()
    let length = try c.readUInt16()
    let available = min(Int(length), c.remaining)
    var data = try c.slice(available)
    let range = ByteRange(start: data.offset, count: available)
    var pdu = L2CAPSignalingPDU(
      code: code, identifier: identifier, length: length, parameters: .undecoded(range), dataRange: range)

    if identifier == 0 {
      diagnostics.append(
        Diagnostic(
          id: "l2cap.signaling.identifier.invalid", severity: .warning,
          "\(code.name.lowercased()) has identifier 0x00"))
    }
    if available < Int(length), !isCut {
      diagnostics.append(
        Diagnostic(
          id: "l2cap.signaling.truncated", severity: .warning,
          "\(code.name.lowercased()) says \(length) data bytes, \(available) present"))
    }
    guard let row = code.row else {
      diagnostics.append(
        Diagnostic(
          id: "l2cap.signaling.code.unknown", severity: .warning,
          "signaling code 0x\(hex(code.rawValue)) is not defined, \(length) data bytes"))
      return pdu
    }
    if !row.length.allows(Int(length)) {
      diagnostics.append(
        Diagnostic(
          id: "l2cap.signaling.length.invalid", severity: .warning,
          "\(row.name.lowercased()) has \(length) data bytes, needs \(row.length.text)"))
    }
    guard available >= row.length.minimum else { return pdu }
    // Read no further than the rule allows: extra bytes were reported above.
    let readable: Int
    switch row.length {
    case .exactly(let n): readable = n
    case .atLeast, .cidList: readable = available
    }
    var parameters = try data.slice(readable)
    pdu.parameters = try row.parse(&parameters)
    return pdu
  }

  /// Decodes every command of a C-frame's information payload on `cid`: several on
  /// BR/EDR (0x0001), exactly one on LE (0x0005, where trailing bytes get
  /// `l2cap.signaling.extra`). Commands decoded before a throw were already given to
  /// `body`.
  public static func decodeAll(
    _ c: inout ByteCursor, cid: UInt16, isCut: Bool = false, diagnostics: inout [Diagnostic],
    _ body: (L2CAPSignalingPDU) -> Void
  ) throws(DecodeError) {
    repeat {
      body(try decode(&c, isCut: isCut, diagnostics: &diagnostics))
      if cid == L2CAPChannelID.leSignaling.rawValue, !c.isAtEnd {
        diagnostics.append(
          Diagnostic(
            id: "l2cap.signaling.extra", severity: .warning,
            "le signaling c-frame has \(c.remaining) bytes after its command"))
        return
      }
    } while !c.isAtEnd
  }

  /// The CIDs of a list (Credit Based Connection Request and Response, Reconfigure
  /// Request) held at `range` of `bytes`; an odd last byte is ignored.
  public static func cids(_ range: ByteRange, in bytes: UnsafeRawBufferPointer) -> [UInt16] {
    guard range.start >= 0, range.count >= 0, range.start <= bytes.count, range.count <= bytes.count - range.start
    else { return [] }
    return stride(from: range.start, to: range.start + range.count - 1, by: 2).map {
      UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8
    }
  }

  /// The field tree: Code, Identifier, Length, then the parameters with their spec
  /// names, as far as the bytes go. `bytes` is the buffer `dataRange` points into.
  public func fields(_ bytes: UnsafeRawBufferPointer) -> [Field] {
    var out = [
      Field("Code", .code(UInt64(code.rawValue), hexDigits: 2, name: code.name)),
      Field("Identifier", .unsigned(UInt64(identifier), hexDigits: 2)),
      Field("Length", .unsigned(UInt64(length), hexDigits: 0)),
    ]
    let range = dataRange
    guard range.start >= 0, range.count >= 0, range.start <= bytes.count, range.count <= bytes.count - range.start
    else { return out }
    let data = UnsafeRawBufferPointer(rebasing: bytes[range.start..<range.start + range.count])
    if let row = code.row {
      out += Self.fields(of: row.layout, data)
    } else if !data.isEmpty {
      out.append(Field("Data", .bytes(Array(data))))
    }
    return out
  }

  /// Walks a row's layout over its data, stopping where the bytes end.
  static func fields(of layout: [L2CAPSignalingCode.Item], _ data: UnsafeRawBufferPointer) -> [Field] {
    var out: [Field] = []
    var at = 0
    // Reason and InfoType decide what the data after them means.
    var codes: [String: UInt16] = [:]
    func u16() -> UInt16? {
      guard data.count - at >= 2 else { return nil }
      defer { at += 2 }
      return UInt16(data[at]) | UInt16(data[at + 1]) << 8
    }
    func rest() -> [UInt8] {
      defer { at = data.count }
      return Array(data[at...])
    }
    for item in layout {
      switch item.kind {
      case .cid:
        guard let v = u16() else { return out }
        out.append(Field(item.name, .unsigned(UInt64(v), hexDigits: 4)))
      case .psm:
        guard let v = u16() else { return out }
        out.append(Field(item.name, .code(UInt64(v), hexDigits: 4, name: L2CAPPSM(rawValue: v).name)))
      case .count:
        guard let v = u16() else { return out }
        out.append(Field(item.name, .unsigned(UInt64(v), hexDigits: 0)))
      case .uint8:
        guard at < data.count else { return out }
        out.append(Field(item.name, .unsigned(UInt64(data[at]), hexDigits: 2)))
        at += 1
      case .named(let names):
        guard let v = u16() else { return out }
        codes[item.name] = v
        out.append(Field(item.name, .code(UInt64(v), hexDigits: 4, name: names[v] ?? "Unknown (0x\(hex(v)))")))
      case .flags:
        guard let v = u16() else { return out }
        out.append(Field(item.name, .flags(UInt64(v), hexDigits: 4, names: v & 1 != 0 ? ["Continuation"] : [])))
      case .milliseconds(let scale):
        guard let v = u16() else { return out }
        out.append(Field(item.name, .measure(UInt64(v), hexDigits: 4, value: Double(v) * scale, unit: "ms")))
      case .rejectData:
        out += rejectDataFields(reason: codes["Reason"] ?? 0, rest())
      case .informationData:
        out += informationDataFields(infoType: codes["InfoType"] ?? 0, rest())
      case .cidList:
        var index = 0
        while let v = u16() {
          out.append(Field("\(item.name)[\(index)]", .unsigned(UInt64(v), hexDigits: 4)))
          index += 1
        }
      case .rest:
        let bytes = rest()
        if !bytes.isEmpty { out.append(Field(item.name, .bytes(bytes))) }
      }
    }
    return out
  }

  /// Command Reject data (Table 4.4): Actual sigMTU for reason 0x0001, Requested
  /// CIDs for 0x0002.
  static func rejectDataFields(reason: UInt16, _ data: [UInt8]) -> [Field] {
    switch (reason, data.count) {
    case (0x0001, 2):
      return [Field("Actual sigMTU", .unsigned(UInt64(data[0]) | UInt64(data[1]) << 8, hexDigits: 0))]
    case (0x0002, 4):
      return [
        .group(
          "Requested CIDs",
          [
            Field("Local CID", .unsigned(UInt64(data[0]) | UInt64(data[1]) << 8, hexDigits: 4)),
            Field("Remote CID", .unsigned(UInt64(data[2]) | UInt64(data[3]) << 8, hexDigits: 4)),
          ])
      ]
    default:
      return data.isEmpty ? [] : [Field("Data", .bytes(data))]
    }
  }

  /// Information Response data: the Connectionless MTU, the Extended Features Mask
  /// or the Fixed Channels Supported bitmap.
  static func informationDataFields(infoType: UInt16, _ data: [UInt8]) -> [Field] {
    var value: UInt64 = 0
    for (i, byte) in data.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
    switch (infoType, data.count) {
    case (0x0001, 2): return [Field("Connectionless MTU", .unsigned(value, hexDigits: 0))]
    case (0x0002, 4): return [Field("Extended Features Mask", .unsigned(value, hexDigits: 8))]
    case (0x0003, 8): return [Field("Fixed Channels Supported", .unsigned(value, hexDigits: 16))]
    default: return data.isEmpty ? [] : [Field("Data", .bytes(data))]
    }
  }
}

/// The parameters of a signaling command. Lists and option blocks stay where they
/// are in the record, as `ByteRange`s (read CID lists with `L2CAPSignalingPDU.cids`).
public enum L2CAPSignalingParameters: Hashable, Sendable {
  /// Command Reject: Reason, and Data whose meaning depends on it.
  case commandReject(reason: UInt16, data: ByteRange)
  /// Connection Request.
  case connectionRequest(psm: UInt16, sourceCID: UInt16)
  /// Connection Response and Create Channel Response.
  case connectionResponse(destinationCID: UInt16, sourceCID: UInt16, result: UInt16, status: UInt16)
  /// Configuration Request.
  case configurationRequest(destinationCID: UInt16, flags: UInt16, options: ByteRange)
  /// Configuration Response.
  case configurationResponse(sourceCID: UInt16, flags: UInt16, result: UInt16, options: ByteRange)
  /// Disconnection Request and Response (the response echoes the request's CIDs).
  case disconnection(destinationCID: UInt16, sourceCID: UInt16)
  /// Echo Request and Response.
  case echo(data: ByteRange)
  /// Information Request.
  case informationRequest(infoType: UInt16)
  /// Information Response.
  case informationResponse(infoType: UInt16, result: UInt16, data: ByteRange)
  /// Create Channel Request (AMP).
  case createChannelRequest(psm: UInt16, sourceCID: UInt16, controllerID: UInt8)
  /// Move Channel Request (AMP).
  case moveChannelRequest(initiatorCID: UInt16, controllerID: UInt8)
  /// Move Channel Response and Move Channel Confirmation Request (AMP).
  case moveChannelResult(initiatorCID: UInt16, result: UInt16)
  /// Move Channel Confirmation Response (AMP).
  case moveChannelConfirmationResponse(initiatorCID: UInt16)
  /// Connection Parameter Update Request: intervals in 1.25 ms, timeout in 10 ms.
  case connectionParameterUpdateRequest(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
  /// Connection Parameter Update Response and Credit Based Reconfigure Response.
  case result(UInt16)
  /// LE Credit Based Connection Request.
  case leCreditBasedConnectionRequest(spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16)
  /// LE Credit Based Connection Response.
  case leCreditBasedConnectionResponse(
    destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: UInt16)
  /// Flow Control Credit Indication.
  case flowControlCreditIndication(cid: UInt16, credits: UInt16)
  /// Credit Based Connection Request: 1 to 5 Source CIDs.
  case creditBasedConnectionRequest(
    spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: ByteRange)
  /// Credit Based Connection Response: one Destination CID per requested channel,
  /// 0x0000 for a refused one.
  case creditBasedConnectionResponse(
    mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: UInt16, destinationCIDs: ByteRange)
  /// Credit Based Reconfigure Request: the new MTU and MPS of the sender's endpoints
  /// listed as Destination CIDs.
  case creditBasedReconfigureRequest(mtu: UInt16, mps: UInt16, destinationCIDs: ByteRange)
  /// An unknown code, or data too short for its command.
  case undecoded(ByteRange)
}
