import BLEDissect

/// The stack's own GATT traffic: requests no app call made, told apart so that they stay
/// out of the app's calls and its error counts. One table; each row a kind, the
/// characteristic it is about, and why the stack sends it.
extension AppBuilder {
  struct SystemRule {
    var kind: AppCallKind
    var mode: String?
    var uuid: BluetoothUUID
    var reason: String
  }

  static let systemRules: [SystemRule] = [
    // Core 6.0, Vol 3, Part G, 2.5.2.1 and 7.3: a client with a cached database reads the
    // Database Hash (Read By Type 0x2B2A) on reconnection to check its cache (Android,
    // iOS); not the app's read.
    .init(kind: .read, mode: "by_uuid", uuid: BluetoothUUID(uuid16: 0x2B2A), reason: "gatt_caching"),
    // Part G, 7.1: the client enables Service Changed indications itself (Android writes
    // its CCCD from the cached handles before rediscovering).
    .init(kind: .setNotify, mode: nil, uuid: BluetoothUUID(uuid16: 0x2A05), reason: "service_changed"),
  ]

  /// Marks this host's calls among `ids` that a system rule matches.
  mutating func markSystemCalls(_ ids: [Int]) {
    for i in ids where calls[i].byLocal {
      guard
        let rule = Self.systemRules.first(where: { rule in
          rule.kind == calls[i].kind && (rule.mode == nil || rule.mode == calls[i].mode) && rule.uuid == calls[i].uuid
        })
      else { continue }
      calls[i].origin = .system
      calls[i].systemReason = rule.reason
    }
  }
}
