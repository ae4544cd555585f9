import BLEDissect

/// What a record says in HID over GATT: a report decoded with the Report Map read
/// earlier (or a boot protocol report), the Report Map itself, a Report Reference,
/// or another HID Service value.
public struct HIDRecord: Sendable {
  /// `report`, `boot_keyboard_input`, `boot_keyboard_output`, `boot_mouse_input`,
  /// `report_map`, `report_reference`, `information`, `protocol_mode`, `control_point`.
  public var kind: String
  public var reportID: UInt8?
  public var reportType: HIDReportDescriptor.ReportType?
  /// How the report's id and type were found: `reference` (its Report Reference
  /// descriptor), `map` (the Report Map's only report of that type), `length` (the only
  /// one of that size).
  public var reportSource: String?
  public var values: HIDReportValues?
  /// Keyboard: keys and modifiers down since the report before on the same
  /// characteristic, and those let go.
  public var pressed: [String] = []
  public var released: [String] = []
  /// The Report Map, parsed, and its size in bytes.
  public var map: HIDReportDescriptor?
  public var mapLength: Int?
  public var service: HIDServiceValue?
  /// The frames of the PDUs of a value read in parts.
  public var frames: [Int] = []

  /// The reports a map declares: `1 input keyboard 64 bits`.
  public static func reportSummary(_ map: HIDReportDescriptor) -> [String] {
    map.reports.map { report in
      let device = HIDReportValues.deviceKind(of: report.application).rawValue
      return "\(report.id) \(report.type.name) \(device) \(report.bits) bits"
    }
  }

  /// An item as the Report Map lists it: `Usage Page 0x01`, `Logical Minimum -127`, `End Collection`.
  public static func itemText(_ item: HIDReportDescriptor.Item) -> String {
    guard item.dataSize > 0, !item.isLong else { return item.name }
    switch (item.type, item.tag) {
    case (1, 0x1), (1, 0x2), (1, 0x3), (1, 0x4): return "\(item.name) \(item.signedData)"
    case (1, 0x7), (1, 0x8), (1, 0x9): return "\(item.name) \(item.data)"
    default: return "\(item.name) 0x\(String(item.data, radix: 16))"
    }
  }

  static let table: VendorFieldTable = {
    let p = "hid"
    let r: @Sendable (VendorRecord) -> HIDRecord? = { $0.hid }
    let v: @Sendable (VendorRecord) -> HIDReportValues? = { $0.hid?.values }
    let map: @Sendable (VendorRecord) -> HIDReportDescriptor? = { $0.hid?.map }
    let s: @Sendable (VendorRecord) -> HIDServiceValue? = { $0.hid?.service }
    return VendorFieldTable(
      name: p,
      description:
        "HID over GATT: a report decoded with the Report Map read in the capture (or a boot protocol report), the Report Map, a Report Reference, or another HID Service value.",
      fields: [
        VendorField("kind", "Kind", .string, of: p, r) { .string($0.kind) },
        VendorField("report_id", "Report ID", .integer, of: p, r) { .int($0.reportID) },
        VendorField("report_type", "Report Type", .string, of: p, r) { .text($0.reportType?.name) },
        VendorField("report_source", "Report Found By", .string, of: p, r) { .text($0.reportSource) },
        VendorField("device", "Device", .string, of: p, v) { .string($0.kind.rawValue) },
        VendorField("modifiers", "Modifiers", .strings, as: "modifier", of: p, v) { .list($0.modifierNames) },
        VendorField("pressed_keys", "Keys", .strings, as: "key", of: p, v) { .list($0.keyNames) },
        VendorField("key_codes", "Key Codes", .integers, as: "key_code", of: p, v) {
          $0.keys.isEmpty ? nil : .integers($0.keys.map(Int64.init))
        },
        VendorField("text", "Text (US layout)", .string, of: p, v) { $0.text.isEmpty ? nil : .string($0.text) },
        VendorField("pressed", "Pressed", .strings, of: p, r) { .list($0.pressed) },
        VendorField("released", "Released", .strings, of: p, r) { .list($0.released) },
        VendorField("buttons", "Buttons", .strings, as: "button", of: p, v) { .list($0.buttonNames) },
        VendorField("x", "X", .integer, of: p, v) { .int($0.x) },
        VendorField("y", "Y", .integer, of: p, v) { .int($0.y) },
        VendorField("wheel", "Wheel", .integer, of: p, v) { .int($0.wheel) },
        VendorField("pan", "AC Pan", .integer, of: p, v) { .int($0.pan) },
        VendorField("consumer", "Consumer Controls", .strings, of: p, v) { .list($0.consumerNames) },
        VendorField("leds", "LEDs", .strings, as: "led", of: p, v) { .list($0.ledNames) },
        VendorField("usages", "Other Usages", .strings, as: "usage", of: p, v) { values in
          .list(values.other.map { "\($0.usage?.name ?? "(no usage)") = \($0.value)" })
        },
        VendorField("map.length", "Report Map Length", .integer, of: p, r) { .int($0.mapLength) },
        VendorField("map.items", "Report Map Items", .integer, of: p, map) { .int($0.items.count) },
        VendorField("map.report_descriptions", "Reports", .strings, as: "map.report", of: p, map) {
          .list(reportSummary($0))
        },
        VendorField("map.item_list", "Items", .strings, as: "map.item", of: p, map) { .list($0.items.map(itemText)) },
        VendorField("bcd_hid", "bcdHID", .string, of: p, s) { service in
          guard case .information(let bcd, _, _) = service else { return nil }
          return .string("\(bcd >> 8).\(String(bcd & 0xFF, radix: 16))")
        },
        VendorField("country_code", "bCountryCode", .integer, of: p, s) { service in
          guard case .information(_, let country, _) = service else { return nil }
          return .int(country)
        },
        VendorField("remote_wake", "RemoteWake", .bool, of: p, s) { service in
          guard case .information(_, _, let flags) = service else { return nil }
          return .bool(flags & 0x01 != 0)
        },
        VendorField("normally_connectable", "NormallyConnectable", .bool, of: p, s) { service in
          guard case .information(_, _, let flags) = service else { return nil }
          return .bool(flags & 0x02 != 0)
        },
        VendorField("protocol_mode", "Protocol Mode", .string, of: p, s) { service in
          guard case .protocolMode(let mode) = service else { return nil }
          return .string(HIDServiceValue.protocolModeName(mode))
        },
        VendorField("control_point", "HID Control Point", .string, of: p, s) { service in
          guard case .controlPoint(let command) = service else { return nil }
          return .string(HIDServiceValue.controlPointName(command))
        },
        VendorField("frames", "Frames", .integers, as: "frame", of: p, r) {
          $0.frames.count > 1 ? .integers($0.frames.map(Int64.init)) : nil
        },
      ])
  }()
}
