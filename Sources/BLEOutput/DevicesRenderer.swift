import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders `devices`: every advertiser of a capture.
///
/// - text: a table with aligned columns per capture, then a summary line;
/// - json: `{"schema_version":2,"devices":[…]}` (DESIGN.md's data contract);
/// - ndjson: one device object per line.
///
/// With several captures, each device carries `file` in JSON and each capture has
/// its own table in text.
public struct DevicesRenderer {
  let format: RenderFormat
  let multipleFiles: Bool
  private var written = 0
  private var captures: [CaptureInfo] = []

  public init(format: RenderFormat, multipleFiles: Bool) {
    self.format = format
    self.multipleFiles = multipleFiles
  }

  public mutating func begin(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.appendDocumentStart(.devices, listing: "devices")
  }

  /// The devices of one capture.
  public mutating func render(
    path: String, _ devices: [Device], table: DeviceTable, capture: CaptureInfo, into out: inout OutputBuffer
  ) {
    captures.append(capture)
    switch format {
    case .text:
      DevicesText.append(path: path, format: capture.format, devices, table: table, into: &out)
    case .json, .ndjson:
      for device in devices {
        if format == .json && written > 0 { out.append(",") }
        written += 1
        DevicesJSON.append(device, file: multipleFiles ? path : nil, into: &out)
        if format == .ndjson { out.append(0x0A) }
      }
    }
  }

  public mutating func finish(into out: inout OutputBuffer) {
    guard format == .json else { return }
    out.append("]")
    out.appendCapturesJSON(captures)
    out.append("}\n")
  }
}

/// One device object of the data contract.
enum DevicesJSON {
  static func append(_ device: Device, file: String?, into out: inout OutputBuffer) {
    out.append("{\"address\":\"")
    out.appendAddress(device.address)
    out.append("\"")
    if let file {
      out.append(",\"file\":")
      out.appendJSONString(file)
    }
    out.append(",\"address_type\":")
    out.appendJSONString(device.addressType.name)
    if device.addressType == .random {
      out.append(",\"random_kind\":\"")
      out.append(string: device.address.randomKind.rawValue)
      out.append("\"")
    }
    out.append(",\"names\":")
    AdvertisingJSON.appendStrings(device.names, into: &out)
    out.append(",\"report_counts\":{")
    var first = true
    for name in orderedPDUTypes(device.reports) {
      if !first { out.append(",") }
      first = false
      out.appendJSONString(name)
      out.append(":")
      out.appendDecimal(device.reports[name] ?? 0)
    }
    out.append("},\"rssi_stats\":")
    if let low = device.rssiMin, let high = device.rssiMax, let mean = device.rssiMean {
      out.append("{\"min\":")
      out.appendDecimal(low)
      out.append(",\"max\":")
      out.appendDecimal(high)
      out.append(",\"mean\":")
      out.appendMeasure((mean * 10).rounded() / 10)
      out.append("}")
    } else {
      out.append("null")
    }
    out.append(",\"interval_ms\":")
    if let interval = device.intervalEstimate {
      out.appendMeasure((interval * 10).rounded() / 10)
    } else {
      out.append("null")
    }
    if let advertised = device.advertisedInterval {
      out.append(",\"advertised_interval_ms\":")
      out.appendMeasure(advertised.milliseconds)
    }
    out.append(",\"service_uuids\":")
    AdvertisingJSON.appendStrings(device.services.map(\.description), into: &out)
    out.append(",\"manufacturer\":[")
    for (index, entry) in device.manufacturer.enumerated() {
      if index > 0 { out.append(",") }
      out.append("{\"company_id\":")
      out.appendDecimal(Int(entry.company))
      out.append(",\"company\":")
      if let name = AssignedNumbers.company(entry.company) { out.appendJSONString(name) } else { out.append("null") }
      out.append(",\"data\":\"")
      out.appendHexBytes(entry.data)
      out.append("\"}")
    }
    out.append("],\"tx_power\":")
    if let power = device.txPower { out.appendDecimal(Int(power)) } else { out.append("null") }
    out.append(",\"appearance\":")
    if let appearance = device.appearance {
      out.appendDecimal(Int(appearance))
      out.append(",\"appearance_name\":")
      if let name = AssignedNumbers.appearance(appearance) { out.appendJSONString(name) } else { out.append("null") }
    } else {
      out.append("null")
    }
    out.append(",\"beacon\":")
    if let beacon = device.beacon { AdvertisingJSON.appendBeacon(beacon, into: &out) } else { out.append("null") }
    if device.beacons.count > 1 {
      out.append(",\"beacons\":[")
      for (index, beacon) in device.beacons.enumerated() {
        if index > 0 { out.append(",") }
        AdvertisingJSON.appendBeacon(beacon, into: &out)
      }
      out.append("]")
    }
    out.append(",\"first_frame\":")
    out.appendDecimal(device.firstFrame)
    out.append(",\"last_frame\":")
    out.appendDecimal(device.lastFrame)
    out.append(",\"first_ts\":")
    JSONRecord.appendSeconds(device.firstTime, into: &out)
    out.append(",\"last_ts\":")
    JSONRecord.appendSeconds(device.lastTime, into: &out)
    if let key = device.resolvedBy {
      out.append(",\"resolved\":{\"identity\":")
      AdvertisingJSON.appendAddress(key.identity, into: &out)
      out.append(",\"irk_source\":")
      switch key.source {
      case .capture(let frame):
        out.append("\"capture\",\"irk_frame\":")
        out.appendDecimal(frame)
      case .commandLine:
        out.append("\"command_line\"")
      }
      out.append(",\"addresses\":")
      AdvertisingJSON.appendStrings(device.addresses.map(\.description), into: &out)
      out.append("}")
    }
    out.append("}")
  }

  /// The PDU types a device was heard with, in the data contract's order.
  static func orderedPDUTypes(_ reports: [String: Int]) -> [String] {
    let known = AdvertisingReport.pduTypeNames.filter { reports[$0] != nil }
    return known + reports.keys.filter { !AdvertisingReport.pduTypeNames.contains($0) }.sorted()
  }
}

/// The text table of `devices`:
///
///     address            type    reports                 rssi min/mean/max  interval  frames  names, services, data
///     D4:36:39:67:A2:61  public  ADV_IND 13, SCAN_RSP 11  -61/-58.2/-55      101 ms    33-95   "Mhealth2-5C54", …
enum DevicesText {
  static let headers = ["address", "type", "reports", "rssi min/mean/max", "interval", "frames", "details"]

  static func append(
    path: String, format: String, _ devices: [Device], table: DeviceTable, into out: inout OutputBuffer
  ) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    out.append("\n")
    let rows = devices.map(cells)
    var widths = headers.map(\.count)
    for row in rows {
      for (index, cell) in row.enumerated() where index < widths.count - 1 {
        widths[index] = max(widths[index], cell.count)
      }
    }
    appendRow(headers, widths, into: &out)
    for row in rows { appendRow(row, widths, into: &out) }
    out.append("# ")
    out.appendDecimal(devices.count)
    out.append(devices.count == 1 ? " device" : " devices")
    let resolved = devices.filter { $0.resolvedBy != nil }.count
    if resolved > 0 {
      out.append(", ")
      out.appendDecimal(resolved)
      out.append(" resolved with IRKs")
    }
    if table.unattributedReports > 0 {
      out.append(", ")
      out.appendDecimal(table.unattributedReports)
      out.append(" reports without an advertiser address")
    }
    if table.droppedReports > 0 {
      out.append(", ")
      out.appendDecimal(table.droppedReports)
      out.append(" reports not counted (device limit)")
    }
    out.append("\n")
  }

  static func appendRow(_ cells: [String], _ widths: [Int], into out: inout OutputBuffer) {
    var line = "  "
    for (index, cell) in cells.enumerated() {
      if index > 0 { line += "  " }
      line += cell
      if index < cells.count - 1 { line += String(repeating: " ", count: max(0, widths[index] - cell.count)) }
    }
    // An empty last column leaves no trailing spaces.
    while line.last == " " { line.removeLast() }
    out.append(string: line)
    out.append("\n")
  }

  static func cells(_ device: Device) -> [String] {
    var type = device.addressType.name
    if device.addressType == .random { type += device.address.randomKind == .resolvable ? " (RPA)" : "" }
    let reports = DevicesJSON.orderedPDUTypes(device.reports).map { "\($0) \(device.reports[$0] ?? 0)" }
      .joined(separator: ", ")
    var rssi = "-"
    if let low = device.rssiMin, let high = device.rssiMax, let mean = device.rssiMean {
      rssi = "\(low)/\(measureText((mean * 10).rounded() / 10))/\(high)"
    }
    let interval = device.intervalEstimate.map { "\(measureText($0.rounded())) ms" } ?? "-"
    let frames =
      device.firstFrame == device.lastFrame ? "\(device.firstFrame)" : "\(device.firstFrame)-\(device.lastFrame)"
    return [device.address.description, type, reports, rssi, interval, frames, details(device)]
  }

  /// Names, services, beacon, manufacturer, tx power, appearance, identity.
  static func details(_ device: Device) -> String {
    var parts: [String] = device.names.map { "\"\($0)\"" }
    if !device.services.isEmpty {
      parts.append(
        "services "
          + device.services.map { uuid in
            AssignedNumbers.name(of: uuid).map { "\(uuid) (\($0))" } ?? uuid.description
          }.joined(separator: ", "))
    }
    if let beacon = device.beacon {
      var out = OutputBuffer(fd: -1, flushThreshold: 256)
      AdvertisingText.appendBeacon(beacon, into: &out)
      parts.append(String(decoding: out.bytes, as: UTF8.self))
    }
    for entry in device.manufacturer where !(device.beacon?.kind == "iBeacon" && entry.company == 0x004C) {
      let company = AssignedNumbers.company(entry.company) ?? "company 0x" + hex(entry.company)
      let shown = entry.data.prefix(AdvertisingText.dataBytesShown).map { hex($0) }.joined()
      parts.append(company + " " + shown + (entry.data.count > AdvertisingText.dataBytesShown ? "…" : ""))
    }
    if let power = device.txPower { parts.append("tx \(power) dBm") }
    if let appearance = device.appearance {
      parts.append("appearance " + (AssignedNumbers.appearance(appearance) ?? "0x" + hex(appearance)))
    }
    if let key = device.resolvedBy {
      var text = "resolved from " + device.addresses.map(\.description).joined(separator: ", ")
      switch key.source {
      case .capture(let frame): text += " (IRK of frame \(frame))"
      case .commandLine: text += " (--irk)"
      }
      parts.append(text)
    }
    return parts.joined(separator: ", ")
  }

}
