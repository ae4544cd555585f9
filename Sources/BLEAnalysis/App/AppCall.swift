import BLEDissect

/// What an app did or saw, in platform-neutral words: the JSON `call` values of `app`.
public enum AppCallKind: String, Sendable, CaseIterable {
  case scan
  case connect
  case requestMTU = "request_mtu"
  case discoverServices = "discover_services"
  case discoverCharacteristics = "discover_characteristics"
  case discoverDescriptors = "discover_descriptors"
  case discoverIncluded = "discover_included"
  case read
  case write
  case setNotify = "set_notify"
  /// A descriptor other than the CCCD: `attrHandle` is the descriptor's handle.
  case readDescriptor = "read_descriptor"
  case writeDescriptor = "write_descriptor"
  case readRSSI = "read_rssi"
  case disconnect
  // Observed events: the app did not ask for them.
  case disconnected
  case notification
  case indication
  /// SMP pairing, with what triggered it.
  case pair
  /// Encryption with a stored key (no pairing).
  case encrypt
  case reconnected
  /// The stack's own wait for a device in the Filter Accept List (Android's background
  /// connection to a bonded device, re-armed after each disconnection): not an app call.
  case backgroundConnect = "background_connect"
  /// `BluetoothGatt.refresh()`: clears the stack's GATT cache; only the app's log shows it.
  case refresh

  /// An event the app observed rather than a call it made.
  public var isEvent: Bool {
    switch self {
    case .disconnected, .notification, .indication, .pair, .encrypt, .reconnected, .backgroundConnect: true
    default: false
    }
  }

  /// Calls made with ATT requests of a GATT client.
  public var isATT: Bool {
    switch self {
    case .requestMTU, .discoverServices, .discoverCharacteristics, .discoverDescriptors, .discoverIncluded, .read,
      .write, .setNotify, .readDescriptor, .writeDescriptor:
      true
    default: false
    }
  }
}

/// The error of a call in each vocabulary's raw terms: an HCI status or reason, an ATT
/// Error Code. The platform values come from `AppPlatform`.
public struct AppError: Hashable, Sendable {
  public var hci: UInt8?
  public var att: UInt8?
  /// No answer: `timeout` (30 s), `disconnected`, `superseded`, `end_of_capture`.
  public var unanswered: String?
  /// A connect whose `registerApp()` failed (`onClientRegistered() - status=257`: the
  /// stack's client table is full).
  public var registerStatus: Int?

  public init(hci: UInt8? = nil, att: UInt8? = nil, unanswered: String? = nil) {
    self.hci = hci
    self.att = att
    self.unanswered = unanswered
  }
}

/// A run of notifications or indications of one characteristic.
public struct AppValueStream: Hashable, Sendable {
  public var count = 0
  public var bytes = 0
  /// The longest time between two of them, µs.
  public var largestGap: Int64 = 0
  public var largestGapAfter: Int?
  /// Indications confirmed by the client.
  public var confirmed = 0
}

/// What started a pairing or an encryption, and the request that was tried again after it.
public struct AppSecurity: Hashable, Sendable {
  /// `security_request` (the peer asked), `att_error` (an Insufficient Authentication,
  /// Encryption or Encryption Key Size error), or nil when the capture shows no cause.
  public var trigger: String?
  public var triggerFrame: Int?
  /// The ATT error that triggered it.
  public var triggerError: UInt8?
  public var method: String?
  public var bonding: Bool?
  /// This host sent the Pairing Request (or LE Enable Encryption).
  public var localInitiated = true
  /// Pairing Failed: who sent it and why.
  public var failedReason: UInt8?
  public var failedByLocal: Bool?
  /// The same request again after the security procedure, and how it went.
  public var retryFrame: Int?
  public var retryOutcome: String?
}

/// A scan session: Set Scan (Parameters and) Enable on … Enable off.
public struct AppScan: Hashable, Sendable {
  /// One advertiser heard during the session.
  public struct Device: Hashable, Sendable {
    public var address: DeviceAddress
    public var addressType: AdvertisingAddressType?
    /// The first report the app would get: a complete advertisement (see `AppBuilder`).
    public var firstResult: FrameTime?
    public var firstReport: FrameTime
    public var reports = 0
    public var results = 0
    public var services: [BluetoothUUID] = []
    public var name: String?
    public var connectable = false
    /// Waiting for the scan response of a scannable advertisement.
    var pending = false
    /// A later connection went to this device.
    public var connected = false
  }

  public var extended: Bool
  public var active: Bool?
  /// LE_Scan_Interval and LE_Scan_Window in units of 0.625 ms.
  public var interval: UInt16?
  public var window: UInt16?
  public var filterDuplicates: Bool?
  /// The Set Scan Enable that started it, and the one that stopped it with its Command Complete.
  public var enable: FrameTime
  public var disable: FrameTime?
  public var disableComplete: FrameTime?
  public var devices: [Device] = []
  public var reports = 0
  /// Advertisements completed (what an app's scan callback would get, before its filter).
  public var results = 0
  public var firstResult: FrameTime?
  public var firstResultAddress: DeviceAddress?
  /// Times the stack stopped and restarted it (`AppBuilder.scanRestartGap`), and how many
  /// of those restarts came with other scan parameters.
  public var restarts = 0
  public var parameterChanges = 0
}

/// A line of the app's own log, on the capture's clock.
public struct AppLogLine: Hashable, Sendable {
  /// The line number in the bugreport's text.
  public var line: Int
  public var timestamp: Int64
  public var text: String

  public init(line: Int, timestamp: Int64, text: String) {
    self.line = line
    self.timestamp = timestamp
    self.text = text
  }
}

/// Who made a call: the app, or the Bluetooth stack on its own (GATT caching, Service
/// Changed, background connections). The stack's calls are kept out of the app's.
public enum AppOrigin: String, Sendable {
  case app
  case system
}

/// One call the app made, or one event it observed, inferred from the wire.
public struct AppCall: Sendable {
  public var kind: AppCallKind
  public var conn: ConnectionRef?
  /// The address a connect asked for (also when no connection came of it), its type
  /// and the peer's name as far as the capture told it.
  public var peerAddress: DeviceAddress?
  public var peerAddressType: UInt8?
  public var peerName: String?
  /// The GATT client that made an ATT call: this host, or the peer's client (then this
  /// host is the server and the call is the peer app's).
  public var byLocal = true
  /// The characteristic's value handle (set_notify: also `cccdHandle`), the searched
  /// range's start for discovery.
  public var attrHandle: UInt16?
  public var cccdHandle: UInt16?
  /// The characteristic, service or searched service's UUID, with names filled in at the end.
  public var uuid: BluetoothUUID?
  public var name: String?
  public var service: BluetoothUUID?
  public var serviceName: String?
  /// read_descriptor and write_descriptor: the descriptor (its characteristic is `uuid`).
  public var descriptor: BluetoothUUID?
  public var descriptorName: String?
  /// A call's variant: read `short`/`long`/`by_uuid`/`multiple`, write
  /// `with_response`/`without_response`/`long`/`signed`, set_notify
  /// `notify`/`indicate`/`disable`, discover_services `all`/`by_uuid`…
  public var mode: String?
  /// For calls with several endings: connect `connected`/`failed`/`cancelled`/`timeout`.
  public var outcome: String?
  public var ok = true
  public var error = AppError()
  public var start: FrameTime
  public var end: FrameTime
  /// Whether the call's end is known. A request whose answer never came before the capture
  /// ended, or before another request replaced it, is unfinished: `end` is its last
  /// request and it has no duration. (A link that went down, or the 30 s ATT timeout,
  /// ends it: the app heard of those.)
  public var finished = true
  /// The requests of the call (ATT requests or HCI commands) and their answers, in order.
  public var requests: [Int] = []
  public var responses: [Int] = []
  /// ATT: the requests' range (discovery), the value length, MTU asked and agreed, RSSI…
  public var startHandle: UInt16?
  public var endHandle: UInt16?
  public var length: Int?
  public var requestedMTU: UInt16?
  public var mtu: UInt16?
  public var rssi: Int8?
  /// disconnect/disconnected: the reason, and who (`DisconnectInitiator` raw values).
  public var reason: UInt8?
  public var who: String?
  /// A write without response that waited for a controller buffer (Number Of Completed
  /// Packets): how long, µs.
  public var stall: Int64?
  /// Notifications and indications, security and scans only: kept out of line, so that
  /// the many calls without them stay small.
  public var stream: AppValueStream? {
    get { streamBox?.value }
    set { streamBox = newValue.map(Box.init) }
  }
  public var security: AppSecurity? {
    get { securityBox?.value }
    set { securityBox = newValue.map(Box.init) }
  }
  public var scan: AppScan? {
    get { scanBox?.value }
    set { scanBox = newValue.map(Box.init) }
  }
  private var streamBox: Box<AppValueStream>?
  private var securityBox: Box<AppSecurity>?
  private var scanBox: Box<AppScan>?
  /// reconnected: the connection before, the gap, and whether the client used handles
  /// it knew (reads, writes, CCCD writes) before or without discovering again.
  public var previousConn: Int?
  public var gap: Int64?
  public var cachedHandles: Bool?
  /// Items the call found: services, characteristics, descriptors.
  public var found: Int?
  /// A whole discovery as one call (`AppStory.onePerDiscovery`): the characteristics and
  /// descriptors found after the services.
  public var characteristicCount: Int?
  public var descriptorCount: Int?
  /// connect: `connectGatt(autoConnect: true)`: a wait in the Filter Accept List with no
  /// timeout, not a direct connect; nil when the capture cannot tell.
  public var autoConnect: Bool?
  /// Who made it: the app, or the stack on its own (`systemReason` says why).
  public var origin = AppOrigin.app
  public var systemReason: String?
  /// The app's own log lines behind the call (a bugreport's logcat), on the capture's
  /// clock; and whether only the log shows the call (nothing of it reached the wire).
  public var appLog: [AppLogLine] = []
  public var appOnly = false
  /// `wire`, `app_log` or `both`: what shows the call.
  public var source: String { appOnly ? "app_log" : appLog.isEmpty ? "wire" : "both" }
  /// A 2-octet value written: a CCCD value, when discovery later shows the handle is one.
  var written16: UInt16?
  /// Where the call sorts among calls that start at the same frame: the order `AppBuilder`
  /// made it in.
  public internal(set) var sequence = 0

  public init(kind: AppCallKind, conn: ConnectionRef?, start: FrameTime, end: FrameTime) {
    self.kind = kind
    self.conn = conn
    self.start = start
    self.end = end
  }

  public var durationMicroseconds: Int64 { start.microseconds(to: end) }

  /// Where a call is told: by start time, then frame, then the order it was made in.
  public struct StartKey: Hashable, Comparable, Sendable {
    public var timestamp: Int64
    public var frame: Int
    public var sequence: Int

    public static func < (a: Self, b: Self) -> Bool {
      (a.timestamp, a.frame, a.sequence) < (b.timestamp, b.frame, b.sequence)
    }
  }

  public var startKey: StartKey { StartKey(timestamp: start.timestamp, frame: start.frame, sequence: sequence) }
  /// The duration, when the call finished.
  public var duration: Int64? { finished ? durationMicroseconds : nil }
  /// The first and last frame: the first request and the last answer (events: first and last PDU).
  public var frames: (first: Int, last: Int) {
    let all = requests + responses
    return (all.min() ?? start.frame, all.max() ?? end.frame)
  }
}

/// A value kept out of line; a change stores a new one.
final class Box<Value: Sendable>: Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// Everything `app` tells about one capture: the calls and events in the order they began.
public struct AppStory: Sendable {
  /// The first record's time: where relative times start.
  public var start: Int64?
  /// The last record: where the capture ended.
  public var end: FrameTime?
  public var calls: [AppCall] = []
  public var connections: [ConnectionTimeline] = []
  /// The capture came with the app's log (a bugreport): calls say what shows them.
  public var hasAppLog = false

  public init() {}

  /// `calls` in the order they began (time, then frame, then as given).
  static func inStartOrder(_ calls: [AppCall]) -> [AppCall] {
    calls.enumerated().sorted {
      ($0.element.start.timestamp, $0.element.start.frame, $0.offset) < (
        $1.element.start.timestamp, $1.element.start.frame, $1.offset
      )
    }.map(\.element)
  }
}
