import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `throughput`: each transfer's bytes and rate, the link in force, the host's
/// buffers, the ceiling for them and the factor that binds.
///
/// - text: per capture and connection, each transfer (its segments when the link changed
///   while it ran) with the link, the host, and the verdict; series of transfers and the
///   platform findings after them;
/// - json: `{"$schema","schema_version","captures":[…],"transfers":[…],"series":[…],
///   "findings":[…]}` (throughput.schema.json);
/// - ndjson: one capture, transfer, series or finding per line, each with `type`
///   (throughput-line.schema.json).
public struct ThroughputRenderer {
  let format: RenderFormat
  let multipleFiles: Bool
  private var collected: [(capture: CaptureInfo, report: ThroughputReport)] = []

  public init(format: RenderFormat, multipleFiles: Bool) {
    self.format = format
    self.multipleFiles = multipleFiles
  }

  public mutating func render(_ capture: CaptureInfo, _ report: ThroughputReport, into out: inout OutputBuffer) {
    let file = multipleFiles ? capture.file : nil
    switch format {
    case .text:
      ThroughputText.append(capture, report, into: &out)
    case .json:
      collected.append((capture, report))
    case .ndjson:
      ThroughputJSON.appendLines(capture, report, file: file, into: &out)
    }
  }

  public func finish(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.appendDocumentHeader(.throughput)
    out.append(",\"captures\":[")
    for (i, item) in collected.enumerated() {
      if i > 0 { out.append(",") }
      ThroughputJSON.appendCapture(item.capture, tagged: false, into: &out)
    }
    func section<T>(
      _ key: StaticString, _ items: (ThroughputReport) -> [T], _ append: (T, String?, inout OutputBuffer) -> Void
    ) {
      out.append(key)
      var first = true
      for item in collected {
        let file = multipleFiles ? item.capture.file : nil
        for element in items(item.report) {
          if !first { out.append(",") }
          first = false
          append(element, file, &out)
        }
      }
      out.append("]")
    }
    section("],\"transfers\":[", \.transfers) { ThroughputJSON.appendTransfer($0, file: $1, tagged: false, into: &$2) }
    section(",\"series\":[", \.series) { ThroughputJSON.appendSeries($0, file: $1, tagged: false, into: &$2) }
    section(",\"findings\":[", \.findings) { ThroughputJSON.appendFinding($0, file: $1, tagged: false, into: &$2) }
    out.append("}\n")
  }
}

// MARK: - Words and numbers

/// How rates, sizes and link parameters read in text.
enum ThroughputWords {
  /// `37.0 B/s`, `16.3 kB/s`, `1.39 MB/s`.
  static func rate(_ rate: BytesPerSecond?) -> String {
    guard let value = rate?.value else { return "-" }
    if value >= 1_000_000 { return decimal(value / 1_000_000, 2) + " MB/s" }
    if value >= 1000 { return decimal(value / 1000, 1) + " kB/s" }
    return decimal(value, 1) + " B/s"
  }

  /// `value` with `digits` decimals.
  static func decimal(_ value: Double, _ digits: Int) -> String {
    var scale: Int64 = 1
    for _ in 0..<digits { scale *= 10 }
    return fixedPointText(Int64((value * Double(scale)).rounded()), scale: scale, digits: digits)
  }

  /// `7.5 ms`, `30 ms`.
  static func interval(_ interval: ConnectionInterval) -> String { measureText(interval.milliseconds) + " ms" }

  /// `42%`.
  static func share(_ share: Double?) -> String {
    guard let share else { return "-" }
    return decimal(share * 100, 1) + "%"
  }

  static func operation(_ operation: PayloadOperation) -> String {
    switch operation {
    case .writeCommand: "Write Without Response"
    case .writeRequest: "Write Request"
    case .writeLong: "Prepare Write"
    case .notify: "Notification"
    case .indicate: "Indication"
    case .read: "Read"
    case .coc: "CoC SDU"
    }
  }

  /// `8e400002-… (0x0043)`, `Heart Rate Measurement (0x000e)`, `CID 0x0040 (SPSM 0x0080)`.
  static func subject(_ operation: PayloadOperation, _ subject: TransferSubject) -> String {
    if operation == .coc {
      return "CID 0x" + hex(subject.handle) + (subject.psm.map { " (SPSM 0x" + hex($0) + ")" } ?? "")
    }
    // A UUID without a name is shown as its text.
    let characteristic = subject.characteristicName ?? subject.characteristicUUID?.normalized.description
    let descriptor = subject.descriptorName ?? subject.descriptorUUID?.normalized.description
    let name = descriptor.map { $0 + (characteristic.map { " of " + $0 } ?? "") } ?? characteristic
    return (name.map { $0 + " " } ?? "") + "(0x" + hex(subject.handle) + ")"
  }

  /// `interval 7.5 ms, latency 0, supervision timeout 5000 ms; PHY 2M/2M; data length 251/251 octets; ATT_MTU 247`.
  static func link(_ link: LinkInForce) -> String {
    var parts: [String] = []
    if let parameters = link.parameters {
      parts.append(
        "interval \(interval(parameters.interval)), latency \(parameters.latency), supervision timeout \(parameters.supervisionTimeout.milliseconds) ms"
      )
      let band = AndroidConnectionPriority.band(of: parameters.interval)
      parts.append("Android priority band: " + (band?.rawValue ?? "none"))
    } else {
      parts.append("connection parameters not in the capture")
    }
    parts.append("PHY tx \(link.phyTX.name), rx \(link.phyRX.name)")
    parts.append("data length tx \(link.dataLength.maxTXOctets), rx \(link.dataLength.maxRXOctets) octets")
    parts.append("ATT_MTU \(link.mtu)")
    return parts.joined(separator: "; ")
  }

  /// `4 LE buffers of 251 octets; up to 4 in use; 7 stalls, 178.136 ms, longest 26.575 ms; …`.
  static func host(_ host: HostFacts, span: Int64) -> String {
    var parts: [String] = []
    if let buffers = host.buffers, let octets = host.bufferOctets {
      parts.append("\(buffers) \(host.dedicated ? "LE" : "shared ACL") buffers of \(octets) octets")
    } else {
      parts.append("controller buffers not in the capture")
    }
    parts.append("up to \(host.creditsInUseMax) in use")
    if host.stallCount > 0 {
      parts.append(
        "\(host.stallCount) stall\(host.stallCount == 1 ? "" : "s") waiting for a buffer, "
          + Milliseconds.text(host.stalledMicroseconds) + " in all, longest "
          + Milliseconds.text(host.longestStallMicroseconds))
    } else {
      parts.append("no stalls")
    }
    if span > 0 {
      parts.append(share(Double(host.noCreditMicroseconds) / Double(span)) + " of the time without a free buffer")
    }
    if let mean = host.completionLatencyMean {
      parts.append(
        "completions " + Milliseconds.text(Int64(mean.rounded())) + " after the packet on average (max "
          + Milliseconds.text(host.completionLatencyMax) + ")")
    }
    return parts.joined(separator: "; ")
  }

  /// The verdict: the factor that binds, the ceiling against the achieved rate, and what
  /// would raise it.
  static func verdict(_ segment: TransferSegment, _ operation: PayloadOperation, _ direction: PayloadDirection)
    -> String
  {
    guard let binding = segment.binding, let interval = segment.link.parameters?.interval else {
      return segment.link.parameters == nil
        ? "no verdict: the capture does not show the connection's parameters"
        : "no verdict: a single instant"
    }
    let value = segment.largestValue
    let achieved = "achieved " + rate(segment.achieved)
    let at = "with \(value)-byte values at " + ThroughputWords.interval(interval)
    let link = segment.link
    let packing = segment.ceilings.link
    let ceiling = rate(segment.ceiling)
    switch binding {
    case .ackPerInterval:
      let what =
        switch operation {
        case .writeRequest: "acknowledged writes"
        case .writeLong: "prepared writes"
        case .indicate: "indications"
        default: "reads"
        }
      let advice =
        switch operation {
        case .writeRequest, .writeLong: "use write without response"
        default: "use notifications"
        }
      var text = "\(what): at most one per 2 intervals, \(ceiling) \(at); \(achieved)"
      if let latency = segment.answerLatencyMean, let achievedRate = segment.achieved,
        let model = segment.ceilings.acknowledged, achievedRate.value < ThroughputVerdict.saturation * model.value
      {
        text += "; the answers took " + Milliseconds.text(Int64(latency.rounded())) + " on average"
      }
      return text + "; " + advice
    case .pdusPerEvent:
      let count = packing?.pdusPerEvent ?? ThroughputModel.pdusPerEventLimit
      let attHeader = operation.headerOctets - 4
      let roomy = link.dataLength(direction) >= ThroughputModel.maximumDataLength && link.mtu >= 247
      let advice =
        if operation != .coc && value < Int(link.mtu) - attHeader {
          "send larger values (up to \(Int(link.mtu) - attHeader) bytes at ATT_MTU \(link.mtu))"
        } else if !roomy {
          "larger PDUs (ATT_MTU 247 and LE Data Length Extension to 251 octets) or a shorter connection interval would raise it"
        } else if interval.units > 6 {
          "a shorter connection interval would raise it"
        } else {
          "the link is at its ceiling"
        }
      return "\(count) PDUs per connection event (the controller's limit): \(ceiling) \(at); \(achieved); \(advice)"
    case .phy:
      let phy = link.phy(direction)
      let octets = min(value + operation.headerOctets, link.dataLength(direction))
      let advice =
        phy == .le2M ? "the link is at its ceiling on LE 2M" : "LE 2M PHY would raise it"
      return
        "air time: \(packing?.pdusPerEvent ?? 0) PDUs of \(octets) octets fill a \(ThroughputWords.interval(interval)) event on LE \(phy.name), \(ceiling) \(at); \(achieved); \(advice)"
    case .dataLength:
      let dataLength = link.dataLength(direction)
      return
        "\(dataLength)-octet PDUs cut each \(value + operation.headerOctets)-octet SDU into \(packing?.pdusPerSDU ?? 0): \(ceiling) \(at); \(achieved); LE Data Length Extension to 251 octets would raise it"
    case .mtu:
      let attHeader = operation.headerOctets - 4
      let fill = link.dataLength(direction) - 4
      return
        "ATT_MTU \(link.mtu) holds values to \(Int(link.mtu) - attHeader) bytes in PDUs with room for \(link.dataLength(direction)) octets: \(ceiling) \(at); \(achieved); an ATT_MTU of \(fill) would fill them"
    case .hostBuffers:
      let host = segment.host
      let latency = host?.completionLatencyMean.map { Milliseconds.text(Int64($0.rounded())) } ?? "-"
      return
        "\(host?.buffers ?? 0) controller buffers, each back \(latency) after its packet on average (Number Of Completed Packets): \(ceiling) \(at); \(achieved); \(host?.stallCount ?? 0) stalls, "
        + Milliseconds.text(host?.noCreditMicroseconds ?? 0)
        + " without a free buffer; completions reported sooner, or more buffers, would raise it"
    case .appPacing:
      let gap = segment.pduCount > 1 ? segment.spanMicroseconds / Int64(segment.pduCount - 1) : 0
      var structural = packing?.bytesPerSecond
      if let acknowledged = segment.ceilings.acknowledged, structural.map({ acknowledged < $0 }) ?? true {
        structural = acknowledged
      }
      let who = direction == .tx ? "this host" : "the peer"
      let mean = segment.meanValue.map { measureText(($0 * 10).rounded() / 10) } ?? "-"
      return
        "\(who) paused between PDUs: one every \(Milliseconds.text(gap)) on average with \(mean) bytes each, \(ceiling); the link allows \(rate(structural)) \(at); \(achieved); send without pausing"
    }
  }

  /// The verdict of a series.
  static func verdict(_ series: TransferSeries) -> String {
    let active = share(series.activeShare)
    switch series.binding {
    case .appPacing?:
      return
        "app_pacing: its transfers filled \(active) of the time; while they ran the link allowed up to \(rate(series.bestCeiling)); sending without pauses would raise it"
    case let binding?:
      return "\(binding.rawValue): its transfers filled \(active) of the time, most of it bound by \(binding.rawValue)"
    case nil:
      return "no verdict"
    }
  }
}

// MARK: - Text

/// The text of `throughput`, and the verdict lines `timeline` and `app` add per connection.
public enum ThroughputText {
  /// Transfers `timeline` and `app` tell per connection without -v.
  public static let storyTransfers = 8

  static func append(
    _ capture: CaptureInfo, _ report: ThroughputReport, into out: inout OutputBuffer
  ) {
    out.append(string: "# " + capture.file + ": " + capture.format + "\n")
    let start = capture.first?.unixMicroseconds ?? 0
    var byConnection: [Int: [Transfer]] = [:]
    var order: [ConnectionRef] = []
    for transfer in report.transfers {
      if byConnection[transfer.conn.id] == nil { order.append(transfer.conn) }
      byConnection[transfer.conn.id, default: []].append(transfer)
    }
    if order.isEmpty { out.append("no transfers in the capture\n") }
    for conn in order.sorted(by: { $0.id < $1.id }) {
      out.append(string: "\nConnection #\(conn.id)  handle 0x" + hex(conn.handle))
      if let role = conn.roleName { out.append(string: "  " + role) }
      if let peer = conn.peer {
        out.append(string: (conn.role == 1 ? " ← " : " → ") + peer.description)
        if let type = conn.peerType { out.append(string: " (" + AdvertisingAddressType(rawValue: type).name + ")") }
      }
      out.append("\n")
      for transfer in byConnection[conn.id] ?? [] { appendTransfer(transfer, start: start, into: &out) }
      for series in report.series(onConnection: conn.id) {
        out.append(string: "  " + seriesLine(series) + "\n")
      }
    }
    if !report.findings.isEmpty {
      out.append("\nFindings\n")
      for finding in report.findings {
        out.append(string: "  #\(finding.at.frame)  connection #\(finding.conn.id): " + findingText(finding) + "\n")
      }
    }
  }

  static func appendTransfer(_ transfer: Transfer, start: Int64, into out: inout OutputBuffer) {
    out.append(string: "  " + headline(transfer) + "\n")
    if transfer.segments.count == 1 {
      appendSegmentDetails(transfer.segments[0], transfer, indent: "    ", into: &out)
      return
    }
    for (i, segment) in transfer.segments.enumerated() {
      if i > 0, i - 1 < transfer.changes.count {
        let change = transfer.changes[i - 1]
        out.append(
          string: "    #\(change.at.frame) " + changeText(change) + ": "
            + ThroughputWords.rate(transfer.segments[i - 1].achieved)
            + " before, " + ThroughputWords.rate(segment.achieved) + " after\n")
      }
      out.append(string: "    segment " + segmentLine(segment) + "\n")
      appendSegmentDetails(segment, transfer, indent: "      ", into: &out)
    }
  }

  static func appendSegmentDetails(
    _ segment: TransferSegment, _ transfer: Transfer, indent: String, into out: inout OutputBuffer
  ) {
    out.append(string: indent + "link: " + ThroughputWords.link(segment.link) + "\n")
    if let host = segment.host {
      var text = ThroughputWords.host(host, span: segment.spanMicroseconds)
      if let estimate = segment.pdusPerEventEstimate {
        text += "; about " + ThroughputWords.decimal(estimate, 1) + " PDUs per connection event (estimate)"
      }
      out.append(string: indent + "host: " + text + "\n")
    } else if let estimate = segment.pdusPerEventEstimate {
      out.append(
        string: indent + "received: about " + ThroughputWords.decimal(estimate, 1)
          + " PDUs per connection event (estimate)\n")
    }
    out.append(
      string: indent + "verdict: " + (segment.binding.map { $0.rawValue + ": " } ?? "")
        + ThroughputWords.verdict(segment, transfer.operation, transfer.direction) + "\n")
  }

  /// `#59–#464  Write Without Response tx 8e400002-… (0x0043): 4096 bytes in 205 PDUs over 1018.998 ms, 4.0 kB/s of 4.0 kB/s, pdus_per_event`.
  static func headline(_ transfer: Transfer) -> String {
    var text =
      "#\(transfer.first.frame)–#\(transfer.last.frame)  " + ThroughputWords.operation(transfer.operation) + " "
    text += transfer.direction.rawValue + " " + ThroughputWords.subject(transfer.operation, transfer.subject)
    text +=
      ": \(transfer.payloadBytes) bytes in \(transfer.pduCount) PDUs over "
      + Milliseconds.text(transfer.spanMicroseconds)
    text += ", " + ThroughputWords.rate(transfer.achieved)
    if let ceiling = transfer.ceiling { text += " of " + ThroughputWords.rate(ceiling) }
    if let share = transfer.busyShare { text += ", link busy " + ThroughputWords.share(share) }
    if transfer.stallCount > 0 {
      text += ", \(transfer.stallCount) stall\(transfer.stallCount == 1 ? "" : "s") waiting for controller buffers ("
      text += Milliseconds.text(transfer.stalledMicroseconds) + ")"
    }
    if transfer.segments.count > 1 { text += ", \(transfer.segments.count) segments" }
    if let binding = transfer.main.binding { text += ": " + binding.rawValue }
    return text
  }

  static func segmentLine(_ segment: TransferSegment) -> String {
    var text =
      "#\(segment.first.frame)–#\(segment.last.frame): \(segment.payloadBytes) bytes in \(segment.pduCount) PDUs over "
    text += Milliseconds.text(segment.spanMicroseconds) + ", " + ThroughputWords.rate(segment.achieved)
    if let ceiling = segment.ceiling { text += " of " + ThroughputWords.rate(ceiling) }
    return text
  }

  static func changeText(_ change: LinkChange) -> String {
    var parts: [String] = []
    for kind in change.kinds {
      switch kind {
      case .parameters:
        let before = change.before.parameters.map { ThroughputWords.interval($0.interval) } ?? "-"
        let after = change.after.parameters.map { ThroughputWords.interval($0.interval) } ?? "-"
        parts.append("interval \(before) → \(after)")
      case .phy:
        parts.append("PHY \(change.before.phyTX.name) → \(change.after.phyTX.name)")
      case .dataLength:
        parts.append(
          "data length \(change.before.dataLength.maxTXOctets) → \(change.after.dataLength.maxTXOctets) octets")
      case .mtu:
        parts.append("ATT_MTU \(change.before.mtu) → \(change.after.mtu)")
      }
    }
    return parts.joined(separator: ", ")
  }

  /// `×13 transfers of Write Request tx … (0x001c): 8594 bytes over 232.693 s, 36.9 B/s, link busy 6.5%; app_pacing: …`.
  static func seriesLine(_ series: TransferSeries) -> String {
    var text = "×\(series.transferCount) transfer\(series.transferCount == 1 ? "" : "s")"
    if series.runCount > series.transferCount { text += " (\(series.runCount) runs)" }
    text += " of " + ThroughputWords.operation(series.operation) + " "
    text += series.direction.rawValue + " " + ThroughputWords.subject(series.operation, series.subject)
    text +=
      " (#\(series.first.frame)–#\(series.last.frame)): \(series.payloadBytes) bytes in \(series.pduCount) PDUs over "
    text += Milliseconds.text(series.spanMicroseconds) + ", " + ThroughputWords.rate(series.achieved)
    text += ", link busy " + ThroughputWords.share(series.busyShare) + "; " + ThroughputWords.verdict(series)
    return text
  }

  static func findingText(_ finding: PlatformFinding) -> String {
    switch finding.kind {
    case .appleParameterRequest(let request, let broken, let byLocal):
      let asked =
        "Connection Parameter Update Request "
        + (byLocal ? "sent by this host" : "from the peer")
        + " (interval \(ThroughputWords.interval(request.intervalMin))–\(ThroughputWords.interval(request.intervalMax)), latency \(request.latency), supervision timeout \(request.timeout.milliseconds) ms)"
      return
        "ios: \(asked) breaks Apple's rules, iOS may reject it: "
        + broken.map(\.statement).joined(separator: "; ") + " (" + AppleConnectionRule.citation + ")"
    case .androidPriority(let interval, let band):
      if let band {
        return "android: interval \(ThroughputWords.interval(interval)) is in the \(band.rawValue) priority band"
      }
      return "android: interval \(ThroughputWords.interval(interval)) is in no connection priority band"
    }
  }

  /// The lines `timeline` and `app` add at the end of connection `id`: each transfer with
  /// its verdict (the `storyTransfers` that carried the most bytes, in order, unless
  /// `verbose`), then each series.
  public static func storyLines(_ report: ThroughputReport, connection id: Int, verbose: Bool) -> [String] {
    var transfers = report.transfers(onConnection: id)
    var lines: [String] = []
    if !verbose, transfers.count > storyTransfers {
      let kept = Set(
        transfers.indices.sorted { (transfers[$0].payloadBytes, -$0) > (transfers[$1].payloadBytes, -$1) }
          .prefix(storyTransfers))
      let left = transfers.count - storyTransfers
      transfers = transfers.indices.filter { kept.contains($0) }.map { transfers[$0] }
      lines.append(
        "throughput: \(storyTransfers) transfers that carried the most bytes of \(storyTransfers + left); -v or `bleanalyze throughput` for all"
      )
    }
    for transfer in transfers {
      lines.append(
        "throughput " + headline(transfer) + " — "
          + ThroughputWords.verdict(transfer.main, transfer.operation, transfer.direction))
    }
    for series in report.series(onConnection: id) { lines.append("throughput " + seriesLine(series)) }
    return lines
  }
}

// MARK: - JSON

enum ThroughputJSON {
  static func appendLines(
    _ capture: CaptureInfo, _ report: ThroughputReport, file: String?, into out: inout OutputBuffer
  ) {
    appendCapture(capture, tagged: true, into: &out)
    out.append("\n")
    for transfer in report.transfers {
      appendTransfer(transfer, file: file, tagged: true, into: &out)
      out.append("\n")
    }
    for series in report.series {
      appendSeries(series, file: file, tagged: true, into: &out)
      out.append("\n")
    }
    for finding in report.findings {
      appendFinding(finding, file: file, tagged: true, into: &out)
      out.append("\n")
    }
  }

  static func begin(_ type: StaticString, _ file: String?, _ tagged: Bool, into out: inout OutputBuffer) -> JSONKeys {
    var keys = JSONKeys()
    out.append("{")
    if tagged { keys.string("type", "\(type)", into: &out) }
    if let file { keys.string("file", file, into: &out) }
    return keys
  }

  static func appendCapture(_ capture: CaptureInfo, tagged: Bool, into out: inout OutputBuffer) {
    var k = begin("capture", nil, tagged, into: &out)
    capture.appendFields(&k, into: &out)
    out.append("}")
  }

  static func appendRate(
    _ k: inout JSONKeys, _ name: StaticString, _ rate: BytesPerSecond?, into out: inout OutputBuffer
  ) {
    k.key(name, into: &out)
    if let rate, rate.value.isFinite { out.appendMeasure((rate.value * 10).rounded() / 10) } else { out.append("null") }
  }

  static func appendShare(_ k: inout JSONKeys, _ name: StaticString, _ share: Double?, into out: inout OutputBuffer) {
    k.key(name, into: &out)
    if let share { out.appendMeasure(share) } else { out.append("null") }
  }

  static func appendSubject(
    _ k: inout JSONKeys, _ operation: PayloadOperation, _ subject: TransferSubject, into out: inout OutputBuffer
  ) {
    let coc = operation == .coc
    k.integer("attr_handle", coc ? nil : subject.handle, into: &out)
    k.integer("cid", coc ? subject.handle : nil, into: &out)
    k.integer("psm", subject.psm, into: &out)
    k.uuid("service_uuid", subject.serviceUUID, into: &out)
    k.string("service_name", subject.serviceName, into: &out)
    k.uuid("characteristic_uuid", subject.characteristicUUID, into: &out)
    k.string("characteristic_name", subject.characteristicName, into: &out)
    k.uuid("descriptor_uuid", subject.descriptorUUID, into: &out)
    k.string("descriptor_name", subject.descriptorName, into: &out)
  }

  static func appendFrames(_ k: inout JSONKeys, _ first: FrameTime, _ last: FrameTime, into out: inout OutputBuffer) {
    k.key("frames", into: &out)
    out.append("[")
    out.appendDecimal(first.frame)
    out.append(",")
    out.appendDecimal(last.frame)
    out.append("]")
    k.key("first_ts", into: &out)
    JSONRecord.appendSeconds(first.timestamp, into: &out)
    k.key("last_ts", into: &out)
    JSONRecord.appendSeconds(last.timestamp, into: &out)
  }

  static func appendTransfer(_ transfer: Transfer, file: String?, tagged: Bool, into out: inout OutputBuffer) {
    var k = begin("transfer", file, tagged, into: &out)
    k.key("conn", into: &out)
    out.appendConnJSON(transfer.conn, peerName: transfer.peerName)
    appendSubject(&k, transfer.operation, transfer.subject, into: &out)
    k.string("op", transfer.operation.rawValue, into: &out)
    k.string("direction", transfer.direction.rawValue, into: &out)
    appendFrames(&k, transfer.first, transfer.last, into: &out)
    k.integer("payload_bytes", transfer.payloadBytes, into: &out)
    k.integer("pdu_count", transfer.pduCount, into: &out)
    k.integer("acl_packet_count", transfer.aclPacketCount, into: &out)
    k.integer("first_pdu_bytes", transfer.segments[0].firstPDUBytes, into: &out)
    k.milliseconds("span_ms", transfer.spanMicroseconds, into: &out)
    appendRate(&k, "achieved_bytes_per_s", transfer.achieved, into: &out)
    appendRate(&k, "ceiling_bytes_per_s", transfer.ceiling, into: &out)
    let main = transfer.main
    k.string("binding", main.binding?.rawValue, into: &out)
    appendShare(&k, "link_busy_share", transfer.busyShare, into: &out)
    k.key("link", into: &out)
    appendLink(main.link, into: &out)
    k.key("host", into: &out)
    appendHost(main.host, span: main.spanMicroseconds, into: &out)
    k.string("verdict", ThroughputWords.verdict(main, transfer.operation, transfer.direction), into: &out)
    k.key("changes", into: &out)
    out.append("[")
    for (i, change) in transfer.changes.enumerated() {
      if i > 0 { out.append(",") }
      var c = JSONKeys()
      out.append("{")
      c.integer("frame", change.at.frame, into: &out)
      c.key("ts", into: &out)
      JSONRecord.appendSeconds(change.at.timestamp, into: &out)
      c.key("kinds", into: &out)
      out.append("[")
      for (j, kind) in change.kinds.enumerated() {
        if j > 0 { out.append(",") }
        out.appendJSONString(kind.rawValue)
      }
      out.append("]")
      let before = i < transfer.segments.count ? transfer.segments[i].achieved : nil
      let after = i + 1 < transfer.segments.count ? transfer.segments[i + 1].achieved : nil
      appendRate(&c, "before_bytes_per_s", before, into: &out)
      appendRate(&c, "after_bytes_per_s", after, into: &out)
      c.key("link_before", into: &out)
      appendLink(change.before, into: &out)
      c.key("link_after", into: &out)
      appendLink(change.after, into: &out)
      out.append("}")
    }
    out.append("]")
    k.key("segments", into: &out)
    out.append("[")
    for (i, segment) in transfer.segments.enumerated() {
      if i > 0 { out.append(",") }
      appendSegment(segment, transfer, into: &out)
    }
    out.append("]}")
  }

  static func appendSegment(_ segment: TransferSegment, _ transfer: Transfer, into out: inout OutputBuffer) {
    var k = JSONKeys()
    out.append("{")
    appendFrames(&k, segment.first, segment.last, into: &out)
    k.integer("payload_bytes", segment.payloadBytes, into: &out)
    k.integer("pdu_count", segment.pduCount, into: &out)
    k.integer("acl_packet_count", segment.aclPacketCount, into: &out)
    k.integer("first_pdu_bytes", segment.firstPDUBytes, into: &out)
    k.integer("largest_value_bytes", segment.largestValue, into: &out)
    k.milliseconds("span_ms", segment.spanMicroseconds, into: &out)
    appendRate(&k, "achieved_bytes_per_s", segment.achieved, into: &out)
    appendRate(&k, "ceiling_bytes_per_s", segment.ceiling, into: &out)
    k.string("binding", segment.binding?.rawValue, into: &out)
    k.key("ceilings", into: &out)
    var c = JSONKeys()
    out.append("{")
    appendRate(&c, "link_bytes_per_s", segment.ceilings.link?.bytesPerSecond, into: &out)
    c.integer("link_pdus_per_event", segment.ceilings.link?.pdusPerEvent, into: &out)
    c.string("link_limited_by", segment.ceilings.link?.limitedBy.rawValue, into: &out)
    c.integer("pdus_per_sdu", segment.ceilings.link?.pdusPerSDU, into: &out)
    appendRate(&c, "ack_per_interval_bytes_per_s", segment.ceilings.acknowledged, into: &out)
    appendRate(&c, "host_buffers_bytes_per_s", segment.ceilings.hostBuffers, into: &out)
    appendRate(&c, "app_pacing_bytes_per_s", segment.ceilings.appPacing, into: &out)
    out.append("}")
    appendShare(&k, "link_busy_share", segment.busyShare, into: &out)
    k.key("pdus_per_event_estimate", into: &out)
    if let estimate = segment.pdusPerEventEstimate { out.appendMeasure(estimate) } else { out.append("null") }
    k.integer("answer_count", segment.answers, into: &out)
    k.key("answer_latency_ms", into: &out)
    if let mean = segment.answerLatencyMean { out.appendMeasure(mean / 1000) } else { out.append("null") }
    k.key("link", into: &out)
    appendLink(segment.link, into: &out)
    k.key("host", into: &out)
    appendHost(segment.host, span: segment.spanMicroseconds, into: &out)
    k.string("verdict", ThroughputWords.verdict(segment, transfer.operation, transfer.direction), into: &out)
    out.append("}")
  }

  static func appendLink(_ link: LinkInForce, into out: inout OutputBuffer) {
    var k = JSONKeys()
    out.append("{")
    k.milliseconds("interval_ms", link.parameters?.interval.microseconds, into: &out)
    k.integer("latency", link.parameters?.latency, into: &out)
    k.integer("supervision_timeout_ms", link.parameters?.supervisionTimeout.milliseconds, into: &out)
    k.string("phy_tx", link.phyTX.name, into: &out)
    k.string("phy_rx", link.phyRX.name, into: &out)
    k.integer("max_tx_octets", link.dataLength.maxTXOctets, into: &out)
    k.integer("max_tx_time_us", link.dataLength.maxTXTime, into: &out)
    k.integer("max_rx_octets", link.dataLength.maxRXOctets, into: &out)
    k.integer("max_rx_time_us", link.dataLength.maxRXTime, into: &out)
    k.integer("att_mtu", link.mtu, into: &out)
    k.string(
      "android_priority", link.parameters.flatMap { AndroidConnectionPriority.band(of: $0.interval)?.rawValue },
      into: &out)
    out.append("}")
  }

  static func appendHost(_ host: HostFacts?, span: Int64, into out: inout OutputBuffer) {
    guard let host else { return out.append("null") }
    var k = JSONKeys()
    out.append("{")
    k.integer("buffer_count", host.buffers, into: &out)
    k.integer("buffer_octets", host.bufferOctets, into: &out)
    k.bool("dedicated", host.dedicated, into: &out)
    k.integer("credits_in_use_max", host.creditsInUseMax, into: &out)
    k.key("credits_in_use_mean", into: &out)
    if let mean = host.creditsInUseMean { out.appendMeasure(mean) } else { out.append("null") }
    k.integer("stall_count", host.stallCount, into: &out)
    k.milliseconds("stalled_ms", host.stalledMicroseconds, into: &out)
    k.milliseconds("longest_stall_ms", host.longestStallMicroseconds, into: &out)
    k.milliseconds("no_credit_ms", host.noCreditMicroseconds, into: &out)
    appendShare(
      &k, "no_credit_share", span > 0 ? min(1, Double(host.noCreditMicroseconds) / Double(span)) : nil, into: &out)
    k.integer("completion_count", host.completions, into: &out)
    k.key("completion_latency_ms", into: &out)
    if let mean = host.completionLatencyMean {
      var l = JSONKeys()
      out.append("{")
      l.key("mean", into: &out)
      out.appendMeasure(mean / 1000)
      l.milliseconds("max", host.completionLatencyMax, into: &out)
      out.append("}")
    } else {
      out.append("null")
    }
    out.append("}")
  }

  static func appendSeries(_ series: TransferSeries, file: String?, tagged: Bool, into out: inout OutputBuffer) {
    var k = begin("series", file, tagged, into: &out)
    k.key("conn", into: &out)
    out.appendConnJSON(series.conn, peerName: series.peerName)
    appendSubject(&k, series.operation, series.subject, into: &out)
    k.string("op", series.operation.rawValue, into: &out)
    k.string("direction", series.direction.rawValue, into: &out)
    k.integer("transfer_count", series.transferCount, into: &out)
    k.integer("run_count", series.runCount, into: &out)
    appendFrames(&k, series.first, series.last, into: &out)
    k.integer("payload_bytes", series.payloadBytes, into: &out)
    k.integer("pdu_count", series.pduCount, into: &out)
    k.milliseconds("span_ms", series.spanMicroseconds, into: &out)
    appendRate(&k, "achieved_bytes_per_s", series.achieved, into: &out)
    appendShare(&k, "active_share", series.activeShare, into: &out)
    appendShare(&k, "link_busy_share", series.busyShare, into: &out)
    appendRate(&k, "best_ceiling_bytes_per_s", series.bestCeiling, into: &out)
    k.string("binding", series.binding?.rawValue, into: &out)
    k.string("verdict", ThroughputWords.verdict(series), into: &out)
    out.append("}")
  }

  static func appendFinding(_ finding: PlatformFinding, file: String?, tagged: Bool, into out: inout OutputBuffer) {
    var k = begin("finding", file, tagged, into: &out)
    k.key("conn", into: &out)
    out.appendConnJSON(finding.conn, peerName: finding.peerName)
    k.integer("frame", finding.at.frame, into: &out)
    k.key("ts", into: &out)
    JSONRecord.appendSeconds(finding.at.timestamp, into: &out)
    switch finding.kind {
    case .appleParameterRequest(let request, let broken, let byLocal):
      k.string("rule", "ios_connection_parameters", into: &out)
      k.string("severity", "warning", into: &out)
      k.key("parameter_request", into: &out)
      var r = JSONKeys()
      out.append("{")
      r.milliseconds("interval_min_ms", request.intervalMin.microseconds, into: &out)
      r.milliseconds("interval_max_ms", request.intervalMax.microseconds, into: &out)
      r.integer("latency", request.latency, into: &out)
      r.integer("supervision_timeout_ms", request.timeout.milliseconds, into: &out)
      r.string("by", byLocal ? "local" : "peer", into: &out)
      out.append("}")
      k.key("broken", into: &out)
      out.append("[")
      for (i, rule) in broken.enumerated() {
        if i > 0 { out.append(",") }
        out.appendJSONString(rule.rawValue)
      }
      out.append("]")
      k.milliseconds("interval_ms", nil, into: &out)
      k.string("priority", nil, into: &out)
      k.string("citation", AppleConnectionRule.citation, into: &out)
    case .androidPriority(let interval, let band):
      k.string("rule", "android_connection_priority", into: &out)
      k.string("severity", "info", into: &out)
      k.key("parameter_request", into: &out)
      out.append("null")
      k.key("broken", into: &out)
      out.append("[]")
      k.milliseconds("interval_ms", interval.microseconds, into: &out)
      k.string("priority", band?.rawValue, into: &out)
      k.string("citation", AndroidConnectionPriority.citation, into: &out)
    }
    k.string("message", ThroughputText.findingText(finding), into: &out)
    out.append("}")
  }
}
