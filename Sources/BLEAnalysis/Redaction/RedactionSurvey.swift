import BLECapture
import BLEDissect

/// How an address is written where it was found.
enum AddressForm: Hashable, Sendable {
  /// Six octets, least significant first, as HCI, SMP and the link layer carry it.
  case littleEndian
  /// Six octets, most significant first.
  case bigEndian
  /// `D4:36:39:67:A2:61`.
  case upperText
  /// `d4:36:39:67:a2:61`.
  case lowerText
}

/// What goes in place of a field.
enum RedactionValue: Hashable, Sendable {
  /// The address's pseudonym, written as the original was.
  case address(DeviceAddress, AddressForm)
  /// Filler octets.
  case filler
  /// The made-up key standing for this IRK (most significant octet first; written
  /// least significant first, as on the wire).
  case identityKey([UInt8])
  /// `device-N` for this name, padded with NULs to its length.
  case name([UInt8])
}

/// One piece of a field to overwrite in a record: `count` octets at `offset`, taken
/// from `valueOffset` of the field's replacement (a field that spans fragments is
/// several pieces).
struct RedactionEdit: Sendable {
  var offset: Int
  var count: Int
  var value: RedactionValue
  var valueOffset: Int
}

/// The first pass of `redact`: reads every analyzed record and finds, with the
/// decoders' byte ranges, each field to replace, mapped back to the records that
/// carry its octets (a field of a PDU put together from fragments is patched in the
/// fragments). It collects the addresses, IRKs and names to pseudonymise, the secret
/// values (so that a copy elsewhere is swept too), and the frames whose bytes could
/// not be parsed. `finish` turns that into a `RedactionPlan`.
public struct RedactionSurvey {
  var edits: [Int: [RedactionEdit]] = [:]
  var counts: [RedactionKind: Int] = [:]
  private var addressOrder: [DeviceAddress] = []
  private var addressSeen: Set<DeviceAddress> = []
  private var keyOrder: [[UInt8]] = []
  private var keySeen: Set<[UInt8]> = []
  var secrets: Set<[UInt8]> = []
  /// Frames with bytes no decoder could read, by the reason (a diagnostic id).
  var unparsed: [String: [Int]] = [:]
  /// The PDU (header and payload) of each air packet whose CRC follows it.
  var llRegions: [Int: Range<Int>] = [:]
  private var fragments = FragmentTracker()
  /// The last data packet each way of each connection heard on air: a retransmission
  /// repeats it.
  private var lastData: [LLStream: (frame: Int, start: Int, bytes: [UInt8])] = [:]
  /// Retransmissions that were not decoded (fragments of a longer PDU): they get the
  /// edits of the packet they repeat.
  private var copies: [(frame: Int, from: Int, fromStart: Int, start: Int, count: Int)] = []
  /// Device Name values read in several parts (Read Blob): the edits of each part, by
  /// the frame of the PDU that carried it.
  private var nameParts: [Int: [(frame: Int, index: Int, offset: Int)]] = [:]

  struct LLStream: Hashable {
    var connection: UInt16
    var direction: LLDirection
  }

  /// Names stay as they are.
  let keepNames: Bool

  public init(keepNames: Bool = false) {
    self.keepNames = keepNames
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
    for diagnostic in decoded.diagnostics where !RedactionFields.parsedAnyway.contains(diagnostic.id) {
      note(diagnostic.id, record.frame)
    }
    if let hci = decoded.hci {
      if hci.type == .command, let opcode = hci.opcode, opcode >> 10 == 0x3F { note("hci.vendor", record.frame) }
      if hci.type == .event, hci.event == 0xFF { note("hci.vendor", record.frame) }
    }
  }

  // MARK: - Adding fields

  /// Adds one field: `range` of the buffer `bytes`, whose octets `map` places.
  private mutating func add(
    _ kind: RedactionKind, _ value: RedactionValue, _ range: Range<Int>, _ map: SegmentMap
  ) -> [(frame: Int, index: Int)] {
    guard !range.isEmpty, let pieces = map.pieces(of: range) else {
      if !range.isEmpty { note("redact.unmapped", map.segments.last?.frame ?? 0) }
      return []
    }
    counts[kind, default: 0] += 1
    var placed: [(Int, Int)] = []
    for (segment, valueOffset) in pieces {
      edits[segment.frame, default: []].append(
        RedactionEdit(offset: segment.offset, count: segment.count, value: value, valueOffset: valueOffset))
      placed.append((segment.frame, edits[segment.frame]!.count - 1))
    }
    return placed
  }

  private mutating func address(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ kind: RedactionKind, _ map: SegmentMap
  ) {
    guard range.count == 6, range.upperBound <= bytes.count else { return }
    var value: UInt64 = 0
    for index in range.reversed() { value = value << 8 | UInt64(bytes[index]) }
    let address = DeviceAddress(rawValue: value)
    guard !RedactionFields.isPlaceholder(address) else { return }
    if addressSeen.insert(address).inserted { addressOrder.append(address) }
    _ = add(kind, .address(address, .littleEndian), range, map)
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
  ) -> [(frame: Int, index: Int)] {
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
          if code == 0x1B { break }
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
    if let attribute = analyzed.attribute, attribute.kind == .value, let value = att.value {
      let range = bytes.bounds(of: value)
      if attribute.uuid == RedactionFields.deviceName {
        let placed = name(bytes, range, RedactionKind(.name, "ATT Device Name"), map)
        let offset = Int(analyzed.exchange?.requestOffset ?? 0)
        if att.opcode == .readResponse || att.opcode == .readBlobResponse {
          nameParts[record.frame] = placed.map { ($0.frame, $0.index, offset) }
        }
      } else if attribute.uuid == RedactionFields.reconnectionAddress, range.count == 6 {
        address(bytes, range, RedactionKind(.address, "ATT Reconnection Address"), map)
      }
    }
    // Read By Type for the Device Name: handle-value pairs of `length` octets.
    if case .attributeDataList(let length, let list) = att.parameters, att.opcode == .readByTypeResponse,
      analyzed.exchange?.requestType == RedactionFields.deviceName, length > 2
    {
      let span = bytes.bounds(of: list)
      var entry = span.lowerBound
      while entry + Int(length) <= span.upperBound {
        name(bytes, entry + 2..<entry + Int(length), RedactionKind(.name, "ATT Device Name"), map)
        entry += Int(length)
      }
    }
    // A long read put together: every part stands for the whole name.
    for value in analyzed.assembled where value.attribute?.uuid == RedactionFields.deviceName {
      let full = Array(value.value.prefix { $0 != 0 })
      for frame in value.frames {
        for part in nameParts.removeValue(forKey: frame) ?? []
        where edits[part.frame]?.indices.contains(part.index) == true {
          edits[part.frame]![part.index].value = .name(full)
          edits[part.frame]![part.index].valueOffset += part.offset
        }
      }
    }
  }

  // MARK: - Air packets

  private mutating func linkLayer(_ record: Record, _ analyzed: AnalyzedRecord, _ raw: UnsafeRawBufferPointer) {
    let decoded = analyzed.decoded
    guard let ll = decoded.ll else { return }
    let whole = SegmentMap(frame: record.frame, count: raw.count)
    if let offset = ll.pduOffset, ll.crc != nil, offset + 2 <= raw.count {
      let end = offset + 2 + Int(raw[offset + 1])
      if end + 3 <= raw.count { llRegions[record.frame] = offset..<end }
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
      // Damaged: decoded only when it holds a whole PDU, and kept out of reassembly.
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

  // MARK: - Finish

  /// The plan: pseudonyms for every address, IRK and name found, and the edits.
  public consuming func finish() -> RedactionPlan {
    // Retransmitted fragments take the edits of what they repeat, in frame order so
    // that a repeat of a repeat finds its edits.
    for copy in copies.sorted(by: { $0.frame < $1.frame }) {
      for edit in edits[copy.from] ?? []
      where edit.offset >= copy.fromStart && edit.offset < copy.fromStart + copy.count {
        var moved = edit
        moved.offset += copy.start - copy.fromStart
        edits[copy.frame, default: []].append(moved)
      }
    }
    var names: [[UInt8]] = []
    var nameSeen: Set<[UInt8]> = []
    for frame in edits.keys.sorted() {
      for edit in edits[frame]! {
        if case .name(let name) = edit.value, nameSeen.insert(name).inserted { names.append(name) }
      }
    }
    return RedactionPlan(
      edits: edits, addresses: addressOrder, identityKeys: keyOrder, names: names, secrets: secrets, counts: counts,
      unparsed: unparsed, llRegions: llRegions)
  }
}
