import BLECapture
import BLEDissect

/// What `show --filter` looks at: a record with everything decoded and learned.
public struct FilterInput {
  public var record: Record
  public var analyzed: AnalyzedRecord

  public init(record: Record, analyzed: AnalyzedRecord) {
    self.record = record
    self.analyzed = analyzed
  }
}

/// The data-contract fields (DESIGN.md, `show --format ndjson`) that `--filter` reads.
public enum RecordFilter {
  public static func compile(_ expression: String) throws(FilterError) -> Filter<FilterInput> {
    try Filter(expression, catalog: catalog)
  }

  private static func int(_ value: (some BinaryInteger)?) -> FilterValue? {
    value.map { .integer(Int64($0)) }
  }

  public static let catalog: FilterCatalog<FilterInput> = {
    var c = FilterCatalog<FilterInput>()
    c.add("frame", .integer) { int($0.record.frame) }
    c.add("ts", .decimal) { .integer($0.record.timestamp.unixMicroseconds) }
    c.add("dir", .string) { input in
      input.record.direction.map { .string($0 == .sent ? "tx" : "rx") }
    }
    c.add("adapter", .integer) { int($0.record.adapter) }
    c.add("length", .integer) { int($0.record.bytes.count) }
    c.add("original_length", .integer) { int($0.record.originalLength) }

    c.add("hci") { $0.analyzed.decoded.hci != nil }
    c.add("hci.type", .string) { input in input.analyzed.decoded.hci.map { .string($0.type.name) } }
    c.add("hci.name", .string) { input in input.analyzed.decoded.hci.map { .string($0.name) } }
    c.add("hci.opcode", .integer) { int($0.analyzed.decoded.hci?.opcode) }
    c.add("hci.event", .integer) { int($0.analyzed.decoded.hci?.event) }
    c.add("hci.subevent", .integer) { int($0.analyzed.decoded.hci?.subevent) }
    c.add("hci.status", .integer) { int($0.analyzed.decoded.hci?.status) }
    c.add("hci.handle", .integer) { int($0.analyzed.decoded.hci?.handle) }

    c.add("acl") { $0.analyzed.decoded.acl != nil }
    c.add("acl.handle", .integer) { int($0.analyzed.decoded.acl?.handle) }
    c.add("acl.pb", .integer) { int($0.analyzed.decoded.acl?.pb) }
    c.add("acl.length", .integer) { int($0.analyzed.decoded.acl?.length) }

    addLinkLayerFields(to: &c)

    c.add("l2cap") { $0.analyzed.decoded.l2cap != nil }
    c.add("l2cap.cid", .integer) { int($0.analyzed.decoded.l2cap?.cid) }
    c.add("l2cap.length", .integer) { int($0.analyzed.decoded.l2cap?.length) }
    c.add("l2cap.psm", .integer) { int($0.analyzed.decoded.l2cap?.psm) }
    c.add("l2cap.fragments", .integer) { int($0.analyzed.decoded.l2cap?.fragments) }
    c.add("l2cap.sdu_length", .integer) { int($0.analyzed.decoded.l2cap?.sduLength) }
    c.add("l2cap.signaling") { $0.analyzed.decoded.signaling != nil }
    c.add("l2cap.signaling.code", .integer) { int($0.analyzed.decoded.signaling?.code.rawValue) }
    c.add("l2cap.signaling.name", .string) { input in
      input.analyzed.decoded.signaling.map { .string($0.code.name) }
    }

    c.add("att") { $0.analyzed.decoded.att != nil }
    c.add("att.opcode", .integer) { int($0.analyzed.decoded.att?.opcode.rawValue) }
    c.add("att.name", .string) { input in input.analyzed.decoded.att.map { .string($0.opcode.name) } }
    c.add("att.handle", .integer) { int($0.analyzed.attHandle) }
    c.add("att.uuid", .uuid) { input in input.analyzed.attribute?.uuidText.map { .string($0) } }
    c.add("att.service_uuid", .uuid) { input in input.analyzed.attribute?.serviceUUIDText.map { .string($0) } }
    c.add("att.service_name", .string) { input in input.analyzed.attribute?.serviceName.map { .string($0) } }
    c.add("att.characteristic_uuid", .uuid) { input in
      input.analyzed.attribute?.characteristicUUIDText.map { .string($0) }
    }
    c.add("att.characteristic_name", .string) { input in
      input.analyzed.attribute?.characteristicName.map { .string($0) }
    }
    c.add("att.descriptor_uuid", .uuid) { input in input.analyzed.attribute?.descriptorUUIDText.map { .string($0) } }
    c.add("att.descriptor_name", .string) { input in input.analyzed.attribute?.descriptorName.map { .string($0) } }
    c.add("att.value", .bytes) { input in
      guard let range = input.analyzed.decoded.att?.value else { return nil }
      return input.analyzed.decoded.withPayloadBytes(input.record) { bytes in
        .bytes(Array(bytes[range.start..<range.start + range.count]))
      }
    }
    c.add("att.error", .integer) { int($0.analyzed.decoded.att?.error?.rawValue) }
    c.add("att.error_name", .string) { input in input.analyzed.decoded.att?.error.map { .string($0.name) } }
    c.add("att.request_frame", .integer) { int($0.analyzed.exchange?.requestFrame) }
    c.add("att.request_opcode", .integer) { int($0.analyzed.decoded.att?.requestOpcode?.rawValue) }
    c.add("att.response_frame", .integer) { int($0.analyzed.answer?.frame) }
    c.add("att.outcome", .string) { input in input.analyzed.outcome.map { .string($0) } }
    c.add("att.latency_ms", .decimal) { int(latency($0.analyzed).map { $0 * 1000 }) }
    c.add("att.latency_us", .integer) { int(latency($0.analyzed)) }
    c.add("att.rx_mtu", .integer) { int($0.analyzed.decoded.att?.mtu) }
    c.add("att.mtu", .integer) { int($0.analyzed.mtu) }

    c.add("smp") { $0.analyzed.decoded.smp != nil }
    c.add("smp.code", .integer) { int($0.analyzed.decoded.smp?.code.rawValue) }
    c.add("smp.name", .string) { input in input.analyzed.decoded.smp.map { .string($0.code.name) } }
    c.add("smp.method", .string) { input in input.analyzed.pairingMethod.map { .string($0.name) } }

    addAdvertising(&c)

    VendorFilterFields.add(to: &c)

    c.add("conn") { $0.analyzed.conn != nil }
    c.add("conn.id", .integer) { int($0.analyzed.conn?.id) }
    c.add("conn.handle", .integer) { int($0.analyzed.conn?.handle) }
    // The peer object compares as its address: `conn.peer == D4:36:39:67:A2:61`.
    c.add("conn.peer", .address) { input in input.analyzed.conn?.peer.map { .address($0) } }
    c.add("conn.peer.address", .address) { input in input.analyzed.conn?.peer.map { .address($0) } }
    c.add("conn.peer.type", .string) { input in
      input.analyzed.conn?.peerType.map { .string(AdvertisingAddressType(rawValue: $0).name) }
    }
    c.add("conn.peer.name", .string) { input in input.analyzed.peerName.map { .string($0.name) } }

    c.add("diagnostics") { !$0.analyzed.decoded.diagnostics.isEmpty }
    c.add("diagnostics.id", .string, many: { input in input.analyzed.decoded.diagnostics.map { .string($0.id) } })
    c.add(
      "diagnostics.severity", .string,
      many: { input in
        input.analyzed.decoded.diagnostics.map { .string($0.severity.rawValue) }
      })
    return c
  }()

  /// `adv.*`: the reports of advertising report events. Each field has a value per
  /// report (or per AD structure), and matches when any does.
  private static func addAdvertising(_ c: inout FilterCatalog<FilterInput>) {
    c.add("adv") { $0.analyzed.decoded.advertising != nil }
    c.add("adv.address", .address, many: { input in advReports(input).compactMap { $0.address.map { .address($0) } } })
    c.add(
      "adv.address_type", .string,
      many: { input in advReports(input).compactMap { $0.addressType.map { .string($0.name) } } })
    c.add("adv.event_type", .string, many: { input in advReports(input).map { .string($0.pduType) } })
    c.add("adv.rssi", .integer, many: { input in advReports(input).compactMap { $0.rssi.map { .integer(Int64($0)) } } })
    c.add(
      "adv.tx_power", .integer,
      many: { input in advReports(input).compactMap { $0.txPower.map { .integer(Int64($0)) } } })
    c.add("adv.sid", .integer, many: { input in advReports(input).compactMap { $0.sid.map { .integer(Int64($0)) } } })
    c.add(
      "adv.ad_type", .integer,
      many: { input in
        advReports(input).flatMap { $0.structures.map { .integer(Int64($0.type.rawValue)) } }
      })
    c.add(
      "adv.name", .string,
      many: { input in
        adValues(input).compactMap { if case .name(let name) = $0 { .string(name) } else { nil } }
      })
    c.add(
      "adv.company", .integer,
      many: { input in
        adValues(input).compactMap {
          if case .manufacturerData(let company, _) = $0 { .integer(Int64(company)) } else { nil }
        }
      })
    c.add(
      "adv.company_name", .string,
      many: { input in
        adValues(input).compactMap {
          if case .manufacturerData(let company, _) = $0 {
            AssignedNumbers.company(company).map { .string($0) }
          } else {
            nil
          }
        }
      })
    c.add(
      "adv.service", .uuid,
      many: { input in
        adValues(input).flatMap { value -> [FilterValue] in
          switch value {
          case .serviceUUIDs(let uuids, _): uuids.map { .string($0.normalized.description) }
          case .serviceData(let uuid, _): [.string(uuid.normalized.description)]
          default: []
          }
        }
      })
    c.add("adv.beacon", .string, many: { input in advReports(input).compactMap { $0.beacon.map { .string($0.kind) } } })
  }

  /// A request's time to its answer, or an answer's time since its request, in µs.
  private static func latency(_ analyzed: borrowing AnalyzedRecord) -> Int64? {
    let answer = analyzed.answer
    return analyzed.exchange?.latencyMicroseconds ?? answer?.latencyMicroseconds
  }

  private static func advReports(_ input: borrowing FilterInput) -> [AdvertisingReport] {
    input.analyzed.decoded.advertising ?? []
  }

  private static func adValues(_ input: borrowing FilterInput) -> [ADValue] {
    advReports(input).flatMap { $0.structures.map(\.value) }
  }
}
