import BLECapture
import BLEDissect

/// Holds analyzed records back while a request or indication waits for its answer, so
/// that the request can name its answer (`answer`) or say why it got none
/// (`unansweredReason`) when it is shown. Records come out in the order they went in.
///
/// While nothing waits, a record goes straight through: nothing is copied or allocated.
/// From a record that awaits an answer on, every record is held until every held request
/// is settled: a later record answers it (its `exchange` names it), a later record lists
/// it in `unanswered` (timeout, disconnection, superseded), or the capture ends
/// (`finish`). `Record.bytes` is only valid until the source's next record, so a held
/// record's bytes are copied into memory the lookahead owns, with the same layout
/// (`DecodedRecord`'s byte ranges stay valid), and freed once the record is out.
///
/// A PDU about an attribute its server's database does not name yet (a handle the
/// stack wrote from its cache before it rediscovered) is held the same way, until a
/// later discovery response on its connection names it (`heldAwaitingName`, `named`),
/// the connection ends, or `nameWaitMicroseconds` pass: it is named from the discovery
/// that follows, as tshark does.
///
/// At most `recordLimit` records or `byteLimit` bytes are held. Past that the oldest
/// waiting request goes out without its answer, with the diagnostic
/// `att.lookahead.limit`; the 30 s transaction timeout bounds the wait in time.
///
/// Noncopyable: it owns the held records and their bytes, and frees them when it goes.
///
/// ```swift
/// var lookahead = ResponseLookahead()
/// while let record = source.next() {
///   lookahead.push(record, analyzer.analyze(record)) { record, analyzed in render(record, analyzed) }
/// }
/// lookahead.finish(analyzer.finish()) { record, analyzed in render(record, analyzed) }
/// ```
public struct ResponseLookahead: ~Copyable {
  public static let defaultRecordLimit = 20_000
  public static let defaultByteLimit = 16 << 20
  /// How long a PDU waits for the discovery that names its attribute: as long as a
  /// request waits for its answer (the ATT transaction timeout).
  public static let nameWaitMicroseconds: Int64 = 30_000_000

  /// Why a held record waits, as bits.
  private static let forAnswer: UInt8 = 1
  private static let forName: UInt8 = 2

  /// A record and its analysis, where they wait: the pipeline analyzes each record in
  /// the slot `nextSlot()` gives, so that holding it costs no copy.
  public struct Held {
    public var record: Record
    public var analyzed: AnalyzedRecord
  }

  public let recordLimit: Int
  public let byteLimit: Int
  /// How many requests went out without their answer because the limits were reached.
  public private(set) var releasedAtLimit = 0

  /// The held records, a ring of `capacity` (a power of two): `count` of them from `start`.
  private var slots: UnsafeMutablePointer<Held>
  /// For each slot, what it still waits for (`forAnswer`, `forName`); 0 once it can go.
  private var waiting: UnsafeMutablePointer<UInt8>
  private var capacity = 0
  private var start = 0
  private var count = 0
  /// The sequence number of the record at `start` (records are numbered as they are held).
  private var firstSequence = 0
  /// Requests waiting for their answer: frame → sequence number.
  private var pending: [Int: Int] = [:]
  /// PDUs waiting for a name: connection id → sequence numbers.
  private var unnamed: [Int: [Int]] = [:]
  private var heldBytes = 0
  private var arena = ByteArena()

  public init(recordLimit: Int = defaultRecordLimit, byteLimit: Int = defaultByteLimit) {
    precondition(recordLimit > 0 && byteLimit > 0)
    assert(_isPOD(Held.self), "held records are moved by copying")
    self.recordLimit = recordLimit
    self.byteLimit = byteLimit
    slots = .allocate(capacity: 0)
    waiting = .allocate(capacity: 0)
  }

  deinit {
    slots.deallocate()
    waiting.deallocate()
    arena.deallocate()
  }

  /// How many records are held.
  public var heldCount: Int { count }

  /// Takes the next record; `emit` gets every record that can go out now, in order.
  public mutating func push(
    _ record: Record, _ analyzed: consuming AnalyzedRecord, _ emit: (Record, AnalyzedRecord) throws -> Void
  ) rethrows {
    let slot = nextSlot()
    slot.pointee = Held(record: record, analyzed: analyzed)
    try commit(emit)
  }

  /// Where the next record is to be analyzed, after the held ones; `commit` takes it.
  public mutating func nextSlot() -> UnsafeMutablePointer<Held> {
    if count == capacity { grow() }
    return slots + ((start + count) & (capacity - 1))
  }

  /// Takes the record in `nextSlot()`; `emit` gets every record that can go out now, in
  /// order. A record that need not wait goes out from its slot.
  public mutating func commit(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    let slot = slots + ((start + count) & (capacity - 1))
    if count == 0 && !slot.pointee.analyzed.awaitsAnswer && !slot.pointee.analyzed.awaitsName {
      return try emit(slot.pointee.record, slot.pointee.analyzed)
    }
    if !unnamed.isEmpty { stopWaitingForNames(after: slot.pointee) }
    if !pending.isEmpty {
      if let exchange = slot.pointee.analyzed.exchange,
        let sequence = pending.removeValue(forKey: exchange.requestFrame)
      {
        let answer = ATTAnswer(
          frame: slot.pointee.record.frame, opcode: slot.pointee.analyzed.decoded.att?.opcode.rawValue ?? 0,
          latencyMicroseconds: exchange.latencyMicroseconds)
        settle(sequence).pointee.analyzed.answer = answer
      }
      if slot.pointee.analyzed.extrasID != 0 {
        for request in slot.pointee.analyzed.unanswered {
          guard let sequence = pending.removeValue(forKey: request.frame) else { continue }
          settle(sequence).pointee.analyzed.unansweredReason = request.reason
        }
      }
    }
    try releaseSettled(emit)
    if count == 0 && !slot.pointee.analyzed.awaitsAnswer && !slot.pointee.analyzed.awaitsName {
      return try emit(slot.pointee.record, slot.pointee.analyzed)
    }
    hold(slot)
    while count > recordLimit || heldBytes > byteLimit {
      try releaseOldestWaiting(emit)
    }
  }

  /// Ends the capture: `unanswered` (`Analyzer.finish()`) settles the requests still
  /// waiting, and every held record goes out.
  public mutating func finish(
    _ unanswered: [UnansweredRequest], _ emit: (Record, AnalyzedRecord) throws -> Void
  ) rethrows {
    for request in unanswered {
      guard let sequence = pending.removeValue(forKey: request.frame) else { continue }
      settle(sequence).pointee.analyzed.unansweredReason = request.reason
    }
    try releaseAll(emit)
  }

  /// Every held record goes out now, the requests still waiting without their answer:
  /// for live output, which cannot wait long.
  public mutating func releaseAll(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    pending = [:]
    unnamed = [:]
    while count > 0 { try releaseFirst(emit) }
  }

  // MARK: - Names

  /// The held PDUs of connection `id` that wait for a name, with their sequence numbers
  /// for `named`: a discovery response on that connection may name them now.
  public func heldAwaitingName(onConnection id: Int) -> [(sequence: Int, held: UnsafeMutablePointer<Held>)] {
    guard let sequences = unnamed[id] else { return [] }
    return sequences.map { ($0, slots + ((start + $0 - firstSequence) & (capacity - 1))) }
  }

  /// The PDU held as `sequence` has its name.
  public mutating func named(_ sequence: Int, onConnection id: Int) {
    waiting[(start + sequence - firstSequence) & (capacity - 1)] &= ~Self.forName
    unnamed[id]?.removeAll { $0 == sequence }
    if unnamed[id]?.isEmpty == true { unnamed[id] = nil }
  }

  /// The record `next` ends the wait of PDUs whose connection it ends, and of those
  /// that waited `nameWaitMicroseconds` before it.
  private mutating func stopWaitingForNames(after next: Held) {
    if let ended = next.analyzed.endedConnection, let sequences = unnamed.removeValue(forKey: ended.id) {
      for sequence in sequences { waiting[(start + sequence - firstSequence) & (capacity - 1)] &= ~Self.forName }
    }
    let now = next.record.timestamp.unixMicroseconds
    for (id, sequences) in unnamed {
      for sequence in sequences {
        let held = slots + ((start + sequence - firstSequence) & (capacity - 1))
        guard held.pointee.record.timestamp.unixMicroseconds + Self.nameWaitMicroseconds <= now else { break }
        named(sequence, onConnection: id)
      }
    }
  }

  // MARK: - The ring

  /// The record in `slot` (the one after the held ones) is held: its bytes are copied,
  /// since the source reuses them.
  private mutating func hold(_ slot: UnsafeMutablePointer<Held>) {
    let bytes = slot.pointee.record.bytes
    slot.pointee.record.bytes = arena.copy(bytes)
    heldBytes += bytes.count
    let index = (start + count) & (capacity - 1)
    let sequence = firstSequence + count
    var waits: UInt8 = 0
    if slot.pointee.analyzed.awaitsAnswer {
      pending[slot.pointee.record.frame] = sequence
      waits |= Self.forAnswer
    }
    if slot.pointee.analyzed.awaitsName, let conn = slot.pointee.analyzed.conn {
      unnamed[conn.id, default: []].append(sequence)
      waits |= Self.forName
    }
    waiting[index] = waits
    count += 1
  }

  /// Doubles the ring, keeping the order. Held records are plain values (no
  /// reference-counted member), moved by copying.
  private mutating func grow() {
    let bigger = max(64, capacity * 2)
    let newSlots = UnsafeMutablePointer<Held>.allocate(capacity: bigger)
    let newWaiting = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
    for offset in 0..<count {
      let index = (start + offset) & (capacity - 1)
      (newSlots + offset).initialize(to: slots[index])
      newWaiting[offset] = waiting[index]
    }
    slots.deallocate()
    waiting.deallocate()
    slots = newSlots
    waiting = newWaiting
    capacity = bigger
    start = 0
  }

  /// The request held as `sequence` waits no more for its answer; the caller says how it ended.
  private mutating func settle(_ sequence: Int) -> UnsafeMutablePointer<Held> {
    let index = (start + sequence - firstSequence) & (capacity - 1)
    waiting[index] &= ~Self.forAnswer
    return slots + index
  }

  /// The first held record goes out (emitted in place, not copied), and its bytes' memory is freed.
  private mutating func releaseFirst(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    let slot = slots + start
    start = (start + 1) & (capacity - 1)
    count -= 1
    firstSequence += 1
    heldBytes -= slot.pointee.record.bytes.count
    defer { arena.freeOldest() }
    try emit(slot.pointee.record, slot.pointee.analyzed)
  }

  /// Records go out from the first one up to the first request still waiting.
  private mutating func releaseSettled(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    while count > 0, waiting[start] == 0 { try releaseFirst(emit) }
  }

  /// Over the limits: the first held record (always a waiting one) goes out without
  /// its answer or name, then everything up to the next waiting record.
  private mutating func releaseOldestWaiting(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    if waiting[start] & Self.forName != 0, let conn = slots[start].analyzed.conn {
      named(firstSequence, onConnection: conn.id)
    }
    if waiting[start] & Self.forAnswer != 0 {
      let message =
        "shown before its answer: \(count - 1) records (\(heldBytes) bytes) came while it waited, "
        + "more than the \(recordLimit) records or \(byteLimit) bytes show holds back"
      let slot = settle(firstSequence)
      pending[slot.pointee.record.frame] = nil
      slot.pointee.analyzed.decoded.diagnostics.append(
        Diagnostic(id: "att.lookahead.limit", severity: .info, message))
      releasedAtLimit += 1
    }
    try releaseFirst(emit)
    try releaseSettled(emit)
  }
}

extension AnalyzedRecord {
  /// How a request or indication ended, once `ResponseLookahead` knows: `ok` (answered),
  /// `error` (an Error Response), `timeout` (no answer in 30 s), `unanswered` (the link
  /// went down, another request replaced it, or the capture ended). Nil for other PDUs.
  public var outcome: String? {
    if let answer { return answer.opcode == ATTOpcode.errorResponse.rawValue ? "error" : "ok" }
    guard let unansweredReason else { return nil }
    return unansweredReason == .timeout ? "timeout" : "unanswered"
  }
}

/// Memory for the bytes of held records, handed out and given back first in, first out:
/// chunks used one after the other, each freed (and kept for reuse) when its last record
/// goes, so holding a record costs no allocation of its own. Its owner calls
/// `deallocate()`.
private struct ByteArena {
  private struct Chunk {
    var memory: UnsafeMutableRawBufferPointer
    var used = 0
    /// Copies handed out and not yet freed.
    var live = 0
  }

  static let chunkSize = 256 << 10

  /// The chunks in use, oldest first; copies are made in the last one.
  private var chunks: [Chunk] = []
  /// One chunk of `chunkSize` kept for reuse.
  private var spare: UnsafeMutableRawBufferPointer?

  func deallocate() {
    for chunk in chunks { chunk.memory.deallocate() }
    spare?.deallocate()
  }

  mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    if chunks.isEmpty || chunks[chunks.count - 1].used + bytes.count > chunks[chunks.count - 1].memory.count {
      if let last = chunks.last, last.live == 0 { retire(chunks.removeLast().memory) }
      chunks.append(Chunk(memory: take(atLeast: bytes.count)))
    }
    let last = chunks.count - 1
    let destination = UnsafeMutableRawBufferPointer(
      rebasing: chunks[last].memory[chunks[last].used..<chunks[last].used + bytes.count])
    destination.copyMemory(from: UnsafeRawBufferPointer(bytes))
    chunks[last].used += bytes.count
    chunks[last].live += 1
    return UnsafeBufferPointer(destination.bindMemory(to: UInt8.self))
  }

  /// Gives back the oldest copy still live (copies are freed in the order they were made).
  mutating func freeOldest() {
    guard !chunks.isEmpty else { return }
    chunks[0].live -= 1
    guard chunks[0].live == 0 else { return }
    if chunks.count > 1 {
      retire(chunks.removeFirst().memory)
    } else {
      chunks[0].used = 0
    }
  }

  private mutating func take(atLeast size: Int) -> UnsafeMutableRawBufferPointer {
    if size <= Self.chunkSize, let memory = spare {
      spare = nil
      return memory
    }
    return .allocate(byteCount: max(size, Self.chunkSize), alignment: 16)
  }

  private mutating func retire(_ memory: UnsafeMutableRawBufferPointer) {
    if spare == nil, memory.count == Self.chunkSize {
      spare = memory
    } else {
      memory.deallocate()
    }
  }
}
