import BLECapture

/// Decodes records in file order. It keeps what decoding needs across records:
/// ACL fragments waiting for the rest of their PDU, credit-based SDUs, and the
/// dynamic L2CAP channels set up by signaling. Each record is an error boundary: a
/// decode error becomes a diagnostic and whatever was decoded before it is kept.
public struct RecordDecoder {
  private var aclReassembler = ACLReassembler()
  private var sduReassembler = SDUReassembler()
  private var channels = L2CAPChannelTable()
  /// The group of the PDU each ACL key is putting together, and its fragment count.
  private var pending: [ACLKey: (group: ReassemblyGroup, fragments: Int)] = [:]
  /// Credit-based channels with an SDU under way.
  private var pendingSDUs: Set<ReassemblyGroup> = []
  private var advertising = AdvertisingDecoder()
  var linkLayer = LinkLayerDecoder()
  /// Where the layers' decoders put their diagnostics before the record takes them: one
  /// array kept for every record, rather than one made and freed per layer.
  private var scratch: [Diagnostic] = []

  /// `scratch`, emptied.
  private mutating func clearScratch() {
    if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
  }

  public init() {}

  public mutating func decode(_ record: Record) -> DecodedRecord {
    var decoded = DecodedRecord()
    decode(record, into: &decoded)
    return decoded
  }

  /// Decodes `record` into `decoded`, which starts over.
  public mutating func decode(_ record: Record, into decoded: inout DecodedRecord) {
    decoded = DecodedRecord()
    if record.isCutBySource {
      decoded.diagnostics.append(
        Diagnostic(
          id: "capture.cut", severity: .info,
          "record filtered or truncated by the capture source: \(record.bytes.count) of \(record.originalLength) bytes kept"
        ))
    }
    switch record.kind {
    case .hci(let rawType):
      decodeHCI(record, type: HCIPacketType(rawValue: rawType), into: &decoded)
    case .monitor(let opcode): decoded.monitor = opcode
    case .packetLogger(let type): decoded.packetLogger = type
    case .linkLayer(let type):
      decoded.linkLayer = type
      decodeLinkLayer(record, type, into: &decoded)
    case .unframed:
      decoded.diagnostics.append(
        Diagnostic(id: "hci.truncated", severity: .warning, "record too short to hold its packet type"))
    }
  }

  private mutating func decodeHCI(_ record: Record, type: HCIPacketType, into decoded: inout DecodedRecord) {
    let raw = UnsafeRawBufferPointer(record.bytes)
    decoded.hci = HCILayer(type: type)
    var payloadStart = 0
    clearScratch()
    do throws(DecodeError) {
      var c = ByteCursor(raw.bytes, layer: type == .acl ? .acl : .hci)
      decoded.hci = try HCILayer.parse(
        type: type, &c, cut: record.originalLength - record.bytes.count, acl: &decoded.acl,
        diagnostics: &scratch)
      payloadStart = c.offset
      decoded.add(scratch)
    } catch {
      decoded.add(scratch)
      // A record cut by its source ends early by design; that is not malformed.
      if !record.isCutBySource {
        decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
      }
      return
    }
    if let acl = decoded.acl {
      decodeACL(record, acl, fragment: UnsafeRawBufferPointer(rebasing: raw[payloadStart...]), into: &decoded)
      return
    }
    // Parameters that fill their layout exactly need no field tree to be checked: it
    // is built when something asks for it (`hciParameters(_:)`).
    if let hci = decoded.hci, type == .command || type == .event, !Self.parametersFit(record, hci) {
      var fields: [Field] = []
      let error = Self.decodeParameters(record, hci, into: &fields)
      if !fields.isEmpty { decoded.storedHCIParameters = fields }
      // A record cut by its source ends early by design; that is not malformed.
      if !record.isCutBySource {
        decoded.add(HCIParameters.diagnostics(error: error, fields: fields))
      }
    }
    if decoded.hci?.event == HCIEventCode.leMeta.rawValue, let subevent = decoded.hci?.subevent,
      AdvertisingDecoder.subevents.contains(subevent)
    {
      advertising.decode(record, subevent: subevent, parameters: decoded.hciParameters(record), into: &decoded)
    }
    if decoded.hci?.event == HCIEventCode.disconnectionComplete.rawValue {
      forgetDisconnected(decoded.hciParameters(record), adapter: record.adapter)
    }
  }

  /// The octets of a command's or event's parameters after its header (and after the
  /// Subevent_Code of an LE Meta event), and the layout index that describes them.
  public static func parameterLayout(
    _ record: Record, _ hci: HCILayer
  ) -> (UnsafeRawBufferPointer, HCILayoutIndex)? {
    let headerSize: Int
    let index: HCILayoutIndex?
    switch hci.type {
    case .command:
      headerSize = 3
      index = HCIParameters.layoutIndex(command: hci.opcode ?? 0)
    case .event:
      let event = hci.event ?? 0
      headerSize = event == HCIEventCode.leMeta.rawValue ? 3 : 2
      index = HCIParameters.layoutIndex(event: event, subevent: hci.subevent)
    default: return nil
    }
    guard let index, record.bytes.count >= headerSize else { return nil }
    return (UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(record.bytes)[headerSize...]), index)
  }

  /// The connection handle (flag bits cleared) a command or event names in a
  /// `Connection_Handle` parameter at a fixed offset, as far as its bytes go.
  public static func connectionHandle(_ record: Record, _ hci: HCILayer) -> UInt16? {
    guard let (bytes, index) = parameterLayout(record, hci), let offset = index.connectionHandle,
      offset + 2 <= bytes.count
    else { return nil }
    return (UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8) & 0x0FFF
  }

  /// Whether the parameters fill their layout exactly (see `HCILayoutIndex.fits`).
  public static func parametersFit(_ record: Record, _ hci: HCILayer) -> Bool {
    guard !record.isCutBySource, let (bytes, index) = parameterLayout(record, hci) else { return false }
    return index.fits(bytes)
  }

  /// The parameters of an HCI command or event, decoded as far as the bytes go.
  static func decodeParameters(_ record: Record, _ hci: HCILayer, into fields: inout [Field]) -> DecodeError? {
    let headerSize: Int
    switch hci.type {
    case .command: headerSize = 3
    case .event: headerSize = 2
    default: return nil
    }
    guard record.bytes.count >= headerSize else { return nil }
    let raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(record.bytes)[headerSize...])
    var c = ByteCursor(raw.bytes, base: headerSize, layer: .hci)
    if let event = hci.event { return HCIParameters.event(code: event, &c, into: &fields) }
    return HCIParameters.command(opcode: hci.opcode ?? 0, &c, into: &fields)
  }

  /// Disconnection Complete: Status, Connection_Handle, Reason. The handle's state goes,
  /// because controllers hand the same handle to the next connection at once.
  private mutating func forgetDisconnected(_ parameters: [Field], adapter: UInt16?) {
    guard parameters.lookup("Status")?.value.integer == 0,
      let value = parameters.lookup("Connection_Handle")?.value.integer
    else { return }
    let handle = UInt16(truncatingIfNeeded: value) & 0x0FFF
    aclReassembler.reset(adapter: adapter, handle: handle)
    sduReassembler.reset(adapter: adapter, handle: handle)
    channels.reset(adapter: adapter, handle: handle)
    pending = pending.filter { !($0.key.adapter == adapter && $0.key.handle == handle) }
    pendingSDUs = pendingSDUs.filter { !($0.key.adapter == adapter && $0.key.handle == handle) }
  }

  /// `key` is the stream the fragment continues: the record's own by default.
  mutating func decodeACL(
    _ record: Record, _ acl: ACLLayer, key: ACLKey? = nil, fragment: UnsafeRawBufferPointer,
    into decoded: inout DecodedRecord
  ) {
    let key = key ?? ACLKey(adapter: record.adapter, handle: acl.handle, direction: record.direction)
    let isStart = acl.pb != 1
    let cut = record.originalLength - record.bytes.count
    clearScratch()
    let result = aclReassembler.add(key, pb: acl.pb, fragment: fragment, cutBySource: cut, diagnostics: &scratch)
    decoded.add(scratch)
    // Most PDUs fit one fragment: the pending table is touched only when one does not.
    var fragments = 1
    var group: ReassemblyGroup?
    if isStart {
      group = ReassemblyGroup(key: key, cid: fragment.littleEndianUInt16(at: 2) ?? 0xFFFF)
    } else if !pending.isEmpty, let entry = pending[key] {
      fragments = entry.fragments + 1
      group = entry.group
    }
    if case .needMoreData = result {
      if let group {
        pending[key] = (group, fragments)
        decoded.reassembly = isStart && !pendingSDUs.contains(group) ? .first(group) : .part(group)
      }
      return
    }
    if !pending.isEmpty { pending[key] = nil }
    switch result {
    case .needMoreData, .dropped: break
    case .complete(let isCut):
      let start = fragment.baseAddress.map { $0 - UnsafeRawPointer(record.bytes.baseAddress!) } ?? 0
      decodeL2CAP(
        UnsafeRawBufferPointer(record.bytes), pduStart: start, key: key, group: group, fragments: 1, isCut: isCut,
        into: &decoded)
    case .reassembled(let bytes, let isCut):
      decoded.reassembled = bytes
      bytes.withUnsafeBytes { buffer in
        decodeL2CAP(
          buffer, pduStart: 0, key: key, group: group, fragments: fragments, isCut: isCut, into: &decoded)
      }
    }
  }

  /// Decodes an L2CAP basic frame starting at `pduStart` of `buffer` (the record, or
  /// the reassembled PDU) and the protocol of its channel.
  mutating func decodeL2CAP(
    _ buffer: UnsafeRawBufferPointer, pduStart: Int, key: ACLKey, group: ReassemblyGroup?, fragments: Int,
    isCut: Bool, into decoded: inout DecodedRecord
  ) {
    let diagnosticsBefore = decoded.diagnosticCount
    var prohibited = false
    defer {
      // Bytes the capture source left out are not malformed: keep only what it says.
      if isCut { decoded.diagnostics.removeSubrange(diagnosticsBefore...) }
      if prohibited {
        decoded.diagnostics.append(
          Diagnostic(
            id: "capture.prohibited", severity: .info,
            "payload replaced with \"PROHIBITED\" by the capture source (android snoop log profile filter)"))
      }
    }
    var c = ByteCursor(buffer.bytes, layer: .l2cap)
    let header: L2CAPHeader
    do throws(DecodeError) {
      _ = try c.readRange(pduStart)
      header = try L2CAPHeader(parsing: &c)
    } catch {
      decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
      return
    }
    var payload = ByteRange(start: c.offset, count: min(Int(header.length), c.remaining))
    var layer = L2CAPLayer(
      cid: header.cid, length: header.length, payload: payload, fragments: fragments, isCut: isCut)
    decoded.reassembly = fragments > 1 && group != nil ? .last(group!) : .whole
    if header.length <= Self.prohibitedMaxLength, Self.isProhibited(buffer, payload) {
      // Synthetic content, not protocol data: nothing more to decode.
      prohibited = true
      decoded.l2cap = layer
      return
    }
    let thisGroup = ReassemblyGroup(key: key, cid: header.cid)
    var sduBytes: [UInt8]?
    var carriesATT = header.cid == L2CAPChannelID.attribute.rawValue
    if header.cid >= 0x0040,
      let channel = channels.channel(
        adapter: key.adapter, handle: key.handle, direction: key.direction, cid: header.cid)
    {
      layer.psm = channel.psm
      layer.peerCID = channel.peerCID
      carriesATT = channel.carriesATT
      if channel.mode != .basic {
        layer.channelMTU = channel.mtu
        if payload.count >= 2, !pendingSDUs.contains(thisGroup) {
          layer.sduLength = buffer.littleEndianUInt16(at: payload.start)
        }
        let kframe = UnsafeRawBufferPointer(rebasing: buffer[payload.start..<payload.start + payload.count])
        var diagnostics: [Diagnostic] = []
        defer { decoded.add(diagnostics) }
        switch sduReassembler.add(
          key: key, cid: header.cid, kframePayload: kframe, isCut: isCut, payloadLength: Int(header.length),
          diagnostics: &diagnostics)
        {
        case .needMoreData:
          let started = !pendingSDUs.contains(thisGroup)
          pendingSDUs.insert(thisGroup)
          decoded.reassembly = started && fragments == 1 ? .first(thisGroup) : .part(thisGroup)
          layer.payload = payload
          decoded.l2cap = layer
          return
        case .dropped:
          pendingSDUs.remove(thisGroup)
          decoded.l2cap = layer
          return
        case .complete(let range):
          let continued = pendingSDUs.remove(thisGroup) != nil
          if continued { decoded.reassembly = .last(thisGroup) }
          payload = ByteRange(start: payload.start + range.start, count: range.count)
        case .reassembled(let bytes, _):
          pendingSDUs.remove(thisGroup)
          decoded.reassembly = .last(thisGroup)
          sduBytes = bytes
          payload = ByteRange(start: 0, count: bytes.count)
        }
      }
    }
    layer.payload = payload
    decoded.l2cap = layer
    if let sduBytes {
      decoded.reassembled = sduBytes
      sduBytes.withUnsafeBytes {
        decodeProtocol(of: header.cid, carriesATT: carriesATT, isCut: isCut, $0, payload, key, &decoded)
      }
    } else {
      decodeProtocol(of: header.cid, carriesATT: carriesATT, isCut: isCut, buffer, payload, key, &decoded)
    }
  }

  /// Android's snoop logger in "magic" filter mode replaces a filtered profile's
  /// payload (PBAP, MAP, HFP) with these ten ASCII bytes and rewrites the lengths.
  static let prohibitedMagic: [UInt8] = Array("PROHIBITED".utf8)
  /// The magic, plus room for the RFCOMM header the logger may keep before it.
  static let prohibitedMaxLength: UInt16 = 18

  /// Whether the L2CAP payload ends with the magic.
  static func isProhibited(_ buffer: UnsafeRawBufferPointer, _ payload: ByteRange) -> Bool {
    let magic = prohibitedMagic
    guard payload.count >= magic.count else { return false }
    let start = payload.start + payload.count - magic.count
    for k in 0..<magic.count where buffer[start + k] != magic[k] { return false }
    return true
  }

  private mutating func decodeProtocol(
    of cid: UInt16, carriesATT: Bool, isCut: Bool, _ buffer: UnsafeRawBufferPointer, _ payload: ByteRange,
    _ key: ACLKey,
    _ decoded: inout DecodedRecord
  ) {
    let bytes = UnsafeRawBufferPointer(rebasing: buffer[payload.start..<payload.start + payload.count])
    let isSignaling = cid == L2CAPChannelID.leSignaling.rawValue || cid == L2CAPChannelID.signaling.rawValue
    let isSMP =
      cid == L2CAPChannelID.securityManager.rawValue || cid == L2CAPChannelID.brEdrSecurityManager.rawValue
    var c = ByteCursor(bytes.bytes, base: payload.start, layer: carriesATT ? .att : isSMP ? .smp : .l2cap)
    var refusedChannel = false
    defer {
      if refusedChannel {
        decoded.diagnostics.append(
          Diagnostic(
            id: "l2cap.channels.limit", severity: .warning,
            "\(channels.maxChannels) l2cap channel endpoints are open, the limit: this channel is not followed"))
      }
    }
    clearScratch()
    defer { decoded.add(scratch) }
    do throws(DecodeError) {
      if carriesATT {
        decoded.att = try ATTPDU.decode(&c, diagnostics: &scratch)
      } else if isSignaling {
        var diagnostics: [Diagnostic] = []
        defer { scratch = diagnostics }
        try L2CAPSignalingPDU.decodeAll(&c, cid: cid, isCut: isCut, diagnostics: &diagnostics) { pdu in
          if decoded.signaling == nil { decoded.signaling = pdu }
          channels.observe(pdu, adapter: key.adapter, handle: key.handle, direction: key.direction, bytes: buffer)
          if channels.takeRefusal() { refusedChannel = true }
        }
      } else if isSMP {
        decoded.smp = try SMPPDU.decode(&c, diagnostics: &scratch)
      }
    } catch {
      decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
    }
  }
}
