import BLECapture

/// What a few records carry besides their fixed-size facts, out of line in the
/// decoder's `ExtrasTable`.
public struct DecodedExtras {
  public var signaling: L2CAPSignalingPDU?
  public var smp: SMPPDU?
  public var hciParameters: [Field] = []
  public var diagnostics: [Diagnostic] = []
  public var advertising: [AdvertisingReport]?
  public var reassembled: [UInt8]?
  public var ll: LLPacket?

  public init() {}
}

/// Where decoded records keep what they carry beyond their fixed-size facts.
public let decodedExtrasTable = ExtrasTable<DecodedExtras>()

/// Everything decoded from one record: one value per layer, plus diagnostics.
///
/// A fixed-size value with no reference-counted member: the rare parts (HCI parameter
/// fields, diagnostics, advertising reports, a reassembled PDU, an air packet) live in
/// `decodedExtrasTable` under the record's `extrasID`, which the pipeline releases when
/// it is done with the record.
public struct DecodedRecord: Sendable {
  public var hci: HCILayer?
  public var acl: ACLLayer?
  /// A Linux monitor record that carries no HCI packet.
  public var monitor: MonitorOpcode?
  /// A PacketLogger record that carries no HCI packet.
  public var packetLogger: UInt8?
  /// The link type of an air sniffer record (DLT 157, 192, 251, 256, 272).
  public var linkLayer: LinkType?
  /// The L2CAP PDU this record completes (absent for fragments that do not).
  public var l2cap: L2CAPLayer?
  public var att: ATTPDU?
  /// Whether the record is a fragment of a PDU that spans several records.
  public var reassembly: ReassemblyRole = .whole
  /// The record's entry in `decodedExtrasTable`, 0 for none.
  public private(set) var extrasID: UInt32 = 0

  public init() {}

  /// The record's extras, made on first write.
  private var extras: DecodedExtras {
    get { extrasID == 0 ? DecodedExtras() : decodedExtrasTable[extrasID] }
    set {
      if extrasID == 0 {
        extrasID = decodedExtrasTable.add(newValue)
      } else {
        decodedExtrasTable[extrasID] = newValue
      }
    }
  }

  /// The first signaling command of a signaling channel PDU.
  public var signaling: L2CAPSignalingPDU? {
    get { extrasID == 0 ? nil : extras.signaling }
    set { extras.signaling = newValue }
  }

  public var smp: SMPPDU? {
    get { extrasID == 0 ? nil : extras.smp }
    set { extras.smp = newValue }
  }

  /// The parameters of an HCI command or event that the decoder decoded into fields:
  /// those whose layout it could not check without them. `hciParameters(_:)` gives
  /// every record's.
  var storedHCIParameters: [Field] {
    get { extrasID == 0 ? [] : extras.hciParameters }
    set { extras.hciParameters = newValue }
  }

  /// The parameters of an HCI command or event, decoded as far as the bytes go: built
  /// now unless the decoder kept them. `record` is the record this one was decoded from.
  public func hciParameters(_ record: Record) -> [Field] {
    guard let hci, hci.type == .command || hci.type == .event else { return [] }
    if extrasID != 0 {
      let stored = extras.hciParameters
      if !stored.isEmpty { return stored }
    }
    var fields: [Field] = []
    _ = RecordDecoder.decodeParameters(record, hci, into: &fields)
    return fields
  }

  public var diagnostics: [Diagnostic] {
    get { extrasID == 0 ? [] : extras.diagnostics }
    set { extras.diagnostics = newValue }
  }

  /// Appends `list` to the diagnostics; an empty list makes no extras entry.
  public mutating func add(_ list: [Diagnostic]) {
    if !list.isEmpty { diagnostics += list }
  }

  /// Whether there is any diagnostic, without copying the list.
  public var hasDiagnostics: Bool { extrasID != 0 && !extras.diagnostics.isEmpty }

  /// How many diagnostics there are, without copying the list.
  public var diagnosticCount: Int { extrasID == 0 ? 0 : extras.diagnostics.count }

  /// The reports of an advertising report event, with their AD structures.
  public var advertising: [AdvertisingReport]? {
    get { extrasID == 0 ? nil : extras.advertising }
    set { extras.advertising = newValue }
  }

  /// The L2CAP PDU or SDU put together from several fragments. When it is set, the
  /// byte ranges of `l2cap`, `signaling`, `att` and `smp` index it; otherwise they
  /// index the record's bytes.
  public var reassembled: [UInt8]? {
    get { extrasID == 0 ? nil : extras.reassembled }
    set { extras.reassembled = newValue }
  }

  /// The air packet of a sniffer record, once decoded.
  public var ll: LLPacket? {
    get { extrasID == 0 ? nil : extras.ll }
    set { extras.ll = newValue }
  }

  /// Frees the record's extras; the record must not be read afterwards.
  public func releaseExtras() { decodedExtrasTable.release(extrasID) }
}

extension DecodedRecord {
  /// The data-contract name of what the record holds: the HCI packet type, the
  /// monitor or PacketLogger record name, `ll` for air packets, `unframed`.
  public var typeName: String {
    if let hci { return hci.type.name }
    if let monitor { return RecordKindNames.name(monitor) }
    if let packetLogger { return RecordKindNames.packetLoggerName(packetLogger) }
    if linkLayer != nil { return "ll" }
    return "unframed"
  }

  /// `typeName` when it is one of the fixed ones (the HCI packet types, `ll`,
  /// `unframed`), for output that appends it without a String.
  public var staticTypeName: StaticString? {
    if let hci { return hci.type.staticName }
    if monitor != nil || packetLogger != nil { return nil }
    return linkLayer != nil ? "ll" : "unframed"
  }

  /// A number that is the same for two records exactly when their `typeName` is.
  public var typeKey: UInt32 {
    if let hci { return 0x100 | UInt32(hci.type.rawValue) }
    if let monitor { return 0x1_0000 | UInt32(monitor.rawValue) }
    if let packetLogger { return 0x2_0000 | UInt32(packetLogger) }
    return linkLayer != nil ? 0x3_0000 : 0x4_0000
  }
}

extension DecodedRecord {
  /// The bytes the upper layers' ranges index: the reassembled PDU, or the record.
  public func withPayloadBytes<T>(_ record: Record, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    if extrasID != 0, let bytes = reassembled { return bytes.withUnsafeBytes(body) }
    return body(UnsafeRawBufferPointer(record.bytes))
  }

  /// The same, given only the reassembled bytes: for callers that change the decoded
  /// record while they read, and so cannot borrow it.
  public static func withPayloadBytes<T>(
    _ reassembled: [UInt8]?, _ record: Record, _ body: (UnsafeRawBufferPointer) -> T
  ) -> T {
    if let reassembled { return reassembled.withUnsafeBytes(body) }
    return body(UnsafeRawBufferPointer(record.bytes))
  }
}

/// Which records make up one PDU: every fragment of a reassembled PDU (or of a
/// credit-based SDU) is in the same group, so `-w` can write them all.
public struct ReassemblyGroup: Hashable, Sendable {
  public var key: ACLKey
  public var cid: UInt16

  public func hash(into hasher: inout Hasher) { hasher.combine(key.packed ^ UInt64(cid) << 18) }
}

public enum ReassemblyRole: Hashable, Sendable {
  /// The record holds a whole PDU, or belongs to none.
  case whole
  /// The record starts a PDU that later records continue.
  case first(ReassemblyGroup)
  /// The record continues a PDU and does not complete it.
  case part(ReassemblyGroup)
  /// The record completes a PDU started by earlier records.
  case last(ReassemblyGroup)
}

/// The L2CAP basic header of the PDU a record completes, and where its payload is.
public struct L2CAPLayer: Hashable, Sendable {
  public var cid: UInt16
  /// The header's length field: the information payload's size.
  public var length: UInt16
  /// The PSM or SPSM of a dynamic channel, when its setup was seen.
  public var psm: UInt16?
  /// The CID the other direction of a dynamic channel carries, when its setup was seen
  /// (fixed channels use the same CID both ways).
  public var peerCID: UInt16?
  /// The MTU that the receiving endpoint of a credit-based channel announced: the
  /// largest SDU it takes (for EATT, its ATT_MTU).
  public var channelMTU: UInt16?
  /// The payload (for a credit-based channel, the SDU once complete).
  public var payload: ByteRange
  /// The L2CAP SDU Length of the first K-frame of an SDU.
  public var sduLength: UInt16?
  /// How many ACL fragments the PDU came in.
  public var fragments: Int
  /// The capture source cut some of the PDU's bytes away.
  public var isCut: Bool
}
