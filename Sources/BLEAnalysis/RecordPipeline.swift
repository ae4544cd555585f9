import BLECapture
import BLEDissect

/// The per-record path every command takes: decode → analyze → lookahead → the
/// command's output (filter, render, write, or a builder that looks across records).
///
/// Each record is decoded and analyzed where it may have to wait for its answer, a slot
/// of the lookahead's ring, and goes out from there: a record is never copied on its
/// way. Once `emit` has seen a record, its extras are released.
///
/// ```swift
/// var pipeline = RecordPipeline(analyzer: Analyzer())
/// while let record = source.next() { pipeline.push(record) { record, analyzed in render(record, analyzed) } }
/// pipeline.finish { record, analyzed in render(record, analyzed) }
/// ```
public struct RecordPipeline: ~Copyable {
  /// What a pipeline does with each record before its output sees it.
  public enum Stages: Sendable {
    /// Decode only (`devices`): no connections, transactions or GATT.
    case decode
    /// Decode and analyze; each record goes out at once (`timeline`, `stats`, `gatt`).
    case analyze
    /// Decode and analyze, and hold requests back until their answer or the end of the
    /// wait is known (`show`, `live`), so that a request can name its answer.
    case holdForAnswers
  }

  public private(set) var analyzer: Analyzer
  public let stages: Stages
  /// Counts over the records so far.
  public private(set) var summary = CaptureSummary()
  private var lookahead: ResponseLookahead

  public init(
    analyzer: Analyzer, stages: Stages = .holdForAnswers, recordLimit: Int = ResponseLookahead.defaultRecordLimit,
    byteLimit: Int = ResponseLookahead.defaultByteLimit
  ) {
    self.analyzer = analyzer
    self.stages = stages
    lookahead = ResponseLookahead(recordLimit: recordLimit, byteLimit: byteLimit)
  }

  /// The time relative times start from: the capture's first record.
  public var start: Timestamp { summary.first ?? Timestamp(unixMicroseconds: 0) }

  /// Records held for an answer.
  public var heldCount: Int { lookahead.heldCount }
  /// Requests that went out without their answer because the lookahead was full.
  public var releasedAtLimit: Int { lookahead.releasedAtLimit }

  /// Takes the next record; `observe` sees it once analyzed, before anything goes out;
  /// `emit` gets every record that can go out now, in order.
  public mutating func push(
    _ record: Record, observe: ((AnalyzedRecord) -> Void)? = nil, _ emit: (Record, AnalyzedRecord) throws -> Void
  ) rethrows {
    let slot = lookahead.nextSlot()
    slot.pointee.record = record
    switch stages {
    case .decode: analyzer.decode(slot.pointee.record, into: &slot.pointee.analyzed)
    case .analyze, .holdForAnswers: analyzer.analyze(&slot.pointee.record, into: &slot.pointee.analyzed)
    }
    summary.add(slot.pointee.record, slot.pointee.analyzed.decoded)
    observe?(slot.pointee.analyzed)
    guard case .holdForAnswers = stages else {
      defer { slot.pointee.analyzed.releaseExtras() }
      return try emit(slot.pointee.record, slot.pointee.analyzed)
    }
    if slot.pointee.analyzed.learnedAttributes, let conn = slot.pointee.analyzed.conn {
      for (sequence, held) in lookahead.heldAwaitingName(onConnection: conn.id) where analyzer.name(&held.pointee) {
        lookahead.named(sequence, onConnection: conn.id)
      }
    }
    try lookahead.commit { record, analyzed in
      defer { analyzed.releaseExtras() }
      try emit(record, analyzed)
    }
  }

  /// Ends the capture: the requests still waiting get no answer, every held record goes
  /// out, and the requests are returned (the timeline counts them).
  @discardableResult
  public mutating func finish(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows -> [UnansweredRequest] {
    let unanswered = analyzer.finish()
    try lookahead.finish(unanswered) { record, analyzed in
      defer { analyzed.releaseExtras() }
      try emit(record, analyzed)
    }
    return unanswered
  }

  /// Records the source lost after its last record (`CaptureSummary.addDropped`).
  public mutating func addDropped(_ count: Int) { summary.addDropped(count) }

  /// Every held record goes out now, without waiting for the answers (live output,
  /// which cannot wait long).
  public mutating func releaseHeld(_ emit: (Record, AnalyzedRecord) throws -> Void) rethrows {
    try lookahead.releaseAll { record, analyzed in
      defer { analyzed.releaseExtras() }
      try emit(record, analyzed)
    }
  }
}
