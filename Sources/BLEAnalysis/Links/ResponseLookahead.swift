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
/// At most `recordLimit` records or `byteLimit` bytes are held. Past that the oldest
/// waiting request goes out without its answer, with the diagnostic
/// `att.lookahead.limit`; the 30 s transaction timeout bounds the wait in time.
///
/// ```swift
/// var lookahead = ResponseLookahead()
/// while let record = source.next() {
///   lookahead.push(record, analyzer.analyze(record)) { record, analyzed in render(record, analyzed) }
/// }
/// lookahead.finish(analyzer.finish()) { record, analyzed in render(record, analyzed) }
/// ```
public struct ResponseLookahead {
  public static let defaultRecordLimit = 20_000
  public static let defaultByteLimit = 16 << 20

  private struct Held {
    var record: Record
    var analyzed: AnalyzedRecord
    /// A request or indication still waiting for its answer.
    var waiting: Bool
  }

  public let recordLimit: Int
  public let byteLimit: Int
  /// How many requests went out without their answer because the limits were reached.
  public private(set) var releasedAtLimit = 0

  /// The held records, a ring: `count` of them from `start`.
  private var slots: [Held?] = []
  private var start = 0
  private var count = 0
  /// The sequence number of the record at `start` (records are numbered as they are held).
  private var firstSequence = 0
  /// Requests waiting for their answer: frame → sequence number.
  private var pending: [Int: Int] = [:]
  private var heldBytes = 0
  private let arena = ByteArena()

  public init(recordLimit: Int = defaultRecordLimit, byteLimit: Int = defaultByteLimit) {
    precondition(recordLimit > 0 && byteLimit > 0)
    self.recordLimit = recordLimit
    self.byteLimit = byteLimit
  }

  /// How many records are held.
  public var heldCount: Int { count }

  /// Takes the next record; `emit` gets every record that can go out now, in order.
  public mutating func push(
    _ record: Record, _ analyzed: AnalyzedRecord, _ emit: (Record, AnalyzedRecord) throws -> Void
  ) rethrows {
    if count == 0 && !analyzed.awaitsAnswer {
      return try emit(record, analyzed)
    }
    if !pending.isEmpty {
      if let exchange = analyzed.exchange, let sequence = pending.removeValue(forKey: exchange.requestFrame) {
        update(sequence) { held in
          held.waiting = false
          held.analyzed.answer = ATTAnswer(
            frame: record.frame, opcode: analyzed.decoded.att?.opcode.rawValue ?? 0,
            latencyMicroseconds: exchange.latencyMicroseconds)
        }
      }
      for request in analyzed.unanswered {
        guard let sequence = pending.removeValue(forKey: request.frame) else { continue }
        update(sequence) { held in
          held.waiting = false
          held.analyzed.unansweredReason = request.reason
        }
      }
      try releaseSettled(emit)
    }
    if count == 0 && !analyzed.awaitsAnswer {
      return try emit(record, analyzed)
    }
    hold(record, analyzed)
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
      update(sequence) { held in
        held.waiting = false
        held.analyzed.unansweredReason = request.reason
      }
    }
    while count > 0 { try releaseFirst(emit) }
    pending = [:]
  }

  // MARK: - The ring

  private mutating func hold(_ record: Record, _ analyzed: AnalyzedRecord) {
    if count == slots.count { grow() }
    var copy = record
    copy.bytes = arena.copy(record.bytes)
    heldBytes += record.bytes.count
    let sequence = firstSequence + count
    slots[(start + count) & (slots.count - 1)] = Held(record: copy, analyzed: analyzed, waiting: analyzed.awaitsAnswer)
    count += 1
    if analyzed.awaitsAnswer { pending[record.frame] = sequence }
  }

  /// Doubles the ring (a power of two), keeping the order.
  private mutating func grow() {
    var bigger = [Held?](repeating: nil, count: max(64, slots.count * 2))
    for index in 0..<count {
      bigger[index] = slots[(start + index) & (slots.count - 1)].take()
    }
    slots = bigger
    start = 0
  }

  private mutating func update(_ sequence: Int, _ body: (inout Held) -> Void) {
    let index = (start + sequence - firstSequence) & (slots.count - 1)
    body(&slots[index]!)
  }

  /// The first held record goes out, and its bytes are freed.
  private mutating func releaseFirst(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    let held = slots[start].take()!
    start = (start + 1) & (slots.count - 1)
    count -= 1
    firstSequence += 1
    heldBytes -= held.record.bytes.count
    defer { arena.freeOldest() }
    try emit(held.record, held.analyzed)
  }

  /// Records go out from the first one up to the first request still waiting.
  private mutating func releaseSettled(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    while count > 0, slots[start]?.waiting == false { try releaseFirst(emit) }
  }

  /// Over the limits: the first held record (always a waiting request) goes out without
  /// its answer, then everything up to the next waiting request.
  private mutating func releaseOldestWaiting(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    if slots[start]!.waiting {
      let message =
        "shown before its answer: \(count - 1) records (\(heldBytes) bytes) came while it waited, "
        + "more than the \(recordLimit) records or \(byteLimit) bytes show holds back"
      slots[start]!.waiting = false
      slots[start]!.analyzed.decoded.diagnostics.append(
        Diagnostic(id: "att.lookahead.limit", severity: .info, message))
      pending[slots[start]!.record.frame] = nil
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
/// goes, so holding a record costs no allocation of its own.
private final class ByteArena {
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

  deinit {
    for chunk in chunks { chunk.memory.deallocate() }
    spare?.deallocate()
  }

  func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
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
  func freeOldest() {
    guard !chunks.isEmpty else { return }
    chunks[0].live -= 1
    guard chunks[0].live == 0 else { return }
    if chunks.count > 1 {
      retire(chunks.removeFirst().memory)
    } else {
      chunks[0].used = 0
    }
  }

  private func take(atLeast size: Int) -> UnsafeMutableRawBufferPointer {
    if size <= Self.chunkSize, let memory = spare {
      spare = nil
      return memory
    }
    return .allocate(byteCount: max(size, Self.chunkSize), alignment: 16)
  }

  private func retire(_ memory: UnsafeMutableRawBufferPointer) {
    if spare == nil, memory.count == Self.chunkSize {
      spare = memory
    } else {
      memory.deallocate()
    }
  }
}
