import BLEDissect

/// Whose words `app` speaks: neutral GATT procedures, CoreBluetooth or Android's BluetoothGatt.
public enum AppAPI: String, Sendable, CaseIterable {
  case gatt, corebluetooth, android
}

/// A platform's error value: its number, its name, and what varies by version.
public struct AppPlatformError: Hashable, Sendable {
  public var code: Int
  public var name: String
  /// Other values the same failure is reported with on other versions.
  public var alternatives: [Int] = []
  public var note: String?

  public init(_ code: Int, _ name: String, alternatives: [Int] = [], note: String? = nil) {
    self.code = code
    self.name = name
    self.alternatives = alternatives
    self.note = note
  }
}

/// How a call reads on each platform: one row per call kind (and variant).
public struct AppVocabularyRow: Sendable {
  public var kind: AppCallKind
  /// nil: every variant without a row of its own.
  public var mode: String?
  public var gatt: String
  public var coreBluetooth: (call: String, callback: String)
  public var android: (call: String, callback: String)
}

/// The platform vocabularies: call and callback names, CBError / CBATTError values and
/// Android `status` integers. Every row cites where it comes from; mappings that are this
/// project's reading of the names (the platforms do not document which HCI reason gives
/// which value) say so.
public enum AppPlatform {
  // Sources:
  // [GATT]  Core 6.0, Vol 3, Part G, 4 (GATT feature and sub-procedure names).
  // [CB]    Apple Developer Documentation, CoreBluetooth: CBCentralManager, CBPeripheral,
  //         CBCentralManagerDelegate, CBPeripheralDelegate (method names).
  // [CBE]   Apple Developer Documentation, CBError.Code (unknown 0 … tooManyLEPairedDevices 16;
  //         raw values as in the SDK header CBError.h).
  // [CBA]   Apple Developer Documentation, CBATTError.Code: "These error constants derive
  //         from the Bluetooth ATT error codes" (success 0 … insufficientResources 0x11).
  // [AG]    Android Developers, android.bluetooth.BluetoothGatt and BluetoothGattCallback
  //         (GATT_SUCCESS 0, GATT_READ_NOT_PERMITTED 2, …, GATT_CONNECTION_CONGESTED 143,
  //         GATT_CONNECTION_TIMEOUT 147 (added in API 35), GATT_FAILURE 257).
  // [AOSP]  AOSP system/bt stack/include/gatt_api.h: GATT_* ATT statuses (GATT_INVALID_HANDLE
  //         0x01 … GATT_INSUF_RESOURCE 0x11), GATT_ERROR 0x85, and tGATT_DISCONN_REASON
  //         (GATT_CONN_TIMEOUT = HCI_ERR_CONNECTION_TOUT 0x08, GATT_CONN_TERMINATE_PEER_USER
  //         0x13, GATT_CONN_TERMINATE_LOCAL_HOST 0x16, GATT_CONN_LMP_TIMEOUT 0x22,
  //         GATT_CONN_FAIL_ESTABLISH 0x3E); stack/include/hci_error_code.h for the HCI values.

  /// Call and callback names. Rows with a mode come before the kind's general row.
  public static let vocabulary: [AppVocabularyRow] = [
    // [GATT] —; [CB] scanForPeripherals(withServices:options:), centralManager(_:didDiscover:…);
    // [AG] BluetoothLeScanner.startScan, ScanCallback.onScanResult.
    .init(
      kind: .scan, gatt: "Observation procedure (scan)",
      coreBluetooth: (
        "scanForPeripherals(withServices:options:)", "centralManager(_:didDiscover:advertisementData:rssi:)"
      ),
      android: ("BluetoothLeScanner.startScan(filters, settings, callback)", "ScanCallback.onScanResult")),
    // [CB] connect(_:options:) → didConnect / didFailToConnect; [AG] BluetoothDevice.connectGatt →
    // onConnectionStateChange(gatt, status, STATE_CONNECTED).
    .init(
      kind: .connect, gatt: "Connection establishment",
      coreBluetooth: (
        "connect(_:options:)", "centralManager(_:didConnect:) / centralManager(_:didFailToConnect:error:)"
      ),
      android: (
        "BluetoothDevice.connectGatt(context, autoConnect, callback)", "onConnectionStateChange(gatt, status, newState)"
      )),
    // [GATT] 4.3.1 Exchange MTU; [CB] no call: the system exchanges the MTU
    // (maximumWriteValueLength(for:)); [AG] requestMtu → onMtuChanged.
    .init(
      kind: .requestMTU, gatt: "Exchange MTU",
      coreBluetooth: ("(by the system)", "maximumWriteValueLength(for:)"),
      android: ("BluetoothGatt.requestMtu(mtu)", "onMtuChanged(gatt, mtu, status)")),
    // [GATT] 4.4.2 Discover Primary Service by Service UUID; [CB] discoverServices([CBUUID]);
    // [AG] public API discovers everything (discoverServices); by UUID is hidden API.
    .init(
      kind: .discoverServices, mode: "by_uuid", gatt: "Discover Primary Service by Service UUID",
      coreBluetooth: ("discoverServices([CBUUID])", "peripheral(_:didDiscoverServices:)"),
      android: (
        "BluetoothGatt.discoverServices() (by UUID: hidden discoverServiceByUuid)", "onServicesDiscovered(gatt, status)"
      )),
    // [GATT] 4.4.1 Discover All Primary Services; [CB] discoverServices(nil); [AG] discoverServices().
    .init(
      kind: .discoverServices, gatt: "Discover All Primary Services",
      coreBluetooth: ("discoverServices(nil)", "peripheral(_:didDiscoverServices:)"),
      android: ("BluetoothGatt.discoverServices()", "onServicesDiscovered(gatt, status)")),
    // [GATT] 4.6.1; [CB] discoverCharacteristics(_:for:); [AG] part of discoverServices().
    .init(
      kind: .discoverCharacteristics, gatt: "Discover All Characteristics of a Service",
      coreBluetooth: ("discoverCharacteristics(_:for:)", "peripheral(_:didDiscoverCharacteristicsFor:error:)"),
      android: (
        "(part of BluetoothGatt.discoverServices())", "— (one onServicesDiscovered at the end of discoverServices())"
      )),
    // [GATT] 4.7.1; [CB] discoverDescriptors(for:); [AG] part of discoverServices().
    .init(
      kind: .discoverDescriptors, gatt: "Discover All Characteristic Descriptors",
      coreBluetooth: ("discoverDescriptors(for:)", "peripheral(_:didDiscoverDescriptorsFor:error:)"),
      android: (
        "(part of BluetoothGatt.discoverServices())", "— (one onServicesDiscovered at the end of discoverServices())"
      )),
    // [GATT] 4.5.1 Find Included Services; [CB] discoverIncludedServices(_:for:).
    .init(
      kind: .discoverIncluded, gatt: "Find Included Services",
      coreBluetooth: ("discoverIncludedServices(_:for:)", "peripheral(_:didDiscoverIncludedServicesFor:error:)"),
      android: (
        "(part of BluetoothGatt.discoverServices())", "— (one onServicesDiscovered at the end of discoverServices())"
      )),
    // [GATT] 4.8.3 Read Long Characteristic Values; [CB] readValue(for:) reads long values
    // itself; [AG] readCharacteristic does Read Blob itself.
    .init(
      kind: .read, mode: "long", gatt: "Read Long Characteristic Values",
      coreBluetooth: ("readValue(for:)", "peripheral(_:didUpdateValueFor:error:)"),
      android: ("BluetoothGatt.readCharacteristic(c)", "onCharacteristicRead(gatt, c, value, status)")),
    // [GATT] 4.8.2 Read Using Characteristic UUID; no public call on either platform.
    .init(
      kind: .read, mode: "by_uuid", gatt: "Read Using Characteristic UUID",
      coreBluetooth: ("(no public call)", "—"),
      android: ("(hidden readUsingCharacteristicUuid)", "onCharacteristicRead(gatt, c, value, status)")),
    // [GATT] 4.8.1 Read Characteristic Value; [CB] readValue(for:); [AG] readCharacteristic.
    .init(
      kind: .read, gatt: "Read Characteristic Value",
      coreBluetooth: ("readValue(for:)", "peripheral(_:didUpdateValueFor:error:)"),
      android: ("BluetoothGatt.readCharacteristic(c)", "onCharacteristicRead(gatt, c, value, status)")),
    // [GATT] 4.9.1 Write Without Response; [CB] .withoutResponse, peripheralIsReady(toSendWriteWithoutResponse:);
    // [AG] WRITE_TYPE_NO_RESPONSE, onCharacteristicWrite when the packet is queued.
    .init(
      kind: .write, mode: "without_response", gatt: "Write Without Response",
      coreBluetooth: ("writeValue(_:for:type: .withoutResponse)", "peripheralIsReady(toSendWriteWithoutResponse:)"),
      android: (
        "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_NO_RESPONSE)", "onCharacteristicWrite(gatt, c, status)"
      )),
    // [GATT] 4.9.2 Signed Write Without Response; [AG] WRITE_TYPE_SIGNED.
    .init(
      kind: .write, mode: "signed", gatt: "Signed Write Without Response",
      coreBluetooth: ("writeValue(_:for:type: .withoutResponse) (authenticatedSignedWrites)", "—"),
      android: (
        "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_SIGNED)", "onCharacteristicWrite(gatt, c, status)"
      )),
    // [GATT] 4.9.4 Write Long Characteristic Values: both stacks do it for values over ATT_MTU-3.
    .init(
      kind: .write, mode: "long", gatt: "Write Long Characteristic Values",
      coreBluetooth: ("writeValue(_:for:type: .withResponse)", "peripheral(_:didWriteValueFor:error:)"),
      android: (
        "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_DEFAULT)", "onCharacteristicWrite(gatt, c, status)"
      )),
    // [GATT] 4.9.3 Write Characteristic Value.
    .init(
      kind: .write, gatt: "Write Characteristic Value",
      coreBluetooth: ("writeValue(_:for:type: .withResponse)", "peripheral(_:didWriteValueFor:error:)"),
      android: (
        "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_DEFAULT)", "onCharacteristicWrite(gatt, c, status)"
      )),
    // [GATT] 4.12.3 Write Characteristic Descriptors (the CCCD); [CB] setNotifyValue(_:for:);
    // [AG] setCharacteristicNotification + writeDescriptor(CCCD) → onDescriptorWrite.
    .init(
      kind: .setNotify, gatt: "Write Characteristic Descriptors (Client Characteristic Configuration)",
      coreBluetooth: ("setNotifyValue(_:for:)", "peripheral(_:didUpdateNotificationStateFor:error:)"),
      android: (
        "BluetoothGatt.setCharacteristicNotification(c, enable) + writeDescriptor(cccd, value)",
        "onDescriptorWrite(gatt, d, status)"
      )),
    // [GATT] 4.12.1 Read Characteristic Descriptors, 4.12.3 Write Characteristic
    // Descriptors (other than the CCCD); [CB] readValue(for: CBDescriptor),
    // writeValue(_:for: CBDescriptor); [AG] readDescriptor, writeDescriptor.
    .init(
      kind: .readDescriptor, gatt: "Read Characteristic Descriptors",
      coreBluetooth: ("readValue(for: CBDescriptor)", "peripheral(_:didUpdateValueFor: CBDescriptor, error:)"),
      android: ("BluetoothGatt.readDescriptor(d)", "onDescriptorRead(gatt, d, status, value)")),
    .init(
      kind: .writeDescriptor, gatt: "Write Characteristic Descriptors",
      coreBluetooth: ("writeValue(_:for: CBDescriptor)", "peripheral(_:didWriteValueFor: CBDescriptor, error:)"),
      android: ("BluetoothGatt.writeDescriptor(d, value)", "onDescriptorWrite(gatt, d, status)")),
    // HCI Read RSSI; [CB] readRSSI(); [AG] readRemoteRssi.
    .init(
      kind: .readRSSI, gatt: "HCI Read RSSI",
      coreBluetooth: ("readRSSI()", "peripheral(_:didReadRSSI:error:)"),
      android: ("BluetoothGatt.readRemoteRssi()", "onReadRemoteRssi(gatt, rssi, status)")),
    // HCI Disconnect; [CB] cancelPeripheralConnection(_:); [AG] BluetoothGatt.disconnect().
    .init(
      kind: .disconnect, gatt: "Terminate connection (HCI Disconnect)",
      coreBluetooth: ("cancelPeripheralConnection(_:)", "centralManager(_:didDisconnectPeripheral:error:)"),
      android: ("BluetoothGatt.disconnect()", "onConnectionStateChange(gatt, status, STATE_DISCONNECTED)")),
    .init(
      kind: .disconnected, gatt: "Disconnection Complete",
      coreBluetooth: ("—", "centralManager(_:didDisconnectPeripheral:error:)"),
      android: ("—", "onConnectionStateChange(gatt, status, STATE_DISCONNECTED)")),
    // [GATT] 4.10 Characteristic Value Notification; [CB] didUpdateValueFor; [AG] onCharacteristicChanged.
    .init(
      kind: .notification, gatt: "Characteristic Value Notification",
      coreBluetooth: ("—", "peripheral(_:didUpdateValueFor:error:)"),
      android: ("—", "onCharacteristicChanged(gatt, c, value)")),
    .init(
      kind: .indication, gatt: "Characteristic Value Indication",
      coreBluetooth: ("—", "peripheral(_:didUpdateValueFor:error:)"),
      android: ("—", "onCharacteristicChanged(gatt, c, value)")),
    // Neither platform has a pairing call for GATT: the system pairs when a request needs it
    // (Android: BluetoothDevice.createBond exists; bond changes come as ACTION_BOND_STATE_CHANGED).
    .init(
      kind: .pair, gatt: "SMP pairing",
      coreBluetooth: ("(by the system)", "—"),
      android: ("(by the stack, or BluetoothDevice.createBond())", "ACTION_BOND_STATE_CHANGED")),
    .init(
      kind: .encrypt, gatt: "Encryption with a stored key",
      coreBluetooth: ("(by the system)", "—"), android: ("(by the stack)", "—")),
    .init(
      kind: .reconnected, gatt: "Reconnection",
      coreBluetooth: ("connect(_:options:)", "centralManager(_:didConnect:)"),
      android: ("connectGatt (autoConnect)", "onConnectionStateChange(gatt, 0, STATE_CONNECTED)")),
    // [AG] BluetoothGatt.refresh() is hidden (called by reflection); it sends nothing.
    .init(
      kind: .refresh, gatt: "Clear the GATT cache", coreBluetooth: ("—", "—"),
      android: ("BluetoothGatt.refresh() (hidden)", "—")),
    // Not an app's call: the stack waits for a bonded or autoConnect device in the Filter
    // Accept List on its own (Core 6.0, Vol 6, Part B, 4.3.1).
    .init(
      kind: .backgroundConnect, gatt: "Background connection (Filter Accept List)",
      coreBluetooth: ("(by the system)", "—"), android: ("(by the stack)", "—")),
  ]

  /// The peripheral side: this host is the GATT server and the peer's client asks. The
  /// app behind it is a CBPeripheralManager's delegate or a BluetoothGattServerCallback:
  /// the request reaches it as a callback (`call`), it answers with `callback`.
  // [CBP] Apple Developer Documentation, CBPeripheralManager and CBPeripheralManagerDelegate;
  // [AGS] Android Developers, android.bluetooth.BluetoothGattServer and BluetoothGattServerCallback.
  public static let serverVocabulary: [AppVocabularyRow] = [
    .init(
      kind: .requestMTU, gatt: "Exchange MTU",
      coreBluetooth: ("(by the system)", "central.maximumUpdateValueLength"),
      android: ("(by the stack)", "BluetoothGattServerCallback.onMtuChanged(device, mtu)")),
    .init(
      kind: .discoverServices, gatt: "Primary Service Discovery",
      coreBluetooth: ("(answered by the system from add(_:))", "—"),
      android: ("(answered by the stack from addService(service))", "—")),
    .init(
      kind: .discoverCharacteristics, gatt: "Characteristic Discovery",
      coreBluetooth: ("(answered by the system from add(_:))", "—"),
      android: ("(answered by the stack from addService(service))", "—")),
    .init(
      kind: .discoverDescriptors, gatt: "Characteristic Descriptor Discovery",
      coreBluetooth: ("(answered by the system from add(_:))", "—"),
      android: ("(answered by the stack from addService(service))", "—")),
    .init(
      kind: .discoverIncluded, gatt: "Relationship Discovery",
      coreBluetooth: ("(answered by the system from add(_:))", "—"),
      android: ("(answered by the stack from addService(service))", "—")),
    .init(
      kind: .read, gatt: "Read Characteristic Value",
      coreBluetooth: ("peripheralManager(_:didReceiveRead:)", "respond(to:withResult:)"),
      android: (
        "BluetoothGattServerCallback.onCharacteristicReadRequest(device, requestId, offset, c)",
        "BluetoothGattServer.sendResponse(device, requestId, status, offset, value)"
      )),
    .init(
      kind: .write, mode: "without_response", gatt: "Write Without Response",
      coreBluetooth: ("peripheralManager(_:didReceiveWrite:)", "—"),
      android: (
        "BluetoothGattServerCallback.onCharacteristicWriteRequest(device, requestId, c, preparedWrite, responseNeeded, offset, value)",
        "—"
      )),
    .init(
      kind: .write, gatt: "Write Characteristic Value",
      coreBluetooth: ("peripheralManager(_:didReceiveWrite:)", "respond(to:withResult:)"),
      android: (
        "BluetoothGattServerCallback.onCharacteristicWriteRequest(device, requestId, c, preparedWrite, responseNeeded, offset, value)",
        "BluetoothGattServer.sendResponse(device, requestId, status, offset, value)"
      )),
    .init(
      kind: .setNotify, gatt: "Write Characteristic Descriptors (Client Characteristic Configuration)",
      coreBluetooth: ("peripheralManager(_:central:didSubscribeTo:) / didUnsubscribeFrom", "—"),
      android: (
        "BluetoothGattServerCallback.onDescriptorWriteRequest(device, requestId, cccd, preparedWrite, responseNeeded, offset, value)",
        "BluetoothGattServer.sendResponse(device, requestId, status, offset, value)"
      )),
    .init(
      kind: .readDescriptor, gatt: "Read Characteristic Descriptors",
      coreBluetooth: ("(answered by the system)", "—"),
      android: (
        "BluetoothGattServerCallback.onDescriptorReadRequest(device, requestId, offset, d)",
        "BluetoothGattServer.sendResponse(device, requestId, status, offset, value)"
      )),
    .init(
      kind: .writeDescriptor, gatt: "Write Characteristic Descriptors",
      coreBluetooth: ("(answered by the system)", "—"),
      android: (
        "BluetoothGattServerCallback.onDescriptorWriteRequest(device, requestId, d, preparedWrite, responseNeeded, offset, value)",
        "BluetoothGattServer.sendResponse(device, requestId, status, offset, value)"
      )),
    .init(
      kind: .notification, gatt: "Characteristic Value Notification",
      coreBluetooth: (
        "updateValue(_:for:onSubscribedCentrals:)", "peripheralManagerIsReady(toUpdateSubscribers:)"
      ),
      android: (
        "BluetoothGattServer.notifyCharacteristicChanged(device, c, false, value)",
        "BluetoothGattServerCallback.onNotificationSent(device, status)"
      )),
    .init(
      kind: .indication, gatt: "Characteristic Value Indication",
      coreBluetooth: (
        "updateValue(_:for:onSubscribedCentrals:)", "peripheralManagerIsReady(toUpdateSubscribers:)"
      ),
      android: (
        "BluetoothGattServer.notifyCharacteristicChanged(device, c, true, value)",
        "BluetoothGattServerCallback.onNotificationSent(device, status)"
      )),
  ]

  /// The row for a kind and mode; `server`: the peripheral side's (the peer's client asked
  /// this host's server), where it has one.
  public static func row(_ kind: AppCallKind, mode: String?, server: Bool = false) -> AppVocabularyRow? {
    if server, let row = Self.row(in: serverVocabulary, kind, mode) { return row }
    return Self.row(in: vocabulary, kind, mode)
  }

  static func row(in rows: [AppVocabularyRow], _ kind: AppCallKind, _ mode: String?) -> AppVocabularyRow? {
    rows.first { $0.kind == kind && $0.mode != nil && $0.mode == mode }
      ?? rows.first { $0.kind == kind && $0.mode == nil }
  }

  // MARK: - ATT errors

  /// An ATT Error Code as CBATTError.Code [CBA]: the same number for 0x01–0x11. Application
  /// errors (0x80–0x9F) and others are not among the documented cases: apps see the ATT
  /// code in CBATTErrorDomain, which Apple does not document.
  public static func coreBluetooth(att code: UInt8) -> AppPlatformError {
    if let name = cbATTNames[code] { return AppPlatformError(Int(code), "CBATTError." + name) }
    return AppPlatformError(
      Int(code), "CBATTErrorDomain code \(code)", note: "not a documented CBATTError.Code case; the ATT code as sent")
  }

  /// [CBA] CBATTError.Code cases by raw value.
  static let cbATTNames: [UInt8: String] = [
    0x01: "invalidHandle", 0x02: "readNotPermitted", 0x03: "writeNotPermitted", 0x04: "invalidPdu",
    0x05: "insufficientAuthentication", 0x06: "requestNotSupported", 0x07: "invalidOffset",
    0x08: "insufficientAuthorization", 0x09: "prepareQueueFull", 0x0A: "attributeNotFound",
    0x0B: "attributeNotLong", 0x0C: "insufficientEncryptionKeySize", 0x0D: "invalidAttributeValueLength",
    0x0E: "unlikelyError", 0x0F: "insufficientEncryption", 0x10: "unsupportedGroupType", 0x11: "insufficientResources",
  ]

  /// An ATT Error Code as the `status` of onCharacteristicRead/Write and onDescriptorWrite:
  /// Android passes the ATT code [AOSP gatt_api.h GATT_* = ATT codes]; the public constants
  /// [AG] name some of them. Application errors 0x80–0x9F arrive as 128–159, numbers that
  /// gatt_api.h also uses for stack errors (0x80 GATT_NO_RESOURCES … 0x85 GATT_ERROR).
  public static func android(att code: UInt8) -> AppPlatformError {
    if let name = androidATTNames[code] { return AppPlatformError(Int(code), name) }
    let note = (0x80...0x9F).contains(code) ? "application error; the same number as a stack status in gatt_api.h" : nil
    return AppPlatformError(Int(code), "status \(code)", note: note)
  }

  /// [AG] public constants, else [AOSP] gatt_api.h names.
  static let androidATTNames: [UInt8: String] = [
    0x01: "GATT_INVALID_HANDLE", 0x02: "GATT_READ_NOT_PERMITTED", 0x03: "GATT_WRITE_NOT_PERMITTED",
    0x04: "GATT_INVALID_PDU", 0x05: "GATT_INSUFFICIENT_AUTHENTICATION", 0x06: "GATT_REQUEST_NOT_SUPPORTED",
    0x07: "GATT_INVALID_OFFSET", 0x08: "GATT_INSUFFICIENT_AUTHORIZATION", 0x09: "GATT_PREPARE_Q_FULL",
    0x0A: "GATT_NOT_FOUND", 0x0B: "GATT_NOT_LONG", 0x0C: "GATT_INSUF_KEY_SIZE",
    0x0D: "GATT_INVALID_ATTRIBUTE_LENGTH", 0x0E: "GATT_ERR_UNLIKELY", 0x0F: "GATT_INSUFFICIENT_ENCRYPTION",
    0x10: "GATT_UNSUPPORT_GRP_TYPE", 0x11: "GATT_INSUF_RESOURCE",
  ]

  // MARK: - Connections

  /// How a link's end reaches the app, by HCI reason. `appDisconnected`: the app asked.
  public static func android(disconnect reason: UInt8, appDisconnected: Bool) -> AppPlatformError {
    // Not documented by Android: after the app's own BluetoothGatt.disconnect() the
    // callback carries GATT_SUCCESS [AG] on the stacks apps report; the HCI reason (0x16) is
    // what other versions may pass.
    if appDisconnected {
      return AppPlatformError(
        0, "GATT_SUCCESS", alternatives: [22], note: "undocumented; some stacks pass the reason (22)")
    }
    switch reason {
    // [AOSP] tGATT_DISCONN_REASON: the HCI reason is the status.
    case 0x08: return AppPlatformError(8, "GATT_CONN_TIMEOUT")
    case 0x13: return AppPlatformError(19, "GATT_CONN_TERMINATE_PEER_USER")
    case 0x16: return AppPlatformError(22, "GATT_CONN_TERMINATE_LOCAL_HOST")
    case 0x22: return AppPlatformError(34, "GATT_CONN_LMP_TIMEOUT")
    case 0x3E:
      // [AOSP] GATT_CONN_FAIL_ESTABLISH; stacks that do not pass the reason through report
      // GATT_ERROR (133). Which Android versions do which is not established here.
      return AppPlatformError(
        62, "GATT_CONN_FAIL_ESTABLISH", alternatives: [133],
        note: "133 (GATT_ERROR) on stacks that do not pass the HCI reason through")
    default: return AppPlatformError(Int(reason), "status \(reason) (the HCI reason)")
    }
  }

  /// [CBE] by the cases' meaning; Apple does not document which HCI reason gives which code.
  public static func coreBluetooth(disconnect reason: UInt8, appDisconnected: Bool) -> AppPlatformError? {
    // [CB] cancelPeripheralConnection: didDisconnectPeripheral with a nil error.
    if appDisconnected { return nil }
    switch reason {
    case 0x08, 0x22: return AppPlatformError(6, "CBError.connectionTimeout")
    case 0x3E: return AppPlatformError(10, "CBError.connectionFailed")
    default: return AppPlatformError(7, "CBError.peripheralDisconnected")
    }
  }

  /// A connect that made no connection. `outcome`: `failed`, `cancelled` or `timeout`.
  public static func android(connect outcome: String, status: UInt8?) -> AppPlatformError? {
    switch outcome {
    case "failed" where status == 0x3E: return android(disconnect: 0x3E, appDisconnected: false)
    // An app's own cancel (disconnect() or close() before connecting) gets no callback.
    case "cancelled": return nil
    // [AG] GATT_FAILURE (257): registerApp() failed, the stack's client table is full.
    case "register_failed": return AppPlatformError(257, "GATT_FAILURE")
    case "timeout":
      // [AG] GATT_CONNECTION_TIMEOUT (147) from API 35 when the stack's direct-connect timer
      // gives up; before API 35 that was GATT_ERROR (133).
      return AppPlatformError(
        147, "GATT_CONNECTION_TIMEOUT", alternatives: [133], note: "133 (GATT_ERROR) before API 35")
    case "failed": return AppPlatformError(133, "GATT_ERROR")  // [AOSP] GATT_ERROR 0x85
    default: return nil
    }
  }

  public static func coreBluetooth(connect outcome: String, status: UInt8?) -> AppPlatformError? {
    switch outcome {
    case "failed": return AppPlatformError(10, "CBError.connectionFailed")  // [CBE] didFailToConnect
    case "timeout": return AppPlatformError(6, "CBError.connectionTimeout")  // [CBE]
    // [CB] connect(_:options:) does not time out; the app cancels with cancelPeripheralConnection.
    case "cancelled": return nil
    default: return nil
    }
  }

  /// Encryption that failed: [CBE] peerRemovedPairingInformation for a missing key
  /// (HCI 0x06 PIN or Key Missing), encryptionTimedOut for 0x22; by meaning.
  public static func coreBluetooth(encryption status: UInt8) -> AppPlatformError? {
    switch status {
    case 0x06: return AppPlatformError(14, "CBError.peerRemovedPairingInformation")
    case 0x22: return AppPlatformError(15, "CBError.encryptionTimedOut")
    default: return nil
    }
  }

  // MARK: - Per call

  /// The CoreBluetooth and Android errors of a call, or nil when it went well.
  public static func errors(of call: AppCall, appDisconnected: Bool = false) -> (
    coreBluetooth: AppPlatformError?, android: AppPlatformError?
  ) {
    switch call.kind {
    case .connect:
      guard !call.ok, let outcome = call.outcome else { return (nil, nil) }
      return (
        coreBluetooth(connect: outcome, status: call.error.hci), android(connect: outcome, status: call.error.hci)
      )
    case .disconnected:
      guard let reason = call.reason else { return (nil, nil) }
      return (
        coreBluetooth(disconnect: reason, appDisconnected: appDisconnected),
        android(disconnect: reason, appDisconnected: appDisconnected)
      )
    case .pair, .encrypt:
      guard let status = call.error.hci else { return (nil, nil) }
      return (coreBluetooth(encryption: status), nil)
    default:
      if let att = call.error.att { return (coreBluetooth(att: att), android(att: att)) }
      return (nil, nil)
    }
  }
}
