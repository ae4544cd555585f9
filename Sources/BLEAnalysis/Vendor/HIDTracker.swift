import BLEDissect

/// Follows HID over GATT per server (a keyboard keeps its Report Map across
/// reconnections, and hosts read it once): the Report Map of each HID service, the
/// report id and type each Report characteristic's Report Reference gives, and the
/// keys down on each input report characteristic, to decode every report.
struct HIDTracker {
  /// A server: its peer's address, else the connection (a capture that never shows it).
  enum ServerKey: Hashable {
    case address(DeviceAddress)
    case connection(Int)
  }

  struct Server {
    /// Report Maps by the handle of their HID service.
    var maps: [UInt16: HIDReportDescriptor] = [:]
    /// Report Reference (id, type) by the value handle of its Report characteristic.
    var references: [UInt16: (id: UInt8, type: HIDReportDescriptor.ReportType)] = [:]
    /// The keys and modifiers down in the last report of each characteristic.
    var down: [UInt16: [UInt16]] = [:]
  }

  private var servers: [ServerKey: Server] = [:]
  static let maximumServers = 16_384
  /// Report Maps, Report References and keyboards' keys held that one server keeps (a
  /// HID device has a few of each; more come from a hostile capture).
  static let maximumPerServer = 256

  var serverCount: Int { servers.count }

  mutating func analyze(_ pdu: VendorPDU) -> VendorOutcome {
    let key: ServerKey = pdu.connection.peer.map { .address($0) } ?? .connection(pdu.connection.id)
    guard servers[key] != nil || servers.count < Self.maximumServers else {
      return VendorOutcome(diagnostics: [
        Diagnostic(
          id: "vendor.state.limit", severity: .info,
          "HID state is kept for \(Self.maximumServers) servers; this one's report is not decoded")
      ])
    }
    var server = servers[key, default: Server()]
    defer { servers[key] = server }
    let service = pdu.attribute.serviceHandle ?? 0
    let handle = pdu.attribute.valueHandle ?? 0
    var record = HIDRecord(kind: "report")
    if pdu.frames.count > 1 { record.frames = pdu.frames }
    do throws(DecodeError) {
      switch pdu.role {
      case .hidReportMap:
        record.kind = "report_map"
        record.mapLength = pdu.value.count
        let map = try HIDReportDescriptor(parsing: pdu.value)
        if server.maps[service] != nil || server.maps.count < Self.maximumPerServer { server.maps[service] = map }
        record.map = map
      case .hidReportReference:
        record.kind = "report_reference"
        let reference = try HIDServiceValue.reportReference(pdu.value)
        if case .reportReference(let id, let type) = reference {
          if server.references[handle] != nil || server.references.count < Self.maximumPerServer {
            server.references[handle] = (id, type)
          }
          record.reportID = id
          record.reportType = type
        }
        record.service = reference
      case .hidInformation:
        record.kind = "information"
        record.service = try HIDServiceValue.information(pdu.value)
      case .hidProtocolMode:
        record.kind = "protocol_mode"
        record.service = try HIDServiceValue.protocolMode(pdu.value)
      case .hidControlPoint:
        record.kind = "control_point"
        record.service = try HIDServiceValue.controlPoint(pdu.value)
      case .hidBootKeyboardInput:
        record.kind = "boot_keyboard_input"
        record.values = try HIDReportValues.bootKeyboard(pdu.value)
      case .hidBootKeyboardOutput:
        record.kind = "boot_keyboard_output"
        record.values = try HIDReportValues.bootLEDs(pdu.value)
      case .hidBootMouseInput:
        record.kind = "boot_mouse_input"
        record.values = try HIDReportValues.bootMouse(pdu.value)
      default:
        var diagnostics: [Diagnostic] = []
        Self.report(pdu, server, service, handle, &record, &diagnostics)
        if server.down[handle] != nil || server.down.count < Self.maximumPerServer {
          Self.keys(&record, &server.down[handle])
        }
        return VendorOutcome(.hid(record), diagnostics: diagnostics)
      }
    } catch {
      let id = pdu.role == .hidReportMap ? "hid.report_map.invalid" : "hid.invalid"
      return VendorOutcome(.hid(record), diagnostics: [.vendor(id, error)])
    }
    if record.kind == "boot_keyboard_input", server.down[handle] != nil || server.down.count < Self.maximumPerServer {
      Self.keys(&record, &server.down[handle])
    }
    return VendorOutcome(.hid(record))
  }

  /// A Report characteristic's value: its id and type from its Report Reference (else
  /// from the map, when only one report of the type, or of the size, fits), read with
  /// the map's layout.
  private static func report(
    _ pdu: VendorPDU, _ server: Server, _ service: UInt16, _ handle: UInt16, _ record: inout HIDRecord,
    _ diagnostics: inout [Diagnostic]
  ) {
    let map = server.maps[service]
    var layout: HIDReportDescriptor.Report?
    if let reference = server.references[handle] {
      record.reportID = reference.id
      record.reportType = reference.type
      record.reportSource = "reference"
      layout =
        map?.report(id: reference.id, type: reference.type)
        ?? (map?.usesReportIDs == false ? map?.report(id: 0, type: reference.type) : nil)
    } else if let map {
      // Writes carry output reports; notifications and reads input (or feature) ones.
      let type: HIDReportDescriptor.ReportType = pdu.fromClient ? .output : .input
      let candidates = map.reports.filter { $0.type == type }
      if candidates.count == 1 {
        layout = candidates[0]
        record.reportSource = "map"
      } else {
        let sized = candidates.filter { ($0.bits + 7) / 8 == pdu.value.count }
        if sized.count == 1 {
          layout = sized[0]
          record.reportSource = "length"
        }
      }
      if let layout {
        record.reportID = layout.id
        record.reportType = layout.type
      }
    }
    guard let layout else { return }
    let (values, truncated) = layout.values(pdu.value)
    record.values = values
    if truncated {
      diagnostics.append(
        Diagnostic(
          id: "hid.report.truncated", severity: .warning,
          "report \(layout.id) (\(layout.type.name)) has \(pdu.value.count) bytes, its layout \((layout.bits + 7) / 8)")
      )
    }
  }

  /// Which keys and modifiers went down and up since the characteristic's last report.
  private static func keys(_ record: inout HIDRecord, _ down: inout [UInt16]?) {
    guard let values = record.values, values.kind == .keyboard, record.reportType != .output else { return }
    let now = values.modifiers + values.keys
    let before = down ?? []
    func name(_ id: UInt16) -> String { HIDUsage(page: HIDUsage.keyboard, id: id).name }
    record.pressed = now.filter { !before.contains($0) }.map(name)
    record.released = before.filter { !now.contains($0) }.map(name)
    down = now
  }

  /// The link went down: the keys held are not held on the next connection.
  mutating func ended(_ peer: DeviceAddress?, connection: Int) {
    let key: ServerKey = peer.map { .address($0) } ?? .connection(connection)
    servers[key]?.down.removeAll()
    if case .connection = key { servers[key] = nil }
  }
}
