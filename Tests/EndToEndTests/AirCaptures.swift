import Foundation

/// Air sniffer captures made on the spot: pcap, link type 256
/// (BLUETOOTH_LE_LL_WITH_PHDR, as Sniffle writes it), with real CRCs, so that a test
/// can put a damaged packet where it wants one.
enum AirCaptures {
  static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

  /// One packet: its time (µs from the start), channel index, access address, PDU
  /// (header and payload), CRCInit, and whether it was received with a good CRC (a bad
  /// one gets its CRC's first octet flipped).
  struct Packet {
    var microseconds: Int64
    var channel: UInt8
    var accessAddress: UInt32
    var pdu: [UInt8]
    var crcInit: UInt32
    var crcGood: Bool

    /// An advertising channel PDU on channel 37.
    static func advertising(at microseconds: Int64, _ pdu: [UInt8], crcGood: Bool = true) -> Packet {
      Packet(
        microseconds: microseconds, channel: 37, accessAddress: advertisingAccessAddress, pdu: pdu,
        crcInit: 0x55_5555, crcGood: crcGood)
    }
  }

  /// An advertising PDU: type, TxAdd (random first address), RxAdd, length, payload.
  static func advertisingPDU(_ type: UInt8, _ payload: [UInt8], txRandom: Bool = false, rxRandom: Bool = false)
    -> [UInt8]
  {
    [type | (txRandom ? 0x40 : 0) | (rxRandom ? 0x80 : 0), UInt8(payload.count)] + payload
  }

  /// A data channel PDU: LLID, NESN, SN, length, payload.
  static func dataPDU(llid: UInt8, nesn: UInt8 = 0, sn: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
    [llid | nesn << 2 | sn << 3, UInt8(payload.count)] + payload
  }

  /// An address as the link layer carries it: least significant octet first.
  static func address(_ text: String) -> [UInt8] {
    text.split(separator: ":").map { UInt8($0, radix: 16)! }.reversed()
  }

  /// The link layer's CRC-24 (Core 6.0, Vol 6, Part B, 3.1.1): polynomial
  /// x²⁴+x¹⁰+x⁹+x⁶+x⁴+x³+x+1, the register preset with CRCInit bit-reversed, least
  /// significant bit of each octet first; sent least significant octet first.
  static func crc(_ pdu: [UInt8], initial: UInt32) -> [UInt8] {
    var state: UInt32 = 0
    for bit in 0..<24 where initial >> bit & 1 == 1 { state |= 1 << (23 - bit) }
    for octet in pdu {
      for bit in 0..<8 {
        let feedback = (state ^ UInt32(octet >> bit)) & 1
        state >>= 1
        if feedback == 1 { state = (state | 1 << 23) ^ 0x5A_6000 }
      }
    }
    return [UInt8(state & 0xFF), UInt8(state >> 8 & 0xFF), UInt8(state >> 16 & 0xFF)]
  }

  /// Writes `packets` into a new scratch pcap file.
  static func pcap(_ packets: [Packet]) throws -> URL {
    var file: [UInt8] = le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(256)
    // 2024-05-14 09:30:00 UTC.
    let start: Int64 = 1_715_679_000_000_000
    for packet in packets {
      var crc = crc(packet.pdu, initial: packet.crcInit)
      if !packet.crcGood { crc[0] ^= 0x5A }
      // RF header: RF channel, signal, noise, AA offenses, reference AA, flags (dewhitened,
      // signal valid, CRC checked, CRC valid).
      let rf: UInt8 =
        packet.channel == 37 ? 0 : packet.channel == 38 ? 12 : packet.channel == 39 ? 39 : packet.channel + 1
      let flags: UInt16 = 0x0001 | 0x0002 | 0x0400 | (packet.crcGood ? 0x0800 : 0)
      let body = [rf, 0xC4, 0x80, 0] + le32(0) + le16(Int(flags)) + le32(packet.accessAddress) + packet.pdu + crc
      let time = start + packet.microseconds
      file += le32(UInt32(time / 1_000_000)) + le32(UInt32(time % 1_000_000)) + le32(UInt32(body.count))
      file += le32(UInt32(body.count)) + body
    }
    let url = Paths.scratchFile("air.pcap")
    try Data(file).write(to: url)
    return url
  }

  private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
  private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
}
