import BLEAnalysis
import BLECapture
import BLEDissect

/// The tables of one capture, each sortable by any column: the app's calls, the ATT
/// transactions (as `timeline` lists them), the calls that failed, the advertisers (the
/// columns of `devices`) and the GATT databases (as `gatt` rebuilds them).
struct ReportTables {
  let page: ReportPage

  func append(into out: inout OutputBuffer) {
    out.append(string: "<section id=\"\(page.id)-tables\" aria-labelledby=\"\(page.id)-tables-h\">\n")
    out.append(string: "<h3 id=\"\(page.id)-tables-h\">Tables</h3>\n")
    appendCalls(into: &out)
    appendTransactions(into: &out)
    appendErrors(into: &out)
    appendDevices(into: &out)
    appendGATT(into: &out)
    out.append("</section>\n")
  }

  private func callRow(_ call: AppCall) -> [HTMLTable.Cell] {
    let frames = call.frames
    return [
      .init(page.relative(call.start.timestamp), value: Double(call.start.timestamp - page.start) / 1e6),
      call.conn.map { .init($0.id) } ?? "", .init(call.kind.rawValue), .init(page.title(call)),
      .init((call.ok ? "" : "✗ ") + page.result(call), error: !call.ok), .init(milliseconds: call.duration),
      .init(
        frames.first == frames.last ? "#\(frames.first)" : "#\(frames.first)–#\(frames.last)",
        value: Double(frames.first)),
    ]
  }

  static let callColumns = ["at (s)", "connection", "kind", "call", "result", "duration (ms)", "frames"]

  private func appendCalls(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-calls\">Calls</h4>\n")
    let calls = page.report.story.calls
    guard !calls.isEmpty else { return out.append("<p>No app call in the capture.</p>\n") }
    HTMLTable(Self.callColumns, numeric: [0, 1, 5, 6]).append(
      caption: "The app's calls and events (\(calls.count))", rows: calls.prefix(500).map(callRow),
      total: calls.count, more: "`bleanalyze app` lists them all", into: &out)
  }

  private func appendTransactions(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-transactions\">Transactions</h4>\n")
    let transactions = page.report.timeline.transactions
    guard !transactions.isEmpty else { return out.append("<p>No ATT transaction in the capture.</p>\n") }
    let rows: [[HTMLTable.Cell]] = transactions.prefix(500).map { transaction in
      [
        .init(
          page.relative(transaction.request.timestamp), value: Double(transaction.request.timestamp - page.start) / 1e6),
        .init(transaction.conn), .init(transaction.text(latency: false)),
        .init(transaction.outcome.rawValue, error: transaction.outcome != .ok),
        .init(milliseconds: transaction.latencyMicroseconds), .init(transaction.request.frame),
        transaction.response.map { .init($0.frame) } ?? "",
      ]
    }
    HTMLTable(
      ["at (s)", "connection", "transaction", "outcome", "latency (ms)", "request", "response"],
      numeric: [0, 1, 4, 5, 6]
    ).append(
      caption: "ATT transactions (\(transactions.count))", rows: rows, total: transactions.count,
      more: "`bleanalyze timeline` lists them all", into: &out)
  }

  private func appendErrors(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-errors\">Errors</h4>\n")
    let failed = page.failedCalls
    guard !failed.isEmpty else { return out.append("<p>No call failed.</p>\n") }
    HTMLTable(Self.callColumns, numeric: [0, 1, 5, 6]).append(
      caption: "Calls that failed (\(failed.count))", rows: failed.prefix(500).map(callRow), total: failed.count,
      more: "`bleanalyze app` lists them all", into: &out)
  }

  private func appendDevices(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-devices\">Devices</h4>\n")
    let devices = page.report.devices
    guard !devices.isEmpty else { return out.append("<p>No advertiser in the capture.</p>\n") }
    let rows: [[HTMLTable.Cell]] = devices.prefix(500).map { device in
      let cells = DevicesText.cells(device)
      return cells.enumerated().map { index, text in
        switch index {
        case 2: .init(text, value: Double(device.reports.values.reduce(0, +)))
        case 3: .init(text, value: device.rssiMean)
        case 4: .init(text, value: device.intervalEstimate)
        case 5: .init(text, value: Double(device.firstFrame))
        default: .init(text)
        }
      }
    }
    HTMLTable(DevicesText.headers, numeric: [2, 3, 4, 5]).append(
      caption: "Advertisers (\(devices.count)), as `devices` lists them", rows: rows, total: devices.count,
      more: "`bleanalyze devices` lists them all", into: &out)
  }

  private func appendGATT(into out: inout OutputBuffer) {
    out.append(string: "<h4 id=\"\(page.id)-gatt\">GATT database</h4>\n")
    let servers = page.report.servers
    guard !servers.isEmpty else { return out.append("<p>No GATT database was discovered.</p>\n") }
    for server in servers {
      var rows: [[HTMLTable.Cell]] = []
      for node in server.database.tree {
        if let service = node.service {
          rows.append([
            .init("0x" + hex(service.start), value: Double(service.start)),
            .init(service.primary ? "primary service" : "secondary service"), .init(service.uuid.description),
            .init(page.names.displayName(of: service.uuid)),
            .init("0x" + hex(service.start) + "–0x" + hex(service.end)),
          ])
        }
        for include in node.includes {
          rows.append([
            .init("0x" + hex(include.handle), value: Double(include.handle)), "include",
            .init(include.uuid?.description ?? ""), .init(include.uuid.map { page.names.displayName(of: $0) } ?? ""),
            .init("0x" + hex(include.start) + "–0x" + hex(include.end)),
          ])
        }
        for child in node.characteristics {
          let characteristic = child.characteristic
          rows.append([
            .init("0x" + hex(characteristic.value), value: Double(characteristic.value)), "characteristic",
            .init(characteristic.uuid.description), .init(page.names.displayName(of: characteristic.uuid)),
            .init(characteristic.propertyNames.joined(separator: ", ")),
          ])
          for descriptor in child.descriptors {
            rows.append([
              .init("0x" + hex(descriptor.handle), value: Double(descriptor.handle)), "descriptor",
              .init(descriptor.uuid.description), .init(page.names.displayName(of: descriptor.uuid)), "",
            ])
          }
        }
      }
      var title = OutputBuffer(fd: -1, flushThreshold: 256)
      GATTRenderer.appendServerTitle(server, into: &title)
      HTMLTable(["handle", "attribute", "uuid", "name", "range / properties"], numeric: [0], limit: 1000).append(
        caption: String(decoding: title.bytes, as: UTF8.self), rows: rows, more: "`bleanalyze gatt` lists them all",
        into: &out)
    }
  }
}
