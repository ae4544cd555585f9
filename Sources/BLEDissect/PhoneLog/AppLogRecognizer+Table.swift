/// The log lines of Android's Bluetooth code that become `AppLogEvent`s: one row per
/// AOSP log string, with the tag it is written under, the start of its message, the
/// source file that writes it, and how its values are read. Where Android versions
/// word a line differently, both wordings have a row.
///
/// Paths: `frameworks/base/core/java/android/bluetooth/…` (the framework in the app's
/// process; moved to `packages/modules/Bluetooth/framework/java/android/bluetooth/…` in
/// Android 13), `packages/modules/Bluetooth/android/app/src/com/android/bluetooth/gatt/
/// GattService.java` (the Bluetooth process), `packages/modules/Bluetooth/system/…` (the
/// native stack).
public struct AppLogRecognizer: Sendable {
  /// The row's name: the method the line stands for (`connect`, `onSearchComplete`).
  public let name: String
  /// Log tags the line is written under.
  public let tags: [String]
  /// How the message starts.
  public let prefix: String
  public let side: AppLogEvent.Side
  /// The AOSP file that writes the line.
  public let source: String
  let parse: @Sendable (LogFields) -> AppLogEvent.Kind?

  /// The event `line` stands for, when this row recognises it.
  public func recognize(_ line: LogcatLine) -> AppLogEvent? {
    guard tags.contains(line.tag), line.message.hasPrefix(prefix),
      let kind = parse(LogFields(line.message.dropFirst(prefix.count)))
    else { return nil }
    return AppLogEvent(line: line, kind: kind, recognizer: name, side: side)
  }

  /// The first row that recognises `line`.
  public static func recognize(_ line: LogcatLine) -> AppLogEvent? {
    guard recognizedTags.contains(line.tag) else { return nil }
    for row in table { if let event = row.recognize(line) { return event } }
    return nil
  }

  static let recognizedTags = Set(table.flatMap(\.tags))

  static let gatt = "frameworks/base/core/java/android/bluetooth/BluetoothGatt.java"
  static let scanner = "frameworks/base/core/java/android/bluetooth/le/BluetoothLeScanner.java"
  static let adapter = "frameworks/base/core/java/android/bluetooth/BluetoothAdapter.java"
  static let service = "packages/modules/Bluetooth/android/app/src/com/android/bluetooth/gatt/GattService.java"
  static let gattAPI = "packages/modules/Bluetooth/system/stack/gatt/gatt_api.cc"
  static let snoopLogger = "packages/modules/Bluetooth/system/gd/hal/snoop_logger.cc"

  public static let table: [AppLogRecognizer] = [
    // BluetoothGatt (tag "BluetoothGatt"), in the app's process.
    .init("connect", ["BluetoothGatt"], "connect() - device: ", .app, gatt) { f in
      guard let device = f.address(after: ""), let auto = f.bool(after: "auto: ") else { return nil }
      return .connect(device: device, autoConnect: auto)
    },
    .init("registerApp", ["BluetoothGatt"], "registerApp()", .app, gatt) { f in
      .registerApp(uuid: f.token(after: "UUID=").map(String.init))
    },
    .init("onClientRegistered", ["BluetoothGatt"], "onClientRegistered() - status=", .app, gatt) { f in
      guard let status = f.int(after: ""), let clientIf = f.int(after: "clientIf=") else { return nil }
      return .clientRegistered(status: status, clientIf: clientIf)
    },
    .init("onClientConnectionState", ["BluetoothGatt"], "onClientConnectionState() - status=", .app, gatt) { f in
      guard let status = f.int(after: ""), let clientIf = f.int(after: "clientIf="),
        let device = f.address(after: "device=")
      else { return nil }
      return .clientConnectionState(
        status: status, clientIf: clientIf, connected: f.bool(after: "connected="), device: device)
    },
    .init("discoverServices", ["BluetoothGatt"], "discoverServices() - device: ", .app, gatt) { f in
      f.address(after: "").map { .discoverServices(device: $0) }
    },
    .init("onSearchComplete", ["BluetoothGatt"], "onSearchComplete() = Device=", .app, gatt) { f in
      guard let device = f.address(after: ""), let status = f.int(after: "Status=") else { return nil }
      return .searchComplete(device: device, status: status)
    },
    // Android 14 words it with lower-case keys.
    .init("onSearchComplete", ["BluetoothGatt"], "onSearchComplete() = address=", .app, gatt) { f in
      guard let device = f.address(after: ""), let status = f.int(after: "status=") else { return nil }
      return .searchComplete(device: device, status: status)
    },
    .init("requestMtu", ["BluetoothGatt"], "configureMTU() - device: ", .app, gatt) { f in
      guard let device = f.address(after: ""), let mtu = f.int(after: "mtu: ") else { return nil }
      return .configureMTU(device: device, mtu: mtu)
    },
    .init("onConfigureMTU", ["BluetoothGatt"], "onConfigureMTU() - Device=", .app, gatt) { f in
      guard let device = f.address(after: ""), let mtu = f.int(after: "mtu="), let status = f.int(after: "status=")
      else { return nil }
      return .mtuConfigured(device: device, mtu: mtu, status: status)
    },
    .init("requestConnectionPriority", ["BluetoothGatt"], "requestConnectionPriority() - params: ", .app, gatt) { f in
      f.int(after: "").map { .requestConnectionPriority(priority: $0) }
    },
    .init("onConnectionUpdated", ["BluetoothGatt"], "onConnectionUpdated() - Device=", .app, gatt) { f in
      guard let device = f.address(after: ""), let interval = f.int(after: "interval="),
        let latency = f.int(after: "latency="), let timeout = f.int(after: "timeout="),
        let status = f.int(after: "status=")
      else { return nil }
      return .connectionUpdated(device: device, interval: interval, latency: latency, timeout: timeout, status: status)
    },
    .init(
      "setCharacteristicNotification", ["BluetoothGatt"], "setCharacteristicNotification() - uuid: ", .app, gatt
    ) { f in
      guard let uuid = f.token(after: ""), let enable = f.bool(after: "enable: ") else { return nil }
      return .setCharacteristicNotification(uuid: String(uuid), enable: enable)
    },
    .init("refresh", ["BluetoothGatt"], "refresh() - device: ", .app, gatt) { f in
      f.address(after: "").map { .refresh(device: $0) }
    },
    .init("disconnect", ["BluetoothGatt"], "cancelOpen() - device: ", .app, gatt) { f in
      f.address(after: "").map { .cancelOpen(device: $0) }
    },
    .init("close", ["BluetoothGatt"], "close()", .app, gatt) { f in f.rest.isEmpty ? .close : nil },
    .init("unregisterApp", ["BluetoothGatt"], "unregisterApp() - mClientIf=", .app, gatt) { f in
      f.int(after: "").map { .unregisterApp(clientIf: $0) }
    },
    .init("readRemoteRssi", ["BluetoothGatt"], "readRssi() - device: ", .app, gatt) { f in
      f.address(after: "").map { .readRemoteRSSI(device: $0) }
    },
    // BluetoothLeScanner.BleScanCallbackWrapper and BluetoothAdapter, in the app's process.
    .init("onScannerRegistered", ["BluetoothLeScanner"], "onScannerRegistered() - status=", .app, scanner) { f in
      guard let status = f.int(after: ""), let scannerId = f.int(after: "scannerId=") else { return nil }
      return .scannerRegistered(status: status, scannerId: scannerId)
    },
    .init("isLeEnabled", ["BluetoothAdapter"], "isLeEnabled(): ", .app, adapter) { f in
      f.token(after: "").map { .leEnabledCheck(state: String($0)) }
    },

    // GattService (tag "BtGatt.GattService"), in the Bluetooth process.
    .init("registerClient", ["BtGatt.GattService"], "registerClient() - UUID=", .stack, service) { f in
      f.token(after: "").map { .serviceRegisterClient(uuid: String($0)) }
    },
    .init("onClientRegistered", ["BtGatt.GattService"], "onClientRegistered() - UUID=", .stack, service) { f in
      guard let uuid = f.token(after: ""), let clientIf = f.int(after: "clientIf=") else { return nil }
      return .serviceClientRegistered(uuid: String(uuid), clientIf: clientIf)
    },
    .init("unregisterClient", ["BtGatt.GattService"], "unregisterClient() - clientIf=", .stack, service) { f in
      f.int(after: "").map { .serviceUnregisterClient(clientIf: $0) }
    },
    .init("clientConnect", ["BtGatt.GattService"], "clientConnect() - address=", .stack, service) { f in
      guard let address = f.address(after: ""), let direct = f.bool(after: "isDirect=") else { return nil }
      return .serviceClientConnect(address: address, isDirect: direct)
    },
    .init("clientDisconnect", ["BtGatt.GattService"], "clientDisconnect() - address=", .stack, service) { f in
      guard let address = f.address(after: ""), let connId = f.int(after: "connId=") else { return nil }
      return .serviceClientDisconnect(address: address, connId: connId)
    },
    .init("onConnected", ["BtGatt.GattService"], "onConnected() - clientIf=", .stack, service) { f in
      guard let clientIf = f.int(after: ""), let connId = f.int(after: "connId="),
        let address = f.address(after: "address=")
      else { return nil }
      return .serviceConnected(clientIf: clientIf, connId: connId, address: address, status: f.int(after: "status="))
    },
    .init("onDisconnected", ["BtGatt.GattService"], "onDisconnected() - clientIf=", .stack, service) { f in
      guard let clientIf = f.int(after: ""), let connId = f.int(after: "connId="),
        let address = f.address(after: "address=")
      else { return nil }
      return .serviceDisconnected(clientIf: clientIf, connId: connId, address: address)
    },
    .init("discoverServices", ["BtGatt.GattService"], "discoverServices() - address=", .stack, service) { f in
      guard let address = f.address(after: ""), let connId = f.int(after: "connId=") else { return nil }
      return .serviceDiscoverServices(address: address, connId: connId)
    },
    .init("onSearchCompleted", ["BtGatt.GattService"], "onSearchCompleted() - connId=", .stack, service) { f in
      guard let connId = f.int(after: ""), let status = f.int(after: "status=") else { return nil }
      return .serviceSearchCompleted(connId: connId, status: status)
    },
    .init(
      "registerForNotification", ["BtGatt.GattService"], "registerForNotification() - address=", .stack, service
    ) { f in
      guard let address = f.address(after: ""), let enable = f.bool(after: "enable: ") else { return nil }
      return .serviceRegisterForNotification(address: address, enable: enable)
    },
    .init("configureMTU", ["BtGatt.GattService"], "configureMTU() - address=", .stack, service) { f in
      guard let address = f.address(after: ""), let mtu = f.int(after: "mtu=") else { return nil }
      return .serviceConfigureMTU(address: address, mtu: mtu)
    },
    .init("registerScanner", ["BtGatt.GattService"], "registerScanner() - UUID=", .stack, service) { f in
      f.token(after: "").map { .serviceRegisterScanner(uuid: String($0)) }
    },
    .init("startScan", ["BtGatt.GattService"], "start scan with filters", .stack, service) { f in
      f.rest.isEmpty ? .serviceStartScan : nil
    },

    // The native stack (tag "bt_stack", `[LEVEL:file(line)] ` before the message).
    .init("GATT_Register", ["bt_stack"], "[", .stack, gattAPI) { f in
      if let maximum = f.int(after: "can't Register GATT client, MAX client reached: ") {
        return .stackClientTableFull(maximum: maximum)
      }
      return f.int(after: "] allocated gatt_if=").map { .stackClientAllocated(clientIf: $0) }
    },
    .init(
      "OpenNextSnoopLogFile", ["bt_snoop_logger"], "OpenNextSnoopLogFile: Creating new snoop log file", .stack,
      snoopLogger
    ) { _ in .snoopLogRotated },
  ]

  init(
    _ name: String, _ tags: [String], _ prefix: String, _ side: AppLogEvent.Side, _ source: String,
    _ parse: @escaping @Sendable (LogFields) -> AppLogEvent.Kind?
  ) {
    self.name = name
    self.tags = tags
    self.prefix = prefix
    self.side = side
    self.source = source
    self.parse = parse
  }
}

/// The values of a log message after its prefix: `key=value`, `key: value`, tokens
/// ending at a space or a comma.
struct LogFields {
  let rest: Substring

  init(_ rest: Substring) { self.rest = rest }

  /// The token right after the first `key` (after the start when `key` is empty).
  func token(after key: String) -> Substring? {
    let start: Substring.Index
    if key.isEmpty {
      start = rest.startIndex
    } else {
      guard let range = rest.firstRange(of: key) else { return nil }
      start = range.upperBound
    }
    let token = rest[start...].prefix { $0 != " " && $0 != "," }
    return token.isEmpty ? nil : token
  }

  func int(after key: String) -> Int? { token(after: key).flatMap { Int($0) } }

  func bool(after key: String) -> Bool? {
    switch token(after: key) {
    case "true": true
    case "false": false
    default: nil
    }
  }

  func address(after key: String) -> LoggedAddress? { token(after: key).flatMap { LoggedAddress($0) } }
}
