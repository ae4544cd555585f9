import BLEDissect

extension RecordFilter {
  /// The `ll.*` fields: the `ll` object of the data contract (air sniffer captures).
  static func addLinkLayerFields(to c: inout FilterCatalog<FilterInput>) {
    c.add("ll") { $0.analyzed.decoded.linkLayer != nil }
    c.add("ll.link_type", .integer) { int($0.analyzed.decoded.linkLayer?.rawValue) }
    c.add("ll.pdu_type", .string) { input in ll(input).map { .string($0.pduTypeName) } }
    c.add("ll.pdu_type_code", .integer) { int(ll($0)?.advertising?.type.rawValue) }
    c.add("ll.adv_address", .address) { input in ll(input)?.advertising?.advA.map { .address($0) } }
    c.add("ll.access_address", .integer) { int(ll($0)?.accessAddress) }
    c.add("ll.channel", .integer) { int(ll($0)?.radio.channel) }
    c.add("ll.rssi", .integer) { int(ll($0)?.radio.rssi) }
    c.add("ll.crc_ok", .bool) { input in ll(input)?.crcOK.map { .bool($0) } }
    c.add("ll.control_opcode", .integer) { int(ll($0)?.data?.control?.opcode.rawValue) }
    c.add("ll.llid", .integer) { int(ll($0)?.data?.llid.rawValue) }
    c.add("ll.retransmission", .bool) { input in ll(input).map { .bool($0.isRetransmission) } }
    c.add("ll.encrypted", .bool) { input in ll(input).map { .bool($0.isEncrypted) } }
  }

  private static func ll(_ input: borrowing FilterInput) -> LLPacket? {
    input.analyzed.decoded.linkLayer == nil ? nil : input.analyzed.decoded.ll
  }

  private static func int(_ value: (some BinaryInteger)?) -> FilterValue? { value.map { .integer(Int64($0)) } }
}
