/// One ATT PDU: the opcode and its parameters (Core 6.0, Vol 3, Part F, 3.3).
///
///     0         1
///     +---------+-----------------------------+
///     | opcode  | parameters (0 to ATT_MTU-1) |
///     +---------+-----------------------------+
///
/// Byte ranges in the parameters are absolute offsets in the buffer the cursor was
/// made over; `fields(_:)` and `forEachHandle(_:_:)` take that buffer again.
public struct ATTPDU: Hashable, Sendable {
  public var opcode: ATTOpcode
  public var parameters: ATTParameters
  /// The first handle of a list-shaped PDU, read while decoding so that `handle`
  /// needs no bytes.
  public var firstListedHandle: UInt16?

  public init(opcode: ATTOpcode, parameters: ATTParameters, firstListedHandle: UInt16? = nil) {
    self.opcode = opcode
    self.parameters = parameters
    self.firstListedHandle = firstListedHandle
  }

  /// The default and smallest ATT_MTU on LE (Core 6.0, Vol 3, Part F, 3.2.8).
  public static let minimumMTU: UInt16 = 23

  /// Every diagnostic id `decode` emits, with what it means.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("att.truncated", "an ATT PDU has no opcode byte, or its parameters end inside a field"),
    ("att.invalid", "an ATT parameter cannot be read as its type (a UUID of an unusual size)"),
    ("att.length.invalid", "an ATT PDU's parameter length breaks its opcode's rule (exactly, at least, one of two)"),
    ("att.opcode.unknown", "an ATT opcode this decoder does not know; its parameters are kept as bytes"),
    ("att.format.invalid", "a Find Information Response Format other than 0x01 or 0x02"),
    ("att.list.invalid", "an ATT list that is not a whole number of entries, or whose entry length is too small"),
    ("att.mtu.invalid", "an Exchange MTU Client or Server Rx MTU below the minimum of 23"),
  ]

  /// Decodes one ATT PDU from the rest of `c` (an L2CAP payload on CID 0x0004 or an
  /// EATT channel). Throws only when not even the opcode is there; parameters that
  /// break the opcode's length rule come back as `.malformed` with a diagnostic.
  public static func decode(_ c: inout ByteCursor, diagnostics: inout [Diagnostic]) throws(DecodeError) -> ATTPDU {
    let opcode = ATTOpcode(rawValue: try c.readUInt8())
    let start = c.offset
    let count = c.remaining
    guard let position = opcode.position else {
      diagnostics.append(
        Diagnostic(
          id: "att.opcode.unknown", severity: .info,
          "unknown opcode 0x\(hex(opcode.rawValue)) with \(count) parameter \(count == 1 ? "byte" : "bytes")"))
      return ATTPDU(opcode: opcode, parameters: .unknown(c.readRemainingRange()))
    }
    // The same parameters again, for the checks that need their bytes.
    var probe = c
    guard
      let parameters = ATTOpcode.table[position].length.parse(
        opcode.name, &c, lengthID: "att.length.invalid", diagnostics: &diagnostics, ATTOpcode.table[position].parse)
    else {
      return ATTPDU(opcode: opcode, parameters: .malformed(ByteRange(start: start, count: count)))
    }
    var pdu = ATTPDU(opcode: opcode, parameters: parameters)
    pdu.check(&probe, diagnostics: &diagnostics)
    return pdu
  }

  /// Checks what the length rule cannot (list entry sizes, formats, MTU minimum) and
  /// notes the first handle of a list.
  private mutating func check(_ p: inout ByteCursor, diagnostics: inout [Diagnostic]) {
    func report(_ id: String, _ message: String) {
      diagnostics.append(Diagnostic(id: id, severity: .warning, message))
    }
    func first(after skip: Int, _ p: inout ByteCursor) -> UInt16? {
      guard (try? p.readRange(skip)) != nil else { return nil }
      return try? p.readHandle()
    }
    // Only built when something is reported: decoding a good PDU allocates nothing.
    var name: String { messageName(opcode.name) }
    switch parameters {
    case .mtu(let mtu) where mtu < Self.minimumMTU:
      let side = opcode == .exchangeMTURequest ? "client" : "server"
      report("att.mtu.invalid", "\(side) rx MTU \(mtu) is below the minimum \(Self.minimumMTU)")
    case .findInformation(let format, let list):
      guard let size = ATTParameters.findInformationEntrySize(format: format) else {
        report("att.format.invalid", "\(name) format 0x\(hex(format)) is neither 0x01 nor 0x02")
        return
      }
      checkWhole(list, entry: size, name, report)
      firstListedHandle = first(after: 1, &p)
    case .handlesInformationList(let list):
      checkWhole(list, entry: 4, name, report)
      firstListedHandle = first(after: 0, &p)
    case .attributeDataList(let length, let list):
      let smallest = attributeDataHeader
      if length < smallest {
        report("att.list.invalid", "\(name) length \(length) is below \(smallest)")
      } else {
        checkWhole(list, entry: Int(length), name, report)
      }
      firstListedHandle = first(after: 1, &p)
    case .handleList(let list):
      checkWhole(list, entry: 2, name, report)
      firstListedHandle = first(after: 0, &p)
    case .multipleHandleValue:
      var walk = p
      firstListedHandle = first(after: 0, &p)
      // Each tuple is handle, length, value; a value may not run past the PDU.
      while walk.remaining >= 4 {
        let tupleStart = walk.offset
        _ = try? walk.readHandle()
        let length = Int((try? walk.readUInt16()) ?? 0)
        guard (try? walk.readRange(length)) != nil else {
          report(
            "att.list.invalid",
            "\(name) tuple at offset \(tupleStart) needs \(length) value bytes, \(walk.remaining) left")
          return
        }
      }
      if !walk.isAtEnd {
        report("att.list.invalid", "\(name) ends with \(walk.remaining) bytes that are not a whole tuple")
      }
    default:
      break
    }
  }

  private func checkWhole(
    _ list: ByteRange, entry: Int, _ name: @autoclosure () -> String, _ report: (String, String) -> Void
  ) {
    guard entry > 0, list.count % entry != 0 else { return }
    report(
      "att.list.invalid",
      "\(name()) has \(list.count) list bytes, not a whole number of \(entry)-byte entries")
  }
}
