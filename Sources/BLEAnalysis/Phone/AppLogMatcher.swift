import BLECapture
import BLEDissect

/// Puts the app's own log lines (a bugreport's logcat: what BluetoothGatt,
/// BluetoothLeScanner and BluetoothAdapter write in the app's process) beside the calls
/// `app` read from the wire, and adds the calls only the log shows.
///
/// The lines go on the capture's clock first: the dumpstate's year and the phone's zone
/// (`PhoneLog.unixMicroseconds`), then the offset that lines `connect()` up before its
/// Create Connection and `onClientConnectionState()` after its Connection or
/// Disconnection Complete (`LogClock.refine`). Then each line finds its call:
/// - a GATT client's lines, by its `clientIf`: `connect()` and `registerApp()` and
///   `onClientRegistered()` go with the connect that follows for that device (or, when
///   registration failed or another client of the app already waits for the device, with a
///   connect only the log shows); its first `onClientConnectionState()` ends that connect,
///   a later one is the `disconnected` event; `close()` and `unregisterApp()` go with the
///   client's last call;
/// - a request line (`discoverServices()`, `configureMTU()`, `setCharacteristicNotification()`,
///   `readRssi()`, `cancelOpen()` of `disconnect()`) with the first call of its kind for
///   that device that starts at or after it; a callback line (`onSearchComplete()`,
///   `onConfigureMTU()`) with the last call of its kind that ended before it;
/// - `isLeEnabled()` (before `startScan()` and `stopScan()`) and `onScannerRegistered()`
///   with the scan that starts, or ends, right after;
/// - `refresh()` is a call of its own: it sends nothing.
/// Addresses may be anonymised (`XX:XX:XX:XX:5C:54`): what is left must match.
public enum AppLogMatcher {
  /// A line is before its request by at most this (µs); a callback after its event.
  static let reach: Int64 = 2_000_000
  /// Clock slack: a line may print up to this much on the wrong side of its packet.
  static let slack: Int64 = 2_000

  /// Attaches `log`'s app lines to `story`'s calls; returns the clock estimate used.
  @discardableResult
  public static func attach(_ log: PhoneLog, anchors: [LogClock.Anchor], to story: inout AppStory) -> LogClock.Estimate?
  {
    var timed: [(event: AppLogEvent, time: Int64)] = []
    for event in log.events where event.side == .app {
      if let time = log.unixMicroseconds(event.line.time) { timed.append((event, time)) }
    }
    guard !timed.isEmpty else { return nil }
    let marks = timed.compactMap { LogClock.Mark($0.event, time: $0.time) }
    let coverage = story.start.flatMap { start in story.end.map { start...$0.timestamp } }
    let estimate = LogClock.refine(marks, anchors: anchors, coverage: coverage, zoneUnknown: log.zone == nil)
    var matcher = Matcher(calls: story.calls)
    for (event, time) in timed {
      let at = time + estimate.offset
      // Lines from before the HCI log began (the app's earlier sessions, or what a
      // summary-only log lost) have nothing to meet.
      if let coverage, at < coverage.lowerBound - slack || at > coverage.upperBound + reach { continue }
      matcher.add(event, at: at)
    }
    story.calls = matcher.finish()
    story.hasAppLog = true
    return estimate
  }

  struct Session {
    var device: LoggedAddress
    var lines: [AppLogLine] = []
    var start: Int64
    var call: Int?
    /// Its first onClientConnectionState went to the connect.
    var stateSeen = false
    /// The call its close() and unregisterApp() belong to.
    var last: Int?
  }

  struct Matcher {
    var calls: [AppCall]
    var sessions: [Int: Session] = [:]
    var registering: Session?
    var heldClose: AppLogLine?
    var claimed: Set<Int> = []
    var scanStarts: Set<Int> = []

    init(calls: [AppCall]) { self.calls = calls }

    func peer(_ i: Int) -> DeviceAddress? { calls[i].peerAddress ?? calls[i].conn?.peer }

    /// Whether call `i` can be about `device`: a call whose peer the capture does not name
    /// (a summary-only log that lost the connection's start) can.
    func fits(_ i: Int, _ device: LoggedAddress?) -> Bool {
      guard let device, let peer = peer(i) else { return true }
      return device.matches(peer)
    }

    /// The first app call of `kinds` for `device` starting within reach after `at`.
    func next(
      _ kinds: Set<AppCallKind>, _ device: LoggedAddress?, after at: Int64, where extra: (Int) -> Bool = { _ in true }
    )
      -> Int?
    {
      calls.indices.filter { i in
        calls[i].origin == .app && calls[i].byLocal && kinds.contains(calls[i].kind) && fits(i, device)
          && calls[i].start.timestamp >= at - AppLogMatcher.slack
          && calls[i].start.timestamp <= at + AppLogMatcher.reach && extra(i)
      }.min { calls[$0].start.timestamp < calls[$1].start.timestamp }
    }

    /// The last app call of `kinds` for `device` ending within reach before `at`.
    func last(_ kinds: Set<AppCallKind>, _ device: LoggedAddress?, before at: Int64) -> Int? {
      calls.indices.filter { i in
        calls[i].origin == .app && kinds.contains(calls[i].kind) && fits(i, device)
          && calls[i].end.timestamp <= at + AppLogMatcher.slack && calls[i].end.timestamp >= at - AppLogMatcher.reach
      }.max { (calls[$0].end.timestamp, $0) < (calls[$1].end.timestamp, $1) }
    }

    /// The connection `device` had at `at`.
    func connection(of device: LoggedAddress, at: Int64) -> ConnectionRef? {
      calls.last { call in
        call.kind == .connect && call.outcome == "connected" && call.end.timestamp <= at + AppLogMatcher.slack
          && (call.peerAddress ?? call.conn?.peer).map(device.matches) == true
      }?.conn
    }

    mutating func attach(_ line: AppLogLine, to i: Int?) {
      guard let i else { return }
      calls[i].appLog.append(line)
    }

    /// A call only the log shows.
    mutating func appOnly(_ kind: AppCallKind, _ device: LoggedAddress, at: Int64) -> Int {
      let time = FrameTime(frame: 0, timestamp: at)
      var call = AppCall(kind: kind, conn: connection(of: device, at: at), start: time, end: time)
      call.peerAddress = device.address ?? call.conn?.peer
      call.appOnly = true
      calls.append(call)
      return calls.count - 1
    }

    mutating func add(_ event: AppLogEvent, at: Int64) {
      let line = AppLogLine(line: event.line.lineNumber, timestamp: at, text: event.line.message)
      switch event.kind {
      case .connect(let device, _):
        registering = Session(device: device, lines: [line], start: at)
      case .registerApp:
        registering?.lines.append(line)
      case .clientRegistered(let status, let clientIf):
        guard var session = registering else { return }
        registering = nil
        session.lines.append(line)
        if status != 0 {
          // The stack's client table was full: nothing reaches the controller.
          let i = appOnly(.connect, session.device, at: session.start)
          calls[i].ok = false
          calls[i].outcome = "register_failed"
          calls[i].error.registerStatus = status
          calls[i].end = FrameTime(frame: 0, timestamp: at)
          session.call = i
        } else if let i = next([.connect], session.device, after: session.start, where: { !claimed.contains($0) }) {
          claimed.insert(i)
          session.call = i
        } else {
          // Another client of the app already waits for this device: no new Create Connection;
          // both get the connection that wait makes.
          let i = appOnly(.connect, session.device, at: session.start)
          let waiting = claimed.first {
            calls[$0].kind == .connect && fits($0, session.device) && calls[$0].end.timestamp >= at
          }
          calls[i].conn = waiting.flatMap { calls[$0].conn } ?? calls[i].conn
          calls[i].outcome = "duplicate_pending"
          calls[i].finished = false
          session.call = i
        }
        for l in session.lines { attach(l, to: session.call) }
        session.last = session.call
        sessions[clientIf] = session
      case .clientConnectionState(_, let clientIf, _, let device):
        // A client registered before the log's first record: only its end can be met.
        var session = sessions[clientIf] ?? Session(device: device, start: at, stateSeen: true)
        if !session.stateSeen, let i = session.call {
          session.stateSeen = true
          attach(line, to: i)
          if calls[i].appOnly {
            calls[i].end = FrameTime(frame: 0, timestamp: at)
            calls[i].finished = true
          }
        } else {
          let i = last([.disconnected], device, before: at)
          attach(line, to: i)
          session.last = i ?? session.last
        }
        sessions[clientIf] = session
      case .close:
        heldClose = line
      case .unregisterApp(let clientIf):
        let target = sessions.removeValue(forKey: clientIf)?.last
        if let held = heldClose { attach(held, to: target) }
        heldClose = nil
        attach(line, to: target)
      case .discoverServices(let device):
        attach(line, to: next([.discoverServices], device, after: at))
      case .searchComplete(let device, _):
        attach(
          line,
          to: last(
            [.discoverServices, .discoverCharacteristics, .discoverDescriptors, .discoverIncluded], device, before: at))
      case .configureMTU(let device, _):
        attach(line, to: next([.requestMTU], device, after: at))
      case .mtuConfigured(let device, _, _):
        attach(line, to: last([.requestMTU], device, before: at))
      case .setCharacteristicNotification(let uuid, _):
        let wanted = BluetoothUUID(uuid)?.normalized
        if let i = next(
          [.setNotify], nil, after: at,
          where: { wanted == nil || calls[$0].uuid.map { $0.normalized == wanted } ?? true })
        {
          attach(line, to: i)
        } else if let i = next(
          [.write], nil, after: at, where: { calls[$0].uuid == nil && (calls[$0].written16 ?? 4) < 4 })
        {
          // A capture without the discovery cannot tell a CCCD from other handles; the
          // app's line can: the 2-octet write that follows it is the CCCD write.
          calls[i].kind = .setNotify
          calls[i].cccdHandle = calls[i].attrHandle
          calls[i].attrHandle = nil
          calls[i].mode = AppBuilder.cccdMode(calls[i].written16 ?? 0)
          attach(line, to: i)
        }
      case .readRemoteRSSI(let device):
        attach(line, to: next([.readRSSI], device, after: at))
      case .cancelOpen(let device):
        attach(
          line, to: next([.disconnect], device, after: at) ?? next([.connect], device, after: at - AppLogMatcher.reach))
      case .refresh(let device):
        let i = appOnly(.refresh, device, at: at)
        attach(line, to: i)
      case .leEnabledCheck, .scannerRegistered:
        // Before startScan() (the scan that starts next) or stopScan() (the one that ends next).
        if let i = next([.scan], nil, after: at, where: { !scanStarts.contains($0) || event.isScannerRegistered }) {
          if !event.isScannerRegistered { scanStarts.insert(i) }
          attach(line, to: i)
        } else if let i = calls.indices.first(where: { i in
          calls[i].kind == .scan && calls[i].end.timestamp >= at - AppLogMatcher.slack
            && calls[i].end.timestamp <= at + AppLogMatcher.reach
        }) {
          attach(line, to: i)
        }
      default:
        break
      }
    }

    func finish() -> [AppCall] { AppStory.inStartOrder(calls) }
  }
}

extension AppLogEvent {
  var isScannerRegistered: Bool {
    if case .scannerRegistered = kind { return true }
    return false
  }
}
