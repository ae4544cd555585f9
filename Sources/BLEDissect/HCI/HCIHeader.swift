/// The headers of HCI packets: what `show` needs to say which command, event or
/// connection a packet belongs to. Parameters are decoded elsewhere.
///
/// Core 6.0, Vol 4, Part E, 5.4:
///
///     command:  opcode u16 | parameter length u8 | parameters
///     event:    event code u8 | parameter length u8 | parameters
///     ACL:      handle:12 PB:2 BC:2 | data length u16 | data
///     SCO:      handle:12 status:2 RFU:2 | length u8 | data
///     ISO:      handle:12 PB:2 TS:1 RFU:1 | length:14 RFU:2 | data
public struct HCILayer: Hashable, Sendable {
  public var type: HCIPacketType
  /// The command's opcode, or for Command Complete/Status the opcode answered.
  public var opcode: UInt16?
  public var event: UInt8?
  /// LE Meta subevent code.
  public var subevent: UInt8?
  /// The status of Command Complete/Status and of events that start with one.
  public var status: UInt8?
  /// Connection handle of data packets.
  public var handle: UInt16?
}

/// The ACL data header.
public struct ACLLayer: Hashable, Sendable {
  public var handle: UInt16
  /// Packet boundary flag: 0 first non-flushable, 1 continuing fragment, 2 first
  /// flushable, 3 complete L2CAP PDU.
  public var pb: UInt8
  public var bc: UInt8
  public var length: UInt16
}

extension HCILayer {
  /// Decodes the header of an HCI packet; the packet type comes from the framing.
  /// `cut` is how many bytes the capture source left out at the end: length fields
  /// describe the packet as it was, so they are checked against the original size.
  static func parse(
    type: HCIPacketType, _ c: inout ByteCursor, cut: Int, acl: inout ACLLayer?, diagnostics: inout [Diagnostic]
  ) throws(DecodeError) -> HCILayer {
    var layer = HCILayer(type: type)
    switch type {
    case .command:
      layer.opcode = try c.readUInt16()
      let length = try c.readUInt8()
      checkLength(declared: Int(length), present: c.remaining + cut, &diagnostics)
    case .event:
      let code = try c.readUInt8()
      layer.event = code
      let length = try c.readUInt8()
      checkLength(declared: Int(length), present: c.remaining + cut, &diagnostics)
      var parameters = try c.slice(min(Int(length), c.remaining))
      try parseEventPrefix(code, &parameters, into: &layer)
    case .acl:
      let word = try c.readUInt16()
      let length = try c.readUInt16()
      layer.handle = word & 0x0FFF
      acl = ACLLayer(
        handle: word & 0x0FFF, pb: UInt8(word >> 12 & 3), bc: UInt8(word >> 14 & 3), length: length)
      checkLength(declared: Int(length), present: c.remaining + cut, &diagnostics)
    case .sco:
      layer.handle = try c.readUInt16() & 0x0FFF
    case .iso:
      layer.handle = try c.readUInt16() & 0x0FFF
    default:
      break
    }
    return layer
  }

  private static func parseEventPrefix(
    _ code: UInt8, _ p: inout ByteCursor, into layer: inout HCILayer
  ) throws(DecodeError) {
    switch code {
    case 0x0E:  // Command Complete: Num_HCI_Command_Packets, Command_Opcode, return parameters
      _ = try p.readUInt8()
      layer.opcode = try p.readUInt16()
      if !p.isAtEnd { layer.status = try p.readUInt8() }
    case 0x0F:  // Command Status: Status, Num_HCI_Command_Packets, Command_Opcode
      layer.status = try p.readUInt8()
      _ = try p.readUInt8()
      layer.opcode = try p.readUInt16()
    case 0x3E:  // LE Meta: Subevent_Code, then the subevent's parameters
      let subevent = try p.readUInt8()
      layer.subevent = subevent
      if HCIParameters.hasLeadingStatus(event: code, subevent: subevent), !p.isAtEnd {
        layer.status = try p.readUInt8()
      }
    default:
      if HCIParameters.hasLeadingStatus(event: code, subevent: nil), !p.isAtEnd { layer.status = try p.readUInt8() }
    }
  }

  private static func checkLength(declared: Int, present: Int, _ diagnostics: inout [Diagnostic]) {
    guard declared != present else { return }
    diagnostics.append(
      Diagnostic(
        id: "hci.length.mismatch", severity: .warning,
        "header says \(declared) bytes follow, the packet has \(present)"))
  }
}

extension HCILayer {
  init(type: HCIPacketType) {
    self.type = type
  }
}
