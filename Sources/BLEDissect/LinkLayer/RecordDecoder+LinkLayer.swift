import BLECapture

/// Holds a record's `LLPacket` out of line: `DecodedRecord` is copied for every
/// record, and HCI records should not pay for the air packet's size.
final class LLPacketBox: Sendable {
  let packet: LLPacket
  init(_ packet: LLPacket) { self.packet = packet }
}

extension DecodedRecord {
  /// The air packet of a sniffer record (DLT 157, 192, 251, 256, 272).
  public var ll: LLPacket? {
    get { llBox?.packet }
    set { llBox = newValue.map(LLPacketBox.init) }
  }
}

extension RecordDecoder {
  /// A sniffer record: the LL packet, and for LL Data PDUs the L2CAP PDU through the
  /// same reassembly and decoders as HCI ACL data. Each connection and direction is
  /// a stream of fragments, keyed as ACL is (no adapter, the connection's number as
  /// the handle, central→peripheral as `sent`); LLID 10 starts a PDU, 01 continues it.
  mutating func decodeLinkLayer(_ record: Record, _ linkType: LinkType, into decoded: inout DecodedRecord) {
    guard let fragment = linkLayer.decode(record, linkType, into: &decoded) else { return }
    let raw = UnsafeRawBufferPointer(record.bytes)
    let end = min(raw.count, fragment.payload.start + fragment.payload.count)
    let bytes = UnsafeRawBufferPointer(rebasing: raw[min(fragment.payload.start, end)..<end])
    if fragment.standalone {
      // A repeat or a damaged packet must not disturb the PDU under way: decode
      // it only when it holds a whole L2CAP PDU.
      guard fragment.pb == 2, let length = bytes.littleEndianUInt16(at: 0), 4 + Int(length) <= bytes.count else {
        return
      }
      decodeL2CAP(
        raw, pduStart: fragment.payload.start, key: fragment.key, group: nil, fragments: 1, isCut: false,
        into: &decoded)
      return
    }
    let acl = ACLLayer(handle: fragment.key.handle, pb: fragment.pb, bc: 0, length: UInt16(truncatingIfNeeded: bytes.count))
    decodeACL(record, acl, key: fragment.key, fragment: bytes, into: &decoded)
  }
}
