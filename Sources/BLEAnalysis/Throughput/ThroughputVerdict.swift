/// Which factor binds a segment, from the model's ceilings and what the capture shows.
///
/// 1. The structural ceiling: the link's packing (`ThroughputModel.unacknowledged`), and
///    for acknowledged operations one per two intervals, whichever is lower. A segment that
///    reached `saturation` of it is bound by it: `ack_per_interval`, or the link's factor
///    (`linkFactor`).
/// 2. Below that, something left the link idle. An acknowledged operation whose answers took
///    most of the time waited for them: `ack_per_interval`. A sender that spent most of the
///    time with every controller buffer taken (`HostFacts.noCreditMicroseconds`) waited for
///    Number Of Completed Packets: `host_buffers`, its ceiling the buffers over the mean
///    completion latency (Little's law). Otherwise the sender paused with the link and the
///    buffers free: `app_pacing`, its ceiling its mean value per mean gap.
///
/// Saturation compares the achieved rate with the structural ceiling for values of the mean
/// size the segment sent; the ceilings reported are for its largest (full-size) value, as
/// the truth's generator states them. The host buffers' ceiling is given when the link was
/// not saturated (then the completion latency is the controller's, not the link's queue).
public enum ThroughputVerdict {
  /// The share of the structural ceiling at which the link counts as saturated (the truth's
  /// `binding_check` takes ±10 %).
  public static let saturation = 0.9
  /// The share of the time an explanation must cover to bind.
  public static let majority = 0.5

  /// The factor behind the link's ceiling for these PDUs: the data length when it cuts
  /// SDUs into several PDUs; the ATT_MTU when full values leave PDUs room; the PDU count per
  /// event or the air time otherwise.
  public static func linkFactor(
    _ packing: ThroughputModel.Packing, operation: PayloadOperation, value: Int, link: LinkInForce,
    direction: PayloadDirection
  ) -> ThroughputBinding {
    let dataLength = link.dataLength(direction)
    let sdu = value + operation.headerOctets
    if sdu > dataLength, dataLength < ThroughputModel.maximumDataLength { return .dataLength }
    guard packing.limitedBy == .count else { return .phy }
    let attHeader = operation.headerOctets - 4
    if operation != .coc, value >= Int(link.mtu) - attHeader, sdu < dataLength { return .mtu }
    return .pdusPerEvent
  }

  /// Fills in `segment`'s ceilings, binding and ceiling for `operation` sent in `direction`.
  public static func judge(_ segment: inout TransferSegment, operation: PayloadOperation, direction: PayloadDirection) {
    segment.ceilings = Ceilings()
    segment.binding = nil
    segment.ceiling = nil
    guard let interval = segment.link.parameters?.interval, interval.units > 0 else { return }
    let value = segment.largestValue
    let packing = ThroughputModel.unacknowledged(
      value: value, header: operation.headerOctets, phy: segment.link.phy(direction),
      dataLength: segment.link.dataLength(direction), interval: interval)
    segment.ceilings.link = packing
    var structural = packing.bytesPerSecond
    var structuralBinding = linkFactor(
      packing, operation: operation, value: value, link: segment.link, direction: direction)
    if operation.isAcknowledged {
      let acknowledged = ThroughputModel.acknowledged(value: value, interval: interval)
      segment.ceilings.acknowledged = acknowledged
      if acknowledged < structural {
        structural = acknowledged
        structuralBinding = .ackPerInterval
      }
    }
    guard let achieved = segment.achieved, let mean = segment.meanValue else { return }
    let span = Double(segment.spanMicroseconds)
    // Saturation is judged for values of the mean size the transfer sent (the ceilings are
    // for its full-size ones): smaller values fill the same PDUs and answers with less.
    var reachable = structural
    let meanValue = Int(mean.rounded())
    if meanValue < value {
      let packing = ThroughputModel.unacknowledged(
        value: meanValue, header: operation.headerOctets, phy: segment.link.phy(direction),
        dataLength: segment.link.dataLength(direction), interval: interval)
      reachable = packing.bytesPerSecond
      if operation.isAcknowledged {
        reachable = min(reachable, ThroughputModel.acknowledged(value: meanValue, interval: interval))
      }
    }
    if achieved.value >= saturation * reachable.value {
      segment.binding = structuralBinding
      segment.ceiling = structural
      return
    }
    if let host = segment.host, let buffers = host.buffers, let octets = host.bufferOctets,
      let latency = host.completionLatencyMean
    {
      segment.ceilings.hostBuffers = ThroughputModel.hostBuffers(
        buffers: buffers, bufferOctets: octets, value: value, header: operation.headerOctets,
        cycleMicroseconds: latency)
    }
    if operation.isAcknowledged, Double(segment.answerLatencySum) >= majority * span {
      segment.binding = .ackPerInterval
      segment.ceiling = segment.ceilings.acknowledged
      return
    }
    if let host = segment.host, let ceiling = segment.ceilings.hostBuffers,
      Double(host.noCreditMicroseconds) >= majority * span
    {
      segment.binding = .hostBuffers
      segment.ceiling = ceiling
      return
    }
    // The sender's pace: its mean value per mean gap.
    let meanGap = span / Double(segment.pduCount - 1)
    let pacing = BytesPerSecond(mean * 1_000_000 / meanGap)
    segment.ceilings.appPacing = pacing
    segment.binding = .appPacing
    segment.ceiling = pacing
  }
}
