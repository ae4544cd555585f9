import BLECapture
import BLEDissect

/// Which GATT server a database belongs to: a peer by its address (kept across
/// reconnections), the local host by adapter, or, when the capture never shows the
/// peer's address, the connection itself.
public struct GATTServerKey: Hashable, Sendable {
  public var address: DeviceAddress?
  public var isLocal: Bool
  var adapter: UInt16?
  var connection: Int?
}

/// One GATT server and what discovery (or `--import-db`) revealed of it.
public struct GATTServer: Sendable {
  public var key: GATTServerKey
  public var database: GATTDatabase
}

/// A value that took several PDUs to carry: a long read (Read Response + Read Blob
/// Responses) or a prepared write (Prepare Write Requests + Execute Write Request).
public struct AssembledValue: Hashable, Sendable {
  public var handle: UInt16
  public var value: [UInt8]
  /// The frames whose PDUs carried the parts, in order.
  public var frames: [Int]
  public var attribute: GATTAttribute?
  /// The whole value decoded with its Dissectors/ format.
  public var decoded: DecodeResult?
}

/// Rebuilds each server's GATT database from the discovery in the capture, names the
/// attribute every ATT PDU is about, and reassembles long reads and prepared writes.
/// Per-connection state goes at disconnection; databases stay, per server.
public struct GATTTracker {
  public private(set) var servers: [GATTServer] = []
  /// Names attributes and decodes their values.
  public let library: DissectorLibrary
  private var serverIndex: [GATTServerKey: Int] = [:]
  private var imported: [DeviceAddress: GATTDatabase] = [:]
  /// `--peer`: the peer of links whose peer the capture does not show.
  private var assumedPeers: PeerAssignments
  /// Read BD_ADDR answers, per adapter: the local server's address.
  private var localAddresses: [UInt16?: DeviceAddress] = [:]
  private var links: [Int: LinkState] = [:]
  /// The peer server each connection used so far, to follow it when its private
  /// address resolves to an identity mid-connection (pairing after discovery).
  private var peerKeys: [Int: GATTServerKey] = [:]
  private var firstResolved: [[UInt8]: DeviceAddress] = [:]
  private var lastServer: (key: GATTServerKey, index: Int)?
  /// The server of recent connections' PDUs, by connection and side, while nothing that
  /// names servers changed (`namingGeneration`).
  private var recentServers = RecentByConnection<Int>()
  /// Bumped whenever a server's key can come out differently (a local address learned,
  /// the resolver's keys changed: `resolverVersion`).
  private var namingGeneration = 0
  private var resolverVersion = 0

  struct Bearer: Hashable {
    var connection: Int
    var cid: UInt16

    func hash(into hasher: inout Hasher) { hasher.combine(UInt64(truncatingIfNeeded: connection) << 16 | UInt64(cid)) }
  }

  struct LinkState {
    var longReads: [UInt16: AssembledValue] = [:]
    var preparedWrites: [UInt16: [(handle: UInt16, offset: UInt16, value: [UInt8], frame: Int)]] = [:]
  }

  /// `imported` databases (from `--import-db`) name handles of captures that lack the
  /// discovery: by peer address, or, when only one is given, for every connection
  /// whose peer the capture does not show. `peers` (`--peer`) says who the peer of such
  /// a connection is, when the file holds several.
  public init(
    imported: [(address: DeviceAddress?, database: GATTDatabase)] = [], peers: PeerAssignments = .init(),
    library: DissectorLibrary = .builtin
  ) {
    self.library = library
    assumedPeers = peers
    for entry in imported {
      if let address = entry.address { self.imported[address] = entry.database }
    }
  }

  public mutating func analyze(
    _ record: Record, _ analyzed: inout AnalyzedRecord, resolver: inout AddressResolver
  ) {
    if let ended = analyzed.endedConnection {
      links[ended.id] = nil
      peerKeys[ended.id] = nil
    }
    guard let att = analyzed.decoded.att, let conn = analyzed.conn, let l2cap = analyzed.decoded.l2cap else {
      if case .commandComplete(_, _, .localAddress(let address)) = analyzed.link {
        localAddresses[record.adapter] = address
        namingGeneration += 1
      }
      return
    }
    let index: Int
    if resolver.version != resolverVersion {
      resolverVersion = resolver.version
      namingGeneration += 1
    }
    let side = conn.id << 1 | (isHostServer(record, att.opcode) ? 1 : 0)
    if let known = recentServers.value(for: side, version: namingGeneration) {
      index = known
    } else {
      index = server(for: serverKey(conn, record: record, opcode: att.opcode, resolver: &resolver))
      // `serverKey` may have changed the resolver (its first use of a key).
      if resolver.version != resolverVersion {
        resolverVersion = resolver.version
        namingGeneration += 1
      }
      recentServers.set(index, for: side, version: namingGeneration)
    }
    let bearer = Bearer(connection: conn.id, cid: l2cap.cid)
    // `analyzed` changes below, so the payload is reached without borrowing it.
    DecodedRecord.withPayloadBytes(analyzed.decoded.reassembled, record) { bytes in
      // The database changes in place in the array, so its tables are not copied.
      analyzed.learnedAttributes = Self.learn(att, bytes, analyzed.exchange, into: &servers[index].database)
      if let handle = analyzed.attHandle ?? att.handle, !Self.searchesRange(att) {
        analyzed.attributeReference = servers[index].database.lookupReference(handle, names: library)
        analyzed.awaitsName = analyzed.withAttribute { $0.uuid == nil } ?? true
      }
      assemble(record, att, bytes, bearer, server: index, &analyzed)
      decodeValue(att, bytes, &analyzed)
      if att.opcode == .handleValueIndication, analyzed.attribute?.uuid == Self.serviceChanged,
        case .handleValue(_, let value) = att.parameters, let start = bytes.littleEndianUInt16(at: value.start),
        let end = bytes.littleEndianUInt16(at: value.start + 2), value.count >= 4, start <= end
      {
        servers[index].database.invalidate(start...end)
      }
    }
  }

  /// Names the attribute of a PDU analyzed before its server's database knew it
  /// (`AnalyzedRecord.awaitsName`), from what discovery taught since, and decodes its
  /// value; false while the database still does not name it.
  public mutating func name(
    _ record: Record, _ analyzed: inout AnalyzedRecord, resolver: inout AddressResolver
  ) -> Bool {
    guard let att = analyzed.decoded.att, let conn = analyzed.conn, let handle = analyzed.attHandle ?? att.handle
    else { return true }
    let index = server(for: serverKey(conn, record: record, opcode: att.opcode, resolver: &resolver))
    guard let attribute = servers[index].database.lookup(handle, names: library), attribute.uuid != nil else {
      return false
    }
    analyzed.attribute = attribute
    analyzed.awaitsName = false
    DecodedRecord.withPayloadBytes(analyzed.decoded.reassembled, record) { bytes in
      decodeValue(att, bytes, &analyzed)
    }
    return true
  }

  static let serviceChanged = BluetoothUUID(uuid16: 0x2A05)
  /// Prepare Write Requests a queue holds before Execute Write (a 512-byte value in
  /// 18-byte parts needs 29).
  static let maxQueuedWrites = 4_096

  /// A request over a handle range, or the Error Response to one: its handle is where
  /// a search starts, not an attribute.
  static func searchesRange(_ att: ATTPDU) -> Bool {
    switch att.requestOpcode ?? att.opcode {
    case .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest: true
    default: false
    }
  }

  // MARK: - Servers

  /// Whether the record's PDU is about this host's own server: a response,
  /// notification or indication it sent, or a request it received.
  private func isHostServer(_ record: Record, _ opcode: ATTOpcode) -> Bool {
    let fromServer =
      switch opcode.kind {
      case .response, .error, .notification, .indication: true
      default: false
      }
    return fromServer == (record.direction == .sent) && record.direction != nil
  }

  /// The server is whoever sends responses, notifications and indications: the peer,
  /// unless the host sent them (a capture on the peripheral's side). A peer is known by
  /// its identity address when an IRK resolves its private address.
  private mutating func serverKey(
    _ conn: ConnectionRef, record: Record, opcode: ATTOpcode, resolver: inout AddressResolver
  ) -> GATTServerKey {
    // An unknown address is the one --peer gives, or the one imported database's if there
    // is only one.
    let onlyImported = imported.count == 1 ? imported.keys.first : nil
    if isHostServer(record, opcode) {
      let address = localAddresses[record.adapter] ?? onlyImported
      return GATTServerKey(address: address, isLocal: true, adapter: record.adapter)
    }
    guard var peer = conn.peer ?? assumedPeers.peer(ofHandle: conn.handle) ?? onlyImported else {
      return GATTServerKey(address: nil, isLocal: false, adapter: record.adapter, connection: conn.id)
    }
    // Peer_Address_Type 0x01: a random device address, maybe resolvable.
    if conn.peerType == 0x01, let key = resolver.resolve(peer, isRandom: true) {
      // Without an identity address (an --irk alone), the first address the key resolved.
      peer = key.identity ?? firstResolved[key.irk, default: peer]
      firstResolved[key.irk] = peer
    }
    let key = GATTServerKey(address: peer, isLocal: false)
    let previous = peerKeys[conn.id]
    guard previous != key else { return key }
    if let previous, let index = serverIndex[previous], serverIndex[key] == nil {
      // The same server, now known by its identity: rename what was learned so far.
      servers[index].key = key
      serverIndex[previous] = nil
      serverIndex[key] = index
      lastServer = nil
    }
    peerKeys[conn.id] = key
    return key
  }

  private mutating func server(for key: GATTServerKey) -> Int {
    // Records come in runs on one connection: the last server found is likely the next.
    if let lastServer, lastServer.key == key { return lastServer.index }
    if let index = serverIndex[key] {
      lastServer = (key, index)
      return index
    }
    let database = key.address.flatMap { imported[$0] } ?? GATTDatabase()
    servers.append(GATTServer(key: key, database: database))
    serverIndex[key] = servers.count - 1
    return servers.count - 1
  }

  // MARK: - Discovery

  /// Adds what a discovery response says to `database` (Core 6.0, Vol 3, Part G, 4.4–4.7);
  /// true when it said anything.
  private static func learn(
    _ att: ATTPDU, _ bytes: UnsafeRawBufferPointer, _ exchange: ATTExchange?, into database: inout GATTDatabase
  ) -> Bool {
    var learned = false
    GATTDiscovered.forEach(in: att, bytes, exchange) { entry in
      if case .range = entry { return }
      learned = true
      switch entry {
      case .service(let service): database.add(service)
      case .characteristic(let characteristic): database.add(characteristic)
      case .include(let include): database.add(include)
      case .descriptor(let handle, let uuid): database.addInformation(handle: handle, uuid: uuid)
      case .range: break
      }
    }
    return learned
  }

  // MARK: - Long values

  /// Long reads complete with the first Read Blob Response shorter than ATT_MTU − 1
  /// (or an Error Response to a Read Blob); prepared writes with an Execute Write
  /// Request that writes (Core 6.0, Vol 3, Part G, 4.8.3 and 4.9.4).
  private mutating func assemble(
    _ record: Record, _ att: ATTPDU, _ bytes: UnsafeRawBufferPointer, _ bearer: Bearer, server: Int,
    _ analyzed: inout AnalyzedRecord
  ) {
    let full = Int(analyzed.mtu ?? ATTPDU.minimumMTU) - 1
    let cid = bearer.cid
    switch att.parameters {
    case .value(let range) where att.opcode == .readResponse:
      guard let handle = analyzed.exchange?.handle else { return }
      if range.count >= full {
        links[bearer.connection, default: LinkState()].longReads[cid] = AssembledValue(
          handle: handle, value: bytes.copy(range), frames: [record.frame], attribute: analyzed.attribute)
      } else {
        links[bearer.connection]?.longReads[cid] = nil
      }
    case .value(let range) where att.opcode == .readBlobResponse:
      guard let handle = analyzed.exchange?.handle, let offset = analyzed.exchange?.requestOffset else { return }
      var read = links[bearer.connection]?.longReads[cid]
      if read?.handle != handle || read.map({ $0.value.count != Int(offset) }) ?? true {
        // No Read Response before it (or a gap): a read that starts here.
        guard offset == 0 else { return }
        read = AssembledValue(handle: handle, value: [], frames: [], attribute: analyzed.attribute)
      }
      read!.value += bytes.copy(range)
      read!.frames.append(record.frame)
      if range.count >= full {
        links[bearer.connection, default: LinkState()].longReads[cid] = read
      } else {
        links[bearer.connection]?.longReads[cid] = nil
        analyzed.assembled = [read!]
      }
    case .error(let request, let handle, _) where request == .readBlobRequest:
      guard let read = links[bearer.connection]?.longReads[cid], read.handle == handle else { return }
      links[bearer.connection]?.longReads[cid] = nil
      analyzed.assembled = [read]
    case .prepareWrite(let handle, let offset, let value) where att.opcode == .prepareWriteRequest:
      guard links[bearer.connection]?.preparedWrites[cid]?.count ?? 0 < Self.maxQueuedWrites else {
        analyzed.decoded.diagnostics.append(
          Diagnostic(
            id: "gatt.queue.limit", severity: .warning,
            "the prepared write queue holds \(Self.maxQueuedWrites) requests, the limit: this one is not assembled"))
        return
      }
      links[bearer.connection, default: LinkState()].preparedWrites[cid, default: []].append(
        (handle, offset, bytes.copy(value), record.frame))
    case .executeWrite(let flags):
      guard let queue = links[bearer.connection]?.preparedWrites[cid] else { return }
      links[bearer.connection]?.preparedWrites[cid] = nil
      guard flags == 0x01 else { return }
      var values: [AssembledValue] = []
      for part in queue {
        var index = values.firstIndex { $0.handle == part.handle }
        if index == nil {
          values.append(
            AssembledValue(
              handle: part.handle, value: [], frames: [],
              attribute: servers[server].database.attribute(at: part.handle, names: library)
            ))
          index = values.count - 1
        }
        let start = Int(part.offset)
        if values[index!].value.count < start + part.value.count {
          values[index!].value += [UInt8](repeating: 0, count: start + part.value.count - values[index!].value.count)
        }
        values[index!].value.replaceSubrange(start..<start + part.value.count, with: part.value)
        values[index!].frames.append(part.frame)
      }
      analyzed.assembled = values
    default:
      break
    }
    for index in analyzed.assembled.indices {
      let value = analyzed.assembled[index]
      analyzed.assembled[index].decoded = value.attribute?.format?.decode(value.value)
    }
  }

  // MARK: - Values

  /// Decodes the value of a PDU about a characteristic value or descriptor with its
  /// Dissectors/ format (`att.decoded`). Parts of long values (Read Blob, Prepare Write)
  /// are decoded once assembled; a Read Response that may continue in Read Blobs is
  /// decoded without a complaint about a short value.
  private func decodeValue(_ att: ATTPDU, _ bytes: UnsafeRawBufferPointer, _ analyzed: inout AnalyzedRecord) {
    // Most attributes have no format: that is found without copying one.
    guard analyzed.withAttribute({ $0.format != nil }) == true, let format = analyzed.attribute?.format else { return }
    let range: ByteRange
    switch att.parameters {
    case .handleValue(_, let value), .signedWrite(_, let value, _): range = value
    case .value(let value) where att.opcode == .readResponse: range = value
    default: return
    }
    guard let result = format.decode(bytes.copy(range)) else { return }
    analyzed.value = result
    let maybeLong = att.opcode == .readResponse && range.count >= Int(analyzed.mtu ?? ATTPDU.minimumMTU) - 1
    if let diagnostic = result.diagnostic, !(maybeLong && diagnostic.id == "att.decoded.truncated"),
      analyzed.decoded.l2cap?.isCut != true
    {
      analyzed.decoded.diagnostics.append(diagnostic)
    }
  }
}
