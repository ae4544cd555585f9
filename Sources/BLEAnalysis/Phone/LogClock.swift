import BLECapture
import BLEDissect

/// Puts a phone's log on its capture's clock: from the log lines and the HCI packets that
/// must line up, the offset to add to a log time to get the capture time.
///
/// Both come from the phone's one wall clock, but a log time is printed to the
/// millisecond in local time, and a bugreport's zone or an HCI log from another device
/// can be off. The pairs that must line up:
///
/// - a `connect()` line comes before the LE (Extended) Create Connection it causes: the
///   offset is at most `create − line`;
/// - an `onClientConnectionState()` line comes after the Connection Complete or
///   Disconnection Complete it reports: the offset is at least `complete − line`.
///
/// Each line is paired with the nearest such packet on the side it must be (for the
/// same peer when both name it; a hidden address `XX:XX:XX:XX:5C:54` matches on what it
/// shows) within `window`, else with one on the other side within `slack` (the clock is
/// off); lines outside the capture's `coverage` are not paired.
/// The offset kept satisfies the most pairs. A starting offset (0 when the zone was
/// known) that satisfies them as well is kept: a clock that already agrees is left
/// alone. Otherwise the offset is the one that puts the tightest callback 1 ms after its
/// event (a `connect()` is logged a few ms before its packet, a callback about 1 ms
/// after its event), within what the `connect()` pairs allow; with callbacks alone or
/// connects alone, their bound.
public enum LogClock {
  /// What the wire shows at a time (capture clock, Unix µs).
  public struct Anchor: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
      /// LE Create Connection or LE Extended Create Connection (command sent).
      case createConnection
      /// LE (Enhanced) Connection Complete, with its status.
      case connectionComplete(status: UInt8)
      /// Disconnection Complete, with its reason.
      case disconnectionComplete(reason: UInt8)
    }

    public var kind: Kind
    public var time: Int64
    /// The peer when the packet names it (a Create Connection through the filter
    /// accept list names none; a Disconnection Complete names the peer its handle had).
    public var peer: DeviceAddress?

    public init(kind: Kind, time: Int64, peer: DeviceAddress?) {
      self.kind = kind
      self.time = time
      self.peer = peer
    }
  }

  /// A log line that must line up with the wire (log clock, Unix µs).
  public struct Mark: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
      /// `connect()`: before its Create Connection.
      case beforeCreateConnection
      /// `onClientConnectionState()`: after its Connection Complete or Disconnection Complete.
      case afterConnectionChange
    }

    public var kind: Kind
    public var time: Int64
    public var device: LoggedAddress?
    /// The line number in the bugreport text.
    public var line: Int

    public init(kind: Kind, time: Int64, device: LoggedAddress?, line: Int) {
      self.kind = kind
      self.time = time
      self.device = device
      self.line = line
    }

    /// The mark an app-log event makes, when it makes one; `time` is the line's time on
    /// the log clock (`PhoneLog.unixMicroseconds`).
    public init?(_ event: AppLogEvent, time: Int64) {
      switch event.kind {
      case .connect(let device, _):
        self.init(kind: .beforeCreateConnection, time: time, device: device, line: event.line.lineNumber)
      case .clientConnectionState(_, _, _, let device):
        self.init(kind: .afterConnectionChange, time: time, device: device, line: event.line.lineNumber)
      default:
        return nil
      }
    }
  }

  public struct Estimate: Hashable, Sendable {
    /// Add to a log time to get the capture time, µs.
    public var offset: Int64
    /// Pairs the offset satisfies, and pairs it does not (lines whose order no offset
    /// can make right together with the rest).
    public var pairs: Int
    public var conflicts: Int
    /// The offsets the satisfied pairs allow: at least `lower`, at most `upper` (nil
    /// when no pair bounds that side).
    public var lower: Int64?
    public var upper: Int64?
  }

  /// Marks beyond this many are not used (a day of logcat holds far fewer connects).
  public static let markLimit = 20_000

  /// The offset that lines `marks` up with `anchors`, starting from `initial`. With
  /// `zoneUnknown`, whole quarter hours within ±14 h are tried first (the log's zone is
  /// a guess).
  public static func refine(
    _ marks: [Mark], anchors: [Anchor], coverage: ClosedRange<Int64>? = nil, initial: Int64 = 0,
    zoneUnknown: Bool = false, window: Int64 = 5_000_000, slack: Int64 = 1_000_000
  ) -> Estimate {
    let marks = Array(marks.prefix(markLimit))
    let pairing = Pairing(window: window, slack: slack, coverage: coverage)
    let creates = anchors.filter { $0.kind == .createConnection }.sorted { $0.time < $1.time }
    let changes = anchors.filter { $0.kind != .createConnection }.sorted { $0.time < $1.time }
    var start = initial
    if zoneUnknown {
      let quarter: Int64 = 900_000_000
      let candidates = (-56...56).map { initial + Int64($0) * quarter }
      start =
        candidates.max { a, b in
          let sa = solve(bounds(marks, creates, changes, offset: a, pairing), near: a)
          let sb = solve(bounds(marks, creates, changes, offset: b, pairing), near: b)
          return (sa.pairs, -abs(a - initial)) < (sb.pairs, -abs(b - initial))
        } ?? initial
    }
    // Pair with the starting offset, solve, and pair again with what that gives.
    var estimate = solve(bounds(marks, creates, changes, offset: start, pairing), near: start)
    let second = solve(bounds(marks, creates, changes, offset: estimate.offset, pairing), near: start)
    if second.pairs > estimate.pairs { estimate = second }
    return estimate
  }

  /// How lines find their packets.
  struct Pairing {
    /// A packet this far from its line at most (after the line for a `connect()`,
    /// before it for a callback).
    var window: Int64
    /// How far the clock may be off: a packet on the wrong side of its line by at most
    /// this much still pairs.
    var slack: Int64
    /// The capture's first and last record: a line outside it has no packet to pair with.
    var coverage: ClosedRange<Int64>?
  }

  /// The bound each mark's pair puts on the offset: (value, isLower).
  static func bounds(
    _ marks: [Mark], _ creates: [Anchor], _ changes: [Anchor], offset: Int64, _ pairing: Pairing
  ) -> [(Int64, Bool)] {
    var result: [(Int64, Bool)] = []
    for mark in marks {
      let at = mark.time + offset
      if let coverage = pairing.coverage, at < coverage.lowerBound || at > coverage.upperBound { continue }
      func fits(_ anchor: Anchor) -> Bool {
        guard let device = mark.device, let peer = anchor.peer else { return true }
        return device.matches(peer)
      }
      // Anchors are sorted by time: start at the first one at or after the line and walk
      // outwards only while they are within reach.
      switch mark.kind {
      case .beforeCreateConnection:
        // The first Create Connection after the line; else one just before it.
        let split = firstIndex(creates, atOrAfter: at)
        let after = creates[split...].prefix { $0.time - at <= pairing.window }.first(where: fits)
        let before = creates[..<split].reversed().prefix { at - $0.time <= pairing.slack }.first(where: fits)
        if let anchor = after ?? before { result.append((anchor.time - mark.time, false)) }
      case .afterConnectionChange:
        let split = firstIndex(changes, atOrAfter: at + 1)
        let before = changes[..<split].reversed().prefix { at - $0.time <= pairing.window }.first(where: fits)
        let after = changes[split...].prefix { $0.time - at <= pairing.slack }.first(where: fits)
        if let anchor = before ?? after { result.append((anchor.time - mark.time, true)) }
      }
    }
    return result
  }

  /// The index of the first anchor at or after `time` (binary search).
  static func firstIndex(_ anchors: [Anchor], atOrAfter time: Int64) -> Int {
    var low = 0
    var high = anchors.count
    while low < high {
      let mid = (low + high) / 2
      if anchors[mid].time < time { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// The offset nearest `near` among those satisfying the most bounds.
  static func solve(_ bounds: [(Int64, Bool)], near: Int64, callbackDelay: Int64 = 1000) -> Estimate {
    // Satisfied bounds at an offset: lower bounds at or below it, upper bounds at or
    // above it, counted by binary search in the sorted values.
    let lowers = bounds.filter(\.1).map(\.0).sorted()
    let uppers = bounds.filter { !$0.1 }.map(\.0).sorted()
    func count(_ values: [Int64], below limit: Int64, inclusive: Bool) -> Int {
      var low = 0
      var high = values.count
      while low < high {
        let mid = (low + high) / 2
        if values[mid] < limit || (inclusive && values[mid] == limit) { low = mid + 1 } else { high = mid }
      }
      return low
    }
    func satisfied(_ offset: Int64) -> Int {
      count(lowers, below: offset, inclusive: true) + uppers.count - count(uppers, below: offset, inclusive: false)
    }
    // The count only changes at a bound: the best offsets form intervals whose ends are
    // bounds; `near` itself, clamped into such an interval, is the answer.
    var best = (count: satisfied(near), offset: near)
    for candidate in bounds.map(\.0) where candidate != near {
      let count = satisfied(candidate)
      if count > best.count || (count == best.count && abs(candidate - near) < abs(best.offset - near)) {
        best = (count, candidate)
      }
    }
    let kept = bounds.filter { $0.1 ? best.offset >= $0.0 : best.offset <= $0.0 }
    let lower = kept.filter(\.1).map(\.0).max()
    let upper = kept.filter { !$0.1 }.map(\.0).min()
    // A starting offset the pairs reject says little about where in their interval the
    // clock is. The tightest callback is logged about `callbackDelay` after its event
    // (a binder hop), closer than a connect() to its packet: one delay past the lower
    // bound, kept under the upper one.
    if best.offset != near, let lower { best.offset = min(lower + callbackDelay, upper ?? .max) }
    return Estimate(
      offset: best.offset, pairs: best.count, conflicts: bounds.count - best.count, lower: lower, upper: upper)
  }

  /// Collects the anchors of a capture's records, following handles so that a
  /// Disconnection Complete names its peer.
  public struct AnchorCollector {
    public private(set) var anchors: [Anchor] = []
    private var peers: [UInt16: DeviceAddress] = [:]
    private var decoder = RecordDecoder()

    public init() {}

    /// Reads the record's link event: LE (Extended) Create Connection, LE (Enhanced)
    /// Connection Complete and Disconnection Complete.
    public mutating func add(_ record: Record) {
      guard case .hci(let type) = record.kind, type == H4.command || type == H4.event else { return }
      let decoded = decoder.decode(record)
      guard let hci = decoded.hci, let event = LinkEvent(record, hci) else { return }
      add(event, time: record.timestamp.unixMicroseconds)
    }

    /// The anchor a link event makes, when it makes one (`time`: capture clock, Unix µs).
    public mutating func add(_ event: LinkEvent, time: Int64) {
      // A failed connection may leave the peer all zero: no peer then.
      func known(_ peer: DeviceAddress?) -> DeviceAddress? { peer?.rawValue == 0 ? nil : peer }
      switch event {
      case .createConnection(let create) where create.le:
        anchors.append(
          Anchor(kind: .createConnection, time: time, peer: create.usesAcceptList ? nil : known(create.peer)))
      case .connectionComplete(let complete) where complete.le:
        let peer = known(complete.peer)
        if complete.status == 0, let peer { peers[complete.handle] = peer }
        anchors.append(Anchor(kind: .connectionComplete(status: complete.status), time: time, peer: peer))
      case .disconnectionComplete(_, let handle, let reason):
        anchors.append(Anchor(kind: .disconnectionComplete(reason: reason), time: time, peer: peers[handle]))
        peers[handle] = nil
      default:
        break
      }
    }
  }
}
