import BLECapture
import BLEDissect

/// What the timeline knows (connect, disconnect, reconnect), and names from the GATT
/// databases at the end of the capture.
extension AppBuilder {
  /// Where the calls made at the end sort among those that start at the same frame: after
  /// every call made record by record, attempts, then accept-list waits, then each
  /// connection's disconnect, disconnected and the reconnection after it.
  enum Finish {
    static func attempt(_ number: Int) -> Int { 1 << 40 | number }
    static func span(_ index: Int) -> Int { 2 << 40 | index }
    static func connection(_ index: Int, _ step: Int) -> Int { 3 << 40 | index << 2 | step }
  }

  /// The calls connection attempts, accept-list waits, disconnections and reconnections
  /// make; streaming, those of connections whose calls went already are not made again.
  mutating func addConnectionCalls(_ timeline: Timeline) {
    var byID: [Int: Int] = [:]
    for (i, connection) in timeline.connections.enumerated() { byID[connection.ref.id] = i }
    var lastCreate: [DeviceAddress: FrameTime] = [:]
    // Attempts through the Filter Accept List are told per device, by its spans in the list.
    for attempt in timeline.attempts where !(attempt.isLE && attempt.peer == nil) {
      if let peer = attempt.peer { lastCreate[peer] = max(lastCreate[peer] ?? attempt.create, attempt.create) }
      if let id = attempt.connection, retired.contains(id) { continue }
      let connection = attempt.connection.flatMap { byID[$0] }.map { timeline.connections[$0] }
      calls.append(Self.attemptCall(attempt, connection), sequence: Finish.attempt(attempt.number))
    }
    for (n, span) in acceptList.finish().enumerated() {
      let call = acceptListCall(span, connection: span.connection.flatMap { byID[$0] }.map { timeline.connections[$0] })
      calls.append(call, sequence: Finish.span(n))
      if let create = span.creates.first, let peer = span.peer {
        lastCreate[peer] = max(lastCreate[peer] ?? create, create)
      }
    }
    // A scan's device was connected when a connection to it was created after the scan began.
    func connected(_ call: inout AppCall) {
      guard call.kind == .scan, var scan = call.scan else { return }
      for (d, device) in scan.devices.enumerated() {
        if let create = lastCreate[device.address], scan.enable < create { scan.devices[d].connected = true }
      }
      call.scan = scan
    }
    for i in calls.indices { connected(&calls[i]) }
    calls.forEachParked(connected)
    for (index, connection) in timeline.connections.enumerated() {
      if !retired.contains(connection.ref.id) {
        for (step, call) in Self.disconnectCalls(connection) {
          calls.append(call, sequence: Finish.connection(index, step))
        }
      }
      if let next = connection.reconnectedAs, !retired.contains(next), let later = byID[next],
        let event = reconnectedCall(connection, later: timeline.connections[later])
      {
        calls.append(event, sequence: Finish.connection(index, 2))
      }
    }
  }

  /// The connect call of `attempt`, which made `connection` (if any).
  static func attemptCall(_ attempt: ConnectionAttempt, _ connection: ConnectionTimeline?) -> AppCall {
    var call = AppCall(
      kind: .connect, conn: connection?.ref, start: attempt.create, end: attempt.result ?? attempt.create)
    call.requests = [attempt.create.frame] + (attempt.cancel.map { [$0.frame] } ?? [])
    call.responses = attempt.result.map { [$0.frame] } ?? []
    switch attempt.outcome {
    case .connected:
      Self.connected(&call, connection)
    case .cancelled, .failed, .timedOut:
      call.outcome = attempt.outcome == .timedOut ? "timeout" : attempt.outcome.rawValue
      call.ok = false
      call.error.hci = attempt.status
    case .pending:
      call.outcome = "pending"
      call.ok = false
      call.error.unanswered = "end_of_capture"
      call.finished = false
    }
    call.peerAddress = attempt.peer
    call.peerAddressType = attempt.peerType
    call.peerName = attempt.peerName
    return call
  }

  /// The app's disconnect (step 0) and the disconnected event (step 1) of `connection`.
  static func disconnectCalls(_ connection: ConnectionTimeline) -> [(step: Int, call: AppCall)] {
    guard let disconnect = connection.disconnect else { return [] }
    var made: [(Int, AppCall)] = []
    if let command = disconnect.command {
      var call = AppCall(kind: .disconnect, conn: connection.ref, start: command, end: disconnect.complete)
      call.requests = [command.frame]
      call.responses = [disconnect.complete.frame]
      call.reason = disconnect.commandReason
      made.append((0, call))
    }
    if disconnect.initiator != .failedToEstablish {
      var event = AppCall(
        kind: .disconnected, conn: connection.ref, start: disconnect.complete, end: disconnect.complete)
      event.responses = [disconnect.complete.frame]
      event.reason = disconnect.reason
      event.who = disconnect.initiator.rawValue
      made.append((1, event))
    }
    return made
  }

  /// The reconnected event on `later`, the connection that came next with `connection`'s peer.
  func reconnectedCall(_ connection: ConnectionTimeline, later: ConnectionTimeline) -> AppCall? {
    guard let gap = connection.reconnectGapMicroseconds, let complete = later.complete,
      connection.disconnect?.initiator != .failedToEstablish
    else { return nil }
    var event = AppCall(kind: .reconnected, conn: later.ref, start: complete, end: complete)
    event.responses = [complete.frame]
    event.previousConn = connection.ref.id
    event.gap = gap
    // Cached handles: the client used handles it knew and discovered nothing on the
    // connection (a discovery after a first write, such as the stack's Service Changed
    // CCCD write from its cache, is a rediscovery).
    if let link = links[later.ref.id], link.firstHandleUse != nil || link.firstDiscovery != nil {
      event.cachedHandles = link.firstDiscovery == nil
    }
    return event
  }

  /// A connect that made `connection`: `failed` when it ended with 0x3E in its first
  /// connection events (the timeline's failed_to_establish).
  static func connected(_ call: inout AppCall, _ connection: ConnectionTimeline?) {
    call.outcome = "connected"
    guard let disconnect = connection?.disconnect, disconnect.initiator == .failedToEstablish else { return }
    call.outcome = "failed"
    call.ok = false
    call.error.hci = disconnect.reason
    call.end = disconnect.complete
    call.responses.append(disconnect.complete.frame)
  }

  /// A device's wait in the Filter Accept List: the app's connect (direct, or
  /// `autoConnect`), or the stack's background connection (`AcceptListConnects.role(of:)`).
  func acceptListCall(_ span: AcceptListConnects.Span, connection: ConnectionTimeline?) -> AppCall {
    let role = span.role
    let end = span.connected ?? span.removed ?? span.start
    var call = AppCall(
      kind: role == .background ? .backgroundConnect : .connect, conn: connection?.ref, start: span.start, end: end)
    // The Add (when the capture shows it) and the Create Connections; a span put back after a
    // disconnection begins at that event, which is no request of it.
    call.requests = (span.added.map { [$0.frame] } ?? []) + span.creates.map(\.frame)
    call.responses = [span.connected, span.removed].compactMap { $0?.frame }
    call.peerAddress = span.peer
    call.peerAddressType = span.peerType
    call.peerName = connection?.peerName
    call.autoConnect = role == .background ? nil : role == .autoConnect
    if role == .background {
      call.origin = .system
      call.systemReason = span.added == nil ? "background_reconnect" : "background_connect"
    }
    if span.connected != nil {
      Self.connected(&call, connection)
    } else if role == .background {
      call.outcome = span.removed == nil ? "pending" : "removed"
      call.finished = span.removed != nil
    } else if let removed = span.removed {
      call.ok = false
      let waited = span.start.microseconds(to: removed)
      call.outcome = waited >= AcceptListConnects.directConnectTimeout ? "timeout" : "cancelled"
    } else {
      call.outcome = "pending"
      call.ok = false
      call.error.unanswered = "end_of_capture"
      call.finished = false
    }
    return call
  }

  /// Fills in the UUIDs and names the databases know (at the end of the capture; streaming,
  /// when the call's connection ended) for the calls `ids`.
  mutating func name(_ gatt: GATTTracker, _ ids: [Int]) {
    for i in ids where calls[i].kind.isATT || calls[i].kind == .notification || calls[i].kind == .indication {
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
          calls[i].name = library.name(of: service.uuid)
          calls[i].service = service.uuid
          calls[i].serviceName = calls[i].name
        }
      case .discoverServices:
        if let uuid = calls[i].uuid { calls[i].name = library.name(of: uuid) }
      case .read where calls[i].mode == "by_uuid":
        if let uuid = calls[i].uuid { calls[i].name = library.name(of: uuid) }
      default:
        guard calls[i].uuid == nil || calls[i].name == nil, let handle = calls[i].attrHandle,
          let found = database.lookup(handle, names: library)
        else { continue }
        if calls[i].kind == .discoverDescriptors, found.kind != .value { continue }
        Self.attribute(&calls[i], found)
        Self.descriptorCall(&calls[i], found, handle)
        // A CCCD written before the discovery that tells what it is (handles from a cache).
        if calls[i].kind == .write, found.uuid == Self.cccd, let value = calls[i].written16 {
          calls[i].kind = .setNotify
          calls[i].cccdHandle = handle
          calls[i].attrHandle = found.valueHandle
          calls[i].mode = Self.cccdMode(value)
        }
      }
    }
  }
}
