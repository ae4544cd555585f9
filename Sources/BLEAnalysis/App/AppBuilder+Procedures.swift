import BLECapture
import BLEDissect

/// GATT procedures: one call per procedure, however many requests it took; and the
/// notification and indication streams.
extension AppBuilder {
  mutating func att(
    _ att: ATTPDU, _ conn: ConnectionRef, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    let cid = analyzed.decoded.l2cap?.cid ?? 4
    switch att.opcode.kind {
    case .request where analyzed.awaitsAnswer:
      request(att, conn, cid: cid, local: record.direction != .received, record, analyzed, at)
    case .command:
      request(att, conn, cid: cid, local: record.direction != .received, record, analyzed, at)
    case .response, .error:
      guard let exchange = analyzed.exchange, let i = byRequest[exchange.requestFrame] else { return }
      answer(att, exchange, i, conn, cid: analyzed.decoded.l2cap?.peerCID ?? cid, record, analyzed, at)
    case .notification, .indication:
      notified(att, conn, local: record.direction == .received, record, analyzed, at)
    case .confirmation:
      guard let exchange = analyzed.exchange, let handle = exchange.handle else { return }
      let key = StreamKey(conn: conn.id, handle: handle, opcode: 0x1D, local: record.direction != .received)
      if let i = streams[key] { calls[i].stream?.confirmed += 1 }
    default:
      break
    }
  }

  static let discoveryTypes: Set<UInt32> = [0x2800, 0x2801, 0x2802, 0x2803]

  mutating func request(
    _ att: ATTPDU, _ conn: ConnectionRef, cid: UInt16, local: Bool, _ record: Record, _ analyzed: AnalyzedRecord,
    _ at: FrameTime
  ) {
    let key = ClientKey(conn: conn.id, local: local, cid: cid)
    var client = clients[key] ?? Client()
    defer { clients[key] = client }
    let opcode = att.opcode.rawValue
    var start: UInt16 = 0
    var end: UInt16 = 0
    var type: BluetoothUUID?
    var value: [UInt8] = []
    switch att.parameters {
    case .handleRange(let s, let e): (start, end) = (s, e)
    case .readByType(let s, let e, let t): (start, end, type) = (s, e, t)
    case .findByTypeValue(let s, let e, let t, let v):
      (start, end, type) = (s, e, BluetoothUUID(uuid16: t))
      value = analyzed.decoded.withPayloadBytes(record) { $0.copy(v) }
    default: break
    }
    let handle = att.handle
    let isCCCD = analyzed.attribute?.uuid == Self.cccd
    let isWrite = opcode == 0x12 || opcode == 0x52 || opcode == 0xD2
    let waited = adapters[record.adapter]?.waited.removeValue(forKey: conn.handle)

    // Does it continue the procedure before it?
    if let open = client.open, !client.closed {
      var continues = false
      switch opcode {
      case 0x04, 0x06, 0x08, 0x10:
        continues =
          client.opcode == opcode && client.type == type && client.value == value && client.end == end
          && start > client.lastStart
      case 0x0C:
        continues = (client.opcode == 0x0A || client.opcode == 0x0C) && client.handle == handle
      case 0x16, 0x18:
        continues = client.opcode == 0x16
      default:
        continues = false
      }
      if client.lookup, client.opcode == 0x04, isCCCD, isWrite, let handle,
        (client.lastStart...client.end).contains(handle)
      {
        // The Find Information before was this write's lookup.
        calls[open].kind = .setNotify
        Self.setNotify(&calls[open], att, handle, record, analyzed)
        continues = true
      }
      if continues {
        calls[open].requests.append(at.frame)
        calls[open].end = at
        if opcode == 0x0C { calls[open].mode = "long" }
        if opcode == 0x18, case .executeWrite(let flags) = att.parameters, flags == 0 {
          calls[open].outcome = "cancelled"
        }
        if opcode == 0x16, let v = att.value { calls[open].length = (calls[open].length ?? 0) + v.count }
        client.opcode = opcode
        client.lastStart = start
        client.lookup = false
        byRequest[at.frame] = open
        if att.opcode.kind == .command { client.open = nil }
        return
      }
    }

    // A PDU sent in several fragments began with the first.
    var begun: FrameTime?
    if case .last(let group) = analyzed.decoded.reassembly { begun = fragmentStarts.removeValue(forKey: group) }
    var call = AppCall(kind: .read, conn: conn, start: waited?.since ?? begun ?? at, end: at)
    call.byLocal = local
    call.requests = [at.frame]
    call.stall = waited?.stall
    call.attrHandle = analyzed.attribute?.valueHandle ?? handle
    Self.attribute(&call, analyzed.attribute)
    switch opcode {
    case 0x02:
      call.kind = .requestMTU
      call.requestedMTU = att.mtu
      call.attrHandle = nil
    case 0x04:
      call.kind = .discoverDescriptors
      call.attrHandle = start > 0 ? start - 1 : nil
      call.startHandle = start
      call.endHandle = end
      client.lookup = links[conn.id]?.discoveredStarts.contains(start) == true
    case 0x06, 0x10:
      call.kind = .discoverServices
      call.mode = opcode == 0x06 ? "by_uuid" : "all"
      if type == BluetoothUUID(uuid16: 0x2801) { call.mode = opcode == 0x06 ? "secondary_by_uuid" : "secondary" }
      if opcode == 0x06 { call.uuid = Self.uuid(value) }
      call.attrHandle = nil
      call.startHandle = start
      call.endHandle = end
    case 0x08:
      call.startHandle = start
      call.endHandle = end
      call.attrHandle = nil
      switch type?.shortValue {
      case 0x2803: call.kind = .discoverCharacteristics
      case 0x2802: call.kind = .discoverIncluded
      default:
        call.kind = .read
        call.mode = "by_uuid"
        call.uuid = type
      }
    case 0x0A: call.mode = "short"
    case 0x0C: call.mode = "long"
    case 0x0E, 0x20:
      call.mode = "multiple"
      call.attrHandle = nil
    case 0x12, 0x52, 0xD2:
      call.kind = .write
      call.mode = opcode == 0x12 ? "with_response" : opcode == 0x52 ? "without_response" : "signed"
      call.length = att.value?.count
      if let range = att.value, range.count == 2 {
        call.written16 = analyzed.decoded.withPayloadBytes(record) { $0.littleEndianUInt16(at: range.start) }
      }
      if isCCCD, let handle { Self.setNotify(&call, att, handle, record, analyzed) }
    case 0x16:
      call.kind = .write
      call.mode = "long"
      call.length = att.value?.count
    case 0x18:
      call.kind = .write
      call.mode = "long"
      call.attrHandle = nil
      if case .executeWrite(let flags) = att.parameters, flags == 0 { call.outcome = "cancelled" }
    default:
      call.mode = "unknown"
    }
    if let attribute = analyzed.attribute, let handle { Self.descriptorCall(&call, attribute, handle) }
    if att.opcode.kind == .command { call.end = at }
    // Did the client use handles it knew before discovering (cached handles)?
    if local, var link = links[conn.id], opcode != 0x02 {
      let discovery =
        [0x04, 0x06, 0x10].contains(opcode)
        || (opcode == 0x08 && type?.shortValue.map { Self.discoveryTypes.contains($0) } == true)
      if discovery {
        if link.firstDiscovery == nil { link.firstDiscovery = at.frame }
      } else if link.firstHandleUse == nil {
        link.firstHandleUse = at.frame
      }
      if let retry = link.retry, retry.opcode == opcode, retry.handle == handle {
        calls[retry.call].security?.retryFrame = at.frame
        link.retry = nil
      }
      links[conn.id] = link
    }
    client = Client(
      open: att.opcode.kind == .command ? nil : calls.count, opcode: opcode, type: type, value: value, end: end,
      lastStart: start, handle: handle, closed: false, lookup: client.lookup && opcode == 0x04)
    byRequest[at.frame] = calls.count
    calls.append(call)
  }

  static func setNotify(
    _ call: inout AppCall, _ att: ATTPDU, _ handle: UInt16, _ record: Record, _ analyzed: AnalyzedRecord
  ) {
    call.kind = .setNotify
    call.cccdHandle = handle
    call.attrHandle = analyzed.attribute?.valueHandle ?? call.attrHandle
    if call.attrHandle == handle { call.attrHandle = analyzed.attribute?.valueHandle }
    Self.attribute(&call, analyzed.attribute)
    guard let range = att.value, range.count >= 2,
      let value = analyzed.decoded.withPayloadBytes(record, { $0.littleEndianUInt16(at: range.start) })
    else { return }
    call.mode = cccdMode(value)
  }

  /// set_notify's mode for a Client Characteristic Configuration value (Core 6.0, Vol 3,
  /// Part G, 3.3.3.3).
  static func cccdMode(_ value: UInt16) -> String {
    switch value {
    case 0: "disable"
    case 1: "notify"
    case 2: "indicate"
    case 3: "notify_indicate"
    default: "0x" + hex(value)
    }
  }

  static func attribute(_ call: inout AppCall, _ attribute: GATTAttribute?) {
    guard let attribute else { return }
    if attribute.characteristic != nil {
      call.uuid = attribute.characteristic
      call.name = attribute.characteristicName
    }
    call.service = attribute.service
    call.serviceName = attribute.serviceName
  }

  static let cccd = BluetoothUUID(uuid16: 0x2902)

  /// A read or write of a descriptor other than the CCCD is a descriptor call
  /// (`readValue(for: CBDescriptor)`, `readDescriptor`), on the descriptor's handle.
  static func descriptorCall(_ call: inout AppCall, _ attribute: GATTAttribute, _ handle: UInt16) {
    // A handle inside a characteristic whose descriptors were not discovered (no UUID) may
    // be anything: it stays a characteristic call.
    guard attribute.kind == .descriptor, let uuid = attribute.uuid, uuid != cccd,
      call.kind == .read || call.kind == .write,
      call.mode != "by_uuid", call.mode != "multiple"
    else { return }
    call.kind = call.kind == .read ? .readDescriptor : .writeDescriptor
    call.attrHandle = handle
    call.descriptor = uuid
    call.descriptorName = attribute.descriptorName
  }
  /// The ATT transaction timeout (Core 6.0, Vol 3, Part F, 3.3.3), µs.
  static let attTimeout: Int64 = 30_000_000

  /// The UUID a Find By Type Value searches for: 2 or 16 octets, little endian.
  static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
    switch bytes.count {
    case 2: return BluetoothUUID(uuid16: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
    case 16: return BluetoothUUID(uuid128: bytes.reversed().reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
    default: return nil
    }
  }

  mutating func answer(
    _ att: ATTPDU, _ exchange: ATTExchange, _ i: Int, _ conn: ConnectionRef, cid: UInt16, _ record: Record,
    _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    calls[i].responses.append(at.frame)
    calls[i].end = at
    let key = ClientKey(conn: conn.id, local: calls[i].byLocal, cid: cid)
    if let code = att.error {
      let endsSearch =
        code == .attributeNotFound && calls[i].requests.count > 1
        || (code == .attributeNotFound
          && [
            .discoverServices, .discoverCharacteristics, .discoverDescriptors,
            .discoverIncluded,
          ].contains(calls[i].kind))
      if !endsSearch {
        calls[i].ok = false
        calls[i].error = AppError(att: code.rawValue)
      }
      if clients[key]?.open == i { clients[key]?.closed = true }
      if calls[i].byLocal, [0x05, 0x0C, 0x0F].contains(code.rawValue) {
        links[conn.id]?.securityError = (at, code.rawValue, exchange.requestOpcode, exchange.handle)
      }
      return
    }
    switch exchange.requestOpcode {
    case 0x02:
      if let server = att.mtu, let client = calls[i].requestedMTU { calls[i].mtu = max(23, min(client, server)) }
    case 0x04:
      if calls[i].byLocal, let start = calls[i].startHandle { links[conn.id]?.discoveredStarts.insert(start) }
      calls[i].found = (calls[i].found ?? 0) + Self.entries(att, record, analyzed)
    case 0x06, 0x08, 0x10:
      calls[i].found = (calls[i].found ?? 0) + Self.entries(att, record, analyzed)
    case 0x0A, 0x0C:
      if let value = att.value { calls[i].length = (calls[i].length ?? 0) + value.count }
    default: break
    }
    if calls[i].kind == .write, calls[i].mode == "long", exchange.requestOpcode == 0x18 {
      if clients[key]?.open == i { clients[key]?.open = nil }
    }
  }

  /// Entries in a discovery response.
  static func entries(_ att: ATTPDU, _ record: Record, _ analyzed: AnalyzedRecord) -> Int {
    analyzed.decoded.withPayloadBytes(record) { bytes in
      var n = 0
      att.forEachHandle(bytes) { _ in n += 1 }
      return n
    }
  }

  /// A request that got no answer, learnt at `at` (nil: at the end of the capture).
  mutating func settle(_ request: UnansweredRequest, _ at: FrameTime?) {
    guard let i = byRequest[request.frame], calls[i].responses.isEmpty || calls[i].requests.last == request.frame
    else { return }
    calls[i].ok = false
    switch request.reason {
    case .timeout:
      // The app hears of it when the ATT transaction timer expires.
      calls[i].error.unanswered = "timeout"
      calls[i].end = FrameTime(frame: at?.frame ?? calls[i].end.frame, timestamp: request.timestamp + Self.attTimeout)
    case .disconnected:
      calls[i].error.unanswered = "disconnected"
      if let at, calls[i].end < at { calls[i].end = at }
    case .superseded:
      calls[i].error.unanswered = "superseded"
      calls[i].finished = false
    case .endOfCapture:
      calls[i].error.unanswered = "end_of_capture"
      calls[i].finished = false
    }
    for (key, client) in clients where client.open == i { clients[key]?.closed = true }
  }

  mutating func closeClients(_ conn: Int) {
    for key in clients.keys where key.conn == conn { clients[key] = nil }
    for key in streams.keys where key.conn == conn { streams[key] = nil }
  }

  // MARK: - Notifications and indications

  mutating func notified(
    _ att: ATTPDU, _ conn: ConnectionRef, local: Bool, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    guard let handle = att.handle else { return }
    let opcode = att.opcode == .handleValueIndication ? UInt8(0x1D) : UInt8(0x1B)
    let key = StreamKey(conn: conn.id, handle: handle, opcode: opcode, local: local)
    let i =
      streams[key]
      ?? {
        var call = AppCall(kind: opcode == 0x1D ? .indication : .notification, conn: conn, start: at, end: at)
        call.byLocal = local
        call.attrHandle = handle
        Self.attribute(&call, analyzed.attribute)
        call.stream = AppValueStream()
        streams[key] = calls.count
        calls.append(call)
        return calls.count - 1
      }()
    var stream = calls[i].stream ?? AppValueStream()
    if stream.count > 0 {
      let gap = calls[i].end.microseconds(to: at)
      if gap > stream.largestGap {
        stream.largestGap = gap
        stream.largestGapAfter = calls[i].end.frame
      }
    }
    stream.count += 1
    stream.bytes += att.value?.count ?? 0
    calls[i].stream = stream
    calls[i].end = at
  }
}
