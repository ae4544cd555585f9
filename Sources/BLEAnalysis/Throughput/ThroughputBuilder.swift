import BLECapture
import BLEDissect

/// Finds a capture's transfers from its analyzed records, follows the link and the
/// controller's buffers while they run, and judges each (`ThroughputVerdict`).
///
/// A transfer is a run of PDUs of one operation (`PayloadOperation`) on one attribute (or
/// CoC channel) of one connection, in one direction, with no pause longer than `pause`; a
/// change of the link (parameters, PHY, data length, ATT_MTU) between two of its PDUs
/// starts a new segment. Only what the ceilings need is kept per segment (sums, counts,
/// the largest value), never the PDUs; a connection's state goes when it ends.
public struct ThroughputBuilder {
  /// A pause longer than this ends a transfer, µs…
  public static let pauseFloor: Int64 = 250_000
  /// …or than this many effective intervals (interval × (Peripheral Latency + 1)).
  public static let pauseIntervals: Int64 = 8
  /// Runs with fewer PDUs are not transfers.
  public static let minimumPDUs = 3

  /// The longest gap a transfer can have on `link`, µs.
  public static func pause(_ link: LinkInForce) -> Int64 {
    guard let parameters = link.parameters else { return pauseFloor }
    return max(pauseFloor, pauseIntervals * parameters.interval.microseconds * (Int64(parameters.latency) + 1))
  }

  struct Key: Hashable {
    var conn: Int
    var handle: UInt16
    var operation: PayloadOperation
    var direction: PayloadDirection
  }

  struct ConnectionState {
    var ref: ConnectionRef
    var link = LinkInForce()
    var peerName: String?
    /// Waits for a buffer of the packets sent since this connection's last complete PDU.
    var waits: [Int64] = []
    var open: Set<Key> = []
  }

  /// Packets per interval window (`TransferSegment.pdusPerEventEstimate`).
  struct Window {
    var start: Int64?
    var count = 0
    var withData = 0
    var packets = 0

    mutating func add(_ packets: Int, at time: Int64, interval: Int64) {
      guard interval > 0 else { return }
      if let start, time >= start, time < start + interval {
        count += packets
        return
      }
      flush()
      if let start, time >= start {
        self.start = start + (time - start) / interval * interval
      } else {
        start = time
      }
      count = packets
    }

    mutating func flush() {
      if count > 0 {
        withData += 1
        self.packets += count
      }
      count = 0
    }

    var estimate: Double? { withData > 0 ? Double(packets) / Double(withData) : nil }
  }

  struct Open {
    var transfer: Transfer
    var serials: [UInt32]
    var windows: [Window]
    var lastPDU: FrameTime
    /// The link changed since the last PDU: the next one starts a segment.
    var change: LinkChange?
  }

  /// Runs too short to be transfers, per key: they still count in their series.
  struct ShortRuns {
    var runs = 0
    var payloadBytes = 0
    var pduCount = 0
    var busyMicroseconds: Int64 = 0
    var first: FrameTime
    var firstPDUBytes: Int
    var last: FrameTime
  }

  var report = ThroughputReport()
  var shortRuns: [Key: ShortRuns] = [:]
  var connections: [Int: ConnectionState] = [:]
  var open: [Key: Open] = [:]
  var bySerial: [UInt32: Key] = [:]
  var nextSerial: UInt32 = 1
  public private(set) var buffers = ControllerBuffers()
  /// What sending the record's ACL packet found.
  var lastSent: ControllerBuffers.Sent?

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    let at = FrameTime(record)
    lastSent = nil
    if let conn = analyzed.conn {
      if connections[conn.id] == nil { connections[conn.id] = ConnectionState(ref: conn) }
      if let name = analyzed.peerName?.name { connections[conn.id]?.peerName = name }
    }
    if let link = analyzed.link { self.link(link, record, analyzed, at) }
    if let connect = analyzed.decoded.ll?.advertising?.connect, let conn = analyzed.conn {
      let parameters = ConnectionParameters(
        interval: ConnectionInterval(units: connect.interval), latency: connect.latency,
        supervisionTimeout: SupervisionTimeout(units: connect.timeout))
      change(conn.id, at) {
        $0 = LinkInForce(); $0.parameters = parameters
      }
      androidBand(conn, parameters, at)
    }
    if analyzed.decoded.hci?.type == .acl, record.direction == .sent { sent(record, analyzed, at) }
    if let conn = analyzed.conn {
      if let signaling = analyzed.decoded.signaling,
        case .connectionParameterUpdateRequest(let min, let max, let latency, let timeout) = signaling.parameters
      {
        let request = ParameterRequest(intervalMin: min, intervalMax: max, latency: latency, timeout: timeout)
        let broken = AppleConnectionRule.broken(by: request)
        if !broken.isEmpty {
          report.findings.append(
            PlatformFinding(
              conn: conn, at: at,
              kind: .appleParameterRequest(request, broken: broken, byLocal: record.direction == .sent)))
        }
      }
      if let mtu = analyzed.mtu, mtu != connections[conn.id]?.link.mtu { change(conn.id, at) { $0.mtu = mtu } }
      if let pdu = PayloadPDU(record, analyzed) {
        payload(pdu, conn, record, analyzed, at)
      } else if record.direction == .sent, analyzed.decoded.l2cap != nil {
        connections[conn.id]?.waits = []
      }
      if let exchange = analyzed.exchange { answer(exchange, conn, record) }
    }
    if let ended = analyzed.endedConnection { end(ended) }
  }

  /// Ends the capture: every transfer still open is judged; series are put together.
  public mutating func finish() -> ThroughputReport {
    for key in open.keys.sorted(by: { open[$0]!.transfer.first < open[$1]!.transfer.first }) { close(key) }
    report.transfers.sort(by: Self.inOrder)
    report.series = Self.series(of: report.transfers, shortRuns: shortRuns)
    for i in report.findings.indices { report.findings[i].peerName = connections[report.findings[i].conn.id]?.peerName }
    connections = [:]
    return report
  }

  /// The report's order of transfers.
  static func inOrder(_ a: Transfer, _ b: Transfer) -> Bool {
    (a.first.frame, a.conn.id, a.subject.handle) < (b.first.frame, b.conn.id, b.subject.handle)
  }

  /// Connection `id`'s transfers and series, once it has ended and none of its transfers
  /// is open: they leave the builder (`finish`'s report has them no more), so that a
  /// caller that tells each connection as it ends (`timeline`) holds none. Nil while the
  /// connection is up.
  public mutating func retire(connection id: Int) -> ThroughputReport? {
    guard connections[id] == nil, !open.keys.contains(where: { $0.conn == id }) else { return nil }
    var retired = ThroughputReport()
    retired.transfers = report.transfers.filter { $0.conn.id == id }.sorted(by: Self.inOrder)
    report.transfers.removeAll { $0.conn.id == id }
    let short = shortRuns.filter { $0.key.conn == id }
    shortRuns = shortRuns.filter { $0.key.conn != id }
    retired.series = Self.series(of: retired.transfers, shortRuns: short)
    return retired
  }

  // MARK: - The link

  private mutating func link(_ link: LinkEvent, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    switch link {
    case .commandComplete(_, 0, .bufferSize(let le, let packets, let length)):
      buffers.bufferSize(adapter: record.adapter, le: le, packets: packets, length: length)
    case .completedPackets:
      completed(buffers.completed(adapter: record.adapter, LinkEvent.completedPackets(in: record), at: at))
    case .connectionComplete(let complete) where complete.status == 0:
      guard let conn = analyzed.conn else { return }
      connections[conn.id]?.link = LinkInForce()
      connections[conn.id]?.link.parameters = complete.parameters
      if let parameters = complete.parameters { androidBand(conn, parameters, at) }
    case .connectionUpdate(0, _, let parameters?), .air(.connectionUpdate(let parameters)):
      guard let conn = analyzed.conn else { return }
      change(conn.id, at) { $0.parameters = parameters }
      androidBand(conn, parameters, at)
    case .dataLengthChange(_, let length), .air(.dataLength(let length)):
      guard let conn = analyzed.conn else { return }
      change(conn.id, at) { $0.dataLength = length }
    case .phyUpdate(0, _, let tx, let rx):
      guard let conn = analyzed.conn else { return }
      change(conn.id, at) {
        $0.phyTX = LEPHY(rawValue: tx)
        $0.phyRX = LEPHY(rawValue: rx)
      }
    case .air(.phyUpdate(let centralToPeripheral, let peripheralToCentral)):
      // An air capture reads as the central's: its transmissions are central to peripheral.
      guard let conn = analyzed.conn else { return }
      change(conn.id, at) {
        $0.phyTX = LEPHY(llBits: centralToPeripheral) ?? $0.phyTX
        $0.phyRX = LEPHY(llBits: peripheralToCentral) ?? $0.phyRX
      }
    default:
      break
    }
  }

  /// Changes connection `id`'s link; each transfer open on it starts a new segment with
  /// its next PDU.
  private mutating func change(_ id: Int, _ at: FrameTime, _ update: (inout LinkInForce) -> Void) {
    guard var state = connections[id] else { return }
    let before = state.link
    update(&state.link)
    guard state.link != before else { return }
    connections[id] = state
    for key in state.open {
      guard var transfer = open[key] else { continue }
      let segmentLink = transfer.transfer.segments[transfer.transfer.segments.count - 1].link
      if var pending = transfer.change {
        pending.after = state.link
        pending.kinds = Self.kinds(from: pending.before, to: state.link)
        transfer.change = pending.kinds.isEmpty ? nil : pending
      } else {
        transfer.change = LinkChange(
          at: at, kinds: Self.kinds(from: segmentLink, to: state.link), before: segmentLink, after: state.link)
      }
      open[key] = transfer
    }
  }

  static func kinds(from a: LinkInForce, to b: LinkInForce) -> [LinkChange.Kind] {
    var kinds: [LinkChange.Kind] = []
    if a.parameters != b.parameters { kinds.append(.parameters) }
    if a.phyTX != b.phyTX || a.phyRX != b.phyRX { kinds.append(.phy) }
    if a.dataLength != b.dataLength { kinds.append(.dataLength) }
    if a.mtu != b.mtu { kinds.append(.mtu) }
    return kinds
  }

  private mutating func androidBand(_ conn: ConnectionRef, _ parameters: ConnectionParameters, _ at: FrameTime) {
    let band = AndroidConnectionPriority.band(of: parameters.interval)
    report.findings.append(PlatformFinding(conn: conn, at: at, kind: .androidPriority(parameters.interval, band)))
  }

  // MARK: - Controller buffers

  private mutating func sent(_ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime) {
    guard let acl = analyzed.decoded.acl else { return }
    // BR/EDR packets take LE buffers only when the two share them.
    if analyzed.conn?.isLE == false, buffers.pools[record.adapter]?.dedicated == true { return }
    let sent = buffers.sent(adapter: record.adapter, handle: acl.handle, at: at)
    lastSent = sent
    if let waited = sent.waited, let conn = analyzed.conn { connections[conn.id]?.waits.append(waited) }
  }

  private mutating func completed(_ packets: [ControllerBuffers.Completed]) {
    for packet in packets where packet.tag != 0 {
      guard let key = bySerial[packet.tag], var transfer = open[key],
        let s = transfer.serials.lastIndex(of: packet.tag)
      else { continue }
      let at = packet.sent.timestamp + packet.latency
      if var host = transfer.transfer.segments[s].host {
        host.completions += 1
        host.completionLatencySum += packet.latency
        host.completionLatencyMax = max(host.completionLatencyMax, packet.latency)
        transfer.transfer.segments[s].host = host
      }
      let interval = transfer.transfer.segments[s].link.parameters?.interval.microseconds ?? 0
      transfer.windows[s].add(1, at: at, interval: interval)
      open[key] = transfer
    }
  }

  // MARK: - Transfers

  private mutating func payload(
    _ pdu: PayloadPDU, _ conn: ConnectionRef, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    let key = Key(conn: conn.id, handle: pdu.handle, operation: pdu.operation, direction: pdu.direction)
    guard let state = connections[conn.id] else { return }
    if let running = open[key], running.lastPDU.microseconds(to: at) > Self.pause(state.link) { close(key) }
    var transfer: Open
    if let running = open[key] {
      transfer = running
      if let change = transfer.change {
        transfer.transfer.changes.append(change)
        transfer.change = nil
        startSegment(&transfer, at, state.link, key)
      }
    } else {
      transfer = Open(
        transfer: Transfer(
          conn: conn, operation: pdu.operation, direction: pdu.direction,
          subject: TransferSubject(handle: pdu.handle), segments: []),
        serials: [], windows: [], lastPDU: at)
      startSegment(&transfer, at, state.link, key)
      connections[conn.id]?.open.insert(key)
    }
    if transfer.transfer.subject.serviceUUID == nil && transfer.transfer.subject.characteristicUUID == nil {
      transfer.transfer.subject = Self.subject(pdu, analyzed)
    }
    transfer.lastPDU = at
    let s = transfer.transfer.segments.count - 1
    var segment = transfer.transfer.segments[s]
    if segment.pduCount == 0 { segment.firstPDUBytes = pdu.bytes }
    segment.payloadBytes += pdu.bytes
    segment.pduCount += 1
    segment.aclPacketCount += pdu.fragments
    segment.largestValue = max(segment.largestValue, pdu.bytes)
    segment.last = at
    let interval = segment.link.parameters?.interval.microseconds ?? 0
    if pdu.operation == .read, let exchange = analyzed.exchange {
      segment.answers += 1
      segment.answerLatencySum += exchange.latencyMicroseconds
      segment.busyMicroseconds += exchange.latencyMicroseconds
    } else if !pdu.operation.isAcknowledged {
      segment.busyMicroseconds += Self.airtime(pdu, segment.link)
    }
    if pdu.direction == .tx {
      let pool = buffers.pools[record.adapter]
      var host =
        segment.host ?? HostFacts(buffers: pool?.total, bufferOctets: pool?.octets, dedicated: pool?.dedicated ?? false)
      if let sent = lastSent {
        host.packets += 1
        host.creditsInUseSum += sent.inFlight
        host.creditsInUseMax = max(host.creditsInUseMax, sent.inFlight)
      }
      for wait in connections[conn.id]?.waits ?? [] {
        host.noCreditMicroseconds += wait
        if wait >= ControllerBuffers.reactionMicroseconds {
          host.stallCount += 1
          host.stalledMicroseconds += wait
          host.longestStallMicroseconds = max(host.longestStallMicroseconds, wait)
        }
      }
      segment.host = host
      connections[conn.id]?.waits = []
      if let acl = analyzed.decoded.acl {
        buffers.tagLast(pdu.fragments, adapter: record.adapter, handle: acl.handle, tag: transfer.serials[s])
      }
    } else {
      transfer.windows[s].add(pdu.fragments, at: at.timestamp, interval: interval)
    }
    transfer.transfer.segments[s] = segment
    open[key] = transfer
  }

  private mutating func startSegment(_ transfer: inout Open, _ at: FrameTime, _ link: LinkInForce, _ key: Key) {
    transfer.transfer.segments.append(TransferSegment(first: at, last: at, link: link))
    transfer.serials.append(nextSerial)
    transfer.windows.append(Window())
    bySerial[nextSerial] = key
    nextSerial &+= 1
    if nextSerial == 0 { nextSerial = 1 }
  }

  /// The air time the model gives one PDU of `pdu`'s size on `link`: its SDU's slots.
  static func airtime(_ pdu: PayloadPDU, _ link: LinkInForce) -> Int64 {
    let dataLength = max(link.dataLength(pdu.direction), ThroughputModel.defaultDataLength)
    var left = pdu.bytes + pdu.operation.headerOctets
    var microseconds: Int64 = 0
    repeat {
      microseconds += ThroughputModel.slot(octets: min(dataLength, left), phy: link.phy(pdu.direction))
      left -= dataLength
    } while left > 0
    return microseconds
  }

  static func subject(_ pdu: PayloadPDU, _ analyzed: AnalyzedRecord) -> TransferSubject {
    var subject = TransferSubject(handle: pdu.handle)
    if pdu.operation == .coc {
      subject.psm = analyzed.decoded.l2cap?.psm
      return subject
    }
    guard let attribute = analyzed.attribute else { return subject }
    subject.serviceUUID = attribute.service
    subject.serviceName = attribute.serviceName
    subject.characteristicUUID = attribute.characteristic
    subject.characteristicName = attribute.characteristicName
    if attribute.kind == .descriptor {
      subject.descriptorUUID = attribute.uuid
      subject.descriptorName = attribute.descriptorName
    }
    return subject
  }

  /// A response or confirmation: the answer to a PDU of an open acknowledged transfer.
  private mutating func answer(_ exchange: ATTExchange, _ conn: ConnectionRef, _ record: Record) {
    guard let operation = PayloadOperation.of(ATTOpcode(rawValue: exchange.requestOpcode)), operation != .read,
      operation.isAcknowledged, let handle = exchange.handle, let direction = record.direction
    else { return }
    let key = Key(conn: conn.id, handle: handle, operation: operation, direction: direction == .sent ? .rx : .tx)
    guard var transfer = open[key] else { return }
    let s = transfer.transfer.segments.count - 1
    transfer.transfer.segments[s].answers += 1
    transfer.transfer.segments[s].answerLatencySum += exchange.latencyMicroseconds
    transfer.transfer.segments[s].busyMicroseconds += exchange.latencyMicroseconds
    open[key] = transfer
  }

  /// The connection ended: its transfers are judged and its state goes.
  private mutating func end(_ ended: ConnectionRef) {
    for key in (connections[ended.id]?.open ?? []).sorted(by: { open[$0]!.transfer.first < open[$1]!.transfer.first }) {
      close(key)
    }
    buffers.disconnected(adapter: ended.adapter, handle: ended.handle)
    connections[ended.id] = nil
  }

  private mutating func close(_ key: Key) {
    guard var transfer = open.removeValue(forKey: key) else { return }
    for serial in transfer.serials { bySerial[serial] = nil }
    connections[key.conn]?.open.remove(key)
    guard transfer.transfer.pduCount >= Self.minimumPDUs else {
      let run = transfer.transfer
      var short =
        shortRuns[key]
        ?? ShortRuns(first: run.first, firstPDUBytes: run.segments[0].firstPDUBytes, last: run.last)
      short.runs += 1
      short.payloadBytes += run.payloadBytes
      short.pduCount += run.pduCount
      short.busyMicroseconds += run.busyMicroseconds
      short.last = run.last
      shortRuns[key] = short
      return
    }
    for s in transfer.transfer.segments.indices {
      transfer.windows[s].flush()
      transfer.transfer.segments[s].pdusPerEventEstimate = transfer.windows[s].estimate
      ThroughputVerdict.judge(
        &transfer.transfer.segments[s], operation: key.operation, direction: key.direction)
    }
    transfer.transfer.peerName = connections[key.conn]?.peerName
    report.transfers.append(transfer.transfer)
  }

  // MARK: - Series

  /// The transfers of one operation on one attribute and connection, when there are several
  /// (the runs too short to be transfers count in the totals).
  static func series(of transfers: [Transfer], shortRuns: [Key: ShortRuns]) -> [TransferSeries] {
    var groups: [Key: [Transfer]] = [:]
    var order: [Key] = []
    for transfer in transfers {
      let key = Key(
        conn: transfer.conn.id, handle: transfer.subject.handle, operation: transfer.operation,
        direction: transfer.direction)
      if groups[key] == nil { order.append(key) }
      groups[key, default: []].append(transfer)
    }
    return order.compactMap { key in
      guard let group = groups[key] else { return nil }
      let short = shortRuns[key]
      guard group.count > 1 else { return nil }
      let first = group[0]
      let last = group[group.count - 1]
      var series = TransferSeries(
        conn: first.conn, peerName: first.peerName, operation: first.operation, direction: first.direction,
        subject: first.subject,
        transferCount: group.count, runCount: group.count + (short?.runs ?? 0), first: first.first, last: last.last,
        payloadBytes: group.reduce(short?.payloadBytes ?? 0) { $0 + $1.payloadBytes },
        pduCount: group.reduce(short?.pduCount ?? 0) { $0 + $1.pduCount },
        firstPDUBytes: first.segments[0].firstPDUBytes,
        activeMicroseconds: group.reduce(0) { $0 + $1.spanMicroseconds },
        busyMicroseconds: group.reduce(short?.busyMicroseconds ?? 0) { $0 + $1.busyMicroseconds })
      if let short {
        if short.first < series.first {
          series.first = short.first
          series.firstPDUBytes = short.firstPDUBytes
        }
        if series.last < short.last { series.last = short.last }
      }
      series.bestCeiling = group.compactMap(\.ceiling).max()
      if let share = series.activeShare, share < ThroughputVerdict.majority {
        series.binding = .appPacing
      } else {
        var time: [ThroughputBinding: Int64] = [:]
        for transfer in group {
          for segment in transfer.segments {
            if let binding = segment.binding { time[binding, default: 0] += segment.spanMicroseconds }
          }
        }
        series.binding = time.max { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }?.key
      }
      return series
    }
  }
}
