import BLEDissect

/// One connection's calls, finished when it ended (`AppBuilder.finished`).
public struct AppCallGroup: Sendable {
  /// In the order they began (`AppCall.startKey`).
  public var calls: [AppCall]
  /// The connection's peer's name, as `app` prints it beside the connection.
  public var peerName: String?
  /// A connect through the Filter Accept List made the connection: that call comes with
  /// the end of the capture (`AcceptListConnects` tells its role then).
  public var acceptListConnect: Bool
}

/// Streaming (`app`): when a connection ends, its calls are finished (its connect,
/// disconnect and reconnection calls made, names filled in, the stack's calls marked) and
/// handed over, and the builder keeps nothing of them. What only the end of the capture
/// tells stays until `finish`: scans (a device heard may be connected later), connects
/// through the Filter Accept List (their role), attempts that made no connection (the
/// name the peer advertised last), and the connections still up.
extension AppBuilder {
  /// The calls of each connection that ended since the last call, one group per
  /// connection, each in the order the calls began (`AppCall.startKey`). `timeline` has
  /// seen the same records; `gatt` names handles as it knows them now.
  public mutating func finished(
    _ timeline: TimelineBuilder, gatt: GATTTracker, advertisedName: (DeviceAddress) -> String?
  ) -> [AppCallGroup] {
    guard !endedConnections.isEmpty else { return [] }
    defer { endedConnections = [] }
    return endedConnections.map { retire($0, timeline, gatt, advertisedName) }
  }

  /// How many calls the builder holds (made and not handed over).
  public var heldCalls: Int { calls.held }

  /// The first record's time: where relative times start.
  public var captureStart: Int64? { story.start }

  private mutating func retire(
    _ id: Int, _ builder: TimelineBuilder, _ gatt: GATTTracker, _ advertisedName: (DeviceAddress) -> String?
  ) -> AppCallGroup {
    let connections = builder.timeline.connections
    if let index = builder.index[id] {
      let connection = connections[index]
      if var attempt = connection.attempt, !(attempt.isLE && attempt.peer == nil) {
        attempt.peerName = connection.peerName ?? attempt.peer.flatMap(advertisedName)
        calls.append(Self.attemptCall(attempt, connection), sequence: Finish.attempt(attempt.number))
      }
      for (step, call) in Self.disconnectCalls(connection) {
        calls.append(call, sequence: Finish.connection(index, step))
      }
      if let peer = connection.ref.peer {
        let key = PeerKey(adapter: connection.ref.adapter, address: peer)
        var previous = lastRetired[key].flatMap { builder.index[$0] }
        // Connections to one peer that overlap: look further back.
        if let p = previous, connections[p].reconnectedAs != id {
          previous = connections.lastIndex { $0.reconnectedAs == id }
        }
        if let previous, connections[previous].reconnectedAs == id,
          let event = reconnectedCall(connections[previous], later: connection)
        {
          calls.append(event, sequence: Finish.connection(previous, 2))
        }
        lastRetired[key] = id
      }
    }
    let ids = calls.takeIDs(of: id)
    markUnanswered(ids)
    name(gatt, ids)
    markSystemCalls(ids)
    resolveRetries(ids)
    var finished: [AppCall] = []
    finished.reserveCapacity(ids.count)
    for i in ids {
      guard let call = calls.remove(i) else { continue }
      for frame in call.requests where byRequest[frame] == i { byRequest[frame] = nil }
      finished.append(call)
    }
    links[id] = nil
    retired.insert(id)
    finished.sort { $0.startKey < $1.startKey }
    return AppCallGroup(
      calls: finished, peerName: builder.index[id].flatMap { connections[$0].peerName },
      acceptListConnect: acceptList.spans.contains { $0.connection == id })
  }
}
