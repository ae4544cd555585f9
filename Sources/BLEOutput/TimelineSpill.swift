import BLEAnalysis

/// `timeline`'s output of one capture's connections, rendered as each retires from the
/// timeline builder (`TimelineBuilder.retires`) into a temporary file, so that memory
/// keeps only where each piece is and how it sorts, not the connections, their
/// transactions and pairs. What only the end of the capture tells (the reconnect of a
/// connection that retired before its peer came back, the transfer verdicts, the
/// attempts and their peer names) is written between the pieces when they are copied out.
public final class TimelineSpill: @unchecked Sendable {
  /// A retired connection's output: before its reconnect, then the rest (text: up to
  /// the transfer verdicts, then its security summary).
  struct Connection {
    var id: Int
    /// Where it sorts among connections and attempts (`ConnectionTimeline.itemKey`).
    var key: Int
    var head: SpillFile.Piece
    var tail: SpillFile.Piece
    var security: SpillFile.Piece?
    var reconnect: (gap: Int64, next: Int)?
    /// Text: the transfer verdicts are in `tail` (otherwise they come from the end's report).
    var verdicts = false
  }

  /// What JSON's sections take from the spill.
  enum Section {
    case connections
    case transactions
    case pairs
  }

  let format: RenderFormat
  let verbose: Bool
  let file: String?
  private let spill: SpillFile
  private var connections: [Connection] = []
  private var index = ConnectionIndex()
  /// JSON, NDJSON: each connection's transactions in request order, and its pairs in
  /// write order, one run each.
  private var transactions = SpillRuns()
  private var pairs = SpillRuns()
  /// The capture's first record's time (text's times count from it): set before the
  /// first connection retires.
  public var start: Int64?

  /// `file`: the capture's path when several are read. Nil when no temporary file can be made.
  public init?(format: RenderFormat, verbose: Bool, file: String?) {
    guard let spill = SpillFile() else { return nil }
    self.spill = spill
    self.format = format
    self.verbose = verbose
    self.file = file
  }

  /// Transactions and pairs written to the file, for tests.
  public var piecesWritten: Int { transactions.count + pairs.count }

  /// A connection that retired (in the order they began); text: `throughput` has its
  /// transfers when they are all judged (`ThroughputBuilder.retire(connection:)`).
  public func add(_ c: ConnectionTimeline, throughput: ThroughputReport? = nil) {
    index.add(c)
    let reconnect = c.reconnectGapMicroseconds.flatMap { gap in c.reconnectedAs.map { (gap, $0) } }
    switch format {
    case .text:
      let head = spill.write { TimelineText.appendHead(c, start: start ?? 0, verbose: verbose, into: &$0) }
      let tail = spill.write {
        TimelineText.appendSummary(c, into: &$0)
        TimelineText.appendThroughput(throughput, id: c.ref.id, verbose: verbose, into: &$0)
      }
      let security = spill.write { TimelineText.appendSecurity(c, into: &$0) }
      connections.append(
        Connection(
          id: c.ref.id, key: c.itemKey, head: head, tail: tail, security: security, reconnect: reconnect,
          verdicts: throughput != nil))
    case .json, .ndjson:
      let tagged = format == .ndjson
      var keys = JSONKeys()
      let head = spill.write { keys = TimelineJSON.appendHead(c, file: file, type: tagged, into: &$0) }
      let tail = spill.write {
        TimelineJSON.appendTail(c, &keys, into: &$0)
        if tagged { $0.append("\n") }
      }
      connections.append(
        Connection(id: c.ref.id, key: c.itemKey, head: head, tail: tail, security: nil, reconnect: reconnect))
      var own = ConnectionIndex()
      own.add(c)
      transactions.begin(at: spill.offset)
      for transaction in c.transactions {
        let piece = spill.write {
          TimelineJSON.appendTransaction(transaction, file: file, own, type: tagged, into: &$0)
          if tagged { $0.append("\n") }
        }
        transactions.add(key: transaction.request.frame, piece)
      }
      pairs.begin(at: spill.offset)
      let inOrder = c.pairs.indices.sorted { (c.pairs[$0].write.frame, $0) < (c.pairs[$1].write.frame, $1) }
      for pair in inOrder.map({ c.pairs[$0] }) {
        let piece = spill.write {
          TimelineJSON.appendPair(pair, file: file, own, type: tagged, into: &$0)
          if tagged { $0.append("\n") }
        }
        pairs.add(key: pair.write.frame, piece)
      }
    }
  }

  /// The connections of `timeline` (none once every one retired) and those retired.
  func index(of timeline: Timeline) -> ConnectionIndex {
    var all = index
    for connection in timeline.connections { all.add(connection) }
    return all
  }

  /// The reconnect of retired connection `c`, known when it retired or since.
  private func reconnect(_ c: Connection, _ timeline: Timeline) -> (gap: Int64?, next: Int?) {
    let known = c.reconnect ?? timeline.retiredReconnects[c.id].map { ($0.gapMicroseconds, $0.next) }
    return (known?.gap, known?.next)
  }

  /// Text: the story (`TimelineText.append`) from the retired connections and `timeline`'s attempts.
  func appendText(_ timeline: Timeline, throughput: ThroughputReport?, color: Bool, into out: inout OutputBuffer) {
    var reader = spill.reader()
    let start = timeline.start ?? 0
    let items = timeline.items(connectionKeys: connections.map(\.key), allAttempts: false)
    LinePainter.painted(color, into: &out) { out in
      for event in timeline.adapterEvents { TimelineText.appendAdapterEvent(event, start: start, into: &out) }
      if !timeline.adapterEvents.isEmpty { out.append("\n") }
      if items.isEmpty { out.append("no connections in the capture\n") }
    }
    for item in items {
      LinePainter.painted(color, into: &out) { out in
        switch item {
        case .connection(let i):
          let c = connections[i]
          reader.copy(c.head, into: &out)
          let reconnect = reconnect(c, timeline)
          TimelineText.appendReconnect(gap: reconnect.gap, next: reconnect.next, into: &out)
          reader.copy(c.tail, into: &out)
          if !c.verdicts { TimelineText.appendThroughput(throughput, id: c.id, verbose: verbose, into: &out) }
          if let security = c.security { reader.copy(security, into: &out) }
        case .attempt(let i): TimelineText.appendAttempt(timeline.attempts[i], start: start, into: &out)
        }
      }
      out.flush()
    }
  }

  /// NDJSON: the lines of `TimelineJSON.appendLines`.
  func appendLines(_ timeline: Timeline, into out: inout OutputBuffer) {
    let all = index(of: timeline)
    var reader = spill.reader()
    for item in timeline.items(connectionKeys: connections.map(\.key), allAttempts: true) {
      switch item {
      case .connection(let i):
        appendConnection(connections[i], timeline, reader: &reader, into: &out)
      case .attempt(let i):
        TimelineJSON.appendAttempt(timeline.attempts[i], file: file, all, type: true, into: &out)
        out.append("\n")
      }
      out.flush()
    }
    for runs in [transactions, pairs] {
      runs.merged { piece in
        reader.copy(piece, into: &out)
        return out.flush()
      }
    }
    for event in timeline.adapterEvents {
      TimelineJSON.appendAdapterEvent(event, file: file, type: true, into: &out)
      out.append("\n")
    }
  }

  private func appendConnection(
    _ c: Connection, _ timeline: Timeline, reader: inout SpillFile.Reader, into out: inout OutputBuffer
  ) {
    reader.copy(c.head, into: &out)
    var keys = JSONKeys(following: 1)
    let reconnect = reconnect(c, timeline)
    TimelineJSON.appendReconnect(gap: reconnect.gap, next: reconnect.next, &keys, into: &out)
    reader.copy(c.tail, into: &out)
  }

  /// JSON: a section's items from the spill, each after a comma but the very first.
  func copy(_ section: Section, timeline: Timeline, first: inout Bool, into out: inout OutputBuffer) {
    var reader = spill.reader()
    func separate() {
      if !first { out.append(",") }
      first = false
    }
    switch section {
    case .connections:
      for c in connections {
        separate()
        appendConnection(c, timeline, reader: &reader, into: &out)
        out.flush()
      }
    case .transactions, .pairs:
      (section == .pairs ? pairs : transactions).merged { piece in
        separate()
        reader.copy(piece, into: &out)
        return out.flush()
      }
    }
  }
}
