import BLEDissect

extension ShowField {
  /// `adv.*`: the reports of advertising report events. Each field has a value per
  /// report (or per AD structure), and matches when any does; the reports' other keys
  /// are advertising.schema.json's.
  static let adv: [ShowField] = [
    ShowField("adv", .tree("HCI Event", "Report[*")) { $0.analyzed.decoded.advertising != nil },
    ShowField("adv.reports", .tree("HCI Event", "Report[*"), type: .array) { $0.analyzed.decoded.advertising != nil },
    ShowField(
      "adv.address", .address, .tree("HCI Event", "Report[*", "Address"), json: "adv.reports[].address",
      many: {
        input in advReports(input).compactMap { $0.address.map { .address($0) } }
      }),
    ShowField(
      "adv.address_type", .string, .tree("HCI Event", "Report[*", "Address_Type"), json: "adv.reports[].address_type",
      many: { input in advReports(input).compactMap { $0.addressType.map { .string($0.name) } } }),
    ShowField(
      "adv.event_type", .string, .tree("HCI Event", "Report[*", "Event_Type"), json: "adv.reports[].event_type",
      many: {
        input in advReports(input).map { .string($0.pduType) }
      }),
    ShowField(
      "adv.rssi", .integer, .tree("HCI Event", "Report[*", "RSSI"), json: "adv.reports[].rssi", unit: "dBm",
      many: {
        input in advReports(input).compactMap { $0.rssi.map { .integer(Int64($0)) } }
      }),
    ShowField(
      "adv.tx_power", .integer, .tree("HCI Event", "Report[*", "TX_Power"), json: "adv.reports[].tx_power", unit: "dBm",
      many: { input in advReports(input).compactMap { $0.txPower.map { .integer(Int64($0)) } } }),
    ShowField(
      "adv.sid", .integer, .tree("HCI Event", "Report[*", "Advertising_SID"), json: "adv.reports[].sid",
      many: {
        input in advReports(input).compactMap { $0.sid.map { .integer(Int64($0)) } }
      }),
    ShowField(
      "adv.ad_type", .integer, .tree("HCI Event", "Report[*", "Data"), json: "adv.reports[].ad[].type",
      many: {
        input in advReports(input).flatMap { $0.structures.map { .integer(Int64($0.type.rawValue)) } }
      }),
    ShowField(
      "adv.name", .string, .line("detail"), filterOnly: true,
      many: { input in
        adValues(input).compactMap { if case .name(let name) = $0 { .string(name) } else { nil } }
      }),
    ShowField(
      "adv.company", .integer, .line("detail"), json: "adv.reports[].ad[].company_id",
      many: { input in
        adValues(input).compactMap {
          if case .manufacturerData(let company, _) = $0 { .integer(Int64(company)) } else { nil }
        }
      }),
    ShowField(
      "adv.company_name", .string, .line("detail"), json: "adv.reports[].ad[].company",
      many: { input in
        adValues(input).compactMap {
          if case .manufacturerData(let company, _) = $0 {
            AssignedNumbers.company(company).map { .string($0) }
          } else {
            nil
          }
        }
      }),
    ShowField(
      "adv.service", .uuid, .line("detail"), filterOnly: true,
      many: { input in
        adValues(input).flatMap { value -> [FilterValue] in
          switch value {
          case .serviceUUIDs(let uuids, _): uuids.map { .string($0.normalized.description) }
          case .serviceData(let uuid, _): [.string(uuid.normalized.description)]
          default: []
          }
        }
      }),
    ShowField(
      "adv.beacon", .string, .line("detail"), json: "adv.reports[].beacon.type",
      many: { input in
        advReports(input).compactMap { $0.beacon.map { .string($0.kind) } }
      }),
  ]

  private static func advReports(_ input: borrowing FilterInput) -> [AdvertisingReport] {
    input.analyzed.decoded.advertising ?? []
  }

  private static func adValues(_ input: borrowing FilterInput) -> [ADValue] {
    advReports(input).flatMap { $0.structures.map(\.value) }
  }

  /// The `ll.*` fields: the `ll` object of the data contract (air sniffer captures).
  static let linkLayer: [ShowField] = [
    ShowField("ll", .tree("Sniffer Header*|Link Layer")) { $0.analyzed.decoded.linkLayer != nil },
    ShowField("ll.link_type", .integer, .tree("Sniffer Header*")) { int($0.analyzed.decoded.linkLayer?.rawValue) },
    ShowField("ll.pdu_type", .string, .tree("Link Layer", "PDU Type|LLID")) { input in
      ll(input).map { .string($0.pduTypeName) }
    },
    ShowField("ll.pdu_type_code", .integer, .tree("Link Layer", "PDU Type")) {
      int(ll($0)?.advertising?.type.rawValue)
    },
    ShowField("ll.adv_address", .address, .tree("Link Layer", "AdvA")) { input in
      ll(input)?.advertising?.advA.map { .address($0) }
    },
    ShowField("ll.access_address", .integer, .tree("Link Layer", "Access Address")) { int(ll($0)?.accessAddress) },
    ShowField("ll.channel", .integer, .tree("Sniffer Header*", "Channel Index")) { int(ll($0)?.radio.channel) },
    ShowField("ll.rssi", .integer, .tree("Sniffer Header*", "RSSI"), unit: "dBm") { int(ll($0)?.radio.rssi) },
    ShowField("ll.crc_ok", .bool, .tree("Sniffer Header*", "CRC")) { input in ll(input)?.crcOK.map { .bool($0) } },
    ShowField("ll.control_opcode", .integer, .tree("Link Layer", "LL Control PDU", "Opcode")) {
      int(ll($0)?.data?.control?.opcode.rawValue)
    },
    ShowField("ll.llid", .integer, .tree("Link Layer", "LLID")) { int(ll($0)?.data?.llid.rawValue) },
    ShowField("ll.retransmission", .bool, .tree("Link Layer", "Retransmission"), omitted: "when false") { input in
      ll(input).map { .bool($0.isRetransmission) }
    },
    ShowField("ll.encrypted", .bool, .tree("Link Layer"), omitted: "when false") { input in
      ll(input).map { .bool($0.isEncrypted) }
    },
    ShowField("ll.target_address", .address, .tree("Link Layer", "TargetA")) { input in
      ll(input)?.advertising?.targetA.map { .address($0) }
    },
    ShowField("ll.scan_address", .address, .tree("Link Layer", "ScanA")) { input in
      ll(input)?.advertising?.scanA.map { .address($0) }
    },
    ShowField("ll.init_address", .address, .tree("Link Layer", "InitA")) { input in
      ll(input)?.advertising?.initA.map { .address($0) }
    },
    ShowField("ll.connect", .tree("Link Layer", "LLData")) { connect($0) != nil },
    ShowField("ll.connect.access_address", .integer, .tree("Link Layer", "LLData", "AA")) {
      int(connect($0)?.accessAddress)
    },
    ShowField("ll.connect.crc_init", .integer, .tree("Link Layer", "LLData", "CRCInit")) { int(connect($0)?.crcInit) },
    // Decimals filter in millionths, as `att.latency_ms`.
    ShowField("ll.connect.interval_ms", .decimal, .tree("Link Layer", "LLData", "Interval"), unit: "ms") {
      int(connect($0).map { Int64(($0.intervalMilliseconds * 1_000_000).rounded()) })
    },
    ShowField("ll.connect.latency", .integer, .tree("Link Layer", "LLData", "Latency")) { int(connect($0)?.latency) },
    ShowField("ll.connect.timeout_ms", .integer, .tree("Link Layer", "LLData", "Timeout"), unit: "ms") {
      int(connect($0).map { Int($0.timeout) * 10 })
    },
    ShowField("ll.connect.channel_map", .integer, .tree("Link Layer", "LLData", "ChM")) {
      int(connect($0)?.channelMap)
    },
    ShowField("ll.connect.hop", .integer, .tree("Link Layer", "LLData", "Hop")) { int(connect($0)?.hop) },
    ShowField("ll.nesn", .integer, .tree("Link Layer", "NESN")) { int(ll($0)?.data?.nesn) },
    ShowField("ll.sn", .integer, .tree("Link Layer", "SN")) { int(ll($0)?.data?.sn) },
    ShowField("ll.md", .bool, .tree("Link Layer", "MD")) { input in ll(input)?.data.map { .bool($0.md) } },
    ShowField("ll.length", .integer, .tree("Link Layer", "Length"), unit: "octets") { int(ll($0)?.data?.length) },
    ShowField("ll.control_name", .string, .tree("Link Layer", "LL Control PDU", "Opcode")) { input in
      ll(input)?.data?.control.map { .string($0.opcode.name) }
    },
    ShowField("ll.direction", .string, .tree("Link Layer", "Direction")) { input in
      ll(input)?.direction.map { .string($0.rawValue) }
    },
    ShowField("ll.event_counter", .integer, .tree("Sniffer Header*", "Event Counter")) { input in
      guard let ll = ll(input), ll.data != nil else { return nil }
      return int(ll.radio.eventCounter)
    },
    ShowField("ll.phy", .integer, .tree("Sniffer Header*", "PHY")) { int(ll($0)?.radio.phy) },
  ]

  private static func connect(_ input: borrowing FilterInput) -> LLConnectParameters? {
    ll(input)?.advertising?.connect
  }

  private static func ll(_ input: borrowing FilterInput) -> LLPacket? {
    input.analyzed.decoded.linkLayer == nil ? nil : input.analyzed.decoded.ll
  }
}
