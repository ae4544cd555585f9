import Testing

@testable import BLEDissect

/// Decoding values with a format: every type, SFLOAT/FLOAT special values, flags that
/// switch fields, repeats, groups, truncated and over-long values.
@Suite struct DissectorEngineTests {
  /// Decodes `hex` with a one-characteristic file whose fields are `body` (indented by two).
  func decode(_ body: String, _ hex: String) throws -> DecodeResult {
    let text = "characteristic 2a00 \"Test\"\n" + body.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    let format = try #require(try DissectorFile.parse(path: "t", text: text).first)
    return DissectorEngine.decode(bytes(hex), with: format)
  }

  func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { $0 != " " })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
  }

  static let integers: [(type: String, hex: String, value: DecodedValue)] = [
    ("u8", "ff", .unsigned(255)),
    ("u16", "3412", .unsigned(0x1234)),
    ("u24", "563412", .unsigned(0x12_3456)),
    ("u32", "78563412", .unsigned(0x1234_5678)),
    ("u40", "9a78563412", .unsigned(0x12_3456_789a)),
    ("u48", "bc9a78563412", .unsigned(0x1234_5678_9abc)),
    ("u64", "ffffffffffffffff", .unsigned(.max)),
    ("s8", "80", .signed(-128)),
    ("s16", "feff", .signed(-2)),
    ("s24", "0000ff", .signed(-65536)),
    ("s24", "ffff7f", .signed(0x7f_ffff)),
    ("s32", "ffffffff", .signed(-1)),
    ("s48", "000000000080", .signed(-(1 << 47))),
    ("s64", "0000000000000080", .signed(.min)),
    ("u16be", "1234", .unsigned(0x1234)),
    ("s16be", "fffe", .signed(-2)),
  ]

  @Test("integers, little- and big-endian, sign-extended", arguments: integers)
  func integer(type: String, hex: String, value: DecodedValue) throws {
    let result = try decode("field x \(type) \"X\"", hex)
    #expect(result.fields.map(\.value) == [value])
    #expect(result.diagnostic == nil)
    #expect(result.fields[0].hexDigits == hex.count)
  }

  /// SFLOAT: 4-bit exponent and 12-bit mantissa; FLOAT: 8-bit exponent and 24-bit mantissa.
  static let medical: [(type: String, hex: String, value: DecodedValue)] = [
    ("sfloat", "6ef1", .real(36.6, decimals: 1)),  // 0xf16e: exponent -1, mantissa 366
    ("sfloat", "7200", .real(114, decimals: 0)),  // 0x0072: exponent 0, mantissa 114
    ("sfloat", "ff0f", .real(-1, decimals: 0)),  // 0x0fff: exponent 0, mantissa -1
    ("sfloat", "0120", .real(100, decimals: 0)),  // 0x2001: exponent 2, mantissa 1
    ("sfloat", "ff07", .named(raw: 0x07ff, name: "NaN")),
    ("sfloat", "0008", .named(raw: 0x0800, name: "NRes")),
    ("sfloat", "fe07", .named(raw: 0x07fe, name: "+INFINITY")),
    ("sfloat", "0208", .named(raw: 0x0802, name: "-INFINITY")),
    ("sfloat", "0108", .named(raw: 0x0801, name: "Reserved")),
    ("float", "6f0100ff", .real(36.7, decimals: 1)),  // 0xff00016f: exponent -1, mantissa 367
    ("float", "fdffffff", .real(-0.3, decimals: 1)),  // 0xfffffffd: exponent -1, mantissa -3
    ("float", "ffff7f00", .named(raw: 0x007f_ffff, name: "NaN")),
    ("float", "00008000", .named(raw: 0x0080_0000, name: "NRes")),
    ("float", "feff7f00", .named(raw: 0x007f_fffe, name: "+INFINITY")),
    ("float", "02008000", .named(raw: 0x0080_0002, name: "-INFINITY")),
    ("float", "01008000", .named(raw: 0x0080_0001, name: "Reserved")),
    ("f32", "0000c03f", .real(1.5, decimals: -1)),
    ("f32", "cd8c1242", .real(36.6375, decimals: -1)),  // 36.6375f, read as the Float's shortest text
    ("f64", "000000000000f03f", .real(1, decimals: -1)),
  ]

  @Test("IEEE 11073 SFLOAT/FLOAT with their special values, IEEE 754", arguments: medical)
  func medicalFloat(type: String, hex: String, value: DecodedValue) throws {
    let result = try decode("field x \(type) \"X\"", hex)
    #expect(result.fields.map(\.value) == [value])
  }

  @Test func scaleExponentOffsetAndSpecialValues() throws {
    let result = try decode(
      """
      field a u16 "A" scale=1/1024 unit=s
      field b s16 "B" scale=0.01 unit=°C -32768="Value is not known"
      field c s16 "C" scale=0.01 -32768="Value is not known"
      field d u8 "D" exp=2
      field e u8 "E" scale=0.5 offset=-40
      """, "0303 6e0e 0080 03 64")
    #expect(
      result.fields.map(\.value) == [
        .real(771.0 / 1024, decimals: 5), .real(36.94, decimals: 2), .named(raw: -32768, name: "Value is not known"),
        .real(300, decimals: 0), .real(10, decimals: 1),
      ])
    #expect(result.fields[1].unit == "°C")
  }

  @Test func textBytesAndUUIDs() throws {
    let result = try decode(
      """
      field n u8 "N"
      field a utf8 "A" length=3
      field b bytes "B" length=n
      field c uuid16 "C"
      field d uuid128 "D"
      field e utf8 "E"
      """, "02 414243 beef 372a fb349b5f800000800010000037e80000 506f6c617200")
    #expect(
      result.fields.map(\.value) == [
        .unsigned(2), .text("ABC"), .bytes([0xbe, 0xef]), .uuid(BluetoothUUID(uuid16: 0x2a37)),
        .uuid(BluetoothUUID(uuid128: 0x0000_e837_0000_1000_8000_0080_5f9b_34fb)), .text("Polar"),
      ])
  }

  @Test("a uuid field takes 16, 4 or 2 bytes", arguments: [("372a", "2a37"), ("efbe3412", "1234beef")])
  func variableUUID(hex: String, text: String) throws {
    let result = try decode("field u uuid \"U\"", hex)
    #expect(result.fields.first?.value == .uuid(BluetoothUUID(text)!))
  }

  /// Heart Rate Measurement as the parser tests write it.
  func decodeHeartRate(_ hex: String) throws -> DecodeResult {
    let format = try #require(try DissectorFile.parse(path: "t", text: DissectorParserTests.heartRate).first)
    return DissectorEngine.decode(bytes(hex), with: format)
  }

  @Test func flagsSwitchOptionalFields() throws {
    // Heart Rate Measurement
    //   Flags: 0x16 (UINT8, contact detected, RR-Interval present)
    //   Heart Rate Measurement Value: 72 bpm
    //   RR-Interval: 0x0303 (771/1024 s), 0x0321 (801/1024 s)
    let short = try decodeHeartRate("16 48 0303 2103")
    #expect(short.fields.map(\.id) == ["flags", "heart_rate", "rr_interval"])
    #expect(
      short.fields[0].children.map(\.value) == [
        .named(raw: 0, name: "UINT8"), .named(raw: 3, name: "Detected"), .boolean(false), .boolean(true),
      ])
    #expect(short.fields[0].children.map(\.isSwitch) == [true, false, true, true])
    #expect(short.fields[1].value == .unsigned(72))
    guard case .list(let rr) = short.fields[2].value else {
      Issue.record("RR-Interval is not a list")
      return
    }
    #expect(rr.map(\.value) == [.real(771.0 / 1024, decimals: 5), .real(801.0 / 1024, decimals: 5)])
    // Flags: 0x09 (UINT16, Energy Expended present); Heart Rate 0x0148 = 328; Energy 0x0010 = 16 kJ
    let wide = try decodeHeartRate("09 4801 1000")
    #expect(wide.fields.map(\.value).dropFirst() == [.unsigned(328), .unsigned(16)])
    #expect(wide.diagnostic == nil)
  }

  @Test func conditionsOnValues() throws {
    let body = """
      field op u8 "Op"
      field a u8 "A" if=op==1
      field b u16 "B" if=op!=1
      """
    #expect(try decode(body, "01 05").fields.map(\.id) == ["op", "a"])
    #expect(try decode(body, "02 0500").fields.map(\.id) == ["op", "b"])
  }

  @Test func repeats() throws {
    let result = try decode(
      """
      field n u8 "N"
      field a u8 "A" repeat=n
      field b u8 "B" repeat=2
      group g "G" repeat
        field x u8 "X"
        field y u8 "Y" if=x
      """, "02 0a0b 0c0d 00 01ff 02ee")
    #expect(result.diagnostic == nil)
    guard case .list(let a) = result.fields[1].value, case .list(let b) = result.fields[2].value,
      case .list(let g) = result.fields[3].value
    else {
      Issue.record("not lists: \(result.fields)")
      return
    }
    #expect(a.map(\.value) == [.unsigned(10), .unsigned(11)])
    #expect(b.map(\.value) == [.unsigned(12), .unsigned(13)])
    // y is present only when that occurrence's x is non-zero.
    #expect(g.map { $0.children.map(\.id) } == [["x"], ["x", "y"], ["x", "y"]])
  }

  @Test func aRepeatThatTakesNoBytesStops() throws {
    let result = try decode(
      """
      field n u32 "N"
      group g "G" repeat=n
        field x u8 "X" optional
      """, "ffffffff")
    guard case .list(let g) = result.fields[1].value else {
      Issue.record("not a list")
      return
    }
    #expect(g.count == 1)
  }

  @Test func optionalTrailingField() throws {
    let body = """
      field a u8 "A"
      field b u8 "B" optional
      """
    #expect(try decode(body, "01").fields.map(\.id) == ["a"])
    #expect(try decode(body, "0102").fields.map(\.id) == ["a", "b"])
    #expect(try decode(body, "01").diagnostic == nil)
  }

  @Test func truncatedValueKeepsWhatIsThere() throws {
    // Flags: 0x11 (UINT16 value, RR present) but the value stops inside the heart rate.
    let result = try decodeHeartRate("11 48")
    #expect(result.fields.map(\.id) == ["flags"])
    #expect(result.diagnostic?.id == "att.decoded.truncated")
    #expect(
      result.problem
        == "value ends inside Heart Rate Measurement Value (u16) at offset 1: needs 2 bytes, 1 left")
    // An RR-Interval cut in half.
    let rr = try decodeHeartRate("10 48 0303 21")
    #expect(rr.diagnostic?.id == "att.decoded.truncated")
    guard case .list(let items) = rr.fields.last?.value else {
      Issue.record("no RR list")
      return
    }
    #expect(items.count == 1)
    #expect(try decodeHeartRate("").problem?.contains("Flags (u8) at offset 0") == true)
  }

  @Test func extraBytesAreShownAndReported() throws {
    let result = try decode("field level u8 \"Battery Level\" unit=%", "64 0102")
    #expect(result.fields.map(\.id) == ["level", "_extra"])
    #expect(result.fields[1].value == .bytes([1, 2]))
    #expect(result.diagnostic?.id == "att.decoded.extra")
    #expect(result.problem == "Test value has 2 bytes after its last field, from offset 1")
  }

  /// Text shows the decimals the encoding resolves: all of a short resolution, else one
  /// past its first significant digit.
  static let resolutions: [(scale: String, decimals: Int)] = [
    ("0.01", 2), ("1/8", 3), ("0.5", 1), ("2", 0), ("0.005", 3), ("1/1024", 5), ("1/2048", 5), ("1/256", 4),
  ]

  @Test("decimals follow the resolution", arguments: resolutions)
  func decimals(scale: String, decimals: Int) throws {
    let result = try decode("field x u8 \"X\" scale=\(scale)", "07")
    guard case .real(_, let places) = result.fields.first?.value else {
      Issue.record("not a real: \(result.fields)")
      return
    }
    #expect(places == decimals)
  }

  @Test func namesFromAssignedNumbers() throws {
    let result = try decode(
      """
      field company u16 "Company" names=company
      field appearance u16 "Appearance" names=appearance
      """, "4c00 4103")
    #expect(
      result.fields.map(\.value) == [
        .named(raw: 0x4c, name: "Apple, Inc."), .named(raw: 0x0341, name: "Heart Rate Sensor: Heart Rate Belt"),
      ])
  }

  @Test func bitsWiderThanOne() throws {
    let result = try decode(
      """
      field angles u24 "Extreme Angles"
        bits 0-11 max "Maximum Angle"
        bits 12-23 min "Minimum Angle"
      """, "5a 40 06")  // 0x06405a: max 0x05a = 90, min 0x064 = 100
    #expect(result.fields[0].children.map(\.value) == [.unsigned(90), .unsigned(100)])
  }

  @Test func fieldTreeForVerboseOutput() throws {
    let tree = try decodeHeartRate("16 48 0303").fields.fieldTree
    #expect(tree[0].name == "Flags")
    #expect(tree[0].value == .flags(0x16, hexDigits: 2, names: ["RR-Interval Present"]))
    #expect(tree[0].children[1].value == .code(3, hexDigits: 1, name: "Detected"))
    #expect(tree[1].value == .measure(72, hexDigits: 2, value: 72, unit: "bpm"))
    #expect(tree[2].children.first?.value == .measure(0x0303, hexDigits: 4, value: 771.0 / 1024, unit: "s"))
  }
}

/// The library: built-ins parsed on demand, user files that replace them, names.
@Suite struct DissectorLibraryTests {
  @Test func builtinHeartRate() throws {
    let result = try #require(DissectorLibrary.builtin.decode([0x06, 0x48], uuid: BluetoothUUID("2a37")!))
    #expect(result.fields.map(\.id) == ["flags", "heart_rate"])
    #expect(result.format.isBuiltin)
    #expect(result.format.path == "characteristics/heart-rate.dissector")
  }

  @Test func a128BitFormOfASIGUUIDFindsTheFormat() {
    let long = BluetoothUUID("00002a19-0000-1000-8000-00805f9b34fb")!
    #expect(DissectorLibrary.builtin.decode([0x64], uuid: long)?.fields.first?.value == .unsigned(100))
  }

  @Test func unknownUUIDHasNoDecode() {
    #expect(DissectorLibrary.builtin.decode([1], uuid: BluetoothUUID("ffee")!) == nil)
    #expect(DissectorLibrary.builtin.format(for: BluetoothUUID("ffee")!) == nil)
  }

  @Test func userFileReplacesABuiltinAndNamesVendorUUIDs() throws {
    let library = try DissectorLibrary(adding: [
      (
        "/home/me/battery.dissector",
        """
        characteristic 2a19 "Battery Level"
          field millivolts u16 "Battery Voltage" unit=mV
        service 7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5 "Vendor Thermostat"
        """
      )
    ])
    let result = try #require(library.decode([0x10, 0x0e], uuid: BluetoothUUID("2a19")!))
    #expect(result.fields.map(\.value) == [.unsigned(3600)])
    #expect(!result.format.isBuiltin && result.format.source == "/home/me/battery.dissector:1")
    #expect(DissectorLibrary.builtin.decode([0x10, 0x0e], uuid: BluetoothUUID("2a19")!)?.diagnostic != nil)
    // Assigned numbers first, then headers.
    #expect(library.name(of: BluetoothUUID("2a19")!) == "Battery Level")
    #expect(library.name(of: BluetoothUUID("7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5")!) == "Vendor Thermostat")
    #expect(library.formats.count == DissectorLibrary.builtin.formats.count + 1)
  }

  @Test func laterFileWins() throws {
    let library = try DissectorLibrary(adding: [
      ("a", "characteristic ff01 \"First\"\n  field a u8 \"A\""),
      ("b", "characteristic ff01 \"Second\"\n  field b u16 \"B\""),
    ])
    #expect(library.format(for: BluetoothUUID("ff01")!)?.name == "Second")
  }

  @Test func aBadUserFileThrows() {
    let error = #expect(throws: DissectorError.self) {
      try DissectorLibrary(adding: [("x.dissector", "characteristic ff01 \"X\"\n  field a u9 \"A\"")])
    }
    #expect(error?.description.hasPrefix("x.dissector:2:11: unknown type 'u9'") == true)
  }
}
