import BLECapture
import BLEDissect

/// The first pass of `redact`: reads every analyzed record and finds, with the
/// decoders' byte ranges, each field to replace, mapped back to the records that
/// carry its octets (a field of a PDU put together from fragments is patched in the
/// fragments). It collects the addresses, IRKs and names to pseudonymise, the secret
/// values (so that a copy elsewhere is swept too), and the frames whose bytes could
/// not be parsed. `finish` turns that into a `RedactionPlan`.
public struct RedactionSurvey {
  var edits = EditList()
  var counts: [RedactionKind: Int] = [:]
  private var addressOrder: [DeviceAddress] = []
  private var addressSeen: Set<DeviceAddress> = []
  private var keyOrder: [[UInt8]] = []
  private var keySeen: Set<[UInt8]> = []
  var secrets: Set<[UInt8]> = []
  /// Frames with bytes no decoder could read, by the reason (a diagnostic id).
  var unparsed: [String: [Int]] = [:]
  /// The PDU (header and payload) of each air packet whose CRC follows it.
  var llRegions = FrameRanges()
  private var fragments = FragmentTracker()
  /// The last data packet each way of each connection heard on air: a retransmission
  /// repeats it.
  private var lastData: [LLStream: (frame: Int, start: Int, bytes: [UInt8])] = [:]
  /// Retransmissions that were not decoded (fragments of a longer PDU): they get the
  /// edits of the packet they repeat.
  private var copies: [(frame: Int, from: Int, fromStart: Int, start: Int, count: Int)] = []
  /// Names and identifiers read or written in several parts (Read Blob, Prepare
  /// Write): the edits of each part, by the frame of the PDU that carried it.
  private var textParts: [Int: [(index: Int, offset: Int)]] = [:]
  /// Values, by characteristic (or descriptor, or handle), that stay as they were:
  /// known to be safe, or kept with `--keep-values`; and those blanked.
  var values: [ValueKey: ValueTally] = [:]
  /// Kept values whose octets span several records: swept once the plan knows
  /// every original (`RedactionPlan`), then patched piece by piece.
  var spannedValues = SpannedValues()
  /// Air packets with a bad CRC, and the octets of theirs that were blanked.
  var damaged = DamagedTally()

  /// The octets the survey holds for what it has seen, about: the edits and every
  /// table that may grow with the capture (a test holds it to a few octets a record).
  var retainedBytes: Int {
    edits.retainedBytes + textParts.capacity * 24 + textParts.values.reduce(0) { $0 + 32 + $1.capacity * 16 }
      + unparsed.values.reduce(0) { $0 + 32 + $1.capacity * 8 } + llRegions.retainedBytes
      + copies.capacity * 40 + spannedValues.retainedBytes
  }

  struct LLStream: Hashable {
    var connection: UInt16
    var direction: LLDirection
  }

  /// What `redact` was asked to do beyond its defaults.
  public struct Options: Sendable {
    /// Names stay as they are.
    public var keepNames = false
    /// Values not known to be safe stay as they are (else they become filler).
    public var keepValues = false
    /// Revision strings get pseudonyms too.
    public var strict = false
    /// Air packets with a bad CRC stay as they were, but for fields that parse.
    public var keepDamaged = false

    public init(keepNames: Bool = false, keepValues: Bool = false, strict: Bool = false, keepDamaged: Bool = false) {
      self.keepNames = keepNames
      self.keepValues = keepValues
      self.strict = strict
      self.keepDamaged = keepDamaged
    }
  }

  let options: Options
  var keepNames: Bool { options.keepNames }

  public init(keepNames: Bool = false) {
    options = Options(keepNames: keepNames)
  }

  public init(_ options: Options) {
    self.options = options
  }

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    let raw = UnsafeRawBufferPointer(record.bytes)
    let decoded = analyzed.decoded
    noteUnparsed(record, decoded)
    switch record.kind {
    case .hci(let rawType):
      let type = HCIPacketType(rawValue: rawType)
      if type == .command || type == .event {
        if let hci = decoded.hci, RedactionFields.matters(hci) { hciPacket(record, type, decoded, raw) }
      } else if type == .acl, let acl = decoded.acl, raw.count >= 4 {
        let key = ACLKey(adapter: record.adapter, handle: acl.handle, direction: record.direction)
        let fragment = 4..<raw.count
        trackFragment(record, decoded, key, start: acl.pb != 1, fragment, raw)
        dataLayers(record, analyzed, key, fragment, raw)
      }
    case .monitor(let opcode):
      if let layout = MonitorRecordLayout.layout(for: opcode) {
        let map = SegmentMap(frame: record.frame, count: raw.count)
        for location in HCIParameters.locations(of: layout, in: raw, from: 0) {
          if case .address(let name) = location.parameter {
            address(raw, location.range, RedactionKind(.address, "monitor " + name), map)
          }
        }
      } else if opcode.rawValue == 16 || opcode.rawValue == 17 {
        note("monitor.mgmt", record.frame)
      }
    case .linkLayer:
      linkLayer(record, analyzed, raw)
    default:
      break
    }
  }

  // MARK: - What could not be read

  private mutating func note(_ reason: String, _ frame: Int) {
    if unparsed[reason]?.last != frame { unparsed[reason, default: []].append(frame) }
  }

  /// Frames whose decode left bytes unread: each diagnostic that says so, and vendor
  /// commands and events, whose parameters no table describes.
  private mutating func noteUnparsed(_ record: Record, _ decoded: DecodedRecord) {
    // A damaged air packet is blanked but for its structure and addresses.
    if !options.keepDamaged, decoded.ll?.radio.crc == .bad { return }
    for diagnostic in decoded.diagnostics where !RedactionFields.parsedAnyway.contains(diagnostic.id) {
      note(diagnostic.id, record.frame)
    }
    if let hci = decoded.hci {
      if hci.type == .command, let opcode = hci.opcode, HCIOpcode(rawValue: opcode).isVendorSpecific {
        note("hci.vendor", record.frame)
      }
      if hci.type == .event, hci.event == HCIEventCode.vendorSpecific.rawValue { note("hci.vendor", record.frame) }
    }
  }

  // MARK: - Adding fields

  /// Adds one field: `range` of the buffer `bytes`, whose octets `map` places.
  private mutating func add(
    _ kind: RedactionKind?, _ value: RedactionValue, _ range: Range<Int>, _ map: SegmentMap, valueOffset base: Int = 0
  ) -> [Int] {
    guard !range.isEmpty, let pieces = map.pieces(of: range) else {
      if !range.isEmpty { note("redact.unmapped", map.segments.last?.frame ?? 0) }
      return []
    }
    if let kind { counts[kind, default: 0] += 1 }
    return pieces.map { segment, valueOffset in
      edits.append(
        RedactionEdit(
          frame: segment.frame, offset: segment.offset, count: segment.count, value: value,
          valueOffset: base + valueOffset))
    }
  }

  private mutating func address(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: RedactionKind, _ map: SegmentMap
  ) {
    guard range.count == 6, range.lowerBound >= 0, range.upperBound <= bytes.count else { return }
    var value: UInt64 = 0
    for index in range.reversed() { value = value << 8 | UInt64(bytes[index]) }
    let address = DeviceAddress(rawValue: value)
    guard !RedactionFields.isPlaceholder(address) else { return }
    if addressSeen.insert(address).inserted { addressOrder.append(address) }
    _ = add(kind, .address(address, .littleEndian), range, map)
  }

  /// System ID (8 octets, least significant first): a Manufacturer Identifier of the
  /// address's low three octets and 0xFFFE, then its OUI. The six address octets
  /// become the pseudonym's; the middle two stay when they are 0xFFFE, else filler.
  private mutating func systemID(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ map: SegmentMap) {
    let octets = Array(bytes[range])
    var raw: UInt64 = 0
    for octet in (octets[0..<3] + octets[5..<8]).reversed() { raw = raw << 8 | UInt64(octet) }
    let address = DeviceAddress(rawValue: raw)
    let kind = RedactionKind(.address, "ATT System ID")
    if !RedactionFields.isPlaceholder(address) {
      if addressSeen.insert(address).inserted { addressOrder.append(address) }
      counts[kind, default: 0] += 1
      let value = RedactionValue.address(address, .littleEndian)
      _ = add(nil, value, range.lowerBound..<range.lowerBound + 3, map)
      _ = add(nil, value, range.lowerBound + 5..<range.upperBound, map, valueOffset: 3)
    }
    if octets[3] != 0xFE || octets[4] != 0xFF {
      _ = add(nil, .filler, range.lowerBound + 3..<range.lowerBound + 5, map)
    }
  }

  private mutating func secret(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: RedactionKind, _ map: SegmentMap
  ) {
    let range = range.clamped(to: 0..<bytes.count)
    guard !range.isEmpty else { return }
    secrets.insert(Array(bytes[range]))
    _ = add(kind, .filler, range, map)
  }

  private mutating func identityKey(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: RedactionKind, _ map: SegmentMap
  ) {
    guard range.count == 16, range.upperBound <= bytes.count else { return }
    // On the wire least significant octet first; kept most significant first.
    let key = Array(bytes[range].reversed())
    guard key.contains(where: { $0 != 0 }) else { return }
    if keySeen.insert(key).inserted { keyOrder.append(key) }
    _ = add(kind, .identityKey(key), range, map)
  }

  /// A name: the octets before the first NUL.
  @discardableResult
  private mutating func name(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: RedactionKind, _ map: SegmentMap
  ) -> [Int] {
    guard !keepNames else { return [] }
    let range = range.clamped(to: 0..<bytes.count)
    let end = range.first { bytes[$0] == 0 } ?? range.upperBound
    guard end > range.lowerBound else { return [] }
    return add(kind, .name(Array(bytes[range.lowerBound..<end])), range.lowerBound..<end, map)
  }

  /// The names, addresses and OOB values among AD structures.
  private mutating func advertisingData(
    _ structures: [ADStructure], _ bytes: UnsafeRawBufferPointer, _ map: SegmentMap
  ) {
    for structure in structures {
      let code = structure.type.rawValue
      let range = bytes.bounds(of: structure.data)
      let kindName = "AD " + structure.type.name
      if RedactionFields.adNames.contains(code) {
        name(bytes, range, RedactionKind(.name, kindName), map)
      } else if RedactionFields.adSecrets.contains(code) {
        secret(bytes, range, RedactionKind(.secret, kindName), map)
      } else if RedactionFields.adAddresses.contains(code) {
        var start = range.lowerBound
        while start + 6 <= range.upperBound {
          address(bytes, start..<start + 6, RedactionKind(.address, kindName), map)
          // LE Bluetooth Device Address: one address, then its type octet.
          if code == ADType.leBluetoothDeviceAddress.rawValue { break }
          start += 6
        }
      }
    }
  }

  // MARK: - HCI commands and events

  private mutating func hciPacket(
    _ record: Record, _ type: HCIPacketType, _ decoded: DecodedRecord, _ raw: UnsafeRawBufferPointer
  ) {
    let whole = SegmentMap(frame: record.frame, count: raw.count)
    if let reports = decoded.advertising {
      // The reports' own decode says where their addresses and data are.
      return advertisingReports(record, reports, raw, whole)
    }
    for location in HCIParameters.locations(of: type, in: raw) {
      let name = location.parameter.name
      let kindName = "HCI " + name
      switch location.parameter {
      case .address:
        address(raw, location.range, RedactionKind(.address, kindName), whole)
      case .text:
        self.name(raw, location.range, RedactionKind(.name, kindName), whole)
      default:
        if RedactionFields.hciSecrets.contains(name) {
          secret(raw, location.range, RedactionKind(.secret, kindName), whole)
        } else if RedactionFields.hciIdentityKeys.contains(name) {
          identityKey(raw, location.range, RedactionKind(.identityKey, kindName), whole)
        } else if RedactionFields.hciAdvertisingData.contains(name) {
          advertisingData(ADStructure.parseAll(in: raw, range: location.range), raw, whole)
        }
      }
    }
  }

  /// The advertiser and direct addresses of each report and its AD structures; data in
  /// several reports is patched in each.
  private mutating func advertisingReports(
    _ record: Record, _ reports: [AdvertisingReport], _ raw: UnsafeRawBufferPointer, _ whole: SegmentMap
  ) {
    for report in reports {
      if let offset = report.addressOffset {
        address(raw, offset..<offset + 6, RedactionKind(.address, "HCI Address"), whole)
      }
      if let offset = report.directAddressOffset {
        address(raw, offset..<offset + 6, RedactionKind(.address, "HCI Direct_Address"), whole)
      }
      let chained = report.kind == .extended || report.kind == .periodic
      let key = AdvertisingDecoder.FragmentKey(report, adapter: record.adapter)
      if chained, report.isFragment {
        _ = fragments.advertising(key, piece(record.frame, raw.bounds(of: report.data), raw), last: nil)
      } else if chained, let data = report.reassembled {
        guard let own = report.piece,
          let map = fragments.advertising(key, piece(record.frame, raw.bounds(of: own), raw), last: data)
        else {
          note("redact.unmapped", record.frame)
          continue
        }
        data.withUnsafeBytes { advertisingData(report.structures, $0, map) }
      } else {
        advertisingData(report.structures, raw, whole)
      }
    }
  }

  private func piece(_ frame: Int, _ range: Range<Int>, _ raw: UnsafeRawBufferPointer) -> FragmentTracker.Piece {
    let range = range.clamped(to: 0..<raw.count)
    return FragmentTracker.Piece(
      map: SegmentMap([Segment(frame: frame, offset: range.lowerBound, count: range.count)]), bytes: Array(raw[range]))
  }

  // MARK: - ACL and LL data: L2CAP, SMP, ATT

  /// An ACL or LL data fragment that joins reassembly: kept while its PDU is under way.
  private mutating func trackFragment(
    _ record: Record, _ decoded: DecodedRecord, _ key: ACLKey, start: Bool, _ fragment: Range<Int>,
    _ raw: UnsafeRawBufferPointer
  ) {
    if case .whole = decoded.reassembly, start {
      // Complete in one fragment: nothing to keep, but the stream starts over.
      fragments.fragment(key, start: true, FragmentTracker.Piece(map: SegmentMap([]), bytes: []))
      return
    }
    fragments.fragment(key, start: start, piece(record.frame, fragment, raw))
  }

  /// SMP and ATT fields of the L2CAP PDU (or SDU) a record completes.
  private mutating func dataLayers(
    _ record: Record, _ analyzed: AnalyzedRecord, _ key: ACLKey, _ fragment: Range<Int>,
    _ raw: UnsafeRawBufferPointer
  ) {
    let decoded = analyzed.decoded
    guard let l2cap = decoded.l2cap else { return }
    let whole = SegmentMap(frame: record.frame, count: raw.count)
    // The L2CAP PDU: this record's fragment, or the fragments put together.
    var pduMap: SegmentMap?
    var pduBytes: [UInt8]?
    if l2cap.fragments > 1 {
      if l2cap.channelMTU != nil, l2cap.payload.start == 0 {
        // The record completed an SDU: the K-frame's own octets are not kept apart.
        pduMap = nil
      } else if let reassembled = decoded.reassembled {
        pduMap = fragments.pdu(key, bytes: reassembled)
        pduBytes = reassembled
      }
    } else {
      pduMap = whole.submap(fragment)
      pduBytes = Array(raw[fragment.clamped(to: 0..<raw.count)])
    }
    // Credit-based channels: a K-frame of an SDU in several K-frames.
    var map: SegmentMap?
    if l2cap.channelMTU != nil {
      map = kframe(record, decoded, key, l2cap, pduMap: pduMap, pduBytes: pduBytes)
      // A whole SDU in one K-frame: the decoders read the record itself.
      if decoded.reassembled == nil, l2cap.fragments <= 1, map != nil { map = whole }
    } else {
      map = decoded.reassembled == nil ? whole : pduMap
    }
    guard decoded.smp != nil || decoded.att != nil else { return }
    guard let map else {
      note("redact.unmapped", record.frame)
      return
    }
    decoded.withPayloadBytes(record) { bytes in
      if let smp = decoded.smp { securityManager(smp, l2cap, bytes, map) }
      if let att = decoded.att { attribute(record, analyzed, att, bytes, map) }
    }
  }

  /// Follows the K-frames of an SDU; returns the map of the buffer the upper layers
  /// read (the SDU when this K-frame completes one, else the PDU).
  private mutating func kframe(
    _ record: Record, _ decoded: DecodedRecord, _ key: ACLKey, _ l2cap: L2CAPLayer, pduMap: SegmentMap?,
    pduBytes: [UInt8]?
  ) -> SegmentMap? {
    let channel = FragmentTracker.ChannelKey(stream: key, cid: l2cap.cid)
    let completesSDU = l2cap.payload.start == 0 && decoded.reassembled != nil
    switch decoded.reassembly {
    case .first, .part:
      // A K-frame of an SDU still under way.
      guard let pduMap, let pduBytes else { return nil }
      let start = 4 + (l2cap.sduLength != nil ? 2 : 0)
      let end = min(pduBytes.count, 4 + Int(l2cap.length))
      guard start <= end, let payload = pduMap.submap(start..<end) else { return nil }
      fragments.kframe(
        channel, first: l2cap.sduLength != nil,
        FragmentTracker.Piece(map: payload, bytes: Array(pduBytes[start..<end])))
      return nil
    case .last where completesSDU:
      guard let sdu = decoded.reassembled else { return nil }
      // The last K-frame: from this record's fragment, or the ACL fragments before it.
      let last: FragmentTracker.Piece?
      if l2cap.fragments > 1 {
        last = fragments.pduPiece(key)
      } else {
        last = pduMap.flatMap { map in pduBytes.map { FragmentTracker.Piece(map: map, bytes: $0) } }
      }
      guard let last, last.bytes.count >= 4 else { return nil }
      let end = min(last.bytes.count, 4 + Int(l2cap.length))
      guard let payload = last.map.submap(4..<end) else { return nil }
      fragments.kframe(channel, first: false, FragmentTracker.Piece(map: payload, bytes: Array(last.bytes[4..<end])))
      return fragments.sdu(channel, bytes: sdu)
    default:
      return pduMap
    }
  }

  private mutating func securityManager(
    _ smp: SMPPDU, _ l2cap: L2CAPLayer, _ bytes: UnsafeRawBufferPointer, _ map: SegmentMap
  ) {
    let kind = RedactionKind(.secret, "SMP " + smp.code.name)
    // The parameters start after the code octet.
    let start = l2cap.payload.start + 1
    switch smp.parameters {
    case .value(let range) where smp.code == .identityInformation:
      identityKey(bytes, bytes.bounds(of: range), RedactionKind(.identityKey, "SMP Identity Information"), map)
    case .value(let range) where RedactionFields.smpSecrets.contains(smp.code):
      secret(bytes, bytes.bounds(of: range), kind, map)
    case .publicKey(let x, let y):
      secret(bytes, bytes.bounds(of: x), kind, map)
      secret(bytes, bytes.bounds(of: y), kind, map)
    case .centralIdentification:
      secret(bytes, start..<start + 2, RedactionKind(.secret, "SMP Central Identification EDIV"), map)
      secret(bytes, start + 2..<start + 10, RedactionKind(.secret, "SMP Central Identification Rand"), map)
    case .identityAddress:
      address(bytes, start + 1..<start + 7, RedactionKind(.address, "SMP Identity Address Information"), map)
    case .malformed, .unknown:
      if RedactionFields.smpSecrets.contains(smp.code) || smp.code == .identityInformation
        || smp.code == .identityAddressInformation
      {
        note("smp.length.invalid", map.segments.last?.frame ?? 0)
      }
    default:
      break
    }
  }

  private mutating func attribute(
    _ record: Record, _ analyzed: AnalyzedRecord, _ att: ATTPDU, _ bytes: UnsafeRawBufferPointer, _ map: SegmentMap
  ) {
    let attribute = analyzed.attribute
    switch att.parameters {
    case .value(let value) where att.opcode == .readMultipleResponse:
      // Several values one after the other, of lengths only the server knows.
      self.value(
        bytes, bytes.bounds(of: value), rule: nil, key: ValueKey(opcode: att.opcode.rawValue),
        label: "Read Multiple Response", record, map)
    case .value(let value), .handleValue(_, let value), .signedWrite(_, let value, _):
      let part: Int? =
        att.opcode == .readResponse
        ? 0 : att.opcode == .readBlobResponse ? Int(analyzed.exchange?.requestOffset ?? 0) : nil
      self.value(
        bytes, bytes.bounds(of: value), rule: Self.rule(attribute), key: ValueKey(attribute, analyzed.attHandle),
        label: Self.label(attribute, analyzed.attHandle),
        part: part, record, map)
    case .prepareWrite(_, let offset, let value):
      self.value(
        bytes, bytes.bounds(of: value), rule: Self.rule(attribute), key: ValueKey(attribute, analyzed.attHandle),
        label: Self.label(attribute, analyzed.attHandle),
        part: att.opcode == .prepareWriteRequest ? Int(offset) : nil, record, map)
    case .findByTypeValue(_, _, let type, let value):
      let uuid = BluetoothUUID(uuid16: type)
      self.value(
        bytes, bytes.bounds(of: value), rule: RedactionFields.valueRule(uuid), key: ValueKey(uuid: uuid),
        label: Self.label(uuid), record, map)
    case .attributeDataList(let length, let list):
      // Read By Type: handle and value; Read By Group Type: handle, End Group Handle
      // and value. The values are of the type the request asked for.
      let header = att.opcode == .readByGroupTypeResponse ? 4 : 2
      guard Int(length) > header else { return }
      let type = analyzed.exchange?.requestType
      let span = bytes.bounds(of: list)
      var entry = span.lowerBound
      while entry + Int(length) <= span.upperBound {
        var rule = RedactionFields.valueRule(type)
        if type == nil, Self.isDeclaration(bytes, entry: entry, length: Int(length)) { rule = .declaration }
        self.value(
          bytes, entry + header..<entry + Int(length), rule: rule,
          key: type.map { ValueKey(uuid: $0) } ?? ValueKey(opcode: att.opcode.rawValue),
          label: type.map { Self.label($0) } ?? "Read By Type Response", record, map)
        entry += Int(length)
      }
    case .multipleHandleValue(let list), .lengthValueList(let list):
      // Tuples of (handle,) length and value: the handles' attributes are not at hand.
      let withHandle = att.opcode == .multipleHandleValueNotification
      let span = bytes.bounds(of: list)
      var offset = span.lowerBound
      while offset + (withHandle ? 4 : 2) <= span.upperBound {
        let handle = withHandle ? bytes.littleEndianUInt16(at: offset) : nil
        if withHandle { offset += 2 }
        guard let length = bytes.littleEndianUInt16(at: offset) else { break }
        offset += 2
        let end = min(span.upperBound, offset + Int(length))
        self.value(
          bytes, offset..<end, rule: nil,
          key: ValueKey(handle: handle, opcode: att.opcode.rawValue),
          label: handle.map { Self.label(nil, $0) } ?? "Read Multiple Variable Response",
          record, map)
        offset = end
      }
    default:
      break
    }
    // A long read or a prepared write put together: every part stands for the whole.
    for value in analyzed.assembled {
      let full = Array(value.value.prefix { $0 != 0 })
      let replacement: RedactionValue
      switch Self.rule(value.attribute) {
      case .name where !keepNames: replacement = .name(full)
      case .identifier(let kind): replacement = .identifier(kind, full)
      case .revision(let kind) where options.strict: replacement = .identifier(kind, full)
      default: continue
      }
      for frame in value.frames {
        for part in textParts.removeValue(forKey: frame) ?? [] {
          edits.replace(part.index, with: replacement, from: part.offset)
        }
      }
    }
  }

  /// A Read By Type Response entry whose request is not in the capture, that is a
  /// characteristic declaration as discovery reads them: handle, properties, a value
  /// handle right after the declaration's, and a 16- or 128-bit UUID.
  static func isDeclaration(_ bytes: UnsafeRawBufferPointer, entry: Int, length: Int) -> Bool {
    guard length == 7 || length == 21, let handle = bytes.littleEndianUInt16(at: entry),
      let valueHandle = bytes.littleEndianUInt16(at: entry + 3)
    else { return false }
    return valueHandle == handle &+ 1
  }

  /// The rule for the value of `attribute`: declarations are structure, the others
  /// go by their type; nil when discovery did not name it.
  static func rule(_ attribute: GATTAttribute?) -> ValueRule? {
    guard let attribute else { return nil }
    switch attribute.kind {
    case .service, .include, .characteristic: return .declaration
    case .value, .descriptor: return RedactionFields.valueRule(attribute.uuid)
    }
  }

  /// How the summary names a value's attribute: its label and UUID, or its handle.
  static func label(_ attribute: GATTAttribute?, _ handle: UInt16?) -> String {
    guard let attribute, let uuid = attribute.uuidText else {
      return handle.map { "handle 0x" + hex($0) + " (not discovered)" }
        ?? "a response whose request is not in the capture"
    }
    guard let label = attribute.label, label != uuid else { return uuid }
    return "\(label) (\(uuid))"
  }

  static func label(_ uuid: BluetoothUUID) -> String {
    let text = uuid.normalized.description
    guard let name = DissectorLibrary.builtin.name(of: uuid) else { return text }
    return "\(name) (\(text))"
  }

  /// One attribute value, `range` of `bytes`: replaced by its rule, else kept (known
  /// to be safe, or `--keep-values`) and swept, or blanked. `part` is the offset of
  /// a part of a long value (Read Response, Read Blob, Prepare Write).
  private mutating func value(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, rule: ValueRule?, key: ValueKey,
    label: @autoclosure () -> String, part: Int? = nil, _ record: Record, _ map: SegmentMap
  ) {
    let range = range.clamped(to: 0..<bytes.count)
    guard !range.isEmpty else { return }
    var placed: [Int] = []
    switch rule {
    case .name where !keepNames:
      placed = name(bytes, range, RedactionKind(.name, "ATT Device Name"), map)
    case .address where range.count == 6:
      return address(bytes, range, RedactionKind(.address, "ATT Reconnection Address"), map)
    case .systemID where range.count == 8:
      return systemID(bytes, range, map)
    case .systemID?, .address?:
      // Known to identify, but not in its format (a System ID as text): filler.
      _ = add(RedactionKind(.identifier, "ATT \(label()) filled (not its format)"), .filler, range, map)
      return
    case .identifier(let kind):
      placed = identifier(bytes, range, kind, map)
    case .revision(let kind) where options.strict:
      placed = identifier(bytes, range, kind, map)
    case .declaration?:
      return
    case .safe?, .name?, .revision?:
      return keep(bytes, range, key, label, safe: true, map)
    default:
      guard options.keepValues else {
        tally(key, label, safe: false, range.count)
        _ = add(nil, .filler, range, map)
        return
      }
      return keep(bytes, range, key, label, safe: false, map)
    }
    if let part { textParts[record.frame, default: []] += placed.map { ($0, part) } }
  }

  /// Counts a value of `key`; its label is made the first time only.
  private mutating func tally(_ key: ValueKey, _ label: () -> String, safe: Bool, _ octets: Int) {
    if values[key] == nil { values[key] = ValueTally(label: label(), safe: safe) }
    values[key]!.add(octets)
  }

  /// A value that stays: counted for the summary, swept in pass 2.
  private mutating func keep(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ key: ValueKey, _ label: () -> String, safe: Bool,
    _ map: SegmentMap
  ) {
    tally(key, label, safe: safe, range.count)
    guard let pieces = map.pieces(of: range) else { return }
    if pieces.count == 1 {
      _ = add(nil, .keptValue, range, map)
    } else {
      spannedValues.append(pieces, bytes[range])
    }
  }

  /// A serial number or revision string: the octets before the first NUL.
  private mutating func identifier(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: IdentifierKind, _ map: SegmentMap
  ) -> [Int] {
    let end = range.first { bytes[$0] == 0 } ?? range.upperBound
    guard end > range.lowerBound else { return [] }
    return add(
      RedactionKind(.identifier, "ATT " + kind.characteristic),
      .identifier(kind, Array(bytes[range.lowerBound..<end])), range.lowerBound..<end, map)
  }

  // MARK: - Air packets

  private mutating func linkLayer(_ record: Record, _ analyzed: AnalyzedRecord, _ raw: UnsafeRawBufferPointer) {
    let decoded = analyzed.decoded
    guard let ll = decoded.ll else { return }
    let whole = SegmentMap(frame: record.frame, count: raw.count)
    if let offset = ll.pduOffset, ll.crc != nil, offset + 2 <= raw.count {
      let end = offset + 2 + Int(raw[offset + 1])
      if end + 3 <= raw.count { llRegions.add(offset..<end, frame: record.frame) }
    }
    if ll.radio.crc == .bad {
      damaged.packets += 1
      if !options.keepDamaged { return damagedPacket(record, analyzed, ll, raw, whole) }
    }
    if let advertising = ll.advertising {
      for field in advertising.addressFields {
        address(raw, field.offset..<field.offset + 6, RedactionKind(.address, "LL " + field.name), whole)
      }
      for report in decoded.advertising ?? [] { advertisingData(report.structures, raw, whole) }
    }
    guard let data = ll.data, let connection = ll.connection, let direction = ll.direction else { return }
    if let control = data.control, let row = control.opcode.row, !control.parameters.isEmpty {
      var offset = data.payload.start + 1
      for parameter in row.parameters {
        let range = offset..<offset + parameter.size
        if RedactionFields.llSecrets[row.opcode]?.contains(parameter.name) == true {
          secret(raw, range, RedactionKind(.secret, "LL \(row.name) \(parameter.name)"), whole)
        } else if parameter.format == .address {
          address(raw, range, RedactionKind(.address, "LL \(row.name) \(parameter.name)"), whole)
        }
        offset += parameter.size
      }
    }
    let payload = raw.bounds(of: data.payload)
    guard !payload.isEmpty, !ll.isEncrypted, data.llid == .start || data.llid == .continuation else { return }
    let key = ACLKey(adapter: nil, handle: connection, direction: direction.hostDirection)
    if ll.radio.crc == .bad {
      // Damaged (--keep-damaged): decoded only when it holds a whole PDU, and kept out of reassembly.
      if decoded.l2cap != nil { dataLayers(record, analyzed, key, payload, raw) }
      return
    }
    let stream = LLStream(connection: connection, direction: direction)
    let bytes = Array(raw[payload])
    defer { lastData[stream] = (record.frame, payload.lowerBound, bytes) }
    if ll.isRetransmission {
      // Decoded only when it holds a whole PDU; otherwise it repeats a fragment.
      if decoded.l2cap != nil {
        dataLayers(record, analyzed, key, payload, raw)
      } else if let last = lastData[stream], last.bytes == bytes {
        copies.append((record.frame, last.frame, last.start, payload.lowerBound, bytes.count))
      }
      return
    }
    trackFragment(record, decoded, key, start: data.llid == .start, payload, raw)
    dataLayers(record, analyzed, key, payload, raw)
  }

  /// An air packet received with a bad CRC: any octet may be flipped, so a field
  /// that parses may hold a damaged copy of an address or a name. Its address fields
  /// get pseudonyms as far as they parse (a flipped copy is an address of its own);
  /// a data PDU that decodes whole goes through the same fields and value rules as
  /// any; every other octet after the header that gives no structure (the L2CAP
  /// header, the LL Control opcode, the extended header's length and flags) is
  /// blanked. The CRC moves with the change, so it stays bad.
  private mutating func damagedPacket(
    _ record: Record, _ analyzed: AnalyzedRecord, _ ll: LLPacket, _ raw: UnsafeRawBufferPointer, _ whole: SegmentMap
  ) {
    guard let start = ll.pduOffset, start + 2 <= raw.count else { return }
    let declared = start + 2 + Int(raw[start + 1])
    // The PDU's octets the packet holds (the CRC follows them when there is room).
    let end = declared + 3 <= raw.count ? declared : min(declared, raw.count)
    var kept: [Range<Int>] = [start..<start + 2]
    if let advertising = ll.advertising {
      for field in advertising.addressFields where field.offset + 6 <= end {
        address(raw, field.offset..<field.offset + 6, RedactionKind(.address, "LL \(field.name) (bad CRC)"), whole)
        kept.append(field.offset..<field.offset + 6)
      }
      if advertising.extended != nil {
        // Extended header length and AdvMode, then its flags.
        kept.append(start + 2..<start + 4)
      }
    } else if let data = ll.data {
      let payload = raw.bounds(of: data.payload)
      kept.append(start + 2..<payload.lowerBound)
      if data.control != nil {
        kept.append(payload.lowerBound..<payload.lowerBound + 1)
      } else if decoded(analyzed), data.llid == .start || data.llid == .continuation {
        // A whole L2CAP PDU: its fields and values go by their rules.
        let key = ACLKey(adapter: nil, handle: ll.connection ?? 0, direction: ll.direction?.hostDirection)
        dataLayers(record, analyzed, key, payload, raw)
        return
      } else if data.llid == .start {
        kept.append(payload.lowerBound..<payload.lowerBound + 4)
      }
    }
    var blank = start + 2
    for range in kept.sorted(by: { $0.lowerBound < $1.lowerBound }) + [end..<end] {
      if range.lowerBound > blank, blank < end {
        let gap = blank..<min(range.lowerBound, end)
        _ = add(nil, .filler, gap, whole)
        damaged.blanked += gap.count
      }
      blank = max(blank, range.upperBound)
    }
  }

  private func decoded(_ analyzed: AnalyzedRecord) -> Bool {
    analyzed.decoded.l2cap != nil && (analyzed.decoded.att != nil || analyzed.decoded.smp != nil)
  }

  // MARK: - Finish

  /// The plan: pseudonyms for every address, IRK and name found, and the edits.
  public consuming func finish() -> RedactionPlan {
    // Retransmitted fragments take the edits of what they repeat, in frame order so
    // that a repeat of a repeat finds its edits.
    edits.sort()
    // A repeat of a repeat finds the edits given to the first repeat here.
    var moved: [Int: [RedactionEdit]] = [:]
    for copy in copies.sorted(by: { $0.frame < $1.frame }) {
      for edit in edits.run(of: copy.from) + (moved[copy.from] ?? [])
      where edit.offset >= copy.fromStart && edit.offset < copy.fromStart + copy.count {
        var edit = edit
        edit.frame = copy.frame
        edit.offset += copy.start - copy.fromStart
        moved[copy.frame, default: []].append(edit)
      }
    }
    for frame in moved.keys.sorted() {
      for edit in moved[frame]! { _ = edits.append(edit) }
    }
    if !moved.isEmpty { edits.sort() }
    var names: [[UInt8]] = []
    var nameSeen: Set<[UInt8]> = []
    var identifiers: [(IdentifierKind, [UInt8])] = []
    var identifierSeen: Set<IdentifierText> = []
    edits.forEach { edit in
      switch edit.value {
      case .name(let name) where nameSeen.insert(name).inserted: names.append(name)
      case .identifier(let kind, let text) where identifierSeen.insert(IdentifierText(kind: kind, text: text)).inserted:
        identifiers.append((kind, text))
      default: break
      }
    }
    return RedactionPlan(
      edits: edits, addresses: addressOrder, identityKeys: keyOrder, names: names, identifiers: identifiers,
      secrets: secrets, counts: counts, unparsed: unparsed, llRegions: llRegions, values: values,
      spannedValues: spannedValues, damaged: damaged, options: options)
  }
}

/// What the summary counts values by, cheap to make for every value: the attribute's
/// type and characteristic, or the handle of one discovery never named, or the PDU.
struct ValueKey: Hashable, Sendable {
  var uuid: BluetoothUUID?
  var characteristic: BluetoothUUID?
  var handle: UInt16?
  var opcode: UInt8 = 0

  init(uuid: BluetoothUUID? = nil, handle: UInt16? = nil, opcode: UInt8 = 0) {
    self.uuid = uuid
    self.handle = handle
    self.opcode = opcode
  }

  init(_ attribute: GATTAttribute?, _ handle: UInt16?) {
    if let attribute, attribute.uuid != nil {
      uuid = attribute.uuid
      characteristic = attribute.characteristic
    } else {
      self.handle = handle
    }
  }
}

/// An identifier's text and kind: the same serial and revision are two identifiers.
struct IdentifierText: Hashable {
  var kind: IdentifierKind
  var text: [UInt8]
}

/// How many values of one characteristic stayed (or were blanked), and their octets.
public struct ValueTally: Sendable, Hashable {
  /// The characteristic (or descriptor, or handle) as the summary names it.
  public var label: String
  /// Known to be safe (else: not known to be safe, kept or blanked as asked).
  public var safe: Bool
  public var count = 0
  public var octets = 0

  init(label: String, safe: Bool) {
    self.label = label
    self.safe = safe
  }

  mutating func add(_ octets: Int) {
    count += 1
    self.octets += octets
  }

  mutating func merge(_ other: ValueTally) {
    count += other.count
    octets += other.octets
  }
}

/// Air packets received with a bad CRC, and the octets of theirs blanked.
public struct DamagedTally: Sendable, Hashable {
  public var packets = 0
  public var blanked = 0
}
