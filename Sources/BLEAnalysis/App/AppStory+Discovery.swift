/// Android's `discoverServices()` is one call with one `onServicesDiscovered` for the
/// whole discovery: the stack finds the primary services, then each service's
/// characteristics, included services and descriptors by itself. CoreBluetooth and the
/// GATT procedures keep a call per step (`discoverCharacteristics(_:for:)` per service).
extension AppStory {
  /// The story with each of this host's discover-all-services calls and the discovery
  /// steps that follow it on that connection, with no other call of this host between,
  /// as one call: from the first request to the last answer, with the characteristics and
  /// descriptors it found.
  public func onePerDiscovery() -> AppStory {
    var story = self
    var folded: [AppCall] = []
    var open: [Int: Int] = [:]  // connection → index in `folded` of its discovery
    for call in calls {
      let conn = call.conn?.id ?? -1
      if call.byLocal, call.origin == .app, let i = open[conn] {
        switch call.kind {
        case .discoverCharacteristics, .discoverDescriptors, .discoverIncluded:
          folded[i].end = max(folded[i].end, call.end)
          folded[i].requests += call.requests
          folded[i].responses += call.responses
          // The app's log lines of the step stay with the one call (onSearchComplete…).
          folded[i].appLog += call.appLog
          if !call.ok, folded[i].ok {
            folded[i].ok = false
            folded[i].error = call.error
          }
          if call.kind == .discoverCharacteristics {
            folded[i].characteristicCount = (folded[i].characteristicCount ?? 0) + (call.found ?? 0)
          }
          if call.kind == .discoverDescriptors {
            folded[i].descriptorCount = (folded[i].descriptorCount ?? 0) + (call.found ?? 0)
          }
          continue
        default:
          if !call.kind.isEvent { open[conn] = nil }
        }
      }
      if call.byLocal, call.origin == .app, call.kind == .discoverServices, call.mode == "all" {
        open[conn] = folded.count
      }
      folded.append(call)
    }
    story.calls = folded
    return story
  }
}
