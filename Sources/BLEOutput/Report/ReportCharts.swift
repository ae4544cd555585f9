import BLEAnalysis
import BLECapture
import BLEDissect

/// The charts of one capture, drawn here as inline SVG: ATT latency histograms (per
/// opcode and per characteristic, the buckets `stats` counts), the connections over
/// time (Gantt: connected, discovery, pairing, transfers), each transfer's rate over time,
/// each advertiser's RSSI over time, and advertising intervals.
///
/// Every chart is a `<figure>` whose `<svg role="img">` names its `<title>` and `<desc>`
/// (the text alternative, with the numbers), with a caption and the data as a table
/// under it; marks differ by position, size and label as well as colour.
struct ReportCharts {
  let page: ReportPage

  /// Histograms drawn at most of each kind; transfers and advertisers drawn at most.
  static let histograms = 8
  static let transfers = 6
  static let advertisers = 8
  static let intervalRows = 30
  static let ganttRows = 40

  func append(into out: inout OutputBuffer) {
    out.append(string: "<section id=\"\(page.id)-charts\" aria-labelledby=\"\(page.id)-charts-h\">\n")
    out.append(string: "<h3 id=\"\(page.id)-charts-h\">Charts</h3>\n")
    var chart = ChartWriter(prefix: page.id + "-chart")
    appendLatency(&chart, into: &out)
    appendGantt(&chart, into: &out)
    appendRates(&chart, into: &out)
    appendRSSI(&chart, into: &out)
    appendIntervals(&chart, into: &out)
    out.append("</section>\n")
  }

  // MARK: - ATT latency

  private func appendLatency(_ chart: inout ChartWriter, into out: inout OutputBuffer) {
    out.append("<h4>ATT latency</h4>\n")
    let stats = page.report.statistics
    var drawn = 0
    let opcodes = stats.opcodes.filter { ($0.transactions?.histogram.total ?? 0) > 0 }
      .sorted { ($0.transactions?.histogram.total ?? 0) > ($1.transactions?.histogram.total ?? 0) }
    for row in opcodes.prefix(Self.histograms) {
      guard let transactions = row.transactions else { continue }
      histogram(transactions, title: row.opcode.name, &chart, into: &out)
      drawn += 1
    }
    let characteristics = stats.characteristics.filter { ($0.transactions?.histogram.total ?? 0) > 0 }
      .sorted { ($0.transactions?.histogram.total ?? 0) > ($1.transactions?.histogram.total ?? 0) }
    for row in characteristics.prefix(Self.histograms) {
      guard let transactions = row.transactions else { continue }
      var name = row.attribute?.characteristicName ?? row.key.uuid.map { page.names.displayName(of: $0) } ?? "attribute"
      name += " (0x" + hex(row.key.valueHandle) + ")"
      if let peer = row.key.peer { name += " on " + peer.description }
      histogram(transactions, title: name, &chart, into: &out)
      drawn += 1
    }
    if drawn == 0 { out.append("<p>No ATT transaction with a latency.</p>\n") }
  }

  private func histogram(
    _ transactions: TransactionStats, title: String, _ chart: inout ChartWriter, into out: inout OutputBuffer
  ) {
    let buckets = transactions.histogram.buckets
    // Bucket bounds in ms without trailing zeros: `< 0.1`, `10–20`, `≥ 100000`.
    func ms(_ microseconds: Int64) -> String { measureText(Double(microseconds) / 1000) }
    let labels = buckets.map { bucket in
      switch (bucket.lower, bucket.upper) {
      case (nil, let upper?): "< " + ms(upper)
      case (let lower?, nil): "≥ " + ms(lower)
      case (let lower?, let upper?): ms(lower) + "–" + ms(upper)
      default: "all"
      }
    }
    var desc = "\(transactions.histogram.total) transactions with a latency"
    if let latency = transactions.latency {
      desc +=
        "; median " + Milliseconds.text(latency.median) + ", p95 " + Milliseconds.text(latency.p95) + ", max "
        + Milliseconds.text(latency.max)
    }
    desc += ". " + zip(labels, buckets).map { "\($0): \($1.count)" }.joined(separator: "; ")
    let width = 46.0 + Double(max(buckets.count, 4)) * 52
    let height = 150.0
    chart.begin(
      kind: "latency", title: "Latency of " + title, desc: desc, width: width, height: height, into: &out)
    let top = Double(buckets.map(\.count).max() ?? 1)
    let plot = (x: 36.0, y: 10.0, w: width - 40, h: height - 50)
    chart.axes(plot, yLabel: "\(Int(top))", into: &out)
    let barWidth = plot.w / Double(max(buckets.count, 4))
    for (i, bucket) in buckets.enumerated() {
      let h = plot.h * Double(bucket.count) / top
      let x = plot.x + Double(i) * barWidth + 2
      chart.rect(
        x: x, y: plot.y + plot.h - h, w: barWidth - 4, h: h, class: "k1", tip: "\(labels[i]): \(bucket.count)",
        into: &out)
      chart.text(x: x + (barWidth - 4) / 2, y: plot.y + plot.h - h - 2, "\(bucket.count)", anchor: "middle", into: &out)
      chart.text(
        x: x + (barWidth - 4) / 2, y: plot.y + plot.h + 12, labels[i], anchor: "middle", small: true, into: &out)
    }
    chart.text(x: plot.x + plot.w / 2, y: height - 4, "latency (ms)", anchor: "middle", into: &out)
    chart.end(
      caption: "Latency of " + title + ": transactions per latency bucket (as `stats` counts them).",
      table: (["latency (ms)", "transactions"], zip(labels, buckets).map { [$0, "\($1.count)"] }), into: &out)
  }

  // MARK: - Connections over time

  private func appendGantt(_ chart: inout ChartWriter, into out: inout OutputBuffer) {
    out.append("<h4>Connections over time</h4>\n")
    let connections = Array(page.report.timeline.connections.prefix(Self.ganttRows))
    guard !connections.isEmpty else { return out.append("<p>No connection in the capture.</p>\n") }
    let start = page.start
    let end = max(page.capture.last?.unixMicroseconds ?? start, connections.map(\.last.timestamp).max() ?? start)
    let span = Double(max(end - start, 1))
    let rowHeight = 22.0
    let width = 760.0
    let plot = (x: 70.0, y: 10.0, w: width - 80, h: rowHeight * Double(connections.count))
    let height = plot.h + 50
    var rows: [[String]] = []
    var desc = "\(page.report.timeline.connections.count) connections over " + Milliseconds.text(Int64(span)) + ". "
    func x(_ time: Int64) -> Double { plot.x + plot.w * Double(time - start) / span }
    var marks: [(x0: Double, x1: Double, y: Double, h: Double, kind: String, tip: String)] = []
    for (i, connection) in connections.enumerated() {
      let y = plot.y + Double(i) * rowHeight
      let began = (connection.complete ?? connection.first).timestamp
      let ended = (connection.disconnect?.complete ?? connection.last).timestamp
      let outcome = ReportSummary.outcome(connection)
      marks.append(
        (x(began), x(ended), y + 2, 17, outcome.bad ? "kx" : "k2", "connection #\(connection.ref.id): " + outcome.text))
      var parts = ["connected " + page.relative(began) + " for " + Milliseconds.text(ended - began)]
      if let discovery = connection.discovery {
        marks.append((x(discovery.start.timestamp), x(discovery.end.timestamp), y + 4, 4, "k3", "discovery"))
        parts.append("discovery " + Milliseconds.text(discovery.durationMicroseconds))
      }
      for pairing in connection.pairing {
        let done = pairing.encrypted ?? pairing.failed?.at ?? pairing.start
        marks.append((x(pairing.start.timestamp), x(done.timestamp), y + 9, 4, "k4", "pairing"))
        parts.append("pairing " + Milliseconds.text(pairing.start.microseconds(to: done)))
      }
      let transfers = page.report.throughput.transfers(onConnection: connection.ref.id)
      for transfer in transfers {
        marks.append((x(transfer.first.timestamp), x(transfer.last.timestamp), y + 14, 4, "k5", "transfer"))
      }
      if !transfers.isEmpty { parts.append("\(transfers.count) transfers") }
      parts.append(outcome.text)
      rows.append(["#\(connection.ref.id)", parts.joined(separator: ", ")])
    }
    desc += rows.map { $0[0] + ": " + $0[1] }.joined(separator: "; ")
    chart.begin(kind: "gantt", title: "Connections over time", desc: desc, width: width, height: height, into: &out)
    chart.axes(plot, yLabel: nil, into: &out)
    for (i, connection) in connections.enumerated() {
      chart.text(
        x: plot.x - 4, y: plot.y + Double(i) * rowHeight + 14, "#\(connection.ref.id)", anchor: "end", into: &out)
    }
    for mark in marks {
      chart.rect(
        x: mark.x0, y: mark.y, w: max(mark.x1 - mark.x0, 1.5), h: mark.h, class: mark.kind, tip: mark.tip, into: &out)
    }
    // A lost or failed connection is marked with ✗ as well as its colour.
    for (i, connection) in connections.enumerated() where ReportSummary.outcome(connection).bad {
      let ended = (connection.disconnect?.complete ?? connection.last).timestamp
      chart.text(x: x(ended) + 3, y: plot.y + Double(i) * rowHeight + 14, "✗", anchor: "start", into: &out)
    }
    chart.timeAxis(plot, span: span, into: &out)
    chart.legend(
      [("k2", "connected"), ("kx", "lost / failed"), ("k3", "discovery"), ("k4", "pairing"), ("k5", "transfer")],
      x: plot.x, y: height - 12, into: &out)
    chart.end(
      caption: "Each connection from its Connection Complete to its Disconnection Complete (or the capture's end), "
        + "with discovery, pairing and transfers on it.",
      table: (["connection", "what happened"], rows), into: &out)
  }

  // MARK: - Rates

  private func appendRates(_ chart: inout ChartWriter, into out: inout OutputBuffer) {
    out.append("<h4>Rate over time per transfer</h4>\n")
    let transfers = page.report.throughput.transfers.filter { $0.pduCount >= 4 }
      .sorted { $0.payloadBytes > $1.payloadBytes }.prefix(Self.transfers)
    guard !transfers.isEmpty else { return out.append("<p>No transfer of four or more PDUs.</p>\n") }
    for transfer in transfers {
      let rates = page.report.payload.rate(of: transfer, bins: 40)
      guard !rates.isEmpty else { continue }
      let subject = ThroughputWords.subject(transfer.operation, transfer.subject)
      let title =
        "Rate of " + ThroughputWords.operation(transfer.operation)
        + " \(transfer.direction.rawValue) \(subject) on connection #\(transfer.conn.id)"
      let top = max(rates.map(\.bytesPerSecond).max() ?? 1, 1)
      let mean = ThroughputWords.rate(transfer.achieved)
      let desc =
        "\(transfer.payloadBytes) bytes in \(transfer.pduCount) PDUs over "
        + Milliseconds.text(transfer.spanMicroseconds) + ", \(mean) on average; peak "
        + ThroughputWords.rate(BytesPerSecond(top)) + " in a 1/40 of its span."
      let width = 420.0
      let height = 160.0
      let plot = (x: 56.0, y: 10.0, w: width - 66, h: height - 50)
      chart.begin(kind: "rate", title: title, desc: desc, width: width, height: height, into: &out)
      chart.axes(plot, yLabel: ThroughputWords.rate(BytesPerSecond(top)), into: &out)
      let span = Double(max(transfer.spanMicroseconds, 1))
      let points = rates.map { rate in
        (
          plot.x + plot.w * Double(rate.start - transfer.first.timestamp) / span,
          plot.y + plot.h - plot.h * rate.bytesPerSecond / top
        )
      }
      chart.polyline(points, into: &out)
      chart.timeAxis(plot, span: span, into: &out)
      chart.end(
        caption: title + ": payload bytes per second in 40 equal spans.",
        table: (
          ["from (s)", "rate"],
          rates.map {
            [page.relative($0.start), ThroughputWords.rate(BytesPerSecond($0.bytesPerSecond))]
          }
        ), into: &out)
    }
  }

  // MARK: - RSSI

  private func appendRSSI(_ chart: inout ChartWriter, into out: inout OutputBuffer) {
    out.append("<h4>RSSI per advertiser</h4>\n")
    let devices = page.report.devices.filter { $0.rssiMin != nil }
      .sorted { $0.reports.values.reduce(0, +) > $1.reports.values.reduce(0, +) }.prefix(Self.advertisers)
    guard !devices.isEmpty else { return out.append("<p>No advertising report with an RSSI.</p>\n") }
    for device in devices {
      let samples = thin(page.report.rssi.samples(of: device), to: 400)
      guard let first = samples.first, let last = samples.last else { continue }
      let name = device.address.description + (device.names.first.map { " \"\($0)\"" } ?? "")
      let low = Double(device.rssiMin ?? -100)
      let high = Double(device.rssiMax ?? 0)
      let desc =
        "\(device.reports.values.reduce(0, +)) reports; RSSI from \(device.rssiMin ?? 0) to \(device.rssiMax ?? 0) dBm, "
        + "mean " + ReportNumber.text(((device.rssiMean ?? 0) * 10).rounded() / 10) + " dBm, over "
        + Milliseconds.text(last.time - first.time) + "."
      let width = 420.0
      let height = 150.0
      let plot = (x: 56.0, y: 10.0, w: width - 66, h: height - 50)
      chart.begin(kind: "rssi", title: "RSSI of " + name, desc: desc, width: width, height: height, into: &out)
      chart.axes(plot, yLabel: "\(Int(high)) dBm", bottomLabel: "\(Int(low)) dBm", into: &out)
      let span = Double(max(last.time - first.time, 1))
      let range = max(high - low, 1)
      for sample in samples {
        chart.dot(
          x: plot.x + plot.w * Double(sample.time - first.time) / span,
          y: plot.y + plot.h - plot.h * (Double(sample.value) - low) / range, into: &out)
      }
      chart.timeAxis(plot, span: span, into: &out)
      chart.end(
        caption: "RSSI of " + name + " over time, one dot per advertising report (at most 400 drawn).",
        table: (
          ["at (s)", "RSSI (dBm)"], thin(samples, to: 40).map { [page.relative($0.time), "\($0.value)"] }
        ), into: &out)
    }
  }

  private func thin<T>(_ items: [T], to count: Int) -> [T] {
    guard items.count > count else { return items }
    return (0..<count).map { items[$0 * items.count / count] }
  }

  // MARK: - Advertising intervals

  private func appendIntervals(_ chart: inout ChartWriter, into out: inout OutputBuffer) {
    out.append("<h4>Advertising intervals</h4>\n")
    let devices = page.report.devices.compactMap { device in device.intervalEstimate.map { (device, $0) } }
      .sorted { $0.1 < $1.1 }.prefix(Self.intervalRows)
    guard !devices.isEmpty else {
      return out.append("<p>No advertiser sent enough reports to estimate its interval.</p>\n")
    }
    let rows = devices.map { device, interval in
      [device.address.description + (device.names.first.map { " \"\($0)\"" } ?? ""), measureText(interval.rounded())]
    }
    let top = max(devices.map(\.1).max() ?? 1, 1)
    let rowHeight = 16.0
    let width = 620.0
    let plot = (x: 250.0, y: 6.0, w: width - 300, h: rowHeight * Double(devices.count))
    let desc =
      "Estimated advertising interval of \(devices.count) advertisers: "
      + rows.map { $0[0] + " " + $0[1] + " ms" }.joined(separator: "; ")
    chart.begin(
      kind: "intervals", title: "Advertising intervals", desc: desc, width: width, height: plot.h + 30, into: &out)
    chart.axes(plot, yLabel: nil, into: &out)
    for (i, row) in rows.enumerated() {
      let y = plot.y + Double(i) * rowHeight
      let w = plot.w * devices[devices.startIndex + i].1 / top
      chart.text(x: plot.x - 4, y: y + 11, row[0], anchor: "end", into: &out)
      chart.rect(x: plot.x, y: y + 2, w: max(w, 1), h: rowHeight - 4, class: "k1", tip: row[1] + " ms", into: &out)
      chart.text(x: plot.x + w + 4, y: y + 11, row[1] + " ms", anchor: "start", into: &out)
    }
    chart.end(
      caption: "Advertising interval per advertiser, as `devices` estimates it (ms).",
      table: (["advertiser", "interval (ms)"], rows), into: &out)
  }
}

/// Writes one SVG chart with its text alternative; ids are unique in the report.
struct ChartWriter {
  let prefix: String
  private var count = 0
  private var id = ""
  var width = 0.0

  init(prefix: String) { self.prefix = prefix }

  mutating func begin(
    kind: String, title: String, desc: String, width: Double, height: Double, into out: inout OutputBuffer
  ) {
    count += 1
    id = "\(prefix)\(count)"
    self.width = width
    out.append(string: "<figure class=\"chart\" data-chart=\"\(kind)\" aria-labelledby=\"\(id)-cap\">")
    out.append(
      string:
        "<svg role=\"img\" aria-labelledby=\"\(id)-t \(id)-d\" viewBox=\"0 0 \(ReportNumber.coordinate(width)) \(ReportNumber.coordinate(height))\" width=\"\(ReportNumber.coordinate(width))\" height=\"\(ReportNumber.coordinate(height))\">"
    )
    out.append(string: "<title id=\"\(id)-t\">")
    out.appendHTML(title)
    out.append(string: "</title><desc id=\"\(id)-d\">")
    out.appendHTML(desc)
    out.append("</desc>")
  }

  func end(caption: String, table: (header: [String], rows: [[String]]), into out: inout OutputBuffer) {
    out.append(string: "</svg><figcaption id=\"\(id)-cap\">")
    out.appendHTML(caption)
    out.append("</figcaption><details><summary>Data</summary><table><thead><tr>")
    for title in table.header { out.appendElement("th", title) }
    out.append("</tr></thead><tbody>")
    for row in table.rows {
      out.append("<tr>")
      for cell in row { out.appendElement("td", cell) }
      out.append("</tr>")
    }
    out.append("</tbody></table></details></figure>\n")
  }

  func axes(
    _ plot: (x: Double, y: Double, w: Double, h: Double), yLabel: String?, bottomLabel: String? = nil,
    into out: inout OutputBuffer
  ) {
    let c = ReportNumber.coordinate
    out.append(
      string:
        "<path class=\"ax\" d=\"M\(c(plot.x)) \(c(plot.y))V\(c(plot.y + plot.h))H\(c(plot.x + plot.w))\"/>")
    if let yLabel { text(x: plot.x - 4, y: plot.y + 8, yLabel, anchor: "end", into: &out) }
    if let bottomLabel { text(x: plot.x - 4, y: plot.y + plot.h, bottomLabel, anchor: "end", into: &out) }
  }

  /// Ticks at 0, ½ and the end of the span.
  func timeAxis(_ plot: (x: Double, y: Double, w: Double, h: Double), span: Double, into out: inout OutputBuffer) {
    for fraction in [0.0, 0.5, 1.0] {
      text(
        x: plot.x + plot.w * fraction, y: plot.y + plot.h + 12,
        (fraction == 0 ? "" : "+") + Milliseconds.text(Int64(span * fraction)), anchor: "middle", into: &out)
    }
  }

  func rect(x: Double, y: Double, w: Double, h: Double, class name: String, tip: String, into out: inout OutputBuffer) {
    let c = ReportNumber.coordinate
    out.append(
      string: "<rect class=\"\(name)\" x=\"\(c(x))\" y=\"\(c(y))\" width=\"\(c(w))\" height=\"\(c(h))\"><title>")
    out.appendHTML(tip)
    out.append("</title></rect>")
  }

  func dot(x: Double, y: Double, into out: inout OutputBuffer) {
    let c = ReportNumber.coordinate
    out.append(string: "<circle class=\"dot\" cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"2\"/>")
  }

  func polyline(_ points: [(Double, Double)], into out: inout OutputBuffer) {
    let c = ReportNumber.coordinate
    out.append("<polyline class=\"ln\" points=\"")
    out.append(string: points.map { c($0.0) + "," + c($0.1) }.joined(separator: " "))
    out.append("\"/>")
  }

  func text(
    x: Double, y: Double, _ text: String, anchor: StaticString, small: Bool = false, into out: inout OutputBuffer
  ) {
    let c = ReportNumber.coordinate
    out.append(string: "<text x=\"\(c(x))\" y=\"\(c(y))\" text-anchor=\"")
    out.append(anchor)
    out.append(small ? "\" font-size=\"8\">" : "\">")
    out.appendHTML(text)
    out.append("</text>")
  }

  /// Swatches with their names, so no mark is told apart by colour alone.
  func legend(_ items: [(String, String)], x: Double, y: Double, into out: inout OutputBuffer) {
    var position = x
    for (kind, name) in items {
      rect(x: position, y: y - 8, w: 10, h: 10, class: kind, tip: name, into: &out)
      text(x: position + 13, y: y, name, anchor: "start", into: &out)
      position += 20 + Double(name.count) * 5.5
    }
  }
}
