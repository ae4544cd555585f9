import BLECapture
import BLEDissect

/// Requests and indications that `live` showed before their answer came (it waits at most
/// half a second), and that are still open. An answer's own line names its request; one
/// that a later record settles without an answer (a timeout, the link or the adapter
/// going away, the next request) or that the capture's end leaves open gets its outcome
/// on a line of its own, since its record is already out.
public struct EarlyRequests: Sendable {
  /// A request shown early and settled since without an answer.
  public struct Settled: Hashable, Sendable {
    public var frame: Int
    /// The request's ATT opcode name.
    public var name: String
    public var reason: UnansweredRequest.Reason

    public init(frame: Int, name: String, reason: UnansweredRequest.Reason) {
      self.frame = frame
      self.name = name
      self.reason = reason
    }
  }

  /// Frame → the request's ATT opcode name, for those still waiting.
  private var open: [Int: String] = [:]

  public init() {}

  /// A record on its way in: an answer closes its request; the requests shown early that
  /// it ends otherwise (timeout, disconnection, superseded) are closed and returned.
  public mutating func observe(_ analyzed: AnalyzedRecord) -> [Settled] {
    guard !open.isEmpty else { return [] }
    if let exchange = analyzed.exchange { open[exchange.requestFrame] = nil }
    return analyzed.unanswered.compactMap { request in
      open.removeValue(forKey: request.frame).map { Settled(frame: request.frame, name: $0, reason: request.reason) }
    }
  }

  /// A record on its way out; `shown` when it matched the filter.
  public mutating func emitted(_ record: Record, _ analyzed: AnalyzedRecord, shown: Bool) {
    guard shown, analyzed.awaitsAnswer, analyzed.answer == nil, analyzed.unansweredReason == nil else { return }
    open[record.frame] = analyzed.decoded.att?.opcode.name ?? "request"
  }

  /// At the end of the capture: of `unanswered` (`Analyzer.finish()`), those shown early,
  /// in frame order, with their opcode names.
  public func endedUnanswered(_ unanswered: [UnansweredRequest]) -> [(frame: Int, name: String)] {
    unanswered.compactMap { request in open[request.frame].map { (request.frame, $0) } }
  }
}
