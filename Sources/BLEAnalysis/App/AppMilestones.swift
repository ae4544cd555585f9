/// The times a user feels on one connection: from the scan that found the peer to the
/// connection, and from the connection to the services discovered, the first subscription
/// and the first notification. `app` prints them after each connection; `report` shows
/// them in its summary.
public struct AppMilestones: Sendable {
  /// One milestone: what it measures (`scan → connected`) and how long it took, µs.
  public struct Milestone: Sendable {
    public var name: String
    public var microseconds: Int64
  }

  /// What each milestone measures, in the order a session reaches them.
  public static let names = [
    "scan → connected", "connected → services discovered", "→ subscribed", "→ first notification",
  ]

  /// In the order a session reaches them; empty when the connection never came up.
  public private(set) var milestones: [Milestone] = []

  /// The connect the milestones count from: when it began and when it connected.
  var connect: (start: FrameTime, end: FrameTime)?

  /// `calls` are one connection's calls in the order they began; `scans` the capture's scans.
  /// The stack's own calls (`origin` system) are not the app's milestones.
  public init(_ calls: [AppCall], scans: [AppCall]) {
    self.init(calls)
    addScan(scans)
  }

  /// All but the first milestone (scan → connected), which `addScan` adds once the
  /// capture's scans are known.
  public init(_ calls: [AppCall]) {
    let calls = calls.filter { $0.origin == .app }
    guard let connect = calls.first(where: { $0.kind == .connect && $0.ok }) else { return }
    self.connect = (connect.start, connect.end)
    let connected = connect.end
    func add(_ name: String, _ microseconds: Int64) {
      milestones.append(Milestone(name: name, microseconds: microseconds))
    }
    let firstUse = calls.first { [.read, .write, .setNotify].contains($0.kind) && $0.byLocal }
    let discovery = calls.filter { call in
      [.discoverServices, .discoverCharacteristics, .discoverDescriptors, .discoverIncluded].contains(call.kind)
        && call.byLocal && (firstUse.map { call.start < $0.start } ?? true)
    }
    if let last = discovery.last {
      add(Self.names[1], connected.microseconds(to: last.end))
    }
    if let subscribed = calls.first(where: { $0.kind == .setNotify && $0.ok && $0.mode != "disable" && $0.byLocal }) {
      add(Self.names[2], connected.microseconds(to: subscribed.end))
    }
    if let value = calls.first(where: { ($0.kind == .notification || $0.kind == .indication) && $0.byLocal }) {
      add(Self.names[3], connected.microseconds(to: value.start))
    }
  }

  /// The first milestone: from the last of `scans` (in the order they began) that began
  /// before the connect, to the connection.
  public mutating func addScan(_ scans: [AppCall]) {
    guard let connect, let scan = scans.last(where: { $0.start < connect.start }) else { return }
    milestones.insert(Milestone(name: Self.names[0], microseconds: scan.start.microseconds(to: connect.end)), at: 0)
  }
}
