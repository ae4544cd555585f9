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
  /// Calls under construction or done, by the order they were made.
  var calls = AppCallStore()
  /// Request frame → call.
  var byRequest: [Int: Int] = [:]
  var clients: [ClientKey: Client] = [:]
  var links: [Int: Link] = [:]
  var live: [LinkKey: ConnectionRef] = [:]
  var adapters: [UInt16?: Adapter] = [:]
  var streams: [StreamKey: Int] = [:]
  /// When the PDU that each reassembly group is putting together began.
  var fragmentStarts: [ReassemblyGroup: FrameTime] = [:]
  /// Where each device is in its scan's `devices`: scan call → device → index.
  var scanDevices: [Int: [ScanDeviceKey: Int]] = [:]
  var acceptList = AcceptListConnects()
  let streaming: Bool
  /// Streaming: connections that ended since `finished` last handed calls over; those
  /// whose calls went; the last one per peer that went, for the reconnection after it.
  var endedConnections: [Int] = []
  var retired: Set<Int> = []
  var lastRetired: [PeerKey: Int] = [:]

  struct PeerKey: Hashable {
    var adapter: UInt16?
    var address: DeviceAddress
  }

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
    var lastScan: Int?
    var pendingCommands: [UInt16: Int] = [:]
  }

  /// `streaming` (`app`): each connection's calls are finished when it ends and handed
  /// over by `finished(_:gatt:advertisedName:)`, and not kept.
  public init(streaming: Bool = false) {
    self.streaming = streaming
  }

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    if story.start == nil { story.start = record.timestamp.unixMicroseconds }
    let at = FrameTime(record)
    story.end = at
    acceptList.add(record, analyzed)
    for request in analyzed.unanswered { settle(request, at) }
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
      if streaming { endedConnections.append(ended.id) }
    }
  }

  /// Ends the capture: requests still waiting get no answer; connect, disconnect and
  /// reconnect come from `timeline`; handles get the names `gatt`'s databases know.
  public mutating func finish(_ unanswered: [UnansweredRequest], timeline: Timeline, gatt: GATTTracker) -> AppStory {
    for request in unanswered { settle(request, nil) }
    for i in calls.indices where calls[i].kind == .scan && calls[i].scan?.disable == nil {
      calls[i].outcome = "running"
      calls[i].finished = false
    }
    markUnanswered(calls.indices)
    addConnectionCalls(timeline)
    let all = calls.indices
    name(gatt, all)
    markSystemCalls(all)
    resolveRetries(all)
    story.connections = timeline.connections
    story.calls = calls.takeAllInStartOrder()
    return story
  }

  /// A peer's Security Request that this host neither paired on, encrypted for nor refused.
  mutating func markUnanswered(_ ids: [Int]) {
    for i in ids where calls[i].kind == .pair && calls[i].ok && calls[i].security?.method == nil {
      if calls[i].security?.trigger == "security_request", calls[i].requests.count <= 1 {
        calls[i].outcome = "unanswered"
      }
    }
  }

  // MARK: - HCI

  /// The reports a scan's callback gets (periodic advertising has callbacks of its own).
  static let scanReports: Set<LESubeventCode> = [
    .advertisingReport, .directedAdvertisingReport, .extendedAdvertisingReport,
  ]

  mutating func link(_ link: LinkEvent, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
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
      call.finished = false
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

  /// A Command Complete, or a Command Status that refused its command: ends the call
  /// that command made.
  mutating func answered(_ link: LinkEvent, _ record: Record, _ at: FrameTime) {
    guard let (opcode, status) = link.answeredCommand,
      let i = adapters[record.adapter]?.pendingCommands.removeValue(forKey: opcode), calls.contains(i)
    else { return }
    calls[i].end = at
    calls[i].finished = true
    calls[i].responses.append(at.frame)
    if calls[i].kind == .scan {
      calls[i].scan?.disableComplete = at
    } else {
      calls[i].ok = status == 0
      calls[i].error = AppError(hci: status == 0 ? nil : status)
      if case .commandComplete(_, 0, .rssi(_, let value)) = link, calls[i].kind == .readRSSI { calls[i].rssi = value }
    }
  }
}
