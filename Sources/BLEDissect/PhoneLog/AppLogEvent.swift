/// A logcat line that Android's Bluetooth code writes, read into what it says: the app's
/// call (`connect()`), the framework's callback (`onClientConnectionState()`), the stack
/// service's step (`clientConnect()`), each with its values. `AppLogRecognizer.table`
/// says which line becomes which event.
public struct AppLogEvent: Hashable, Sendable {
  /// The line it was read from (number in the bugreport text, time, uid, pid, tag…).
  public var line: LogcatLine
  public var kind: Kind
  /// The name of the table row that recognised it (`connect`, `onSearchComplete`…).
  public var recognizer: String
  /// Whose process wrote it.
  public var side: Side

  public init(line: LogcatLine, kind: Kind, recognizer: String, side: Side = .app) {
    self.line = line
    self.kind = kind
    self.recognizer = recognizer
    self.side = side
  }

  /// Who writes the line: the app's process (the framework classes it calls), or the
  /// Bluetooth process (the GATT service and the native stack).
  public enum Side: String, Hashable, Sendable {
    case app
    case stack
  }

  public enum Kind: Hashable, Sendable {
    // MARK: App process: BluetoothGatt, BluetoothLeScanner, BluetoothAdapter

    /// `connectGatt()` → `connect() - device: …, auto: …`
    case connect(device: LoggedAddress, autoConnect: Bool)
    /// `registerApp()` (no UUID) or `registerApp() - UUID=…`
    case registerApp(uuid: String?)
    /// `onClientRegistered() - status=… clientIf=…`; status 257 when the stack's client
    /// table is full.
    case clientRegistered(status: Int, clientIf: Int)
    /// `onClientConnectionState() - status=… clientIf=… [connected=…] device=…`; Android
    /// 14 adds `connected=`.
    case clientConnectionState(status: Int, clientIf: Int, connected: Bool?, device: LoggedAddress)
    case discoverServices(device: LoggedAddress)
    /// `onSearchComplete() = Device=… Status=…` (Android 14: `address=… status=…`)
    case searchComplete(device: LoggedAddress, status: Int)
    /// `requestMtu()` → `configureMTU() - device: … mtu: …`
    case configureMTU(device: LoggedAddress, mtu: Int)
    case mtuConfigured(device: LoggedAddress, mtu: Int, status: Int)
    /// `requestConnectionPriority() - params: …` (0 balanced, 1 high, 2 low power)
    case requestConnectionPriority(priority: Int)
    /// `onConnectionUpdated() - Device=… interval=… latency=… timeout=… status=…`; interval in
    /// 1.25 ms units and timeout in 10 ms units, as the controller reports them.
    case connectionUpdated(device: LoggedAddress, interval: Int, latency: Int, timeout: Int, status: Int)
    case setCharacteristicNotification(uuid: String, enable: Bool)
    /// `refresh()` (hidden API): clears the GATT cache; no traffic.
    case refresh(device: LoggedAddress)
    /// What `disconnect()` logs: `cancelOpen() - device: …`
    case cancelOpen(device: LoggedAddress)
    case close
    case unregisterApp(clientIf: Int)
    /// `readRemoteRssi()` → `readRssi() - device: …`
    case readRemoteRSSI(device: LoggedAddress)
    /// `onScannerRegistered() - status=… scannerId=… mScannerId=…`
    case scannerRegistered(status: Int, scannerId: Int)
    /// `isLeEnabled(): ON`: BluetoothAdapter checks the state before `startScan()` and
    /// `stopScan()` (BluetoothLeScanner), so this line stands for one of them.
    case leEnabledCheck(state: String)

    // MARK: Bluetooth process: GattService, the native stack

    /// `registerClient() - UUID=…`
    case serviceRegisterClient(uuid: String)
    /// `onClientRegistered() - UUID=…, clientIf=…`
    case serviceClientRegistered(uuid: String, clientIf: Int)
    /// `unregisterClient() - clientIf=…`
    case serviceUnregisterClient(clientIf: Int)
    /// `clientConnect() - address=…, addressType=…, isDirect=…, opportunistic=…, phy=…`
    case serviceClientConnect(address: LoggedAddress, isDirect: Bool)
    /// `clientDisconnect() - address=…, connId=…`
    case serviceClientDisconnect(address: LoggedAddress, connId: Int)
    /// `onConnected() - clientIf=…, connId=…, address=…[, status=…]`
    case serviceConnected(clientIf: Int, connId: Int, address: LoggedAddress, status: Int?)
    /// `onDisconnected() - clientIf=…, connId=…, address=…`
    case serviceDisconnected(clientIf: Int, connId: Int, address: LoggedAddress)
    /// `discoverServices() - address=…, connId=…`
    case serviceDiscoverServices(address: LoggedAddress, connId: Int)
    /// `onSearchCompleted() - connId=…, status=…`
    case serviceSearchCompleted(connId: Int, status: Int)
    /// `registerForNotification() - address=… enable: …`
    case serviceRegisterForNotification(address: LoggedAddress, enable: Bool)
    /// `configureMTU() - address=… mtu=…`
    case serviceConfigureMTU(address: LoggedAddress, mtu: Int)
    /// `registerScanner() - UUID=…`
    case serviceRegisterScanner(uuid: String)
    /// `start scan with filters`
    case serviceStartScan
    /// `can't Register GATT client, MAX client reached: N` (gatt_api.cc): why a
    /// registration got status 257.
    case stackClientTableFull(maximum: Int)
    /// `allocated gatt_if=N` (gatt_api.cc)
    case stackClientAllocated(clientIf: Int)
    /// `OpenNextSnoopLogFile: Creating new snoop log file, rotating old one`: the HCI
    /// log rotated here (`btsnoop_hci.log` → `.last`).
    case snoopLogRotated
  }
}
