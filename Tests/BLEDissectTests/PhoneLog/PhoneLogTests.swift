import BLECapture
import Foundation
import Testing

@testable import BLEDissect

/// The bugreports in ../shared/captures/bugreport and their truth files, nil (with a
/// message) when the folder is absent.
enum SharedBugreports {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/captures/bugreport").path

  static let names = [
    "bugreport-oriole-TQ3A.230901.001-2024-05-14-11-42-15.zip",
    "bugreport-oriole-TQ3A.230901.001-2024-05-14-12-20-20.zip",
    "bugreport-panther-AP1A.240505.004-2024-05-14-03-04-34.zip",
  ]

  static func available() -> Bool {
    guard FileManager.default.fileExists(atPath: folder) else {
      print("skipped: \(folder) is absent (the shared test assets)")
      return false
    }
    return true
  }

  static func truth(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name + ".truth.json"))
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
  }
}

@Suite struct PhoneLogTests {
  /// The truth's method names for the recognizer rows (the adapter's state check stands
  /// for both scan calls).
  static let methods = ["startScan": "isLeEnabled", "stopScan": "isLeEnabled"]

  /// Every truth `app_log` line is read at its line, as its call or callback, with its
  /// values, and at its time (the log's clock is the capture's: within 0.5 ms, logcat
  /// printing milliseconds).
  @Test(arguments: SharedBugreports.names)
  func truthLinesAreRecognised(_ name: String) throws {
    guard SharedBugreports.available() else { return }
    let truth = try SharedBugreports.truth(name)
    let (_, read) = try PhoneLog.open(SharedBugreports.folder + "/" + name)
    let log = try #require(read)
    let entries = try #require(truth["app_log"] as? [[String: Any]])
    #expect(!entries.isEmpty)
    let byLine = Dictionary(log.events.map { ($0.line.lineNumber, $0) }, uniquingKeysWith: { a, _ in a })
    for entry in entries {
      let number = try #require(entry["line"] as? Int)
      let method = try #require(entry["method"] as? String)
      guard let event = byLine[number] else {
        Issue.record("line \(number) (\(method)) not recognised")
        continue
      }
      #expect(event.recognizer == Self.methods[method] ?? method, "line \(number)")
      #expect(event.line.tag == entry["tag"] as? String)
      #expect(event.line.message == entry["text"] as? String)
      #expect(event.line.uid == entry["uid"] as? String)
      #expect(event.line.pid == entry["pid"] as? Int && event.line.tid == entry["tid"] as? Int)
      #expect(event.line.level.rawValue == entry["level"] as? String)
      Self.expectValues(event.kind, entry, line: number)
      let unix = try #require(log.unixMicroseconds(event.line.time))
      let expected = try #require(entry["unix_us"] as? Int)
      #expect(abs(unix - Int64(expected)) <= 500, "line \(number): \(unix) vs \(expected)")
    }
  }

  static func expectValues(_ kind: AppLogEvent.Kind, _ entry: [String: Any], line: Int) {
    let device = (entry["device"] as? String).flatMap { DeviceAddress($0) }
    switch kind {
    case .connect(let logged, let auto):
      #expect(device.map(logged.matches) == true, "line \(line)")
      #expect(auto == entry["auto"] as? Bool)
    case .registerApp(let uuid):
      #expect(uuid == entry["uuid"] as? String, "line \(line)")
    case .scannerRegistered(let status, let scannerId):
      #expect(status == entry["status"] as? Int && scannerId == entry["scanner_id"] as? Int, "line \(line)")
    case .clientRegistered(let status, let clientIf):
      if let expected = entry["status"] as? Int { #expect(status == expected, "line \(line)") }
      if let expected = entry["client_if"] as? Int { #expect(clientIf == expected, "line \(line)") }
    case .clientConnectionState(let status, _, _, _):
      if let expected = entry["status"] as? Int { #expect(status == expected, "line \(line)") }
    default:
      break
    }
  }

  @Test(arguments: SharedBugreports.names)
  func buildTimeZoneAndDumpstate(_ name: String) throws {
    guard SharedBugreports.available() else { return }
    let truth = try SharedBugreports.truth(name)
    let log = try #require(try PhoneLog.open(SharedBugreports.folder + "/" + name).log)
    let build = try #require(truth["build"] as? [String: String])
    #expect(log.build.model == build["model"])
    #expect(log.build.product == build["product"])
    #expect(log.build.release == build["release"])
    #expect(log.build.id == build["build_id"])
    #expect(log.build.fingerprint == build["fingerprint"])
    let zone = try #require(truth["timezone"] as? [String: Any])
    #expect(log.timeZoneName == zone["name"] as? String)
    let dumpstate = try #require(truth["dumpstate"] as? [String: Any])
    #expect(log.dumpstate?.description.hasPrefix(try #require(dumpstate["local"] as? String)) == true)
    let offset = try #require(zone["utc_offset_s"] as? Int)
    let unix = try #require(dumpstate["unix_s"] as? Int)
    #expect(log.zone?.offset(atUnixSeconds: Int64(unix)) == offset)
    let logcat = try #require(truth["logcat"] as? [String: Any])
    // The section holds the logcat lines and logcat's two "beginning of" markers.
    #expect(log.systemLogLines?.count == logcat["lines"] as? Int)
    #expect(log.systemLogLines?.first == logcat["first_line"] as? Int)
    #expect(log.systemLogLines?.last == logcat["last_line"] as? Int)
    #expect(log.lines.count == (logcat["lines"] as? Int).map { $0 - 2 })
  }

  // MARK: - Lines

  @Test func threadtimeWithUID() throws {
    let line = try #require(
      LogcatLine(
        parsing:
          "05-14 11:30:01.629 10187 14023 14023 D BluetoothGatt: connect() - device: D4:36:39:67:A2:61, auto: false",
        lineNumber: 308))
    #expect(line.time == LogcatTime(month: 5, day: 14, hour: 11, minute: 30, second: 1, millisecond: 629))
    #expect(line.uid == "10187" && line.pid == 14023 && line.tid == 14023 && line.level == .debug)
    #expect(line.tag == "BluetoothGatt")
    #expect(line.message == "connect() - device: D4:36:39:67:A2:61, auto: false")
  }

  @Test func threadtimeWithoutUID() throws {
    let line = try #require(
      LogcatLine(parsing: "05-14 11:30:01.629 14023 14061 I BluetoothGatt: close()", lineNumber: 1))
    #expect(line.uid == nil && line.pid == 14023 && line.tid == 14061 && line.level == .info)
    #expect(line.message == "close()")
  }

  @Test func namedUIDAndPaddedTag() throws {
    let line = try #require(
      LogcatLine(parsing: "05-14 02:29:41.784  root   567   567 I lmkd    : kill one process: prio 905", lineNumber: 2))
    #expect(line.uid == "root" && line.tag == "lmkd" && line.message == "kill one process: prio 905")
    let bracket = try #require(
      LogcatLine(
        parsing: "05-14 02:29:41.280 10187 14023 14023 D ViewRootImpl[MainActivity]: stopped(false) old = false",
        lineNumber: 3))
    #expect(bracket.tag == "ViewRootImpl[MainActivity]")
  }

  @Test(arguments: [
    "--------- beginning of main", "05-14 11:30:01.629", "13-14 11:30:01.629 1 2 D Tag: x",
    "05-14 11:30:01.629 10187 abc 14023 D Tag: x", "05-14 11:30:01.629 10187 14023 14023 Q Tag: x",
  ])
  func notThreadtime(_ text: String) {
    #expect(LogcatLine(parsing: Substring(text), lineNumber: 1) == nil)
  }

  @Test func partialAddressesMatchOnWhatTheyShow() throws {
    let partial = try #require(LoggedAddress("XX:XX:XX:XX:5C:54"))
    #expect(partial.isPartial && partial.address == nil)
    #expect(partial.matches(try #require(DeviceAddress("D4:36:39:67:5C:54"))))
    #expect(!partial.matches(try #require(DeviceAddress("D4:36:39:67:5C:55"))))
    #expect(partial.description == "XX:XX:XX:XX:5C:54")
    let whole = try #require(LoggedAddress("D4:36:39:67:A2:61"))
    #expect(whole.address == DeviceAddress("D4:36:39:67:A2:61"))
    #expect(LoggedAddress("XX:XX:XX:XX:XX:XX") == nil)
    #expect(LoggedAddress("D4:36:39") == nil)
  }

  @Test func yearComesFromTheDumpstateAndTheZone() throws {
    let text = """
      == dumpstate: 2025-01-01 00:05:00
      ------ SYSTEM LOG (logcat -v threadtime -d *:v) ------
      12-31 23:59:59.500  1000  1000 D BluetoothGatt: close()
      01-01 00:00:00.250  1000  1000 D BluetoothGatt: close()
      ------ 0.1s was the duration of 'SYSTEM LOG' ------
      ------ SYSTEM PROPERTIES (getprop) ------
      [persist.sys.timezone]: [Europe/Berlin]
      ------ 0.1s was the duration of 'SYSTEM PROPERTIES' ------

      """
    let log = Array(text.utf8).withUnsafeBufferPointer {
      PhoneLog(text: $0) { name in name == "Europe/Berlin" ? ZoneInfo(name: name, fixedOffset: 3600) : nil }
    }
    #expect(log.lines.count == 2)
    #expect(log.events.map(\.recognizer) == ["close", "close"])
    // 2024-12-31 23:59:59.5 CET = 22:59:59.5 UTC
    #expect(log.unixMicroseconds(log.lines[0].time) == 1_735_685_999_500_500)
    #expect(log.unixMicroseconds(log.lines[1].time) == 1_735_686_000_250_500)
  }
}

/// One test per recognizer row, with a literal line.
@Suite struct AppLogRecognizerTests {
  static let rows: [(String, String, AppLogEvent.Kind)] = [
    (
      "BluetoothGatt", "connect() - device: XX:XX:XX:XX:A2:61, auto: true",
      .connect(device: LoggedAddress("XX:XX:XX:XX:A2:61")!, autoConnect: true)
    ),
    (
      "BluetoothGatt", "registerApp() - UUID=efebfcca-4616-4e6e-84bd-997cc91636d5",
      .registerApp(uuid: "efebfcca-4616-4e6e-84bd-997cc91636d5")
    ),
    ("BluetoothGatt", "onClientRegistered() - status=257 clientIf=0", .clientRegistered(status: 257, clientIf: 0)),
    (
      "BluetoothGatt", "onClientConnectionState() - status=62 clientIf=6 connected=false device=XX:XX:XX:XX:A2:61",
      .clientConnectionState(status: 62, clientIf: 6, connected: false, device: LoggedAddress("XX:XX:XX:XX:A2:61")!)
    ),
    (
      "BluetoothGatt", "discoverServices() - device: D4:36:39:67:A2:61",
      .discoverServices(device: LoggedAddress("D4:36:39:67:A2:61")!)
    ),
    (
      "BluetoothGatt", "onSearchComplete() = Device=D4:36:39:1C:E5:11 Status=0",
      .searchComplete(device: LoggedAddress("D4:36:39:1C:E5:11")!, status: 0)
    ),
    (
      "BluetoothGatt", "onSearchComplete() = address=XX:XX:XX:XX:E5:11 status=129",
      .searchComplete(device: LoggedAddress("XX:XX:XX:XX:E5:11")!, status: 129)
    ),
    (
      "BluetoothGatt", "configureMTU() - device: D4:36:39:67:A2:61 mtu: 517",
      .configureMTU(device: LoggedAddress("D4:36:39:67:A2:61")!, mtu: 517)
    ),
    (
      "BluetoothGatt", "onConfigureMTU() - Device=D4:36:39:67:A2:61 mtu=247 status=0",
      .mtuConfigured(device: LoggedAddress("D4:36:39:67:A2:61")!, mtu: 247, status: 0)
    ),
    ("BluetoothGatt", "requestConnectionPriority() - params: 1", .requestConnectionPriority(priority: 1)),
    (
      "BluetoothGatt", "onConnectionUpdated() - Device=D4:36:39:67:A2:61 interval=12 latency=0 timeout=500 status=0",
      .connectionUpdated(
        device: LoggedAddress("D4:36:39:67:A2:61")!, interval: 12, latency: 0, timeout: 500, status: 0)
    ),
    (
      "BluetoothGatt", "setCharacteristicNotification() - uuid: 00002a37-0000-1000-8000-00805f9b34fb enable: true",
      .setCharacteristicNotification(uuid: "00002a37-0000-1000-8000-00805f9b34fb", enable: true)
    ),
    ("BluetoothGatt", "refresh() - device: XX:XX:XX:XX:A2:61", .refresh(device: LoggedAddress("XX:XX:XX:XX:A2:61")!)),
    (
      "BluetoothGatt", "cancelOpen() - device: D4:36:39:1C:E5:11",
      .cancelOpen(device: LoggedAddress("D4:36:39:1C:E5:11")!)
    ),
    ("BluetoothGatt", "close()", .close),
    ("BluetoothGatt", "unregisterApp() - mClientIf=7", .unregisterApp(clientIf: 7)),
    (
      "BluetoothGatt", "readRssi() - device: D4:36:39:67:A2:61",
      .readRemoteRSSI(device: LoggedAddress("D4:36:39:67:A2:61")!)
    ),
    (
      "BluetoothLeScanner", "onScannerRegistered() - status=0 scannerId=6 mScannerId=0",
      .scannerRegistered(status: 0, scannerId: 6)
    ),
    ("BluetoothAdapter", "isLeEnabled(): ON", .leEnabledCheck(state: "ON")),
    (
      "BtGatt.GattService", "registerClient() - UUID=ad533038-85ac-475f-9698-9fd9a0d44e3e",
      .serviceRegisterClient(uuid: "ad533038-85ac-475f-9698-9fd9a0d44e3e")
    ),
    (
      "BtGatt.GattService", "onClientRegistered() - UUID=ad533038-85ac-475f-9698-9fd9a0d44e3e, clientIf=6",
      .serviceClientRegistered(uuid: "ad533038-85ac-475f-9698-9fd9a0d44e3e", clientIf: 6)
    ),
    ("BtGatt.GattService", "unregisterClient() - clientIf=6", .serviceUnregisterClient(clientIf: 6)),
    (
      "BtGatt.GattService",
      "clientConnect() - address=XX:XX:XX:XX:A2:61, addressType=0, isDirect=true, opportunistic=false, phy=1",
      .serviceClientConnect(address: LoggedAddress("XX:XX:XX:XX:A2:61")!, isDirect: true)
    ),
    (
      "BtGatt.GattService", "clientDisconnect() - address=XX:XX:XX:XX:E5:11, connId=264",
      .serviceClientDisconnect(address: LoggedAddress("XX:XX:XX:XX:E5:11")!, connId: 264)
    ),
    (
      "BtGatt.GattService", "onConnected() - clientIf=6, connId=0, address=XX:XX:XX:XX:A2:61, status=62",
      .serviceConnected(clientIf: 6, connId: 0, address: LoggedAddress("XX:XX:XX:XX:A2:61")!, status: 62)
    ),
    (
      "BtGatt.GattService", "onDisconnected() - clientIf=7, connId=7, address=XX:XX:XX:XX:A2:61",
      .serviceDisconnected(clientIf: 7, connId: 7, address: LoggedAddress("XX:XX:XX:XX:A2:61")!)
    ),
    (
      "BtGatt.GattService", "discoverServices() - address=XX:XX:XX:XX:A2:61, connId=7",
      .serviceDiscoverServices(address: LoggedAddress("XX:XX:XX:XX:A2:61")!, connId: 7)
    ),
    (
      "BtGatt.GattService", "onSearchCompleted() - connId=264, status=0",
      .serviceSearchCompleted(connId: 264, status: 0)
    ),
    (
      "BtGatt.GattService", "registerForNotification() - address=XX:XX:XX:XX:E5:11 enable: true",
      .serviceRegisterForNotification(address: LoggedAddress("XX:XX:XX:XX:E5:11")!, enable: true)
    ),
    (
      "BtGatt.GattService", "configureMTU() - address=XX:XX:XX:XX:A2:61 mtu=517",
      .serviceConfigureMTU(address: LoggedAddress("XX:XX:XX:XX:A2:61")!, mtu: 517)
    ),
    (
      "BtGatt.GattService", "registerScanner() - UUID=132761be-f05c-49b6-9cae-419d9cf9f5ad",
      .serviceRegisterScanner(uuid: "132761be-f05c-49b6-9cae-419d9cf9f5ad")
    ),
    ("BtGatt.GattService", "start scan with filters", .serviceStartScan),
    (
      "bt_stack", "[ERROR:gatt_api.cc(1085)] can't Register GATT client, MAX client reached: 32",
      .stackClientTableFull(maximum: 32)
    ),
    (
      "bt_snoop_logger", "OpenNextSnoopLogFile: Creating new snoop log file, rotating old one", .snoopLogRotated
    ),
  ]

  static func line(_ tag: String, _ message: String) -> LogcatLine {
    LogcatLine(
      lineNumber: 1, time: LogcatTime(month: 5, day: 14, hour: 11, minute: 30, second: 0, millisecond: 0),
      uid: "10187", pid: 1, tid: 1, level: .debug, tag: tag, message: message)
  }

  @Test(arguments: rows.indices)
  func row(_ index: Int) throws {
    let (tag, message, kind) = Self.rows[index]
    let event = try #require(AppLogRecognizer.recognize(Self.line(tag, message)))
    #expect(event.kind == kind)
  }

  /// The `registerApp()` without a UUID and `allocated gatt_if=` share rows with lines above.
  @Test func rowVariants() {
    #expect(AppLogRecognizer.recognize(Self.line("BluetoothGatt", "registerApp()"))?.kind == .registerApp(uuid: nil))
    #expect(
      AppLogRecognizer.recognize(Self.line("bt_stack", "[INFO:gatt_api.cc(1094)] allocated gatt_if=6"))?.kind
        == .stackClientAllocated(clientIf: 6))
    #expect(
      AppLogRecognizer.recognize(
        Self.line("BluetoothGatt", "onClientConnectionState() - status=0 clientIf=7 device=D4:36:39:67:A2:61"))?.kind
        == .clientConnectionState(status: 0, clientIf: 7, connected: nil, device: LoggedAddress("D4:36:39:67:A2:61")!))
  }

  /// Every row of the table has its fixture above, and each row cites an AOSP file.
  @Test func everyRowHasAFixture() {
    var covered = Set<Int>()
    for (tag, message, _) in Self.rows {
      let line = Self.line(tag, message)
      if let index = AppLogRecognizer.table.firstIndex(where: { $0.recognize(line) != nil }) { covered.insert(index) }
    }
    #expect(covered == Set(AppLogRecognizer.table.indices))
    #expect(
      AppLogRecognizer.table.allSatisfy { $0.source.hasPrefix("frameworks/") || $0.source.hasPrefix("packages/") })
  }

  @Test(arguments: [
    ("BluetoothGatt", "connect() - device: nonsense, auto: false"), ("OtherTag", "close()"),
    ("BluetoothGatt", "close() later"), ("BluetoothGatt", "onClientRegistered() - status=x clientIf=1"),
  ])
  func notRecognised(_ tag: String, _ message: String) {
    #expect(AppLogRecognizer.recognize(Self.line(tag, message)) == nil)
  }
}
