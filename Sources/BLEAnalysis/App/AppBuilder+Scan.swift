import BLECapture
import BLEDissect

/// Scans: the calls LE Set (Extended) Scan Enable makes and the results their
/// advertising reports give the app.
extension AppBuilder {
  mutating func advertisement(
    _ report: AdvertisingReport, _ i: Int, _ record: Record, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    guard let address = report.address, var scan = calls[i].scan else { return }
    // Out of the call while it changes, so that its device list is not copied.
    calls[i].scan = nil
    scan.reports += 1
    let key = ScanDeviceKey(address: address, addressType: report.addressType)
    let index =
      scanDevices[i, default: [:]][key]
      ?? {
        scan.devices.append(AppScan.Device(address: address, addressType: report.addressType, firstReport: at))
        scanDevices[i, default: [:]][key] = scan.devices.count - 1
        return scan.devices.count - 1
      }()
    var device = scan.devices[index]
    device.reports += 1
    let extended = report.kind == .extended
    let scanResponse = extended ? report.eventType & 0x08 != 0 : report.eventType == 4
    let scannable =
      extended
      ? report.eventType & 0x02 != 0 : report.kind == .legacy && (report.eventType == 0 || report.eventType == 2)
    if extended ? report.eventType & 0x01 != 0 : report.kind == .directed || report.eventType <= 1 {
      device.connectable = true
    }
    for structure in report.structures {
      switch structure.value {
      case .serviceUUIDs(let uuids, _):
        for uuid in uuids where !device.services.contains(uuid.normalized) { device.services.append(uuid.normalized) }
      case .serviceData(let uuid, _):
        if !device.services.contains(uuid.normalized) { device.services.append(uuid.normalized) }
      case .name(let name) where !name.isEmpty:
        device.name = name
      default: break
      }
    }
    // When an app's scan callback fires (what Bumble's advertisement accumulator and the
    // phone stacks do alike): at once for a passive scan or a PDU that cannot be scanned;
    // a scannable one waits for its scan response, unless another comes first.
    let result: Bool
    if scanResponse {
      result = device.pending
      device.pending = false
    } else if scan.active == false || !scannable {
      result = true
    } else {
      result = device.pending
      device.pending = true
    }
    if result {
      device.results += 1
      scan.results += 1
      if device.firstResult == nil { device.firstResult = at }
      if scan.firstResult == nil {
        scan.firstResult = at
        scan.firstResultAddress = address
      }
    }
    scan.devices[index] = device
    calls[i].scan = scan
  }

  mutating func scanEnable(
    extended: Bool, enable: Bool, filterDuplicates: Bool?, _ record: Record, _ analyzed: AnalyzedRecord,
    _ at: FrameTime
  ) {
    var adapter = adapters[record.adapter] ?? Adapter()
    defer { adapters[record.adapter] = adapter }
    if enable {
      guard adapter.scanning == nil else { return }
      // The stack restarts a scan on its own (new parameters, a duty cycle around a
      // connection attempt): an Enable right after the last scan stopped continues it.
      if let last = adapter.lastScan, let stopped = calls[last].scan?.disableComplete ?? calls[last].scan?.disable,
        stopped.microseconds(to: at) <= Self.scanRestartGap
      {
        var scan = calls[last].scan
        calls[last].scan = nil
        scan?.restarts += 1
        scan?.disable = nil
        scan?.disableComplete = nil
        if let parameters = adapter.scanParameters,
          parameters.interval != scan?.interval || parameters.window != scan?.window
        {
          scan?.parameterChanges += 1
        }
        calls[last].scan = scan
        calls[last].requests.append(at.frame)
        calls[last].end = at
        adapter.scanning = last
        return
      }
      // The last scan cannot be restarted any more: its devices are all found.
      if let last = adapter.lastScan {
        scanDevices[last] = nil
        calls.park(last)
      }
      var scan = AppScan(extended: extended, enable: at)
      var start = at
      var requests = [at.frame]
      if let parameters = adapter.scanParameters {
        scan.active = parameters.active
        scan.interval = parameters.interval
        scan.window = parameters.window
        if parameters.at.frame > adapter.lastScanEnd {
          start = parameters.at
          requests.insert(parameters.at.frame, at: 0)
        }
      }
      scan.filterDuplicates = filterDuplicates
      var call = AppCall(kind: .scan, conn: nil, start: start, end: at)
      call.requests = requests
      call.scan = scan
      adapter.scanning = calls.count
      calls.append(call)
    } else if let i = adapter.scanning {
      calls[i].scan?.disable = at
      calls[i].end = at
      calls[i].requests.append(at.frame)
      adapter.pendingCommands[analyzed.decoded.hci?.opcode ?? 0] = i
      adapter.scanning = nil
      adapter.lastScanEnd = at.frame
      adapter.lastScan = i
    }
  }

  /// An Enable this soon (µs) after the last scan's disable completed is the stack
  /// restarting that scan, not the app starting another.
  static let scanRestartGap: Int64 = 250_000
}
