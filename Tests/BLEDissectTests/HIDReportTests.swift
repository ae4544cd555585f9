import Testing

@testable import BLEDissect

/// HID report descriptors (HID 1.11, 6.2.2) and reports read with them (8.4,
/// Appendix B), HID Service values, usage names, and descriptors that break the bounds.
@Suite struct HIDReportTests {
  /// The keyboard + mouse Report Map of vendor.btsnoop (frames 177 + 180), as tshark's
  /// usbhid dissector lists it:
  ///   Usage Page (Generic Desktop), Usage (Keyboard), Collection (Application), Report ID (1),
  ///     Usage Page (Keyboard), Usage Min (0xE0), Usage Max (0xE7), Logical 0…1, Size 1, Count 8, Input (Var)
  ///     Count 1, Size 8, Input (Const); Count 5, Size 1, Usage Page (LED), Usage 1…5, Output (Var);
  ///     Count 1, Size 3, Output (Const); Count 6, Size 8, Logical 0…101, Usage Page (Keyboard),
  ///     Usage 0…101, Input (Array)
  ///   End Collection
  ///   Usage Page (Generic Desktop), Usage (Mouse), Collection (Application), Report ID (2), Usage (Pointer),
  ///     Collection (Physical): Buttons 1…3 (Var), 5 bits padding, X, Y, Wheel (−127…127, Relative)
  ///   End Collection End Collection
  static let keyboardAndMouse = vendorBytes(
    """
    05010906a1018501050719e029e71500250175019508810295017508810195057501050819012905910295017503910195067508
    150025650507190029658100c005010902a10185020901a1000509190129031500250195037501810295017505810105010930
    093109381581257f750895038106c0c0
    """)

  @Test func keyboardAndMouseMap() throws {
    let map = try HIDReportDescriptor(parsing: Self.keyboardAndMouse)
    #expect(Self.keyboardAndMouse.count == 119)
    #expect(map.items.count == 61)
    #expect(map.usesReportIDs)
    let reports = map.reports.map { "\($0.id) \($0.type.name) \($0.bits) \($0.application?.name ?? "")" }
    #expect(reports == ["1 input 64 Keyboard", "1 output 8 Keyboard", "2 input 32 Mouse"])
    #expect(map.items.first?.name == "Usage Page" && map.items.last?.name == "End Collection")
  }

  /// Keyboard input report 1: Left Shift, reserved, h (0x0B) → "H"; then all keys up.
  @Test func keyboardReport() throws {
    let report = try #require(try HIDReportDescriptor(parsing: Self.keyboardAndMouse).report(id: 1, type: .input))
    let (values, truncated) = report.values(vendorBytes("02 00 0b 00 00 00 00 00"))
    #expect(!truncated)
    #expect(values.kind == .keyboard)
    #expect(values.modifierNames == ["Left Shift"])
    #expect(values.keyNames == ["h"])
    #expect(values.text == "H")
    let up = report.values(vendorBytes("0000000000000000")).values
    #expect(up.keys.isEmpty && up.modifiers.isEmpty)
  }

  /// Mouse input report 2: left button, X −4, Y 2, wheel −1.
  @Test func mouseReport() throws {
    let report = try #require(try HIDReportDescriptor(parsing: Self.keyboardAndMouse).report(id: 2, type: .input))
    let values = report.values(vendorBytes("01 fc 02 ff")).values
    #expect(values.kind == .mouse)
    #expect(values.buttonNames == ["left"])
    #expect(values.x == -4 && values.y == 2 && values.wheel == -1)
  }

  /// Keyboard output report 1: Num Lock and Caps Lock.
  @Test func ledReport() throws {
    let report = try #require(try HIDReportDescriptor(parsing: Self.keyboardAndMouse).report(id: 1, type: .output))
    #expect(report.values([0x03]).values.ledNames == ["Num Lock", "Caps Lock"])
  }

  /// A report shorter than its layout: the fields it holds, and `truncated`.
  @Test func shortReport() throws {
    let report = try #require(try HIDReportDescriptor(parsing: Self.keyboardAndMouse).report(id: 1, type: .input))
    let (values, truncated) = report.values(vendorBytes("02 00 0b"))
    #expect(truncated)
    #expect(values.modifierNames == ["Left Shift"] && values.keyNames == ["h"])
  }

  /// Consumer Control, an array of 16-bit usages 0…0x3FF in report 3:
  ///   05 0C 09 01 A1 01 85 03 15 00 26 FF 03 19 00 2A FF 03 75 10 95 01 81 00 C0
  @Test func consumerArray() throws {
    let map = try HIDReportDescriptor(parsing: vendorBytes("050c0901a1018503150026ff0319002aff037510950181 00c0"))
    let report = try #require(map.report(id: 3, type: .input))
    #expect(report.values(vendorBytes("e9 00")).values.consumerNames == ["Volume Increment"])
    #expect(report.values(vendorBytes("cd 00")).values.consumerNames == ["Play/Pause"])
    #expect(report.values(vendorBytes("00 00")).values.consumer.isEmpty)
  }

  /// Consumer Control as variable bits: Volume Increment, Volume Decrement, Mute, Play/Pause, 4 bits padding:
  ///   05 0C 09 01 A1 01 85 04 15 00 25 01 75 01 95 04 09 E9 09 EA 09 E2 09 CD 81 02 95 04 81 01 C0
  @Test func consumerBits() throws {
    let map = try HIDReportDescriptor(
      parsing: vendorBytes("050c0901a101850415002501750195040 9e909ea09e209cd81029504 8101c0"))
    let values = try #require(map.report(id: 4, type: .input)).values([0x05]).values
    #expect(values.kind == .consumer)
    #expect(values.consumerNames == ["Volume Increment", "Mute"])
  }

  /// A mouse with 16-bit X and Y, an 8-bit wheel and AC Pan (4-byte usage 0x000C0238), no Report IDs:
  ///   05 01 09 02 A1 01 09 01 A1 00 05 09 19 01 29 05 15 00 25 01 95 05 75 01 81 02 95 01 75 03 81 01
  ///   05 01 16 01 80 26 FF 7F 75 10 95 02 09 30 09 31 81 06 15 81 25 7F 75 08 95 01 09 38 81 06
  ///   0B 38 02 0C 00 95 01 81 06 C0 C0
  @Test func mouseWithPan() throws {
    let map = try HIDReportDescriptor(
      parsing: vendorBytes(
        """
        05010902a1010901a100050919012905150025019505750181029501750381010501160180 26ff7f751095020930093181061581
        257f75089501093881060b38020c0095018106c0c0
        """))
    #expect(!map.usesReportIDs)
    let report = try #require(map.report(id: 0, type: .input))
    #expect(report.bits == 56)
    let values = report.values(vendorBytes("12 2c01 18fc 01 ff")).values
    #expect(values.buttonNames == ["right", "button 5"])
    #expect(values.x == 300 && values.y == -1000 && values.wheel == 1 && values.pan == -1)
  }

  /// Boot protocol reports: keyboard (modifiers, reserved, six keys), LEDs, mouse.
  @Test func bootReports() throws {
    let keyboard = try HIDReportValues.bootKeyboard(vendorBytes("22 00 04 05 00 00 00 00"))
    #expect(keyboard.modifierNames == ["Left Shift", "Right Shift"] && keyboard.keyNames == ["a", "b"])
    #expect(keyboard.text == "AB")
    #expect(try HIDReportValues.bootLEDs([0x04]).ledNames == ["Scroll Lock"])
    let mouse = try HIDReportValues.bootMouse(vendorBytes("04 7f 80 ff"))
    #expect(mouse.buttonNames == ["middle"] && mouse.x == 127 && mouse.y == -128 && mouse.wheel == -1)
    #expect(throws: DecodeError.self) { try HIDReportValues.bootMouse([0x01, 0x02]) }
    #expect(throws: DecodeError.self) { try HIDReportValues.bootLEDs([]) }
  }

  /// HID Information, Protocol Mode, HID Control Point and Report Reference values.
  static let serviceRows: [(hex: String, kind: String, value: HIDServiceValue)] = [
    ("11010002", "information", .information(bcdHID: 0x0111, countryCode: 0, flags: 0x02)),
    ("00", "protocol", .protocolMode(0)), ("01", "protocol", .protocolMode(1)),
    ("00", "control", .controlPoint(0)), ("01", "control", .controlPoint(1)),
    ("0101", "reference", .reportReference(id: 1, type: .input)),
    ("0102", "reference", .reportReference(id: 1, type: .output)),
    ("0203", "reference", .reportReference(id: 2, type: .feature)),
  ]

  @Test(arguments: serviceRows)
  func serviceRow(_ row: (hex: String, kind: String, value: HIDServiceValue)) throws {
    let bytes = vendorBytes(row.hex)
    let value: HIDServiceValue =
      switch row.kind {
      case "information": try .information(bytes)
      case "protocol": try .protocolMode(bytes)
      case "control": try .controlPoint(bytes)
      default: try .reportReference(bytes)
      }
    #expect(value == row.value)
  }

  @Test func serviceValueNames() throws {
    #expect(HIDServiceValue.protocolModeName(0) == "Boot Protocol Mode")
    #expect(HIDServiceValue.protocolModeName(1) == "Report Protocol Mode")
    #expect(HIDServiceValue.controlPointName(0) == "Suspend")
    #expect(HIDServiceValue.controlPointName(1) == "Exit Suspend")
    #expect(throws: DecodeError.self) { try HIDServiceValue.information(vendorBytes("110100")) }
    #expect(throws: DecodeError.self) { try HIDServiceValue.reportReference(vendorBytes("010100")) }
  }

  /// Usage names (HID Usage Tables 1.5), a few on each page the reports use.
  static let usages: [(page: UInt16, id: UInt16, name: String)] = [
    (0x01, 0x02, "Mouse"), (0x01, 0x06, "Keyboard"), (0x01, 0x30, "X"), (0x01, 0x38, "Wheel"),
    (0x01, 0x81, "System Power Down"), (0x07, 0x04, "a"), (0x07, 0x0B, "h"), (0x07, 0x1E, "1"), (0x07, 0x27, "0"),
    (0x07, 0x28, "Enter"), (0x07, 0x2C, "Space"), (0x07, 0x39, "Caps Lock"), (0x07, 0x45, "F12"),
    (0x07, 0x4F, "Right Arrow"), (0x07, 0x63, "Keypad ."), (0x07, 0x81, "Volume Down"), (0x07, 0xE0, "Left Control"),
    (0x07, 0xE1, "Left Shift"), (0x07, 0xE7, "Right GUI"), (0x07, 0x90, "Keyboard/Keypad 0x0090"),
    (0x08, 0x02, "Caps Lock"), (0x09, 0x01, "Button 1"), (0x09, 0x10, "Button 16"), (0x0C, 0xCD, "Play/Pause"),
    (0x0C, 0xE2, "Mute"), (0x0C, 0x223, "AC Home"), (0x0C, 0x238, "AC Pan"),
    (0xFF00, 0x01, "Vendor-defined 0xff00 0x0001"),
    (0x0D, 0x42, "Digitizers 0x0042"),
  ]

  @Test(arguments: usages)
  func usageName(_ row: (page: UInt16, id: UInt16, name: String)) {
    #expect(HIDUsage(page: row.page, id: row.id).name == row.name)
  }

  @Test func typedCharacters() {
    #expect(HIDUsage.character(0x1E, shift: false) == "1" && HIDUsage.character(0x1E, shift: true) == "!")
    #expect(HIDUsage.character(0x28, shift: false) == "\n" && HIDUsage.character(0x29, shift: false) == nil)
    #expect(HIDUsage.character(0x38, shift: true) == "?" && HIDUsage.character(0x39, shift: false) == nil)
  }

  /// Hostile descriptors: each stops with an error at the item at fault.
  static let hostile: [(hex: String, offset: Int, why: String)] = [
    // 33 nested Collections (A1 01): the 33rd, at offset 64, is one too deep.
    (String(repeating: "a101", count: 33), 64, "recursive collections"),
    // End Collection with none open.
    ("c0", 0, "unbalanced"),
    // A Collection never closed.
    ("a101", 2, "left open"),
    // Logical Maximum whose 2 data bytes are cut after 1.
    ("26ff", 1, "item cut short"),
    // A long item announcing 5 data bytes with 2.
    ("fe051001 02", 3, "long item cut short"),
    // Report Size 64 (at most 32).
    ("7540", 0, "report size"),
    // Report Count 65535 × 32 bits.
    ("7520 96ffff", 2, "report count"),
    // Report ID 0.
    ("8500", 0, "report id 0"),
    // 33 Push (A4).
    (String(repeating: "a4", count: 33), 32, "push depth"),
    // Pop (B4) without Push.
    ("b4", 0, "pop"),
  ]

  @Test(arguments: hostile)
  func hostileDescriptor(_ row: (hex: String, offset: Int, why: String)) {
    let error = #expect(throws: DecodeError.self, "\(row.why)") {
      try HIDReportDescriptor(parsing: vendorBytes(row.hex))
    }
    #expect(error?.offset == row.offset, "\(row.why)")
    #expect(error?.layer == .hid)
  }

  /// 1,025 one-bit Input items: the field bound stops the 1,025th.
  @Test func tooManyFields() {
    let bytes = vendorBytes("7501 9501") + Array(repeating: [0x81, 0x02], count: 1_025).flatMap { $0 }
    let error = #expect(throws: DecodeError.self) { try HIDReportDescriptor(parsing: bytes) }
    #expect(error?.offset == 4 + 2 * 1_024)
  }
}
