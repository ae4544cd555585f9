import Foundation
import Testing

/// tshark decodes Nordic's legacy DFU control point (`btgatt.nordic.dfu.*`), the HID
/// Report Map (`usbhid.item.*`) and Report Reference, HID Information and Protocol Mode
/// (`btatt.*`): on every frame where it does, `show` must say the same. The vendor sample
/// and every capture in ../shared are read; the agreement figures are printed.
@Suite(
  "tshark oracle: legacy DFU and HID over GATT",
  .enabled(if: tsharkAvailable, "tshark not installed; skipping"))
struct VendorOracleTests {
  static var files: [String] {
    var files = ["Samples/vendor-gatt.btsnoop"]
    guard sharedAvailable else { return files }
    for folder in ["synthetic", "real"] {
      let path = Paths.captures.appending(path: folder).path
      let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      files += names.filter { name in [".btsnoop", ".pcap", ".pcapng"].contains { name.hasSuffix($0) } }
        .filter { !$0.hasPrefix("scale") }.sorted().map { "\(path)/\($0)" }
    }
    return files
  }

  /// Our records of `file` that carry `object` (`dfu`, `hid`), by frame.
  static func ours(_ file: String, _ object: String) throws -> [Int: [String: Any]] {
    let output = runRaw(["show", "--format", "ndjson", "--filter", object, file])
    #expect([0, 3].contains(output.status), "\(file): \(output.stderr)")
    var records: [Int: [String: Any]] = [:]
    forEachLine(output.stdout) { line in
      guard let record = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let frame = record["frame"] as? Int, let value = record[object] as? [String: Any]
      else { return }
      records[frame] = value
    }
    return records
  }

  /// tshark's `fields` of `file`, per frame that has any, each as its list of values.
  static func tshark(_ file: String, _ fields: [String]) -> [Int: [String: [String]]] {
    var frames: [Int: [String: [String]]] = [:]
    tsharkFields(URL(fileURLWithPath: file), options: ["-E", "occurrence=a"], fields: ["frame.number"] + fields) {
      columns in
      guard let frame = Int(columns.first ?? ""), columns.dropFirst().contains(where: { !$0.isEmpty }) else { return }
      var values: [String: [String]] = [:]
      for (field, column) in zip(fields, columns.dropFirst()) where !column.isEmpty {
        values[field] = column.split(separator: ",").map(String.init)
      }
      frames[frame] = values
    }
    return frames
  }

  /// `0x0c`, `12`, `-127` as a number.
  static func number(_ text: String?) -> Int? {
    guard let text else { return nil }
    return text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
  }

  @Test("legacy DFU control point values agree with tshark", arguments: files)
  func legacyDFU(_ file: String) throws {
    let prefix = "btgatt.nordic.dfu.control_point."
    let fields = [
      "opcode", "request_opcode", "response_value", "image_type", "init_packet", "number_of_bytes",
      "number_of_packets",
    ].map { prefix + $0 }
    let theirs = Self.tshark(file, fields).filter { $0.value[prefix + "opcode"] != nil }
    guard !theirs.isEmpty else { return }
    let ours = try Self.ours(file, "dfu")
    var agreeing = 0
    for (frame, values) in theirs.sorted(by: { $0.key < $1.key }) {
      let record = ours[frame] ?? [:]
      let bits = (record["image_type"] as? [String] ?? []).reduce(0) {
        $0 | (["SoftDevice": 1, "Bootloader": 2, "Application": 4][$1] ?? 0)
      }
      let pairs: [(String, Int?)] = [
        ("opcode", record["opcode"] as? Int), ("request_opcode", record["request_opcode"] as? Int),
        ("response_value", record["result_code"] as? Int), ("image_type", record["image_type"] == nil ? nil : bits),
        ("init_packet", record["init_packet"] as? Int), ("number_of_bytes", record["bytes_received"] as? Int),
        ("number_of_packets", record["prn"] as? Int),
      ]
      let same = pairs.allSatisfy { Self.number(values[prefix + $0.0]?.first) == $0.1 }
      #expect(same, "\(file) frame \(frame): tshark \(values), ours \(record)")
      if same { agreeing += 1 }
    }
    print("legacy DFU: \(agreeing) of \(theirs.count) control point frames agree with tshark in \(file)")
    if file.hasSuffix("vendor-gatt.btsnoop") { #expect(theirs.count == 14) }
  }

  /// HID 1.11, 6.2.2: item names by bType and bTag, for tshark's numbers.
  static let itemNames: [String: String] = [
    "0 8": "Input", "0 9": "Output", "0 11": "Feature", "0 10": "Collection", "0 12": "End Collection",
    "1 0": "Usage Page", "1 1": "Logical Minimum", "1 2": "Logical Maximum", "1 3": "Physical Minimum",
    "1 4": "Physical Maximum", "1 5": "Unit Exponent", "1 6": "Unit", "1 7": "Report Size", "1 8": "Report ID",
    "1 9": "Report Count", "1 10": "Push", "1 11": "Pop", "2 0": "Usage", "2 1": "Usage Minimum",
    "2 2": "Usage Maximum",
  ]

  /// Which of our items each tshark value field lists, in order.
  static let itemValues: [(field: String, item: String)] = [
    ("usbhid.item.global.usage", "Usage Page"), ("usbhid.item.local.usage", "Usage"),
    ("usbhid.item.local.usage_min", "Usage Minimum"), ("usbhid.item.local.usage_max", "Usage Maximum"),
    ("usbhid.item.global.log_min", "Logical Minimum"), ("usbhid.item.global.log_max", "Logical Maximum"),
    ("usbhid.item.global.report_size", "Report Size"), ("usbhid.item.global.report_count", "Report Count"),
    ("usbhid.item.global.report_id", "Report ID"), ("usbhid.item.main.colltype", "Collection"),
  ]

  @Test("HID Report Maps, Report References, HID Information and Protocol Mode agree with tshark", arguments: files)
  func hid(_ file: String) throws {
    let service = [
      "btatt.report_reference.report_id", "btatt.report_reference.report_type", "btatt.hogp.bcd_hid",
      "btatt.hogp.protocol_mode",
    ]
    let theirs = Self.tshark(
      file, ["usbhid.item.bTag", "usbhid.item.bType", "usbhid.item.bSize"] + Self.itemValues.map(\.field) + service)
    guard !theirs.isEmpty else { return }
    let ours = try Self.ours(file, "hid")
    var agreeing = 0
    for (frame, values) in theirs.sorted(by: { $0.key < $1.key }) {
      let record = ours[frame] ?? [:]
      var same = true
      if let tags = values["usbhid.item.bTag"], let types = values["usbhid.item.bType"] {
        // Our items as (name, value): `Usage Minimum 0x0` is ("Usage Minimum", 0).
        let items = ((record["map"] as? [String: Any])?["item_list"] as? [String] ?? []).map { text in
          let name = Self.itemNames.values.filter { text.hasPrefix($0) }.max { $0.count < $1.count } ?? text
          return (name: name, value: Self.number(String(text.dropFirst(name.count).drop { $0 == " " })))
        }
        let names = zip(types, tags).map { Self.itemNames["\(Self.number($0) ?? -1) \(Self.number($1) ?? -1)"] ?? "?" }
        same = items.map(\.name) == names
        // tshark's usbhid fields other than the logical bounds are FT_UINT8: the value of a
        // 2-byte item (Usage 0x0238, Usage Maximum 0x03ff) shows one of its bytes. Those are
        // compared by their item alone; 1-byte ones by their value too.
        let sizes = (values["usbhid.item.bSize"] ?? []).map(Self.number)
        for (field, name) in Self.itemValues {
          var theirValues = (values[field] ?? []).map(Self.number).makeIterator()
          for (index, item) in items.enumerated() where item.name == name {
            let theirs = theirValues.next() ?? nil
            if name.hasPrefix("Logical") || sizes.count > index && sizes[index] == 1 {
              same = same && theirs == item.value
            }
          }
          same = same && theirValues.next() == nil
        }
      }
      if let id = values["btatt.report_reference.report_id"]?.first {
        let type = Self.number(values["btatt.report_reference.report_type"]?.first)
        same =
          same && Self.number(id) == record["report_id"] as? Int
          && ["input": 1, "output": 2, "feature": 3][record["report_type"] as? String ?? ""] == type
      }
      if let bcd = Self.number(values["btatt.hogp.bcd_hid"]?.first) {
        same = same && record["bcd_hid"] as? String == "\(bcd >> 8).\(String(bcd & 0xFF, radix: 16))"
      }
      if let mode = Self.number(values["btatt.hogp.protocol_mode"]?.first) {
        let names = ["Boot Protocol Mode", "Report Protocol Mode"]
        same = same && mode < 2 && record["protocol_mode"] as? String == names[mode]
      }
      #expect(same, "\(file) frame \(frame): tshark \(values), ours \(record)")
      if same { agreeing += 1 }
    }
    print("HID: \(agreeing) of \(theirs.count) frames tshark decodes agree in \(file)")
    if file.hasSuffix("vendor-gatt.btsnoop") { #expect(theirs.count == 3) }
  }
}
