import BLECapture

extension LinkTracker {
  /// The adapter went away (monitor Index Removed): its connections end, and the requests
  /// waiting on them get no answer (`disconnected`).
  mutating func endAdapter(_ adapter: UInt16?, _ analyzed: inout AnalyzedRecord) {
    let keys = links.keys.filter { $0.adapter == adapter }.sorted { $0.handle < $1.handle }
    for key in keys {
      settleAll(LinkKey(adapter: key.adapter, handle: key.handle), .disconnected, into: &analyzed.unanswered)
      links[adapter: key.adapter, handle: key.handle] = nil
    }
  }
}
