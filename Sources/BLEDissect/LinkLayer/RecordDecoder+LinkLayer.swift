import BLECapture

extension RecordDecoder {
  /// A sniffer record: the LL packet, and for LL Data PDUs the L2CAP PDU through the
  /// same reassembly and decoders as HCI ACL data. Each connection and direction is
  /// a stream of fragments, keyed as ACL is (no adapter, the connection's number as
  /// the handle, central→peripheral as `sent`); LLID 10 starts a PDU, 01 continues it.
  mutating func decodeLinkLayer(_ record: Record, _ linkType: LinkType, into decoded: inout DecodedRecord) {
    guard let fragment = linkLayer.decode(record, linkType, into: &decoded) else { return }
    let raw = UnsafeRawBufferPointer(record.bytes)
    let end = min(raw.count, fragment.payload.start + fragment.payload.count)
    let bytes = UnsafeRawBufferPointer(rebasing: raw[min(fragment.payload.start, end)..<end])
    if fragment.standalone {
      // A repeat or a damaged packet must not disturb the PDU under way: decode
      // it only when it holds a whole L2CAP PDU.
      guard fragment.pb == 2, let length = bytes.littleEndianUInt16(at: 0), 4 + Int(length) <= bytes.count else {
        return
      }
      decodeL2CAP(
        raw, pduStart: fragment.payload.start, key: fragment.key, group: nil, fragments: 1, isCut: false,
        into: &decoded)
      return
    }
    let acl = ACLLayer(
      handle: fragment.key.handle, pb: fragment.pb, bc: 0, length: UInt16(truncatingIfNeeded: bytes.count))
    decodeACL(record, acl, key: fragment.key, fragment: bytes, into: &decoded)
  }
}

extension ACLLayer {
  /// The ACL view of an LL Data PDU: LLID 10 as a start, 01 as a continuation.
  public static func linkLayer(connection: UInt16, llid: LLID, length: UInt16) -> ACLLayer {
    ACLLayer(handle: connection, pb: llid == .start ? 2 : 1, bc: 0, length: length)
  }
}

extension LLPacket {
  /// The field tree of `show -v`: the sniffer header, then the PDU.
  public func fields(_ record: Record) -> [Field] {
    var radioFields: [Field] = []
    if let channel = radio.channel {
      radioFields.append(Field("Channel Index", .unsigned(UInt64(channel), hexDigits: 0)))
    }
    if let rssi = radio.rssi {
      radioFields.append(Field("RSSI", .measure(0, hexDigits: 0, value: Double(rssi), unit: "dBm")))
    }
    if let noise = radio.noise {
      radioFields.append(Field("Noise", .measure(0, hexDigits: 0, value: Double(noise), unit: "dBm")))
    }
    radioFields.append(Field("CRC", .text(radio.crc.rawValue)))
    if let phy = radio.phy {
      radioFields.append(
        Field("PHY", .code(UInt64(phy), hexDigits: 2, name: ["LE 1M", "LE 2M", "LE Coded"][Int(phy) - 1])))
    }
    if let counter = radio.eventCounter, data != nil {
      radioFields.append(Field("Event Counter", .unsigned(UInt64(counter), hexDigits: 0)))
    }
    if radio.encrypted {
      radioFields.append(Field("Encrypted", .text(radio.decrypted ? "decrypted by the sniffer" : "yes")))
    }
    var pdu: [Field] = [Field("Access Address", .unsigned(UInt64(accessAddress), hexDigits: 8))]
    if let advertising {
      pdu.append(Field("PDU Type", .code(UInt64(advertising.type.rawValue), hexDigits: 1, name: advertising.name)))
      pdu.append(Field("ChSel", .unsigned(advertising.chSel ? 1 : 0, hexDigits: 0)))
      pdu.append(Field("TxAdd", .text(advertising.txAdd ? "Random" : "Public")))
      pdu.append(Field("RxAdd", .text(advertising.rxAdd ? "Random" : "Public")))
      pdu.append(Field("Length", .unsigned(UInt64(advertising.length), hexDigits: 0)))
      for (name, address) in [
        ("InitA", advertising.initA), ("ScanA", advertising.scanA), ("AdvA", advertising.advA),
        ("TargetA", advertising.targetA),
      ] {
        if let address { pdu.append(Field(name, .address(address))) }
      }
      if let connect = advertising.connect {
        pdu.append(
          .group(
            "LLData",
            [
              Field("AA", .unsigned(UInt64(connect.accessAddress), hexDigits: 8)),
              Field("CRCInit", .unsigned(UInt64(connect.crcInit), hexDigits: 6)),
              Field(
                "WinSize",
                .measure(UInt64(connect.windowSize), hexDigits: 2, value: Double(connect.windowSize) * 1.25, unit: "ms")
              ),
              Field(
                "WinOffset",
                .measure(
                  UInt64(connect.windowOffset), hexDigits: 4, value: Double(connect.windowOffset) * 1.25, unit: "ms")),
              Field(
                "Interval",
                .measure(UInt64(connect.interval), hexDigits: 4, value: connect.intervalMilliseconds, unit: "ms")),
              Field("Latency", .unsigned(UInt64(connect.latency), hexDigits: 0)),
              Field(
                "Timeout",
                .measure(UInt64(connect.timeout), hexDigits: 4, value: Double(connect.timeout) * 10, unit: "ms")),
              Field("ChM", .unsigned(connect.channelMap, hexDigits: 10)),
              Field("Hop", .unsigned(UInt64(connect.hop), hexDigits: 0)),
              Field("SCA", .unsigned(UInt64(connect.sca), hexDigits: 0)),
            ]))
      }
      if let ext = advertising.extended {
        var children = [Field("AdvMode", .unsigned(UInt64(ext.advMode), hexDigits: 0))]
        if let did = ext.did { children.append(Field("DID", .unsigned(UInt64(did), hexDigits: 3))) }
        if let sid = ext.sid { children.append(Field("SID", .unsigned(UInt64(sid), hexDigits: 0))) }
        if let channel = ext.auxChannel {
          children.append(Field("AuxPtr Channel Index", .unsigned(UInt64(channel), hexDigits: 0)))
        }
        if let power = ext.txPower { children.append(Field("TxPower", .signed(Int64(power)))) }
        pdu.append(.group("Extended Header", children))
      }
    }
    if let data {
      pdu.append(Field("LLID", .code(UInt64(data.llid.rawValue), hexDigits: 1, name: data.llid.name)))
      pdu.append(Field("NESN", .unsigned(UInt64(data.nesn), hexDigits: 0)))
      pdu.append(Field("SN", .unsigned(UInt64(data.sn), hexDigits: 0)))
      pdu.append(Field("MD", .unsigned(data.md ? 1 : 0, hexDigits: 0)))
      pdu.append(Field("Length", .unsigned(UInt64(data.length), hexDigits: 0)))
      if let direction {
        pdu.append(
          Field("Direction", .text(direction == .centralToPeripheral ? "Central → Peripheral" : "Peripheral → Central"))
        )
      }
      if isRetransmission {
        pdu.append(Field("Retransmission", .text("same SN as the previous PDU, not acknowledged")))
      }
      if isEncrypted {
        let raw = UnsafeRawBufferPointer(record.bytes)
        let end = min(raw.count, data.payload.start + data.payload.count)
        pdu.append(Field("Encrypted Payload", .bytes(Array(raw[min(data.payload.start, end)..<end]))))
      }
      if let control = data.control {
        var code = Field("Opcode", .code(UInt64(control.opcode.rawValue), hexDigits: 2, name: control.opcode.name))
        code.children = control.parameters
        pdu.append(.group("LL Control PDU", [code]))
      }
    }
    if let crc { pdu.append(Field("CRC", .unsigned(UInt64(crc), hexDigits: 6))) }
    return [.group("Sniffer Header (link type \(linkType.rawValue))", radioFields), .group("Link Layer", pdu)]
  }
}
