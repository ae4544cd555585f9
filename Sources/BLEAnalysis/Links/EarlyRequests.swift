import BLECapture
import BLEDissect

/// Requests and indications that `live` showed before their answer came (it waits at most
/// half a second), and that are still open: the ones the capture's end leaves unanswered
/// get a line of their own then, since their record is already out.
public struct EarlyRequests: Sendable {
  /// Frame → the request's ATT opcode name, for those still waiting.
  private var open: [Int: String] = [:]

  public init() {}

  /// A record on its way in: an answer, or a record that ends requests otherwise
  /// (timeout, disconnection, superseded), closes them.
  public mutating func observe(_ analyzed: AnalyzedRecord) {
    guard !open.isEmpty else { return }
    if let exchange = analyzed.exchange { open[exchange.requestFrame] = nil }
    for request in analyzed.unanswered { open[request.frame] = nil }
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
