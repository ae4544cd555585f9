import BLECapture
import BLEDissect

/// Every field of show's record, in JSON order, layer by layer. The vendor protocols'
/// objects (`mcumgr`, `dfu`…) have their own tables (``VendorFieldTable``), and the
/// advertising reports' insides their schema (advertising.schema.json).
extension ShowField {
  public static let all: [ShowField] = record + hci + acl + l2cap + att + smp + adv + conn + others + linkLayer

  /// Filter names of schema_version 1 whose meaning was split or renamed in 2: a
  /// filter that uses one is told the new name.
  public static let renamed: [String: String] = [
    "att.service": "att.service_name", "att.characteristic": "att.characteristic_name",
    "att.descriptor": "att.descriptor_name",
  ]

  static func int(_ value: (some BinaryInteger)?) -> FilterValue? { value.map { .integer(Int64($0)) } }

  static let record: [ShowField] = [
    ShowField("frame", .integer, .line("frame"), aliases: ["frame.number"]) { int($0.record.frame) },
    ShowField("file", .string, .line("# file")),
    ShowField("ts", .decimal, .line("time (s)"), unit: "s") { .integer($0.record.timestamp.unixMicroseconds) },
    ShowField("dir", .string, .line("dir")) { input in input.record.direction.map { .string($0 == .sent ? "tx" : "rx") }
    },
    ShowField("adapter", .integer, .line("adapter")) { int($0.record.adapter) },
    ShowField("length", .integer, .line("detail"), unit: "octets") { int($0.record.bytes.count) },
    ShowField(
      "original_length", .integer, .line("detail"), unit: "octets", omitted: "when the record is whole (= length)"
    ) { int($0.record.originalLength) },
  ]

  static let hci: [ShowField] = [
    ShowField("hci", .tree("HCI Event|HCI Command|HCI Packet Type")) { $0.analyzed.decoded.hci != nil },
    ShowField("hci.type", .string, .tree("HCI Event|HCI Command|HCI Packet Type")) { input in
      input.analyzed.decoded.hci.map { .string($0.type.name) }
    },
    ShowField(
      "hci.name", .string, .tree("HCI Event|HCI Command|Subevent_Code"),
      omitted: "on data packets (ACL Data, Synchronous Data, ISO Data)"
    ) { input in
      input.analyzed.decoded.hci.map { .string($0.name) }
    },
    ShowField("hci.opcode", .integer, .tree("HCI Command|HCI Event", "Command_Opcode")) {
      int($0.analyzed.decoded.hci?.opcode)
    },
    ShowField("hci.event", .integer, .tree("HCI Event")) { int($0.analyzed.decoded.hci?.event) },
    ShowField("hci.subevent", .integer, .tree("HCI Event", "Subevent_Code")) { int($0.analyzed.decoded.hci?.subevent) },
    ShowField("hci.status", .integer, .tree("HCI Event", "Status")) { int($0.analyzed.decoded.hci?.status) },
    ShowField("hci.handle", .integer, .tree("ACL Data", "Connection_Handle")) { int($0.analyzed.decoded.hci?.handle) },
  ]

  static let acl: [ShowField] = [
    ShowField("acl", .tree("ACL Data")) { $0.analyzed.decoded.acl != nil },
    ShowField("acl.handle", .integer, .tree("ACL Data", "Connection_Handle")) { int($0.analyzed.decoded.acl?.handle) },
    ShowField("acl.pb", .integer, .tree("ACL Data", "PB_Flag")) { int($0.analyzed.decoded.acl?.pb) },
    ShowField("acl.length", .integer, .tree("ACL Data", "Data_Total_Length"), unit: "octets") {
      int($0.analyzed.decoded.acl?.length)
    },
  ]

  static let l2cap: [ShowField] = [
    ShowField("l2cap", .tree("L2CAP")) { $0.analyzed.decoded.l2cap != nil },
    ShowField("l2cap.cid", .integer, .tree("L2CAP", "Channel ID")) { int($0.analyzed.decoded.l2cap?.cid) },
    ShowField("l2cap.length", .integer, .tree("L2CAP", "Length"), unit: "octets") {
      int($0.analyzed.decoded.l2cap?.length)
    },
    ShowField("l2cap.psm", .integer, .tree("L2CAP", "PSM")) { int($0.analyzed.decoded.l2cap?.psm) },
    ShowField("l2cap.sdu_length", .integer, .tree("L2CAP", "L2CAP SDU Length"), unit: "octets") {
      int($0.analyzed.decoded.l2cap?.sduLength)
    },
    ShowField("l2cap.fragments", .integer, .tree("L2CAP", "Fragments"), omitted: "when 1") {
      int($0.analyzed.decoded.l2cap?.fragments)
    },
    ShowField("l2cap.signaling", .tree("L2CAP Signaling")) { $0.analyzed.decoded.signaling != nil },
    ShowField("l2cap.signaling.code", .integer, .tree("L2CAP Signaling", "Code")) {
      int($0.analyzed.decoded.signaling?.code.rawValue)
    },
    ShowField("l2cap.signaling.name", .string, .tree("L2CAP Signaling", "Code")) { input in
      input.analyzed.decoded.signaling.map { .string($0.code.name) }
    },
    ShowField("l2cap.signaling.identifier", .integer, .tree("L2CAP Signaling", "Identifier")) {
      int($0.analyzed.decoded.signaling?.identifier)
    },
  ]

  static let att: [ShowField] =
    [
      ShowField("att", .tree("ATT")) { $0.analyzed.decoded.att != nil },
      ShowField("att.opcode", .integer, .tree("ATT", "Opcode")) { int($0.analyzed.decoded.att?.opcode.rawValue) },
      ShowField("att.name", .string, .tree("ATT", "Opcode")) { input in
        input.analyzed.decoded.att.map { .string($0.opcode.name) }
      },
      ShowField("att.handle", .integer, .tree("ATT", "Attribute Handle|Handle")) { int($0.analyzed.attHandle) },
      ShowField("att.uuid", .uuid, .line("detail")) { input in input.analyzed.attribute?.uuidText.map { .string($0) } },
      ShowField("att.service_uuid", .uuid, .line("detail")) { input in
        input.analyzed.attribute?.serviceUUIDText.map { .string($0) }
      },
      ShowField("att.service_name", .string, .line("detail")) { input in
        input.analyzed.attribute?.serviceName.map { .string($0) }
      },
      ShowField("att.characteristic_uuid", .uuid, .line("detail")) { input in
        input.analyzed.attribute?.characteristicUUIDText.map { .string($0) }
      },
      ShowField("att.characteristic_name", .string, .line("detail")) { input in
        input.analyzed.attribute?.characteristicName.map { .string($0) }
      },
      ShowField("att.descriptor_uuid", .uuid, .line("detail")) { input in
        input.analyzed.attribute?.descriptorUUIDText.map { .string($0) }
      },
      ShowField("att.descriptor_name", .string, .line("detail")) { input in
        input.analyzed.attribute?.descriptorName.map { .string($0) }
      },
      ShowField("att.start_handle", .integer, .tree("ATT", "Starting Handle")) { int(handleRange($0)?.start) },
      ShowField("att.end_handle", .integer, .tree("ATT", "Ending Handle")) { int(handleRange($0)?.end) },
      ShowField("att.value", .bytes, .tree("ATT", "Attribute Value|Value")) { input in
        guard let range = input.analyzed.decoded.att?.value else { return nil }
        return input.analyzed.decoded.withPayloadBytes(input.record) { bytes in
          .bytes(Array(bytes[range.start..<range.start + range.count]))
        }
      },
      ShowField("att.error", .integer, .tree("ATT", "Error Code")) { int($0.analyzed.decoded.att?.error?.rawValue) },
      ShowField("att.error_name", .string, .tree("ATT", "Error Code")) { input in
        input.analyzed.decoded.att?.error.map { .string($0.name) }
      },
      ShowField("att.request_opcode", .integer, .tree("ATT", "Request Opcode In Error")) {
        int($0.analyzed.decoded.att?.requestOpcode?.rawValue)
      },
      ShowField("att.rx_mtu", .integer, .tree("ATT", "Client Rx MTU|Server Rx MTU"), unit: "octets") {
        int($0.analyzed.decoded.att?.mtu)
      },
      ShowField("att.request_frame", .integer, .tree("ATT", "Request In Frame|Indication In Frame")) {
        int($0.analyzed.exchange?.requestFrame)
      },
      ShowField(
        "att.response_frame", .integer, .tree("ATT", "Response In Frame|Error Response In Frame|Confirmation In Frame")
      ) { int($0.analyzed.answer?.frame) },
      ShowField("att.latency_ms", .decimal, .tree("ATT", "Latency"), unit: "ms") {
        int(latency($0.analyzed).map { $0 * 1000 })
      },
      ShowField("att.latency_us", .integer, .tree("ATT", "Latency"), filterOnly: true, unit: "µs") {
        int(latency($0.analyzed))
      },
      ShowField("att.outcome", .string, .line("detail")) { input in input.analyzed.outcome.map { .string($0) } },
      ShowField("att.mtu", .integer, .line("detail"), filterOnly: true, unit: "octets") { int($0.analyzed.mtu) },
      ShowField("att.decoded", .tree("Decoded Value*")) { $0.analyzed.value != nil },
      ShowField("att.assembled", .tree("Assembled Value*"), type: .array) { !$0.analyzed.assembled.isEmpty },
      ShowField(
        "att.assembled.handle", .integer, .tree("Assembled Value*", "Handle"), json: "att.assembled[].handle",
        many: { input in input.analyzed.assembled.map { .integer(Int64($0.handle)) } }),
      ShowField(
        "att.assembled.uuid", .uuid, .line("detail"), json: "att.assembled[].uuid",
        many: { input in input.analyzed.assembled.compactMap { $0.attribute?.uuidText.map { .string($0) } } }),
      ShowField(
        "att.assembled.value", .bytes, .tree("Assembled Value*", "Value"), json: "att.assembled[].value",
        many: { input in input.analyzed.assembled.map { .bytes($0.value) } }),
      ShowField(
        "att.assembled.decoded", .tree("Assembled Value*", "Decoded Value*"), json: "att.assembled[].decoded"
      ) { input in input.analyzed.assembled.contains { $0.decoded != nil } },
      ShowField(
        "att.assembled.frames", .integer, .tree("Assembled Value*"), json: "att.assembled[].frames", type: .array,
        many: { input in input.analyzed.assembled.flatMap { $0.frames.map { .integer(Int64($0)) } } }),
    ] + discovery

  /// What discovery responses list (`Discovered` in `-v`): `att.services[].uuid` is
  /// `att.services.uuid`, with a value per entry. Names come from the dissector library
  /// show was given, which filters do not see: they filter on the UUID.
  static let discovery: [ShowField] =
    listed(
      "services", "Primary Service|Secondary Service",
      [
        .init("start", .integer, "Start Handle") { if case .service(let s) = $0 { int(s.start) } else { nil } },
        .init("end", .integer, "End Handle") { if case .service(let s) = $0 { int(s.end) } else { nil } },
        .init("uuid", .uuid, "UUID") { if case .service(let s) = $0 { uuid(s.uuid) } else { nil } },
        .init("name", "UUID"),
        .init("primary", .bool, nil) { if case .service(let s) = $0 { .bool(s.primary) } else { nil } },
      ])
    + listed(
      "characteristics", "Characteristic",
      [
        .init("declaration", .integer, "Declaration Handle") {
          if case .characteristic(let c) = $0 { int(c.declaration) } else { nil }
        },
        .init("value", .integer, "Value Handle") { if case .characteristic(let c) = $0 { int(c.value) } else { nil } },
        .init("uuid", .uuid, "UUID") { if case .characteristic(let c) = $0 { uuid(c.uuid) } else { nil } },
        .init("name", "UUID"),
        .init("properties", .integer, "Characteristic Properties") {
          if case .characteristic(let c) = $0 { int(c.properties) } else { nil }
        },
      ])
    + listed(
      "includes", "Include",
      [
        .init("handle", .integer, "Handle") { if case .include(let i) = $0 { int(i.handle) } else { nil } },
        .init("start", .integer, "Start Handle") { if case .include(let i) = $0 { int(i.start) } else { nil } },
        .init("end", .integer, "End Handle") { if case .include(let i) = $0 { int(i.end) } else { nil } },
        .init("uuid", .uuid, "UUID") { if case .include(let i) = $0 { i.uuid.flatMap(uuid) } else { nil } },
        .init("name", "UUID"),
      ])
    + listed(
      "descriptors", "Attribute",
      [
        .init("handle", .integer, "Handle") { if case .descriptor(let h, _) = $0 { int(h) } else { nil } },
        .init("uuid", .uuid, "UUID") { if case .descriptor(_, let u) = $0 { uuid(u) } else { nil } },
        .init("name", "UUID"),
      ])
    + listed(
      "ranges", "Range",
      [
        .init("start", .integer, "Start Handle") { if case .range(let start, _) = $0 { int(start) } else { nil } },
        .init("end", .integer, "End Handle") { if case .range(_, let end) = $0 { int(end) } else { nil } },
      ])

  /// One key of a discovery list's items: its `-v` name under the entry's node, and how a
  /// filter reads it from an entry (nil for the names).
  struct ListedKey {
    var key: String
    var kind: FilterFieldKind?
    var type: JSONType
    var label: String?
    var read: (@Sendable (GATTDiscovered) -> FilterValue?)?

    init(
      _ key: String, _ kind: FilterFieldKind, _ label: String?,
      _ read: @escaping @Sendable (GATTDiscovered) -> FilterValue?
    ) {
      (self.key, self.kind, self.type, self.label, self.read) = (key, kind, ShowField.jsonType(of: kind), label, read)
    }

    /// A name: JSON only.
    init(_ key: String, _ label: String) {
      (self.key, self.kind, self.type, self.label, self.read) = (key, nil, .string, label, nil)
    }
  }

  /// A discovery list and its items' keys. The list filters as present when the response
  /// lists an entry of its kind.
  private static func listed(_ list: String, _ node: String, _ keys: [ListedKey]) -> [ShowField] {
    let first = keys[0].read!
    let array = ShowField("att.\(list)", .tree("ATT", "Discovered"), type: .array) { input in
      discovered(input).contains { first($0) != nil }
    }
    return [array]
      + keys.map { key in
        let verbose = ShowField.Verbose.node(["ATT", "Discovered", node] + (key.label.map { [$0] } ?? []))
        let json = "att.\(list)[].\(key.key)"
        guard let kind = key.kind, let read = key.read else {
          return ShowField("att.\(list).\(key.key)", key.type, verbose, json: json)
        }
        return ShowField(
          "att.\(list).\(key.key)", kind, verbose, json: json, many: { input in discovered(input).compactMap(read) })
      }
  }

  /// The entries of a discovery response, read with its request's type.
  private static func discovered(_ input: borrowing FilterInput) -> [GATTDiscovered] {
    guard let att = input.analyzed.decoded.att, GATTDiscovered.isDiscoveryResponse(att) else { return [] }
    let exchange = input.analyzed.exchange
    var entries: [GATTDiscovered] = []
    input.analyzed.decoded.withPayloadBytes(input.record) { bytes in
      GATTDiscovered.forEach(in: att, bytes, exchange) { entries.append($0) }
    }
    return entries
  }

  private static func uuid(_ uuid: BluetoothUUID) -> FilterValue { .string(uuid.normalized.description) }

  /// The handle range a Find Information, Find By Type Value, Read By Type or Read By
  /// Group Type Request names.
  private static func handleRange(_ input: borrowing FilterInput) -> (start: UInt16, end: UInt16)? {
    switch input.analyzed.decoded.att?.parameters {
    case .handleRange(let start, let end)?, .readByType(let start, let end, _)?,
      .findByTypeValue(let start, let end, _, _)?:
      (start, end)
    default: nil
    }
  }

  static let smp: [ShowField] = [
    ShowField("smp", .tree("SMP")) { $0.analyzed.decoded.smp != nil },
    ShowField("smp.code", .integer, .tree("SMP", "Code")) { int($0.analyzed.decoded.smp?.code.rawValue) },
    ShowField("smp.name", .string, .tree("SMP", "Code")) { input in
      input.analyzed.decoded.smp.map { .string($0.code.name) }
    },
    ShowField("smp.method", .string, .line("detail")) { input in input.analyzed.pairingMethod.map { .string($0.name) }
    },
  ]

  static let conn: [ShowField] = [
    ShowField("conn", .line("conn")) { $0.analyzed.conn != nil },
    ShowField("conn.id", .integer, .line("conn")) { int($0.analyzed.conn?.id) },
    ShowField("conn.handle", .integer, .line("conn")) { int($0.analyzed.conn?.handle) },
    // The peer object compares as its address: `conn.peer == D4:36:39:67:A2:61`.
    ShowField("conn.peer", .address, .line("conn"), type: .object) { input in
      input.analyzed.conn?.peer.map { .address($0) }
    },
    ShowField("conn.peer.address", .address, .line("conn")) { input in input.analyzed.conn?.peer.map { .address($0) } },
    ShowField("conn.peer.type", .string, .line("conn")) { input in
      input.analyzed.conn?.peerType.map { .string(AdvertisingAddressType(rawValue: $0).name) }
    },
    ShowField("conn.peer.name", .string, .line("conn")) { input in input.analyzed.peerName.map { .string($0.name) } },
  ]

  static let others: [ShowField] = [
    ShowField("monitor", .line("type")) { $0.analyzed.decoded.monitor != nil },
    ShowField("monitor.opcode", .integer, .line("type")) { int($0.analyzed.decoded.monitor?.rawValue) },
    ShowField("monitor.name", .string, .line("type")) { input in
      input.analyzed.decoded.monitor.map { .string(RecordKindNames.name($0)) }
    },
    ShowField("packetlogger", .line("type")) { $0.analyzed.decoded.packetLogger != nil },
    ShowField("packetlogger.type", .integer, .line("type")) { int($0.analyzed.decoded.packetLogger) },
    ShowField("packetlogger.name", .string, .line("type")) { input in
      input.analyzed.decoded.packetLogger.map { .string(RecordKindNames.packetLoggerName($0)) }
    },
    ShowField("diagnostics", .line("detail"), type: .array) { !$0.analyzed.decoded.diagnostics.isEmpty },
    ShowField(
      "diagnostics.id", .string, .line("detail"), json: "diagnostics[].id",
      many: { input in input.analyzed.decoded.diagnostics.map { .string($0.id) } }),
    ShowField(
      "diagnostics.severity", .string, .line("detail"), json: "diagnostics[].severity",
      many: { input in input.analyzed.decoded.diagnostics.map { .string($0.severity.rawValue) } }),
    ShowField(
      "diagnostics.message", .string, .line("detail"), json: "diagnostics[].message",
      many: { input in input.analyzed.decoded.diagnostics.map { .string($0.message) } }),
    ShowField("fields", .array, .tree()),
  ]

  /// A request's time to its answer, or an answer's time since its request, in µs.
  static func latency(_ analyzed: borrowing AnalyzedRecord) -> Int64? {
    let answer = analyzed.answer
    return analyzed.exchange?.latencyMicroseconds ?? answer?.latencyMicroseconds
  }
}
