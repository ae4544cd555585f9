import BLECapture

/// The part of an LL Data PDU that goes on to L2CAP: where it is in the record,
/// which stream it continues (one per connection and direction, as ACL), and
/// whether it may join reassembly.
struct LLFragment {
  var key: ACLKey
  /// As an ACL Packet_Boundary_Flag: 1 continuation (LLID 01), 2 start (LLID 10).
  var pb: UInt8
  var payload: ByteRange
  /// A retransmission or a packet with a bad CRC: decoded when it holds a whole
  /// L2CAP PDU, but kept out of reassembly.
  var standalone: Bool
}

/// Decodes air sniffer records (`RecordKind.linkLayer`): the sniffer header, the
/// advertising or data channel PDU, and what that needs across records: the
/// connections that CONNECT_IND opened (their number, CRCInit and encryption), who
/// sent each data PDU when the sniffer does not say, and the sequence numbers that
/// reveal retransmissions.
struct LinkLayerDecoder {
  struct Connection {
    var number: UInt16
    var crcInit: UInt32?
    /// The last packet: when, which way, how long on air (µs).
    var lastTime: Int64 = .min
    var lastDirection: LLDirection = .peripheralToCentral
    var lastAirtime: Int64 = 0
    /// SN of the last packet each way, and NESN of the last packet each way.
    var sn: [UInt8?] = [nil, nil]
    var nesn: [UInt8?] = [nil, nil]
    /// Whether the peer acknowledged the last SN each way: a NESN other than it came back
    /// since (a packet the sniffer missed in between does not hide the acknowledgement).
    var acknowledged = [false, false]
    /// LL_START_ENC_REQ seen and no LL_PAUSE_ENC_RSP since: payloads are ciphertext.
    var encrypted = false
    /// The last connection event's anchor (the central's first packet), the
    /// connection interval, and the interval an LL_CONNECTION_UPDATE_IND announced.
    var anchor: Int64?
    var interval: Int64?
    var pendingInterval: Int64?
  }

  private var connections: [UInt32: Connection] = [:]
  private var nextNumber: UInt16 = 1
  /// Connections remembered at once (each is a few dozen bytes).
  static let maxConnections = 4096

  /// Every diagnostic id link-layer decoding emits.
  static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("ll.truncated", "a sniffer header or link-layer PDU ends inside a field"),
    ("ll.invalid", "a sniffer header holds a value that cannot be (an unknown layout, a length below its minimum)"),
    ("ll.length.invalid", "an advertising PDU or LL Control PDU has a payload length its PDU type does not allow"),
    ("ll.length.mismatch", "the PDU header's Length disagrees with the bytes the packet holds"),
    ("ll.crc.bad", "the sniffer (or the CRC check) says the packet was received with a bad CRC"),
    (
      "ll.retransmission",
      "a data channel PDU with a payload repeats the previous one in its direction (same SN, not acknowledged)"
    ),
    ("ll.encrypted", "the payload is encrypted and the sniffer did not decrypt it; it is not decoded"),
    ("ll.llid.reserved", "a data channel PDU has the reserved LLID 0b00"),
  ]

  mutating func decode(_ record: Record, _ linkType: LinkType, into decoded: inout DecodedRecord) -> LLFragment? {
    let raw = UnsafeRawBufferPointer(record.bytes)
    var c = ByteCursor(raw.bytes, layer: .ll)
    let time = record.timestamp.unixMicroseconds
    var packet: LLPacket
    do throws(DecodeError) {
      guard let radio = try LLRadioHeader.parse(linkType, &c) else { return nil }
      packet = LLPacket(linkType: linkType, radio: radio, accessAddress: try c.readUInt32())
    } catch {
      if !record.isCutBySource {
        decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
      }
      return nil
    }
    // The PDU and the CRC: the CRC is the last three bytes the packet holds.
    let pduStart = c.offset
    packet.pduOffset = pduStart
    let available = c.remaining
    let isAdvertising = packet.accessAddress == LLPacket.advertisingAccessAddress || packet.radio.auxiliary
    var fragment: LLFragment?
    do throws(DecodeError) {
      guard available >= 2 else {
        throw DecodeError(.truncated(needed: 2, available: available), at: pduStart, layer: .ll)
      }
      let length = Int(raw[pduStart + 1])
      let pduEnd = pduStart + 2 + length
      if pduEnd + 3 <= raw.count {
        packet.crc = UInt32(raw[pduEnd]) | UInt32(raw[pduEnd + 1]) << 8 | UInt32(raw[pduEnd + 2]) << 16
        if pduEnd + 3 != raw.count, !record.isCutBySource {
          decoded.diagnostics.append(
            Diagnostic(
              id: "ll.length.mismatch", severity: .warning,
              "pdu length \(length) leaves \(raw.count - pduEnd - 3) bytes after the crc"))
        }
      } else if !record.isCutBySource {
        decoded.diagnostics.append(
          Diagnostic(
            id: "ll.length.mismatch", severity: .warning,
            "pdu length \(length) needs \(2 + length + 3) bytes with the crc, the packet holds \(available)"))
      }
      let end = min(raw.count, pduEnd)
      var pdu = ByteCursor(UnsafeRawBufferPointer(rebasing: raw[pduStart..<end]).bytes, base: pduStart, layer: .ll)
      if isAdvertising {
        try decodeAdvertising(&pdu, &packet, record, time, into: &decoded)
      } else {
        fragment = try decodeData(&pdu, &packet, record, time, into: &decoded)
      }
    } catch {
      if !record.isCutBySource {
        decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
      }
    }
    if packet.radio.crc == .bad {
      decoded.diagnostics.append(
        Diagnostic(id: "ll.crc.bad", severity: .warning, "received with a bad crc (\(Self.hex24(packet.crc)))"))
    }
    decoded.ll = packet
    return fragment
  }

  static func hex24(_ crc: UInt32?) -> String { crc.map { "0x" + hex(UInt32($0)).suffix(6) } ?? "no crc" }

  // MARK: - Advertising channel

  private mutating func decodeAdvertising(
    _ c: inout ByteCursor, _ packet: inout LLPacket, _ record: Record, _ time: Int64,
    into decoded: inout DecodedRecord
  ) throws(DecodeError) {
    let start = c.offset
    let header = try c.readUInt8()
    let length = try c.readUInt8()
    let type = LLAdvertisingPDUType(rawValue: header)
    let secondary = packet.radio.auxiliary || (packet.radio.channel.map { $0 < 37 } ?? false)
    var pdu = LLAdvertisingPDU(
      type: type, isSecondary: secondary, chSel: header & 0x20 != 0, txAdd: header & 0x40 != 0,
      rxAdd: header & 0x80 != 0, length: length)
    if packet.radio.crc == .unchecked, let crc = packet.crc, c.remaining == Int(length) {
      packet.radio.crc = LLCRC.check(record, from: start, count: 2 + Int(length), crc: crc, initial: 0x555555)
    }
    defer { packet.advertising = pdu }
    guard let row = type.row else { return }
    if !row.length.allows(c.remaining) {
      decoded.diagnostics.append(
        Diagnostic(
          id: "ll.length.invalid", severity: .warning,
          "\(pdu.name) has \(c.remaining) payload bytes, needs \(row.length.text)"))
      if c.remaining < row.length.minimum { return }
    }
    // Where each address is, for tools that rewrite them (TxAdd says the first, RxAdd the second).
    func address(_ name: String, random: Bool) throws(DecodeError) -> DeviceAddress {
      let offset = c.offset
      let address = try c.readAddress()
      pdu.addressFields.append(LLAddressField(name: name, offset: offset, random: random))
      return address
    }
    switch row.layout {
    case .advertiserAndData:
      pdu.advA = try address("AdvA", random: pdu.txAdd)
      pdu.data = c.readRemainingRange()
    case .directed:
      pdu.advA = try address("AdvA", random: pdu.txAdd)
      pdu.targetA = try address("TargetA", random: pdu.rxAdd)
    case .scanRequest:
      pdu.scanA = try address("ScanA", random: pdu.txAdd)
      pdu.advA = try address("AdvA", random: pdu.rxAdd)
    case .connect:
      pdu.initA = try address("InitA", random: pdu.txAdd)
      pdu.advA = try address("AdvA", random: pdu.rxAdd)
      let connect = try Self.connectParameters(&c)
      pdu.connect = connect
      // A damaged or malformed CONNECT_IND opens no connection.
      guard packet.radio.crc != .bad, row.length.allows(Int(length)) else { break }
      if connections.count >= Self.maxConnections { connections.removeAll() }
      var connection = Connection(number: nextNumber, crcInit: connect.crcInit)
      connection.interval = Int64(connect.interval) * 1250
      connections[connect.accessAddress] = connection
      packet.connection = nextNumber
      nextNumber = nextNumber == 0x0FFF ? 1 : nextNumber + 1
    case .extended:
      try Self.extendedHeader(&c, &pdu)
      pdu.data = c.readRemainingRange()
    case .unknown:
      break
    }
    // A damaged packet's AD data would feed `devices` garbage.
    if packet.radio.crc != .bad, let report = Self.report(pdu, packet.radio, record, diagnostics: &decoded.diagnostics)
    {
      decoded.advertising = [report]
    }
  }

  /// LLData: AA (4), CRCInit (3), WinSize, WinOffset (2), Interval (2), Latency (2),
  /// Timeout (2), ChM (5), Hop and SCA (1).
  static func connectParameters(_ c: inout ByteCursor) throws(DecodeError) -> LLConnectParameters {
    let accessAddress = try c.readUInt32()
    let crcInit = try c.readUInt24()
    let windowSize = try c.readUInt8()
    let windowOffset = try c.readUInt16()
    let interval = try c.readUInt16()
    let latency = try c.readUInt16()
    let timeout = try c.readUInt16()
    let map = UInt64(try c.readUInt32()) | UInt64(try c.readUInt8()) << 32
    let hopSCA = try c.readUInt8()
    return LLConnectParameters(
      accessAddress: accessAddress, crcInit: crcInit, windowSize: windowSize, windowOffset: windowOffset,
      interval: interval, latency: latency, timeout: timeout, channelMap: map, hop: hopSCA & 0x1F, sca: hopSCA >> 5)
  }

  /// The Common Extended Advertising Payload Format's header: length and AdvMode,
  /// flags, then AdvA, TargetA, CTEInfo, AdvDataInfo, AuxPtr, SyncInfo, TxPower as
  /// the flags announce, then ACAD to the header's end.
  static func extendedHeader(_ c: inout ByteCursor, _ pdu: inout LLAdvertisingPDU) throws(DecodeError) {
    let first = try c.readUInt8()
    var header = try c.slice(Int(first & 0x3F))
    var ext = LLExtendedHeader(advMode: first >> 6, flags: 0)
    defer { pdu.extended = ext }
    guard !header.isAtEnd else { return }
    let flags = try header.readUInt8()
    ext.flags = flags
    if flags & 0x01 != 0 {
      pdu.advA = try header.readAddress()
      pdu.addressFields.append(LLAddressField(name: "AdvA", offset: header.offset - 6, random: pdu.txAdd))
    }
    if flags & 0x02 != 0 {
      pdu.targetA = try header.readAddress()
      pdu.addressFields.append(LLAddressField(name: "TargetA", offset: header.offset - 6, random: pdu.rxAdd))
    }
    if flags & 0x04 != 0 { _ = try header.readUInt8() }
    if flags & 0x08 != 0 {
      let info = try header.readUInt16()
      ext.did = info & 0x0FFF
      ext.sid = UInt8(info >> 12)
    }
    if flags & 0x10 != 0 {
      let pointer = try header.readUInt24()
      ext.auxChannel = UInt8(pointer & 0x3F)
      ext.auxPHY = [1, 2, 3, nil, nil, nil, nil, nil][Int(pointer >> 21 & 0x7)]
    }
    if flags & 0x20 != 0 { _ = try header.readRange(18) }
    if flags & 0x40 != 0 { ext.txPower = try header.readInt8() }
  }

  /// The advertising report an advertising PDU makes, as an HCI controller would
  /// report it, so that `devices` and the AD decoder treat both alike.
  static func report(
    _ pdu: LLAdvertisingPDU, _ radio: LLRadio, _ record: Record, diagnostics: inout [Diagnostic]
  ) -> AdvertisingReport? {
    guard let advA = pdu.advA else { return nil }
    var report: AdvertisingReport
    switch pdu.type {
    case .advInd, .advNonconnInd, .advScanInd, .scanRsp:
      let eventType: UInt16 = [0x00, 0, 0x03, 0, 0x04, 0, 0x02][Int(pdu.type.rawValue)]
      report = AdvertisingReport(kind: .legacy, eventType: eventType, data: pdu.data ?? ByteRange(start: 0, count: 0))
    case .advDirectInd:
      report = AdvertisingReport(kind: .directed, eventType: 0x01, data: ByteRange(start: 0, count: 0))
      report.directAddress = pdu.targetA
      report.directAddressType = pdu.rxAdd ? .random : .public
    case .advExtInd, .auxConnectRsp:
      var bits = ExtendedEventType()
      if (pdu.extended?.advMode ?? 0) & 1 != 0 { bits.insert(.connectable) }
      if (pdu.extended?.advMode ?? 0) & 2 != 0 { bits.insert(.scannable) }
      if pdu.targetA != nil { bits.insert(.directed) }
      report = AdvertisingReport(
        kind: .extended, eventType: bits.rawValue, data: pdu.data ?? ByteRange(start: 0, count: 0))
      report.sid = pdu.extended?.sid
      report.txPower = pdu.extended?.txPower
      report.directAddress = pdu.targetA
    default:
      return nil
    }
    report.address = advA
    report.addressType = pdu.txAdd ? .random : .public
    report.rssi = radio.rssi
    guard report.data.count > 0 else { return report }
    let data = report.data
    let bytes = UnsafeRawBufferPointer(record.bytes)
    let region = UnsafeRawBufferPointer(rebasing: bytes[data.start..<data.start + data.count])
    var ad = ByteCursor(region.bytes, base: data.start, layer: .adv)
    report.structures = ADStructure.parseAll(&ad, isCut: record.isCutBySource, diagnostics: &diagnostics)
    report.beacon = Beacon.recognise(report.structures, in: bytes)
    return report
  }

  // MARK: - Data channel

  private mutating func decodeData(
    _ c: inout ByteCursor, _ packet: inout LLPacket, _ record: Record, _ time: Int64,
    into decoded: inout DecodedRecord
  ) throws(DecodeError) -> LLFragment? {
    let start = c.offset
    let header = try c.readUInt8()
    let length = try c.readUInt8()
    var pdu = LLDataPDU(
      llid: LLID(rawValue: header), nesn: header >> 2 & 1, sn: header >> 3 & 1, md: header & 0x10 != 0,
      cp: header & 0x20 != 0, length: length, payload: ByteRange(start: c.offset, count: 0))
    if pdu.cp { _ = try c.readUInt8() }
    pdu.payload = ByteRange(start: c.offset, count: c.remaining)
    defer { packet.data = pdu }

    // The connection, opened by a CONNECT_IND or (up before the capture) by its
    // first packet with a good CRC.
    var connection = connections[packet.accessAddress]
    if connection == nil, packet.radio.crc != .bad {
      if connections.count >= Self.maxConnections { connections.removeAll() }
      connection = Connection(number: nextNumber)
      nextNumber = nextNumber == 0x0FFF ? 1 : nextNumber + 1
    }
    guard var connection else { return nil }
    defer { connections[packet.accessAddress] = connection }
    if packet.radio.crc == .unchecked, let crc = packet.crc, let initial = connection.crcInit,
      pdu.payload.start + pdu.payload.count == start + 2 + Int(length)
    {
      packet.radio.crc = LLCRC.check(record, from: start, count: 2 + Int(length), crc: crc, initial: initial)
    }
    packet.connection = connection.number

    // Direction: the sniffer's, or the connection event's order (the central
    // speaks first; within an event the two alternate, T_IFS = 150 µs apart).
    let airtime = Self.airtime(octets: 10 + Int(length), phy: packet.radio.phy)
    let direction: LLDirection
    if let said = packet.radio.direction {
      direction = said
    } else if connection.lastTime != .min, time - connection.lastTime < connection.lastAirtime + airtime + 150 + 1_000 {
      direction = connection.lastDirection.reversed
    } else {
      direction = Self.eventStart(time, &connection)
    }
    packet.direction = direction
    let crcBad = packet.radio.crc == .bad
    if !crcBad {
      connection.lastTime = time
      connection.lastDirection = direction
      connection.lastAirtime = airtime
      // A retransmission: the same SN as the last packet this way, which the
      // peer has not acknowledged (its last NESN still asks for that SN). Empty
      // PDUs repeat whenever a peripheral uses its latency; only data counts.
      let way = direction == .centralToPeripheral ? 0 : 1
      if let other = connection.sn[1 - way], pdu.nesn != other { connection.acknowledged[1 - way] = true }
      if length > 0, connection.sn[way] == pdu.sn, !connection.acknowledged[way] {
        packet.isRetransmission = true
        decoded.diagnostics.append(
          Diagnostic(
            id: "ll.retransmission", severity: .info,
            "sn \(pdu.sn) repeated \(direction == .centralToPeripheral ? "by the central" : "by the peripheral")"))
      }
      connection.sn[way] = pdu.sn
      connection.nesn[way] = pdu.nesn
      connection.acknowledged[way] = false
    }

    // Encryption: the nRF Sniffer flags it; otherwise everything after
    // LL_START_ENC_REQ is ciphertext until LL_PAUSE_ENC_RSP.
    let nordic = packet.linkType == .nordicBLE || packet.linkType == .user10
    let ciphertext =
      nordic ? packet.radio.encrypted && !packet.radio.decrypted : connection.encrypted && !packet.radio.decrypted
    if ciphertext, length > 0 {
      packet.isEncrypted = true
      decoded.diagnostics.append(
        Diagnostic(id: "ll.encrypted", severity: .info, "\(length)-byte encrypted payload, not decoded"))
      return nil
    }

    switch pdu.llid {
    case .control:
      var body = try c.slice(c.remaining)
      let opcode = LLControlOpcode(rawValue: try body.readUInt8())
      var parameters: [Field] = []
      if let row = opcode.row {
        if body.remaining != row.length, !crcBad {
          decoded.diagnostics.append(
            Diagnostic(
              id: "ll.length.invalid", severity: .warning,
              "\(row.name) has \(body.remaining) parameter bytes, needs exactly \(row.length)"))
        }
        if body.remaining >= row.length {
          for parameter in row.parameters { parameters.append(try parameter.read(&body)) }
        }
      }
      pdu.control = LLControlPDU(opcode: opcode, parameters: parameters)
      if !crcBad, !packet.isRetransmission {
        if opcode == .startEncReq { connection.encrypted = true }
        if opcode == .connectionUpdateInd, let units = parameters.lookup("Interval")?.value.integer {
          connection.pendingInterval = units * 1250
        }
        if opcode == .pauseEncRsp { connection.encrypted = false }
      }
      return nil
    case .start, .continuation:
      guard pdu.payload.count > 0 else { return nil }
      let key = ACLKey(adapter: nil, handle: connection.number, direction: direction.hostDirection)
      return LLFragment(
        key: key, pb: pdu.llid == .start ? 2 : 1, payload: pdu.payload, standalone: crcBad || packet.isRetransmission)
    default:
      decoded.diagnostics.append(
        Diagnostic(id: "ll.llid.reserved", severity: .warning, "data channel pdu with the reserved llid 0b00"))
      return nil
    }
  }

  /// Who sent the first packet heard in a connection event, when the sniffer does
  /// not say: the central's packets start events at its anchor points, one
  /// connection interval apart; a packet that starts later than that answers a
  /// central packet the sniffer missed (the peripheral speaks only when spoken to,
  /// at least T_IFS + the shortest packet, 150 + 80 µs, after the anchor).
  static func eventStart(_ time: Int64, _ connection: inout Connection) -> LLDirection {
    guard let anchor = connection.anchor, time > anchor else {
      connection.anchor = time
      return .centralToPeripheral
    }
    // Sniffer timestamps jitter by tens of µs and clocks drift; a peripheral's
    // reply starts at least 230 µs after the anchor, so 200 µs splits the two.
    for candidate in [connection.interval, connection.pendingInterval] {
      guard let interval = candidate, interval > 0 else { continue }
      let events = (time - anchor + interval / 2) / interval
      let residual = time - anchor - events * interval
      if residual.magnitude <= 200 {
        if candidate != connection.interval {
          connection.interval = interval
          connection.pendingInterval = nil
        }
        connection.anchor = time
        return .centralToPeripheral
      }
      if residual > 200, residual < 2_500 { return .peripheralToCentral }
    }
    // Off the anchors: the parameters changed (an update's instant moved them).
    if let pending = connection.pendingInterval {
      connection.interval = pending
      connection.pendingInterval = nil
    }
    connection.anchor = time
    return .centralToPeripheral
  }

  /// Microseconds a packet of `octets` (preamble to CRC) takes on air.
  static func airtime(octets: Int, phy: UInt8?) -> Int64 {
    switch phy {
    case 2: Int64(octets) * 4
    case 3: Int64(octets) * 64
    default: Int64(octets) * 8
    }
  }
}

/// The link layer's CRC-24 (Core 6.0, Vol 6, Part B, 3.1.1): polynomial
/// x²⁴+x¹⁰+x⁹+x⁶+x⁴+x³+x+1 over the PDU, bits least significant first, the shift
/// register preset with CRCInit (0x555555 on the advertising channels).
public enum LLCRC {
  public static func compute(_ bytes: UnsafeRawBufferPointer, initial: UInt32) -> UInt32 {
    // The register holds CRCInit bit-reversed: position 0 is its most significant bit.
    var state: UInt32 = 0
    for bit in 0..<24 where initial & (1 << bit) != 0 { state |= 1 << (23 - bit) }
    for byte in bytes {
      var value = byte
      for _ in 0..<8 {
        let next = (state ^ UInt32(value)) & 1
        value >>= 1
        state >>= 1
        if next != 0 { state = (state | 1 << 23) ^ 0x5A_6000 }
      }
    }
    return state
  }

  /// The CRC of a PDU whose octets changed from `old` to `new` (the same length),
  /// given its CRC as sent. The shift register is linear over GF(2), so the CRC moves
  /// by the CRC of the difference with a zero preset: a good CRC stays good and a bad
  /// one stays as bad, without knowing CRCInit.
  public static func updated(_ crc: UInt32, from old: [UInt8], to new: [UInt8]) -> UInt32 {
    precondition(old.count == new.count, "a CRC update keeps the PDU's length")
    let difference = zip(old, new).map { $0 ^ $1 }
    return difference.withUnsafeBytes { crc ^ compute($0, initial: 0) }
  }

  static func check(_ record: Record, from start: Int, count: Int, crc: UInt32, initial: UInt32) -> LLCRCStatus {
    let raw = UnsafeRawBufferPointer(record.bytes)
    guard start + count <= raw.count else { return .unchecked }
    return compute(UnsafeRawBufferPointer(rebasing: raw[start..<start + count]), initial: initial) == crc ? .ok : .bad
  }
}
