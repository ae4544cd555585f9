import BLECapture
import BLEDissect

/// The one home of the rule that follows the Filter Accept List (Core 6.0, Vol 6, Part B,
/// 4.3.1) and tells, per device, the spans it spent waiting in it for a connection.
///
/// A Create Connection with Initiator_Filter_Policy 1 connects to whichever device of the
/// list advertises first: it is an attempt for every device in the list at that moment.
/// Android connects this way for every connection, direct or background: to change the
/// list it cancels the pending Create Connection, adds or removes a device, and issues a
/// new one. Those cancels and re-issues are list maintenance; a device's span runs from the
/// Add that put it in the list (or, for one that was there before the capture, or put back
/// after its link went down, from the first Create Connection it is part of) to its
/// Connection Complete, its removal, or the end of the capture.
public struct AcceptListConnects: Sendable {
  /// A device's wait in the list.
  public struct Span: Sendable {
    public var adapter: UInt16?
    /// Nil for the devices that were in the list before the capture, until one connects.
    public var peer: DeviceAddress?
    public var peerType: UInt8?
    /// The Add that began it; nil when the device was in the list before the capture or
    /// stayed in it across a disconnection.
    public var added: FrameTime?
    public var start: FrameTime
    /// The accept-list Create Connections issued while it waited, and the
    /// LE_Scan_Interval of the first (0.625 ms units), the one its Add called for:
    /// Android's direct connects scan fast (60 ms), its background connects slowly (1.28 s
    /// and more). (Later ones also serve other devices added since.)
    public var creates: [FrameTime] = []
    public var scanInterval: UInt16?
    /// The Connection Complete that ended it, and that connection.
    public var connected: FrameTime?
    public var connection: Int?
    /// The device left the list: unconnected (the span ends there), or after it connected.
    public var removed: FrameTime?
    /// The span follows a connection of the same device in the capture.
    public var reconnect = false

    /// Whose wait it is.
    public enum Role: Sendable {
      /// The app's direct connect: the device leaves the list as soon as it connects.
      case direct
      /// The app's `autoConnect`: added during the capture, connected, and kept in the list.
      case autoConnect
      /// The stack's own: there before the capture, put back after a disconnection, or
      /// waiting slowly in the background.
      case background
    }

    /// Whose wait it is (set by `finish`).
    public internal(set) var role = Role.background

    /// How long after its connection the device left the list, µs; nil while it stays.
    public var removedAfterConnection: Int64? {
      guard let connected, let removed else { return nil }
      return connected.microseconds(to: removed)
    }
  }

  /// A direct connect's device leaves the list right after it connects: within 1 s.
  public static let removalAfterDirectConnect: Int64 = 1_000_000
  /// Android gives up a direct connect after 30 s (GATT_CONNECTION_TIMEOUT, 147; AOSP
  /// system/bt/stack/gatt/connection_manager.cc, DIRECT_CONNECT_TIMEOUT): a device that
  /// leaves the list unconnected 29.5–31 s after it was added timed out; one that stays
  /// longer was no direct connect.
  public static let directConnectTimeout: Int64 = 29_500_000
  static let directConnectTimeoutEnd: Int64 = 31_000_000

  struct Key: Hashable, Sendable {
    var adapter: UInt16?
    var address: DeviceAddress
  }

  struct HandleKey: Hashable, Sendable {
    var adapter: UInt16?
    var handle: UInt16
  }

  /// The list per adapter: each member's open span (or, once connected, its finished one).
  private var members: [Key: Int] = [:]
  /// Members whose span connected and that stay in the list: the connection's handle.
  private var connectedMembers: [Key: UInt16] = [:]
  private var handles: [HandleKey: Key] = [:]
  /// Per adapter, the span of devices the list held before the capture: open while Create
  /// Connections find no device the capture put in it.
  private var unknown: [UInt16?: Int] = [:]
  /// The pending accept-list Create Connection per adapter.
  private var pending: [UInt16?: FrameTime] = [:]
  private var everConnected: Set<Key> = []
  /// The smallest LE_Scan_Interval of the adapter's accept-list Create Connections.
  private var fastestScanInterval: [UInt16?: UInt16?] = [:]
  public private(set) var spans: [Span] = []

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    let at = FrameTime(record)
    let adapter = record.adapter
    switch analyzed.link {
    case .acceptList(let change):
      switch change.operation {
      case .add:
        guard let address = change.address else { return }
        let key = Key(adapter: adapter, address: address)
        guard members[key] == nil else { return }
        members[key] = open(key, type: change.addressType, at: at, added: true)
      case .remove:
        guard let address = change.address else { return }
        remove(Key(adapter: adapter, address: address), at)
      case .clear:
        for key in members.keys where key.adapter == adapter { remove(key, at) }
        if let u = unknown.removeValue(forKey: adapter) { spans[u].removed = at }
      }
    case .createConnection(let create) where create.le && create.usesAcceptList:
      pending[adapter] = at
      if let interval = create.scanInterval {
        fastestScanInterval[adapter] = min(fastestScanInterval[adapter].flatMap { $0 } ?? interval, interval)
      }
      var waiting = members.filter { $0.key.adapter == adapter && connectedMembers[$0.key] == nil }.map(\.value)
      if waiting.isEmpty, unknown[adapter] == nil {
        spans.append(Span(adapter: adapter, peer: nil, peerType: nil, added: nil, start: at))
        unknown[adapter] = spans.count - 1
      }
      if let u = unknown[adapter] { waiting.append(u) }
      for i in waiting {
        if spans[i].creates.isEmpty { spans[i].scanInterval = create.scanInterval }
        spans[i].creates.append(at)
      }
    case .connectionComplete(let complete) where complete.le && complete.role ?? 0 == 0:
      guard let create = pending.removeValue(forKey: adapter), complete.status == 0, let address = complete.peer
      else { return }
      let key = Key(adapter: adapter, address: address)
      // A device in the list before the capture began: the span of those, or one that
      // begins with the Create Connection that found it.
      var found = members[key]
      if found == nil, let u = unknown.removeValue(forKey: adapter) {
        spans[u].peer = address
        spans[u].peerType = complete.peerType
        found = u
      }
      let i = found ?? open(key, type: complete.peerType, at: create, added: false)
      members[key] = i
      if spans[i].creates.isEmpty { spans[i].creates = [create] }
      spans[i].connected = at
      spans[i].connection = analyzed.conn?.id
      connectedMembers[key] = complete.handle
      handles[HandleKey(adapter: adapter, handle: complete.handle)] = key
      everConnected.insert(key)
    case .disconnectionComplete(0, let handle, _):
      guard let key = handles.removeValue(forKey: HandleKey(adapter: adapter, handle: handle)),
        connectedMembers[key] == handle
      else { return }
      // Still in the list: the controller waits for it again.
      connectedMembers[key] = nil
      let type = members[key].flatMap { spans[$0].peerType }
      members[key] = open(key, type: type, at: at, added: false)
    default:
      break
    }
  }

  /// The spans in the order they began, each with its role.
  public func finish() -> [Span] {
    spans.map { span in
      var span = span
      span.role = Self.role(of: span, fastest: fastestScanInterval[span.adapter] ?? nil)
      return span
    }
  }

  /// Whose wait a span is. Only a span that an Add began can be the app's:
  /// - connected, and the device left the list within 1 s: the app's direct connect;
  /// - connected and kept in the list, the device's first connection in the capture: the
  ///   app's `autoConnect`;
  /// - unconnected, its Add's Create Connection scanning as fast as the adapter ever did
  ///   for the list (Android's direct connects scan at 60 ms, its background ones at
  ///   1.28 s or slower), and gone
  ///   from the list within Android's 30 s direct-connect timeout: the app's direct
  ///   connect, cancelled or timed out (still waiting at the end: pending).
  /// Everything else is the stack's background connection.
  static func role(of span: Span, fastest: UInt16?) -> Span.Role {
    guard span.added != nil else { return .background }
    if span.connected != nil {
      if let after = span.removedAfterConnection, after <= removalAfterDirectConnect { return .direct }
      return span.reconnect ? .background : .autoConnect
    }
    guard let interval = span.scanInterval, interval <= fastest ?? interval else { return .background }
    if let removed = span.removed, span.start.microseconds(to: removed) > directConnectTimeoutEnd { return .background }
    return .direct
  }

  private mutating func open(_ key: Key, type: UInt8?, at: FrameTime, added: Bool) -> Int {
    var span = Span(adapter: key.adapter, peer: key.address, peerType: type, added: added ? at : nil, start: at)
    span.reconnect = everConnected.contains(key)
    spans.append(span)
    return spans.count - 1
  }

  private mutating func remove(_ key: Key, _ at: FrameTime) {
    guard let i = members.removeValue(forKey: key) else { return }
    spans[i].removed = at
    connectedMembers[key] = nil
  }
}
