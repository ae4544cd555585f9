import BLECapture

/// One link-layer packet heard on air: the sniffer's radio facts, the access
/// address, and the advertising or data channel PDU (Core 6.0, Vol 6, Part B, 2.1).
///
///     +-----------------+---------------+------------------+---------+
///     | access address  | header (2)    | payload          | CRC (3) |
///     +-----------------+---------------+------------------+---------+
public struct LLPacket: Hashable, Sendable {
  public var linkType: LinkType
  public var radio: LLRadio
  public var accessAddress: UInt32
  /// The advertising PDU, for packets on the advertising access address.
  public var advertising: LLAdvertisingPDU?
  /// The data channel PDU, for packets on a connection's access address.
  public var data: LLDataPDU?
  /// The CRC as it was sent (three octets, little endian), when the record holds it.
  public var crc: UInt32?
  /// Where the PDU's header starts in the record (after the access address); the
  /// CRC follows the header and its Length octets of payload.
  public var pduOffset: Int?
  /// The connection the packet belongs to: its number in the capture (1, 2, …),
  /// which serves as its handle. Set for CONNECT_IND and data channel PDUs.
  public var connection: UInt16?
  /// Who sent a data channel PDU: from the sniffer, or from its place in the
  /// connection event.
  public var direction: LLDirection?
  /// Same SN as the previous packet in that direction, and the peer did not
  /// acknowledge it: the sender repeats it.
  public var isRetransmission = false
  /// The payload is ciphertext (encryption started and the sniffer did not
  /// decrypt it): it is not decoded.
  public var isEncrypted = false

  public init(linkType: LinkType, radio: LLRadio, accessAddress: UInt32) {
    self.linkType = linkType
    self.radio = radio
    self.accessAddress = accessAddress
  }

  /// The access address of every advertising physical channel PDU.
  public static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

  /// The PDU type's data-contract name: the advertising PDU's, `LL_DATA`, `LL_EMPTY`
  /// or `LL_CONTROL`.
  public var pduTypeName: String {
    if let advertising { return advertising.name }
    guard let data else { return "unknown" }
    switch data.llid {
    case .control: return "LL_CONTROL"
    case .continuation where data.length == 0: return "LL_EMPTY"
    default: return "LL_DATA"
    }
  }

  /// Whether the CRC was bad (said by the sniffer or checked here).
  public var crcOK: Bool? {
    switch radio.crc {
    case .ok: true
    case .bad: false
    case .unchecked: nil
    }
  }
}

/// An advertising physical channel PDU.
public struct LLAdvertisingPDU: Hashable, Sendable {
  public var type: LLAdvertisingPDUType
  /// Heard on a secondary advertising channel (or flagged auxiliary by the sniffer).
  public var isSecondary: Bool
  /// ChSel: the advertiser or initiator supports Channel Selection Algorithm #2.
  public var chSel: Bool
  /// TxAdd, RxAdd: the addresses are random (true) or public.
  public var txAdd: Bool
  public var rxAdd: Bool
  public var length: UInt8
  public var advA: DeviceAddress?
  public var targetA: DeviceAddress?
  public var scanA: DeviceAddress?
  public var initA: DeviceAddress?
  public var connect: LLConnectParameters?
  public var extended: LLExtendedHeader?
  /// AdvData or ScanRspData.
  public var data: ByteRange?
  /// Where the addresses above are in the record, each with its field name.
  public var addressFields: [LLAddressField] = []

  public var name: String { type.name(secondary: isSecondary) }
}

/// Where an advertising PDU carries an address: `AdvA`, `TargetA`, `ScanA` or `InitA`
/// and the offset of its six octets (least significant first) in the record.
public struct LLAddressField: Hashable, Sendable {
  public var name: String
  public var offset: Int
  /// TxAdd or RxAdd: the address is a random one.
  public var random: Bool
}

/// The LLData of a CONNECT_IND or AUX_CONNECT_REQ (Core 6.0, Vol 6, Part B, 2.3.3.1).
public struct LLConnectParameters: Hashable, Sendable {
  public var accessAddress: UInt32
  public var crcInit: UInt32
  /// WinSize in 1.25 ms, WinOffset in 1.25 ms.
  public var windowSize: UInt8
  public var windowOffset: UInt16
  /// Interval in 1.25 ms.
  public var interval: UInt16
  public var latency: UInt16
  /// Timeout in 10 ms.
  public var timeout: UInt16
  /// ChM: one bit per data channel 0–36.
  public var channelMap: UInt64
  public var hop: UInt8
  public var sca: UInt8

  public var intervalMilliseconds: Double { Double(interval) * 1.25 }
  public var timeoutMicroseconds: Int64 { Int64(timeout) * 10_000 }
}

/// The extended header of the Common Extended Advertising Payload Format (Core
/// 6.0, Vol 6, Part B, 2.3.4): AdvMode and the fields its flags announce.
public struct LLExtendedHeader: Hashable, Sendable {
  /// 0 non-connectable non-scannable, 1 connectable, 2 scannable.
  public var advMode: UInt8
  public var flags: UInt8
  /// AdvDataInfo: Advertising Data ID and Set ID.
  public var did: UInt16?
  public var sid: UInt8?
  /// AuxPtr: channel index and PHY (1 1M, 2 2M, 3 Coded) of the auxiliary packet.
  public var auxChannel: UInt8?
  public var auxPHY: UInt8?
  public var txPower: Int8?
}

/// A data channel PDU (Core 6.0, Vol 6, Part B, 2.4).
///
///     bit 0-1  2     3    4    5    6-7      8-15
///         LLID NESN  SN   MD   CP   RFU      Length   [CTEInfo]  payload  [MIC]
public struct LLDataPDU: Hashable, Sendable {
  public var llid: LLID
  public var nesn: UInt8
  public var sn: UInt8
  public var md: Bool
  public var cp: Bool
  public var length: UInt8
  /// The payload (with the MIC of an encrypted PDU).
  public var payload: ByteRange
  public var control: LLControlPDU?
}

/// An LL Control PDU: its opcode and its parameters, decoded with the table row.
public struct LLControlPDU: Hashable, Sendable {
  public var opcode: LLControlOpcode
  public var parameters: [Field]

  public init(opcode: LLControlOpcode, parameters: [Field]) {
    self.opcode = opcode
    self.parameters = parameters
  }
}
