import BLECapture

extension HCILayer {
  /// The spec name of the command or event (the LE subevent's for LE Meta events), or
  /// the data packet's kind.
  public var name: String {
    if let event {
      if event == HCIEventCode.leMeta.rawValue, let subevent { return LESubeventCode(rawValue: subevent).name }
      return HCIEventCode(rawValue: event).name
    }
    if type == .command, let opcode { return HCIOpcode(rawValue: opcode).name }
    switch type {
    case .acl: return "ACL Data"
    case .sco: return "Synchronous Data"
    case .iso: return "ISO Data"
    default: return type.name
    }
  }
}

/// The verbose field tree of a record (`show -v`), layer by layer. Built on demand.
extension DecodedRecord {
  public func fields(_ record: Record) -> [Field] {
    var tree: [Field] = []
    if let ll { tree += ll.fields(record) }
    if let hci {
      switch hci.type {
      case .command, .event:
        var code: Field
        if let event = hci.event {
          code = Field("HCI Event", .code(UInt64(event), hexDigits: 2, name: HCIEventCode(rawValue: event).name))
        } else {
          code = Field("HCI Command", .code(UInt64(hci.opcode ?? 0), hexDigits: 4, name: hci.name))
        }
        code.children = hciParameters(record)
        tree.append(code)
      default:
        tree.append(Field("HCI Packet Type", .code(UInt64(hci.type.rawValue), hexDigits: 2, name: hci.type.name)))
      }
    }
    if let acl {
      tree.append(
        .group(
          "ACL Data",
          [
            Field("Connection_Handle", .unsigned(UInt64(acl.handle), hexDigits: 4)),
            Field("PB_Flag", .code(UInt64(acl.pb), hexDigits: 1, name: Self.packetBoundaryNames[Int(acl.pb)])),
            Field("BC_Flag", .unsigned(UInt64(acl.bc), hexDigits: 1)),
            Field("Data_Total_Length", .unsigned(UInt64(acl.length), hexDigits: 0)),
          ]))
    }
    guard let l2cap else { return tree }
    withPayloadBytes(record) { bytes in
      var group: [Field] = [
        Field("Length", .unsigned(UInt64(l2cap.length), hexDigits: 0)),
        Field("Channel ID", .code(UInt64(l2cap.cid), hexDigits: 4, name: L2CAPChannelID(rawValue: l2cap.cid).name)),
      ]
      if let psm = l2cap.psm { group.append(Field("PSM", .unsigned(UInt64(psm), hexDigits: 4))) }
      if let sduLength = l2cap.sduLength {
        group.append(Field("L2CAP SDU Length", .unsigned(UInt64(sduLength), hexDigits: 0)))
      }
      if l2cap.fragments > 1 { group.append(Field("Fragments", .unsigned(UInt64(l2cap.fragments), hexDigits: 0))) }
      tree.append(.group("L2CAP", group))
      if let signaling { tree.append(.group("L2CAP Signaling", signaling.fields(bytes))) }
      if let att { tree.append(.group("ATT", att.fields(bytes))) }
      if let smp { tree.append(.group("SMP", smp.fields(bytes))) }
      if signaling == nil && att == nil && smp == nil, l2cap.payload.count > 0 {
        let end = min(bytes.count, l2cap.payload.start + l2cap.payload.count)
        tree.append(Field("Payload", .bytes(Array(bytes[min(l2cap.payload.start, end)..<end]))))
      }
    }
    return tree
  }

  static let packetBoundaryNames = [
    "First non-automatically-flushable packet", "Continuing fragment", "First automatically flushable packet",
    "Complete L2CAP PDU",
  ]
}
