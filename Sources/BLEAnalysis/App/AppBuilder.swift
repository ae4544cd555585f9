import BLECapture
import BLEDissect

/// Infers the calls an app made and the callbacks it got from a capture's analyzed
/// records: scans, GATT procedures per client (one call per procedure, however many
/// requests it took), HCI calls (Read RSSI), security, notification streams; `finish`
/// adds what the timeline knows (connect, disconnect, reconnect) and names handles.
///
/// A GATT procedure's requests follow each other on one bearer (Core 6.0, Vol 3, Part G,
/// 4.4–4.9): a request continues the call before it when it asks for the same thing
/// further on (discovery: same type, value and end, a later start, and the last answer
/// was no error; a long read: Read Blob of the same handle; a long write: Prepare Write
/// until Execute Write). A Find Information over a range this client already discovered
/// on the connection, followed at once by a Client Characteristic Configuration write in
/// it, is the stack's lookup for that write (CoreBluetooth-style `setNotifyValue`).
public struct AppBuilder {
  var story = AppStory()
  /// Calls under construction or done, in the order they began.
  var calls: [AppCall] = []
  /// Request frame → call.
  private var byRequest: [Int: Int] = [:]
  private var clients: [ClientKey: Client] = [:]
  private var links: [Int: Link] = [:]
  private var live: [LinkKey: ConnectionRef] = [:]
  private var adapters: [UInt16?: Adapter] = [:]
  private var streams: [StreamKey: Int] = [:]
  /// When the PDU that each reassembly group is putting together began.
  private var fragmentStarts: [ReassemblyGroup: FrameTime] = [:]
  /// Where each device is in its scan's `devices`: scan call → device → index.
  private var scanDevices: [Int: [ScanDeviceKey: Int]] = [:]

  struct ScanDeviceKey: Hashable {
    var address: DeviceAddress
    var addressType: AdvertisingAddressType?
  }

  struct LinkKey: Hashable {
    var adapter: UInt16?
    var handle: UInt16
  }

  struct ClientKey: Hashable {
    var conn: Int
    var local: Bool
    var cid: UInt16
  }

  struct StreamKey: Hashable {
    var conn: Int
    var handle: UInt16
    var opcode: UInt8
    var local: Bool
  }

  /// The procedure a client is running, so that its next request can continue it.
  struct Client {
    var open: Int?
    var opcode: UInt8 = 0
    var type: BluetoothUUID?
    var value: [UInt8] = []
    var end: UInt16 = 0
    var lastStart: UInt16 = 0
    var handle: UInt16?
    /// Its last request got an Error Response (or no answer): it cannot go on.
    var closed = false
    /// A Find Information over a range already discovered: maybe a CCCD lookup.
    var lookup = false
  }

  struct Link {
    var ref: ConnectionRef
    /// Find Information starts this host's client got an answer to.
    var discoveredStarts: Set<UInt16> = []
    var firstDiscovery: Int?
    var firstHandleUse: Int?
    /// The open pairing or encryption call.
    var security: Int?
    var securityError: (at: FrameTime, code: UInt8, opcode: UInt8, handle: UInt16?)?
    /// After a security procedure: the request to look for again.
    var retry: (call: Int, opcode: UInt8, handle: UInt16?)?
    var lastSMPSent: Int?
  }

  struct Adapter {
    var bufferTotal: Int?
    var classicBufferTotal: Int?
    var inFlight: [UInt16: [(frame: Int, smp: Bool)]] = [:]
    var inFlightCount = 0
    /// The tx packet that filled the controller's buffers, and the completion that freed one.
    var fullSince: FrameTime?
    var freedAt: FrameTime?
    /// A PDU that waited for a buffer, by handle: since when.
    var waited: [UInt16: (since: FrameTime, stall: Int64)] = [:]
    var scanParameters: (at: FrameTime, extended: Bool, active: Bool?, interval: UInt16?, window: UInt16?)?
    var scanning: Int?
    var lastScanEnd: Int = 0
    var pendingCommands: [UInt16: Int] = [:]
  }

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    if story.start == nil { story.start = record.timestamp.unixMicroseconds }
    let at = FrameTime(record)
    for request in analyzed.unanswered { settle(request) }
    if let conn = analyzed.conn {
      live[LinkKey(adapter: conn.adapter, handle: conn.handle)] = conn
      if links[conn.id] == nil { links[conn.id] = Link(ref: conn) }
    }
    if let link = analyzed.link { self.link(link, record, analyzed, at) }
    if let reports = analyzed.decoded.advertising, let i = adapters[record.adapter]?.scanning,
      let subevent = analyzed.decoded.hci?.subevent, Self.scanReports.contains(LESubeventCode(rawValue: subevent))
    {
      for report in reports where !report.isFragment { advertisement(report, i, record, analyzed, at) }
    }
    if analyzed.decoded.hci?.type == .acl {
      aclBuffers(record, analyzed, at)
      if case .first(let group) = analyzed.decoded.reassembly { fragmentStarts[group] = at }
    }
    if let conn = analyzed.conn {
      if let att = analyzed.decoded.att { self.att(att, conn, record, analyzed, at) }
      if analyzed.decoded.smp != nil, let step = analyzed.security { security(step, conn, record, at) }
    }
    if let ended = analyzed.endedConnection {
      live[LinkKey(adapter: ended.adapter, handle: ended.handle)] = nil
      adapters[record.adapter]?.inFlight[ended.handle] = nil
      let count = adapters[record.adapter]?.inFlight.values.reduce(0) { $0 + $1.count } ?? 0
      adapters[record.adapter]?.inFlightCount = count
      closeClients(ended.id)
      if let s = links[ended.id]?.security { close(s) }
    }
  }

  /// Ends the capture: requests still waiting get no answer; connect, disconnect and
  /// reconnect come from `timeline`; handles get the names `gatt`'s databases know.
  public mutating func finish(_ unanswered: [UnansweredRequest], timeline: Timeline, gatt: GATTTracker) -> AppStory {
    for request in unanswered { settle(request) }
    for i in calls.indices where calls[i].kind == .scan && calls[i].scan?.disable == nil {
      calls[i].outcome = "running"
    }
    // A peer's Security Request that this host neither paired on, encrypted for nor refused.
    for i in calls.indices where calls[i].kind == .pair && calls[i].ok && calls[i].security?.method == nil {
      if calls[i].security?.trigger == "security_request", calls[i].requests.count <= 1 {
        calls[i].outcome = "unanswered"
      }
    }
    addConnectionCalls(timeline)
    name(gatt)
    resolveRetries()
    story.connections = timeline.connections
    story.calls = calls.enumerated().sorted {
      ($0.element.start.timestamp, $0.element.start.frame, $0.offset) < (
        $1.element.start.timestamp, $1.element.start.frame, $1.offset
      )
    }.map(\.element)
    return story
  }

  // MARK: - HCI

  /// The reports a scan's callback gets (periodic advertising has callbacks of its own).
  static let scanReports: Set<LESubeventCode> = [
    .advertisingReport, .directedAdvertisingReport, .extendedAdvertisingReport,
  ]

  private mutating func link(_ link: LinkEvent, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    switch link {
    case .scanParameters(let parameters):
      adapters[record.adapter, default: Adapter()].scanParameters = (
        at, parameters.extended, parameters.active, parameters.interval, parameters.window
      )
    case .scanEnable(let extended, let enable, let filterDuplicates):
      scanEnable(extended: extended, enable: enable, filterDuplicates: filterDuplicates, record, analyzed, at)
    case .readRSSI(let handle):
      let conn = live[LinkKey(adapter: record.adapter, handle: handle)]
      var call = AppCall(kind: .readRSSI, conn: conn, start: at, end: at)
      call.requests = [at.frame]
      call.ok = false
      call.error.unanswered = "end_of_capture"
      adapters[record.adapter, default: Adapter()].pendingCommands[HCIOpcode.readRSSI.rawValue] = calls.count
      calls.append(call)
    case .enableEncryption:
      if let conn = analyzed.conn { encryptionStarts(conn, at, local: true) }
    case .longTermKeyRequest:
      if let conn = analyzed.conn { encryptionStarts(conn, at, local: false) }
    case .encryptionChange(let status, _, _, false):
      if let conn = analyzed.conn { encryptionChanged(conn, at, status: status) }
    case .commandComplete(_, _, let returned):
      if case .bufferSize(let le, let packets, _) = returned, packets > 0 {
        if le {
          adapters[record.adapter, default: Adapter()].bufferTotal = Int(packets)
        } else {
          adapters[record.adapter, default: Adapter()].classicBufferTotal = Int(packets)
        }
      }
      answered(link, record, at)
    case .commandStatus(_, let status) where status != 0:
      answered(link, record, at)
    case .completedPackets:
      completedPackets(LinkEvent.completedPackets(in: record), record, at)
    default:
      break
    }
  }

  private mutating func scanEnable(
    extended: Bool, enable: Bool, filterDuplicates: Bool?, _ record: Record, _ analyzed: AnalyzedRecord,
    _ at: FrameTime
  ) {
    var adapter = adapters[record.adapter] ?? Adapter()
    defer { adapters[record.adapter] = adapter }
    if enable {
      guard adapter.scanning == nil else { return }
      var scan = AppScan(extended: extended, enable: at)
      var start = at
      var requests = [at.frame]
      if let parameters = adapter.scanParameters {
        scan.active = parameters.active
        scan.interval = parameters.interval
        scan.window = parameters.window
        if parameters.at.frame > adapter.lastScanEnd {
          start = parameters.at
          requests.insert(parameters.at.frame, at: 0)
        }
      }
      scan.filterDuplicates = filterDuplicates
      var call = AppCall(kind: .scan, conn: nil, start: start, end: at)
      call.requests = requests
      call.scan = scan
      adapter.scanning = calls.count
      calls.append(call)
    } else if let i = adapter.scanning {
      calls[i].scan?.disable = at
      calls[i].end = at
      calls[i].requests.append(at.frame)
      adapter.pendingCommands[analyzed.decoded.hci?.opcode ?? 0] = i
      adapter.scanning = nil
      adapter.lastScanEnd = at.frame
    }
  }

  /// A Command Complete, or a Command Status that refused its command: ends the call
  /// that command made.
  private mutating func answered(_ link: LinkEvent, _ record: Record, _ at: FrameTime) {
    guard let (opcode, status) = link.answeredCommand,
      let i = adapters[record.adapter]?.pendingCommands.removeValue(forKey: opcode)
    else { return }
    calls[i].end = at
    calls[i].responses.append(at.frame)
    if calls[i].kind == .scan {
      calls[i].scan?.disableComplete = at
    } else {
      calls[i].ok = status == 0
      calls[i].error = AppError(hci: status == 0 ? nil : status)
      if case .commandComplete(_, 0, .rssi(_, let value)) = link, calls[i].kind == .readRSSI { calls[i].rssi = value }
    }
  }

  // MARK: - Controller buffers

  private mutating func aclBuffers(_ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    guard record.direction == .sent, let acl = analyzed.decoded.acl else { return }
    var adapter = adapters[record.adapter] ?? Adapter()
    defer { adapters[record.adapter] = adapter }
    let total = (adapter.bufferTotal ?? adapter.classicBufferTotal)
    // A packet sent right after a completion freed a full buffer waited for it.
    // A packet sent right after a completion freed a buffer that had been full for a
    // while (2 ms or more: longer than a host takes to react) waited for it.
    if let full = adapter.fullSince, let freed = adapter.freedAt, at.timestamp - freed.timestamp <= 2_000,
      full.microseconds(to: freed) >= 2_000, acl.pb != 1
    {
      adapter.waited[acl.handle] = (full, full.microseconds(to: freed))
    }
    adapter.fullSince = nil
    adapter.freedAt = nil
    // Bounded: a controller that never reports completions for a handle must not grow it.
    if adapter.inFlight[acl.handle]?.count ?? 0 >= Self.maxInFlight {
      adapter.inFlight[acl.handle]?.removeFirst()
      adapter.inFlightCount -= 1
    }
    adapter.inFlight[acl.handle, default: []].append((at.frame, analyzed.decoded.smp != nil))
    adapter.inFlightCount += 1
    if let total, adapter.inFlightCount >= total { adapter.fullSince = at }
  }

  /// Packets followed per handle until their Number Of Completed Packets (controllers
  /// have a few dozen buffers at most).
  static let maxInFlight = 256

  private mutating func completedPackets(
    _ entries: [(handle: UInt16, count: Int)], _ record: Record, _ at: FrameTime
  ) {
    guard var adapter = adapters[record.adapter] else { return }
    var freed = false
    for (key, count) in entries {
      var queue = adapter.inFlight[key] ?? []
      let n = min(count, queue.count)
      for packet in queue.prefix(n) where packet.smp {
        if let conn = live[LinkKey(adapter: record.adapter, handle: key)], let s = links[conn.id]?.security,
          links[conn.id]?.lastSMPSent == packet.frame, calls[s].end < at
        {
          calls[s].end = at
        }
      }
      queue.removeFirst(n)
      adapter.inFlight[key] = queue
      adapter.inFlightCount -= n
      if n > 0 { freed = true }
    }
    if freed, adapter.fullSince != nil { adapter.freedAt = at }
    adapters[record.adapter] = adapter
  }

  // MARK: - Scanning

  private mutating func advertisement(
    _ report: AdvertisingReport, _ i: Int, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    guard let address = report.address, var scan = calls[i].scan else { return }
    // Out of the call while it changes, so that its device list is not copied.
    calls[i].scan = nil
    scan.reports += 1
    let key = ScanDeviceKey(address: address, addressType: report.addressType)
    let index =
      scanDevices[i, default: [:]][key]
      ?? {
        scan.devices.append(AppScan.Device(address: address, addressType: report.addressType, firstReport: at))
        scanDevices[i, default: [:]][key] = scan.devices.count - 1
        return scan.devices.count - 1
      }()
    var device = scan.devices[index]
    device.reports += 1
    let extended = report.kind == .extended
    let scanResponse = extended ? report.eventType & 0x08 != 0 : report.eventType == 4
    let scannable =
      extended
      ? report.eventType & 0x02 != 0 : report.kind == .legacy && (report.eventType == 0 || report.eventType == 2)
    if extended ? report.eventType & 0x01 != 0 : report.kind == .directed || report.eventType <= 1 {
      device.connectable = true
    }
    for structure in report.structures {
      switch structure.value {
      case .serviceUUIDs(let uuids, _):
        for uuid in uuids where !device.services.contains(uuid.normalized) { device.services.append(uuid.normalized) }
      case .serviceData(let uuid, _):
        if !device.services.contains(uuid.normalized) { device.services.append(uuid.normalized) }
      case .name(let name) where !name.isEmpty:
        device.name = name
      default: break
      }
    }
    // When an app's scan callback fires (what Bumble's advertisement accumulator and the
    // phone stacks do alike): at once for a passive scan or a PDU that cannot be scanned;
    // a scannable one waits for its scan response, unless another comes first.
    let result: Bool
    if scanResponse {
      result = device.pending
      device.pending = false
    } else if scan.active == false || !scannable {
      result = true
    } else {
      result = device.pending
      device.pending = true
    }
    if result {
      device.results += 1
      scan.results += 1
      if device.firstResult == nil { device.firstResult = at }
      if scan.firstResult == nil {
        scan.firstResult = at
        scan.firstResultAddress = address
      }
    }
    scan.devices[index] = device
    calls[i].scan = scan
  }

  // MARK: - ATT

  private mutating func att(
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

  private static let discoveryTypes: Set<UInt32> = [0x2800, 0x2801, 0x2802, 0x2803]

  private mutating func request(
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

  private static func setNotify(
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
    call.mode =
      switch value {
      case 0: "disable"
      case 1: "notify"
      case 2: "indicate"
      case 3: "notify_indicate"
      default: "0x" + hex(value)
      }
  }

  private static func attribute(_ call: inout AppCall, _ attribute: GATTAttribute?) {
    guard let attribute else { return }
    if attribute.characteristic != nil {
      call.uuid = attribute.characteristic
      call.name = attribute.characteristicName
    }
    call.service = attribute.service
    call.serviceName = attribute.serviceName
  }

  static let cccd = BluetoothUUID(uuid16: 0x2902)

  /// The UUID a Find By Type Value searches for: 2 or 16 octets, little endian.
  static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
    switch bytes.count {
    case 2: return BluetoothUUID(uuid16: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
    case 16: return BluetoothUUID(uuid128: bytes.reversed().reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
    default: return nil
    }
  }

  private mutating func answer(
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

  private mutating func settle(_ request: UnansweredRequest) {
    guard let i = byRequest[request.frame], calls[i].responses.isEmpty || calls[i].requests.last == request.frame
    else { return }
    calls[i].ok = false
    calls[i].error.unanswered =
      switch request.reason {
      case .timeout: "timeout"
      case .disconnected: "disconnected"
      case .superseded: "superseded"
      case .endOfCapture: "end_of_capture"
      }
    for (key, client) in clients where client.open == i { clients[key]?.closed = true }
  }

  private mutating func closeClients(_ conn: Int) {
    for key in clients.keys where key.conn == conn { clients[key] = nil }
    for key in streams.keys where key.conn == conn { streams[key] = nil }
  }

  // MARK: - Notifications and indications

  private mutating func notified(
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

  // MARK: - Security

  private mutating func openSecurity(
    _ conn: ConnectionRef, _ kind: AppCallKind, _ at: FrameTime, local: Bool, trigger: String? = nil
  ) -> Int {
    var link = links[conn.id] ?? Link(ref: conn)
    var call = AppCall(kind: kind, conn: conn, start: at, end: at)
    var security = AppSecurity(trigger: trigger, localInitiated: local)
    if trigger == nil, let error = link.securityError, error.at.microseconds(to: at) <= 5_000_000 {
      security.trigger = "att_error"
      security.triggerFrame = error.at.frame
      security.triggerError = error.code
      link.retry = (calls.count, error.opcode, error.handle)
    }
    if trigger != nil { security.triggerFrame = at.frame }
    link.securityError = nil
    call.security = security
    call.requests = [at.frame]
    link.security = calls.count
    links[conn.id] = link
    calls.append(call)
    return calls.count - 1
  }

  private mutating func close(_ i: Int) {
    guard let conn = calls[i].conn else { return }
    if links[conn.id]?.security == i { links[conn.id]?.security = nil }
  }

  private mutating func security(_ step: SecurityStep, _ conn: ConnectionRef, _ record: Record, _ at: FrameTime) {
    let sent = record.direction == .sent
    var open = links[conn.id]?.security
    switch step {
    case .securityRequest:
      if open == nil { open = openSecurity(conn, .pair, at, local: sent, trigger: "security_request") }
    case .pairingRequest(let features):
      if let i = open, calls[i].kind == .pair, calls[i].security?.method == nil, calls[i].security?.failedReason == nil
      {
        calls[i].security?.bonding = features.authReq.bonding
      } else {
        if let i = open { close(i) }
        open = openSecurity(conn, .pair, at, local: sent)
        if let i = open { calls[i].security?.bonding = features.authReq.bonding }
      }
    case .pairingResponse(let features, let method):
      if let i = open {
        calls[i].security?.method = method?.name
        if !features.authReq.bonding { calls[i].security?.bonding = false }
      }
    case .pairingFailed(let reason, _):
      if let i = open {
        calls[i].ok = false
        calls[i].security?.failedReason = reason.rawValue
        calls[i].security?.failedByLocal = sent
      }
    default:
      break
    }
    guard let i = open else { return }
    if sent { links[conn.id]?.lastSMPSent = at.frame }
    if calls[i].end < at { calls[i].end = at }
    if sent { calls[i].requests.append(at.frame) } else { calls[i].responses.append(at.frame) }
    calls[i].requests = Array(Set(calls[i].requests)).sorted()
    if case .pairingFailed = step { close(i) }
  }

  private mutating func encryptionStarts(_ conn: ConnectionRef, _ at: FrameTime, local: Bool) {
    if let i = links[conn.id]?.security {
      // Pairing goes on to encrypt; a Security Request answered with a stored key is an encryption.
      if calls[i].kind == .pair, calls[i].security?.method == nil, calls[i].security?.trigger == "security_request" {
        calls[i].kind = .encrypt
      }
      calls[i].requests.append(at.frame)
      calls[i].end = at
      return
    }
    _ = openSecurity(conn, .encrypt, at, local: local)
  }

  private mutating func encryptionChanged(_ conn: ConnectionRef, _ at: FrameTime, status: UInt8) {
    guard let i = links[conn.id]?.security else { return }
    calls[i].responses.append(at.frame)
    if calls[i].end < at { calls[i].end = at }
    if status != 0 {
      calls[i].ok = false
      calls[i].error.hci = status
      close(i)
    } else if calls[i].kind == .encrypt {
      close(i)
    }
  }

  private mutating func resolveRetries() {
    var byFrame: [Int: Int] = [:]
    for (i, call) in calls.enumerated() where call.kind.isATT {
      for frame in call.requests { byFrame[frame] = i }
    }
    for i in calls.indices {
      guard let frame = calls[i].security?.retryFrame, let j = byFrame[frame] else { continue }
      let outcome = calls[j].ok ? "ok" : "error"
      calls[i].security?.retryOutcome = outcome
    }
  }

  // MARK: - From the timeline

  private mutating func addConnectionCalls(_ timeline: Timeline) {
    var byID: [Int: ConnectionTimeline] = [:]
    for connection in timeline.connections { byID[connection.ref.id] = connection }
    var lastCreate: [DeviceAddress: FrameTime] = [:]
    for attempt in timeline.attempts {
      let connection = attempt.connection.flatMap { byID[$0] }
      var call = AppCall(
        kind: .connect, conn: connection?.ref, start: attempt.create, end: attempt.result ?? attempt.create)
      call.requests = [attempt.create.frame] + (attempt.cancel.map { [$0.frame] } ?? [])
      call.responses = attempt.result.map { [$0.frame] } ?? []
      switch attempt.outcome {
      case .connected:
        call.outcome = "connected"
        if let disconnect = connection?.disconnect, disconnect.initiator == .failedToEstablish {
          call.outcome = "failed"
          call.ok = false
          call.error.hci = disconnect.reason
          call.end = disconnect.complete
          call.responses.append(disconnect.complete.frame)
        }
      case .cancelled, .failed, .timedOut:
        call.outcome = attempt.outcome == .timedOut ? "timeout" : attempt.outcome.rawValue
        call.ok = false
        call.error.hci = attempt.status
      case .pending:
        call.outcome = "pending"
        call.ok = false
        call.error.unanswered = "end_of_capture"
      }
      call.peerAddress = attempt.peer
      calls.append(call)
      if let peer = attempt.peer { lastCreate[peer] = max(lastCreate[peer] ?? attempt.create, attempt.create) }
    }
    // A scan's device was connected when a connection to it was created after the scan began.
    for i in calls.indices where calls[i].kind == .scan {
      guard let scan = calls[i].scan else { continue }
      for (d, device) in scan.devices.enumerated() {
        if let create = lastCreate[device.address], scan.enable < create { calls[i].scan?.devices[d].connected = true }
      }
    }
    for connection in timeline.connections {
      if let disconnect = connection.disconnect {
        if let command = disconnect.command {
          var call = AppCall(kind: .disconnect, conn: connection.ref, start: command, end: disconnect.complete)
          call.requests = [command.frame]
          call.responses = [disconnect.complete.frame]
          call.reason = disconnect.commandReason
          calls.append(call)
        }
        if disconnect.initiator != .failedToEstablish {
          var event = AppCall(
            kind: .disconnected, conn: connection.ref, start: disconnect.complete, end: disconnect.complete)
          event.responses = [disconnect.complete.frame]
          event.reason = disconnect.reason
          event.who = disconnect.initiator.rawValue
          calls.append(event)
        }
      }
      if let next = connection.reconnectedAs, let gap = connection.reconnectGapMicroseconds, let later = byID[next],
        let complete = later.complete, connection.disconnect?.initiator != .failedToEstablish
      {
        var event = AppCall(kind: .reconnected, conn: later.ref, start: complete, end: complete)
        event.responses = [complete.frame]
        event.previousConn = connection.ref.id
        event.gap = gap
        if let link = links[next], let use = link.firstHandleUse {
          event.cachedHandles = link.firstDiscovery.map { use < $0 } ?? true
        }
        calls.append(event)
      }
    }
  }

  /// Fills in the UUIDs and names the databases know at the end of the capture.
  private mutating func name(_ gatt: GATTTracker) {
    for i in calls.indices where calls[i].kind.isATT || calls[i].kind == .notification || calls[i].kind == .indication {
      guard let conn = calls[i].conn else { continue }
      let server = gatt.servers.first { server in
        calls[i].byLocal
          ? server.key.address == conn.peer && conn.peer != nil && !server.key.isLocal : server.key.isLocal
      }
      guard var database = server?.database else { continue }
      let library = gatt.library
      switch calls[i].kind {
      case .discoverCharacteristics, .discoverIncluded:
        if let start = calls[i].startHandle, let service = database.service(containing: start) {
          calls[i].uuid = service.uuid
          calls[i].name = library.displayName(of: service.uuid)
          calls[i].service = service.uuid
          calls[i].serviceName = calls[i].name
        }
      case .discoverServices:
        if let uuid = calls[i].uuid { calls[i].name = library.displayName(of: uuid) }
      default:
        guard calls[i].uuid == nil || calls[i].name == nil, let handle = calls[i].attrHandle,
          let found = database.lookup(handle, names: library)
        else { continue }
        if calls[i].kind == .discoverDescriptors, found.kind != .value { continue }
        Self.attribute(&calls[i], found)
      }
    }
  }
}
