import BLECapture

/// What a sniffer's own header says about one packet on air: channel, signal,
/// CRC and MIC checks, PHY, direction, connection event.
public struct LLRadio: Hashable, Sendable {
  /// The channel index (0–36 data and secondary advertising, 37–39 primary
  /// advertising), as the spec numbers channels, not the RF channel.
  public var channel: UInt8?
  /// Signal strength in dBm.
  public var rssi: Int8?
  /// Noise in dBm (DLT 256 only).
  public var noise: Int8?
  public var crc: LLCRCStatus = .unchecked
  /// 1 LE 1M, 2 LE 2M, 3 LE Coded (the HCI numbering); nil when not said.
  public var phy: UInt8?
  /// Who sent a data channel PDU, when the header says it.
  public var direction: LLDirection?
  /// The connection event counter (nRF Sniffer data packets).
  public var eventCounter: UInt16?
  /// The PDU was encrypted on air (nRF Sniffer flag).
  public var encrypted = false
  /// The sniffer checked the MIC and it was valid: it decrypted the payload.
  public var decrypted = false
  /// DLT 256 says the PDU is an auxiliary (secondary channel) advertising PDU.
  public var auxiliary = false
  /// nRF Sniffer protocol version; PPI-BTLE version for DLT 192.
  public var version: UInt8?

  public init() {}
}

/// How the CRC of a packet came out.
public enum LLCRCStatus: String, Hashable, Sendable {
  case ok
  case bad
  /// Neither the sniffer nor the decoder could check it.
  case unchecked
}

/// Which way a data channel PDU went. Mapped to the data contract's `dir` as if
/// the capture were the central's: central→peripheral is `tx`, peripheral→central `rx`.
public enum LLDirection: String, Hashable, Sendable {
  case centralToPeripheral = "central_to_peripheral"
  case peripheralToCentral = "peripheral_to_central"

  /// The HCI-side direction of the central's host.
  public var hostDirection: Direction { self == .centralToPeripheral ? .sent : .received }
  public var reversed: Self { self == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral }
}

/// Reads the sniffer header that precedes the LL packet, per link type.
///
/// | DLT | header |
/// | --- | --- |
/// | 251 | none: access address first |
/// | 256 | 10 bytes: RF channel, signal dBm, noise dBm, access address offenses, reference access address (4), flags (2) |
/// | 272 | board id, UART header (6), BLE header (10): length, flags, channel index, −RSSI, event counter (2), time (4) |
/// | 157 | the same as 272 (nRF Sniffer v1 over Adafruit Bluefruit LE sniffer firmware) |
/// | 192 | PPI header with a PPI-BTLE field (type 30006), then the packet as 251 |
enum LLRadioHeader {
  /// The radio facts and the offset of the access address, or nil when the record
  /// holds no LL packet (a Nordic control message).
  static func parse(_ linkType: LinkType, _ c: inout ByteCursor) throws(DecodeError) -> LLRadio? {
    switch linkType {
    case .bluetoothLELL: return LLRadio()
    case .bluetoothLELLWithPHDR: return try phdr(&c)
    case .nordicBLE, .user10: return try nordic(&c)
    case .ppi: return try ppi(&c)
    default: throw DecodeError(.invalid("link type \(linkType.rawValue) holds no link-layer packet"), at: 0, layer: .ll)
    }
  }

  /// RF channel (2402 + 2k MHz) to channel index: RF 0, 12 and 39 are the
  /// primary advertising channels 37, 38, 39; the others number 0–36 in order.
  static func channelIndex(rfChannel rf: UInt8) -> UInt8? {
    switch rf {
    case 0: 37
    case 12: 38
    case 39: 39
    case 1...11: rf - 1
    case 13...38: rf - 2
    default: nil
    }
  }

  /// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (packet-btle_rf.c).
  static func phdr(_ c: inout ByteCursor) throws(DecodeError) -> LLRadio {
    var radio = LLRadio()
    let rf = try c.readUInt8()
    let signal = try c.readInt8()
    let noise = try c.readInt8()
    _ = try c.readUInt8()
    _ = try c.readUInt32()
    let flags = try c.readUInt16()
    radio.channel = channelIndex(rfChannel: rf)
    if flags & 0x0002 != 0 { radio.rssi = signal }
    if flags & 0x0004 != 0 { radio.noise = noise }
    if flags & 0x0008 != 0 { radio.decrypted = true }
    if flags & 0x0400 != 0 { radio.crc = flags & 0x0800 != 0 ? .ok : .bad }
    if flags & 0x1000 != 0, flags & 0x2000 != 0 { radio.decrypted = true }
    switch (flags >> 7) & 0x7 {
    case 1: radio.auxiliary = true
    case 2: radio.direction = .centralToPeripheral
    case 3: radio.direction = .peripheralToCentral
    default: break
    }
    radio.phy = [1, 2, 3, nil][Int(flags >> 14)]
    return radio
  }

  /// LINKTYPE_NORDIC_BLE: protocol versions 1 (header length, payload length),
  /// 2 and 3 (two-byte payload length); all keep the version at offset 3.
  ///
  ///     0      1       3          4           6     7
  ///     +------+-------+----------+-----------+-----+---------------------------+
  ///     |board | lengths| protover | counter   | id  | BLE header (10) | LL packet
  ///     +------+-------+----------+-----------+-----+---------------------------+
  static func nordic(_ c: inout ByteCursor) throws(DecodeError) -> LLRadio? {
    let start = c.offset
    _ = try c.readUInt8()
    let first = try c.readUInt8()
    let second = try c.readUInt8()
    if first == 0xBE && second == 0xEF {
      throw DecodeError(.invalid("nRF Sniffer 0.9.7 header (0xBEEF) is not supported"), at: start + 1, layer: .ll)
    }
    var radio = LLRadio()
    let version = try c.readUInt8()
    radio.version = version
    _ = try c.readUInt16()
    let id = try c.readUInt8()
    // Version 1: the header length is the first byte; later versions fix it at 6.
    if version == 1, first > 6 { _ = try c.readRange(Int(first) - 6) }
    // Only event packets carry an LL packet: 0x06 (in version 3 data PDUs, with
    // 0x02 for advertising PDUs). SweynTooth writes 0x00 for every packet in its
    // version 2 captures. The other ids are requests and notices of the sniffer.
    guard id == 0x06 || id == 0x02 || (id == 0x00 && version < 3) else { return nil }
    let headerLength = Int(try c.peekUInt8())
    guard headerLength >= 6 else {
      throw DecodeError(.invalid("nRF Sniffer BLE header length \(headerLength) is below 6"), at: c.offset, layer: .ll)
    }
    var header = try c.slice(headerLength)
    _ = try header.readUInt8()
    let flags = try header.readUInt8()
    radio.channel = try header.readUInt8()
    radio.rssi = Int8(truncatingIfNeeded: -Int(try header.readUInt8()))
    radio.eventCounter = try header.readUInt16()
    radio.crc = flags & 0x01 != 0 ? .ok : .bad
    radio.direction = flags & 0x02 != 0 ? .centralToPeripheral : .peripheralToCentral
    radio.encrypted = flags & 0x04 != 0
    radio.decrypted = radio.encrypted && flags & 0x08 != 0
    radio.phy = [1, 2, 3][Int(min(2, (flags >> 4) & 0x7))]
    return radio
  }

  /// LINKTYPE_PPI with a PPI-BTLE field (Ubertooth): version, flags, header
  /// length, DLT, then fields {type, length, data}; the packet follows the header.
  static func ppi(_ c: inout ByteCursor) throws(DecodeError) -> LLRadio {
    let start = c.offset
    _ = try c.readUInt8()
    _ = try c.readUInt8()
    let length = Int(try c.readUInt16())
    _ = try c.readUInt32()
    guard length >= 8 else {
      throw DecodeError(.invalid("PPI header length \(length) is below 8"), at: start + 2, layer: .ll)
    }
    var fields = try c.slice(length - 8)
    var radio = LLRadio()
    while fields.remaining >= 4 {
      let type = try fields.readUInt16()
      let size = Int(try fields.readUInt16())
      var field = try fields.slice(min(size, fields.remaining))
      // PPI-BTLE: version, channel (MHz), clkn_high, clk_100ns (4), RSSI max, min, avg, count.
      guard type == 30006, field.remaining >= 11 else { continue }
      radio.version = try field.readUInt8()
      let mhz = Int(try field.readUInt16())
      if mhz >= 2402, mhz <= 2480, mhz % 2 == 0 { radio.channel = channelIndex(rfChannel: UInt8((mhz - 2402) / 2)) }
      _ = try field.readUInt8()
      _ = try field.readUInt32()
      _ = try field.readInt8()
      _ = try field.readInt8()
      radio.rssi = try field.readInt8()
    }
    return radio
  }
}
