import Testing

@testable import BLEAnalysis

/// Each row of the platform vocabularies, against the value its source documents.
@Suite("app: platform vocabularies")
struct AppPlatformTests {
  /// ATT Error Code → CBATTError.Code raw value (Apple: CBATTError.Code, "derive from the
  /// Bluetooth ATT error codes") and the Android status (BluetoothGatt constants, AOSP gatt_api.h).
  static let attRows: [(att: UInt8, coreBluetooth: String, android: Int, androidName: String)] = [
    (0x01, "CBATTError.invalidHandle", 1, "GATT_INVALID_HANDLE"),
    (0x02, "CBATTError.readNotPermitted", 2, "GATT_READ_NOT_PERMITTED"),
    (0x03, "CBATTError.writeNotPermitted", 3, "GATT_WRITE_NOT_PERMITTED"),
    (0x04, "CBATTError.invalidPdu", 4, "GATT_INVALID_PDU"),
    (0x05, "CBATTError.insufficientAuthentication", 5, "GATT_INSUFFICIENT_AUTHENTICATION"),
    (0x06, "CBATTError.requestNotSupported", 6, "GATT_REQUEST_NOT_SUPPORTED"),
    (0x07, "CBATTError.invalidOffset", 7, "GATT_INVALID_OFFSET"),
    (0x08, "CBATTError.insufficientAuthorization", 8, "GATT_INSUFFICIENT_AUTHORIZATION"),
    (0x09, "CBATTError.prepareQueueFull", 9, "GATT_PREPARE_Q_FULL"),
    (0x0A, "CBATTError.attributeNotFound", 10, "GATT_NOT_FOUND"),
    (0x0B, "CBATTError.attributeNotLong", 11, "GATT_NOT_LONG"),
    (0x0C, "CBATTError.insufficientEncryptionKeySize", 12, "GATT_INSUF_KEY_SIZE"),
    (0x0D, "CBATTError.invalidAttributeValueLength", 13, "GATT_INVALID_ATTRIBUTE_LENGTH"),
    (0x0E, "CBATTError.unlikelyError", 14, "GATT_ERR_UNLIKELY"),
    (0x0F, "CBATTError.insufficientEncryption", 15, "GATT_INSUFFICIENT_ENCRYPTION"),
    (0x10, "CBATTError.unsupportedGroupType", 16, "GATT_UNSUPPORT_GRP_TYPE"),
    (0x11, "CBATTError.insufficientResources", 17, "GATT_INSUF_RESOURCE"),
  ]

  @Test("ATT error row", arguments: attRows)
  func attRow(_ row: (att: UInt8, coreBluetooth: String, android: Int, androidName: String)) {
    let cb = AppPlatform.coreBluetooth(att: row.att)
    #expect(cb.code == Int(row.att))
    #expect(cb.name == row.coreBluetooth)
    let android = AppPlatform.android(att: row.att)
    #expect(android.code == row.android)
    #expect(android.name == row.androidName)
  }

  @Test("an application error (0x80, android-central's HR Control Point) passes through as 128 on both")
  func applicationError() {
    #expect(AppPlatform.android(att: 0x80).code == 128)
    #expect(AppPlatform.android(att: 0x80).note != nil)
    #expect(AppPlatform.coreBluetooth(att: 0x80).code == 0x80)
    #expect(AppPlatform.coreBluetooth(att: 0x80).note != nil)
  }

  /// HCI reason → Android status (AOSP tGATT_DISCONN_REASON; the 0, 8, 19, 22, 62, 133)
  /// and CBError.Code raw value (Apple CBError.Code: connectionTimeout 6,
  /// peripheralDisconnected 7, connectionFailed 10).
  static let disconnectRows: [(reason: UInt8, android: Int, alternatives: [Int], coreBluetooth: Int)] = [
    (0x08, 8, [], 6), (0x13, 19, [], 7), (0x16, 22, [], 7), (0x22, 34, [], 6), (0x3E, 62, [133], 10),
  ]

  @Test("disconnection reason row", arguments: disconnectRows)
  func disconnectRow(_ row: (reason: UInt8, android: Int, alternatives: [Int], coreBluetooth: Int)) {
    let android = AppPlatform.android(disconnect: row.reason, appDisconnected: false)
    #expect(android.code == row.android)
    #expect(android.alternatives == row.alternatives)
    #expect(AppPlatform.coreBluetooth(disconnect: row.reason, appDisconnected: false)?.code == row.coreBluetooth)
  }

  @Test("the app's own disconnect: GATT_SUCCESS (0) on Android, no error on CoreBluetooth")
  func appDisconnect() {
    #expect(AppPlatform.android(disconnect: 0x16, appDisconnected: true).code == 0)
    #expect(AppPlatform.android(disconnect: 0x16, appDisconnected: true).alternatives == [22])
    #expect(AppPlatform.coreBluetooth(disconnect: 0x16, appDisconnected: true) == nil)
  }

  /// A connect that made no connection: outcome, HCI status → Android status (with the
  /// other versions' value) and CBError code. AOSP GATT_CONN_FAIL_ESTABLISH 62 / GATT_ERROR
  /// 133; Android GATT_CONNECTION_TIMEOUT 147 (API 35); Apple connectionFailed 10, connectionTimeout 6.
  /// The app's own cancel gets no callback on either platform; a connect whose
  /// registerApp() failed gets GATT_FAILURE 257.
  static let connectRows: [(outcome: String, status: UInt8, android: Int?, alternatives: [Int], coreBluetooth: Int?)] =
    [
      ("failed", 0x3E, 62, [133], 10), ("timeout", 0x04, 147, [133], 6), ("cancelled", 0x02, nil, [], nil),
      ("failed", 0x0C, 133, [], 10), ("register_failed", 0x00, 257, [], nil),
    ]

  @Test("connect row", arguments: connectRows)
  func connectRow(_ row: (outcome: String, status: UInt8, android: Int?, alternatives: [Int], coreBluetooth: Int?)) {
    let android = AppPlatform.android(connect: row.outcome, status: row.status)
    #expect(android?.code == row.android)
    #expect(android?.alternatives ?? [] == row.alternatives)
    #expect(AppPlatform.coreBluetooth(connect: row.outcome, status: row.status)?.code == row.coreBluetooth)
  }

  @Test("encryption rows: key missing → CBError.peerRemovedPairingInformation 14, LMP timeout → encryptionTimedOut 15")
  func encryptionRows() {
    #expect(AppPlatform.coreBluetooth(encryption: 0x06)?.code == 14)
    #expect(AppPlatform.coreBluetooth(encryption: 0x22)?.code == 15)
    #expect(AppPlatform.coreBluetooth(encryption: 0x05) == nil)
  }

  /// Call and callback names (Apple CBCentralManager/CBPeripheral, Android BluetoothGatt).
  static let nameRows: [(kind: AppCallKind, mode: String?, coreBluetooth: String, android: String)] = [
    (
      .scan, nil, "scanForPeripherals(withServices:options:)",
      "BluetoothLeScanner.startScan(filters, settings, callback)"
    ),
    (.connect, nil, "connect(_:options:)", "BluetoothDevice.connectGatt(context, autoConnect, callback)"),
    (.requestMTU, nil, "(by the system)", "BluetoothGatt.requestMtu(mtu)"),
    (.discoverServices, "all", "discoverServices(nil)", "BluetoothGatt.discoverServices()"),
    (
      .discoverServices, "by_uuid", "discoverServices([CBUUID])",
      "BluetoothGatt.discoverServices() (by UUID: hidden discoverServiceByUuid)"
    ),
    (.discoverCharacteristics, nil, "discoverCharacteristics(_:for:)", "(part of BluetoothGatt.discoverServices())"),
    (.discoverDescriptors, nil, "discoverDescriptors(for:)", "(part of BluetoothGatt.discoverServices())"),
    (.discoverIncluded, nil, "discoverIncludedServices(_:for:)", "(part of BluetoothGatt.discoverServices())"),
    (.read, "short", "readValue(for:)", "BluetoothGatt.readCharacteristic(c)"),
    (.read, "long", "readValue(for:)", "BluetoothGatt.readCharacteristic(c)"),
    (
      .write, "with_response", "writeValue(_:for:type: .withResponse)",
      "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_DEFAULT)"
    ),
    (
      .write, "without_response", "writeValue(_:for:type: .withoutResponse)",
      "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_NO_RESPONSE)"
    ),
    (
      .write, "signed", "writeValue(_:for:type: .withoutResponse) (authenticatedSignedWrites)",
      "BluetoothGatt.writeCharacteristic(c, value, WRITE_TYPE_SIGNED)"
    ),
    (
      .setNotify, "notify", "setNotifyValue(_:for:)",
      "BluetoothGatt.setCharacteristicNotification(c, enable) + writeDescriptor(cccd, value)"
    ),
    (.readRSSI, nil, "readRSSI()", "BluetoothGatt.readRemoteRssi()"),
    (.disconnect, nil, "cancelPeripheralConnection(_:)", "BluetoothGatt.disconnect()"),
  ]

  @Test("call name row", arguments: nameRows)
  func nameRow(_ row: (kind: AppCallKind, mode: String?, coreBluetooth: String, android: String)) throws {
    let found = try #require(AppPlatform.row(row.kind, mode: row.mode))
    #expect(found.coreBluetooth.call == row.coreBluetooth)
    #expect(found.android.call == row.android)
  }

  @Test("every call kind has a vocabulary row")
  func everyKind() {
    for kind in AppCallKind.allCases { #expect(AppPlatform.row(kind, mode: nil) != nil, "\(kind)") }
  }
}
