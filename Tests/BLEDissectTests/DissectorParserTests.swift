import Testing

@testable import BLEDissect

/// The `*.dissector` format (Dissectors/README.md): each construct, and errors that
/// point at the line and column.
@Suite struct DissectorParserTests {
  static let heartRate = """
    # Heart Rate Measurement — GSS 3.113
    characteristic 2a37 "Heart Rate Measurement"
      field flags u8 "Flags"
        bit 0 value_16 "Heart Rate Value Format" 0=UINT8 1=UINT16
        bits 1-2 contact "Sensor Contact Status" 0="Not supported" 1="Not supported"
          2="Not detected" 3=Detected
        bit 3 energy_present "Energy Expended Present"
        bit 4 rr_present "RR-Interval Present"
      field heart_rate u8 "Heart Rate Measurement Value" unit=bpm if=!value_16
      field heart_rate u16 "Heart Rate Measurement Value" unit=bpm if=value_16
      field energy_expended u16 "Energy Expended" unit=kJ if=energy_present
      field rr_interval u16 "RR-Interval" scale=1/1024 unit=s if=rr_present repeat
    """

  @Test func heartRateParses() throws {
    let formats = try DissectorFile.parse(path: "hr.dissector", text: Self.heartRate)
    #expect(formats.count == 1)
    let format = try #require(formats.first)
    #expect(format.uuid == BluetoothUUID("2a37"))
    #expect(format.kind == .characteristic)
    #expect(format.name == "Heart Rate Measurement")
    #expect(format.line == 2)
    #expect(format.path == "hr.dissector")
    #expect(format.fields.map(\.id) == ["flags", "heart_rate", "heart_rate", "energy_expended", "rr_interval"])
    let flags = format.fields[0]
    #expect(flags.type == .unsigned(bytes: 1, bigEndian: false))
    #expect(flags.bits.map(\.id) == ["value_16", "contact", "energy_present", "rr_present"])
    #expect(flags.bits[1].low == 1 && flags.bits[1].high == 2)
    #expect(flags.bits[1].enumeration.map(\.name) == ["Not supported", "Not supported", "Not detected", "Detected"])
    #expect(format.fields[1].conditions == [DissectorCondition(id: "value_16", test: .zero)])
    #expect(format.fields[2].conditions == [DissectorCondition(id: "value_16", test: .nonzero)])
    let rr = format.fields[4]
    #expect(rr.scale == DissectorScale(numerator: 1, denominator: 1024))
    #expect(rr.unit == "s")
    #expect(rr.repetition == .toEnd)
    #expect(rr.line == 12 && rr.column == 3)
  }

  @Test func headersOfEveryKindAndUUIDWidth() throws {
    let formats = try DissectorFile.parse(
      path: "v.dissector",
      text: """
        service 7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5 "Vendor Thermostat"
        characteristic 7B3C00021B2A4C5D8E9FA0B1C2D3E4F5 "Setpoint"   # no fields: only a name
        descriptor 0x2902 "Client Characteristic Configuration"
          field bits u16 "Bits"
        characteristic 1234fe95 "Vendor 32"
          field x u8 "X"
        characteristic 00002a19-0000-1000-8000-00805f9b34fb "Battery Level"
          field level u8 "Battery Level"
        """)
    #expect(formats.map(\.kind) == [.service, .characteristic, .descriptor, .characteristic, .characteristic])
    #expect(formats[0].uuid.description == "7b3c0001-1b2a-4c5d-8e9f-a0b1c2d3e4f5")
    #expect(formats[1].fields.isEmpty)
    #expect(formats[2].uuid.description == "2902")
    #expect(formats[3].uuid.description == "1234fe95")
    // A Base-UUID form is normalized to its 16-bit alias.
    #expect(formats[4].uuid.description == "2a19")
  }

  @Test func everyTypeParses() throws {
    let types = [
      "u8", "u16", "u24", "u32", "u40", "u48", "u56", "u64", "s8", "s16", "s24", "s32", "s48", "s64", "u16be", "s32be",
      "f32", "f64", "sfloat", "float", "utf8", "bytes", "uuid16", "uuid32", "uuid128", "uuid",
    ]
    for type in types {
      let text = "characteristic 2a00 \"X\"\n  field x \(type) \"X\""
      let format = try #require(try DissectorFile.parse(path: "t", text: text).first)
      #expect(format.fields[0].type.spelling == type)
    }
  }

  @Test func attributes() throws {
    let text = """
      characteristic 2a00 "X"
        field count u8 "Count"
        field mode u8 "Mode" 1=One 2="Two words" 0x10=Sixteen
        field t s16 "T" unit="°C" scale=0.01 exp=-1 offset=-40.5 if=mode==2 if=count!=0 optional
        field list u16 "L" hex repeat=count
        field fixed u8 "F" repeat=3
        field vendor u16 "V" names=company
        field a utf8 "A" length=4
        field b bytes "B" length=count
        group g "G" if=mode repeat
          field inner u8 "Inner"
      """
    let format = try #require(try DissectorFile.parse(path: "t", text: text).first)
    let f = format.fields
    #expect(
      f[1].enumeration == [
        .init(value: 1, name: "One"), .init(value: 2, name: "Two words"), .init(value: 16, name: "Sixteen"),
      ])
    #expect(f[2].unit == "°C")
    #expect(f[2].scale == DissectorScale(numerator: 1, denominator: 100))
    #expect(f[2].exponent == -1)
    #expect(f[2].offset == -40.5)
    #expect(f[2].conditions == [.init(id: "mode", test: .equal(2)), .init(id: "count", test: .notEqual(0))])
    #expect(f[2].isOptional)
    #expect(f[3].isHex && f[3].repetition == .field("count"))
    #expect(f[4].repetition == .count(3))
    #expect(f[5].names == .company)
    #expect(f[6].length == .fixed(4))
    #expect(f[7].length == .field("count"))
    #expect(f[8].type == .group && f[8].repetition == .toEnd && f[8].children.map(\.id) == ["inner"])
  }

  @Test func commentsBlankLinesAndCRLF() throws {
    let text =
      "# a comment\r\n\r\ncharacteristic 2a19 \"Battery Level\" # trailing\r\n  # indented comment\r\n"
      + "  field level u8 \"Battery # Level\" unit=%\r\n"
    let format = try #require(try DissectorFile.parse(path: "t", text: text).first)
    #expect(format.line == 3)
    #expect(format.fields[0].name == "Battery # Level")
    #expect(format.fields[0].line == 5)
  }

  @Test func escapesInStrings() throws {
    let text = #"characteristic 2a00 "A \"quoted\" \\ name""#
    #expect(try DissectorFile.parse(path: "t", text: text).first?.name == #"A "quoted" \ name"#)
  }

  @Test func scales() {
    #expect(DissectorParser.scale("0.01") == DissectorScale(numerator: 1, denominator: 100))
    #expect(DissectorParser.scale("1.25") == DissectorScale(numerator: 125, denominator: 100))
    #expect(DissectorParser.scale("-2") == DissectorScale(numerator: -2, denominator: 1))
    #expect(DissectorParser.scale("1/1024") == DissectorScale(numerator: 1, denominator: 1024))
    #expect(DissectorParser.scale(".5") == DissectorScale(numerator: 5, denominator: 10))
    for bad in ["", ".", "1.", "1/0", "a", "1.2.3", "1e3", "--1", "1/-2", "99999999999999999999"] {
      #expect(DissectorParser.scale(bad) == nil, "\(bad)")
    }
  }

  /// Bad text, with where the error must point and part of its message.
  static let badFiles: [(text: String, line: Int, column: Int, message: String)] = [
    ("characteristic 2a37", 1, 20, "missing quoted name"),
    ("charactristic 2a37 \"X\"", 1, 1, "expected 'characteristic', 'descriptor' or 'service'"),
    ("characteristic 2g37 \"X\"", 1, 16, "bad UUID '2g37'"),
    ("characteristic", 1, 15, "missing UUID"),
    ("characteristic 2a37 \"X", 1, 21, "unterminated string"),
    ("characteristic 2a37 \"X\" extra", 1, 25, "unexpected 'extra'"),
    ("characteristic 2a37 X", 1, 21, "expected a quoted name"),
    ("characteristic 2a37 \"X\"y", 1, 24, "expected a space"),
    ("characteristic 2a37 \"a \\n b\"", 1, 24, "unknown escape"),
    ("characteristic 2a37 \"X\"\n  field hr u17 \"X\"", 2, 12, "unknown type 'u17'"),
    ("characteristic 2a37 \"X\"\n  field 1hr u8 \"X\"", 2, 9, "bad id '1hr'"),
    ("characteristic 2a37 \"X\"\n  field hr u8", 2, 14, "missing quoted name"),
    ("characteristic 2a37 \"X\"\n  field hr", 2, 11, "missing type"),
    ("characteristic 2a37 \"X\"\n  feild hr u8 \"X\"", 2, 3, "expected 'field' or 'group'"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" unti=bpm", 2, 19, "unknown attribute 'unti=bpm'"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" fast", 2, 19, "unknown attribute 'fast'"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" if=missing", 2, 22, "unknown id 'missing' in if="),
    (
      "characteristic 2a37 \"X\"\n  field s utf8 \"S\" length=2\n  field n u8 \"N\" repeat=s", 3, 25,
      "'s' in repeat= is not an integer"
    ),
    (
      "characteristic 2a37 \"X\"\n  field s u8 \"S\" unit=x\n  field n u8 \"N\" length=s", 3, 18,
      "'length=' applies to utf8"
    ),
    ("characteristic 2a37 \"X\"\n  field hr utf8 \"X\" scale=2", 2, 21, "'scale=' applies to numbers, not utf8"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" scale=abc", 2, 25, "bad scale 'abc'"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" scale=0", 2, 25, "bad scale '0'"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" exp=1.5", 2, 23, "bad exponent"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" offset=x", 2, 26, "bad offset"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" unit=", 2, 19, "missing value after 'unit='"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" =5", 2, 19, "missing name before '='"),
    ("characteristic 2a37 \"X\"\n  field hr u8 \"X\" unit=a unit=b", 2, 26, "'unit' given twice"),
    ("characteristic 2a37 \"X\"\n\tfield hr u8 \"X\"", 2, 1, "indent with spaces"),
    ("  field hr u8 \"X\"", 1, 3, "indented line outside"),
    ("characteristic 2a37 \"X\"\n    field a u8 \"A\"\n  field b u8 \"B\"", 3, 3, "indentation does not match"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    bit 8 x \"X\"", 3, 9, "do not fit u8"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    bits 3-1 x \"X\"", 3, 10, "do not fit"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    bits 3 x \"X\"", 3, 10, "expected a bit range"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    bit x y \"X\"", 3, 9, "expected a bit number"),
    ("characteristic 2a37 \"X\"\n  field f utf8 \"F\"\n    bit 0 x \"X\"", 3, 5, "bits belong to an unsigned integer"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    bit 0 x \"X\"\n    bit 1 x \"Y\"", 4, 11, "already a bit"),
    ("characteristic 2a37 \"X\"\n  field f u8 \"F\"\n    flag 0 x \"X\"", 3, 5, "expected 'bit', 'bits' or N=Name"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\"\n  field a u8 \"A\"", 3, 9, "already a field on line 2"),
    ("characteristic 2a37 \"X\"\n  field a utf8 \"A\"\n  field b u8 \"B\"", 3, 3, "'a' on line 2 reads to the end"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" repeat\n  field b u8 \"B\"", 3, 3, "repeats to the end"),
    ("service 180d \"Heart Rate\"\n  field a u8 \"A\"", 2, 3, "a service has no value"),
    ("characteristic 2a37 \"X\"\ncharacteristic 0x2A37 \"Y\"", 2, 16, "already defined on line 1"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\"\n  field b u8 \"B\" if=a=1", 3, 21, "bad condition 'a=1'"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\"\n  field b u8 \"B\" if=a==x", 3, 21, "bad condition"),
    (
      "characteristic 2a37 \"X\"\n  field a utf8 \"A\" length=2\n  field b u8 \"B\" if=a", 3, 21,
      "'a' in if= is not an integer"
    ),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" repeat=0", 2, 25, "bad repeat 0; use 1 to 65535"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" repeat=a-b", 2, 25, "bad repeat"),
    ("characteristic 2a37 \"X\"\n  group g \"G\"", 2, 3, "group 'g' has no fields"),
    ("characteristic 2a37 \"X\"\n  group g \"G\" unit=s\n    field a u8 \"A\"", 2, 15, "applies to numbers, not group"),
    ("characteristic 2a37 \"X\"\n  group g \"G\" hex\n    field a u8 \"A\"", 2, 15, "'hex' applies to integers"),
    ("characteristic 2a37 \"X\"\n  field a utf8 \"A\" 1=One", 2, 20, "named values belong to integers"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" 1=One 0x1=Uno", 2, 24, "value 0x1 is already named"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" 1x=One", 2, 18, "bad value '1x'"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" 1=\"\"", 2, 20, "empty name"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\"\n    1=One unit=s", 3, 11, "expected N=Name"),
    ("characteristic 2a37 \"X\"\n  field a s8 \"A\" names=company", 2, 18, "'names=' applies to unsigned"),
    ("characteristic 2a37 \"X\"\n  field a u16 \"A\" names=colours", 2, 25, "unknown table 'colours'"),
    ("characteristic 2a37 \"X\"\n  field a u16 \"A\" length=2", 2, 19, "'length=' applies to utf8 and bytes"),
    ("characteristic 2a37 \"X\"\n  field a bytes \"A\" length=-1", 2, 28, "bad length"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" \"stray\"", 2, 18, "unexpected string"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"\"", 2, 14, "empty name"),
    ("characteristic 2a37 \"X\"\n  field a u8 \"A\" \n  field b\"x\" u8 \"B\"", 3, 10, "unexpected '\"' inside 'b'"),
  ]

  @Test("a bad file is a DissectorError at the right line and column", arguments: badFiles)
  func badFile(text: String, line: Int, column: Int, message: String) {
    do {
      let formats = try DissectorFile.parse(path: "bad.dissector", text: text)
      Issue.record("parsed into \(formats.count) formats")
    } catch {
      #expect(error.path == "bad.dissector")
      #expect(error.line == line, "\(error)")
      #expect(error.column == column, "\(error)")
      #expect(error.message.contains(message), "\(error)")
      #expect(error.message.first?.isUppercase == false, "messages are lower case: \(error)")
      #expect(error.description == "bad.dissector:\(line):\(column): \(error.message)")
    }
  }

  @Test func nestingIsLimited() {
    var text = "characteristic 2a00 \"X\"\n"
    for depth in 1...40 {
      text += String(repeating: " ", count: 2 * depth) + "group g\(depth) \"G\"\n"
    }
    text += String(repeating: " ", count: 82) + "field x u8 \"X\"\n"
    #expect(throws: DissectorError.self) { try DissectorFile.parse(path: "t", text: text) }
  }

  /// Mutated and random text either parses or throws a DissectorError, and whatever
  /// parses decodes random values without trapping.
  @Test func fuzzedTextNeverTraps() {
    var random = SplitMix(state: 0x2a37)
    let alphabet = Array(" \t\n\"=#\\-!01289abxyfieldbitsrepeatu8u16sfloatutf8group:/.é")
    var parsed = 0
    for round in 0..<3000 {
      var chars = Array(Self.heartRate)
      if round % 10 == 9 {
        chars = (0..<Int(random.next() % 200)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
      } else {
        for _ in 0..<(1 + Int(random.next() % 4)) {
          let position = Int(random.next() % UInt64(chars.count + 1))
          switch random.next() % 3 {
          case 0 where position < chars.count: chars.remove(at: position)
          case 1: chars.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
          default:
            if position < chars.count { chars[position] = alphabet[Int(random.next() % UInt64(alphabet.count))] }
          }
        }
      }
      let text = String(chars)
      guard let formats = try? DissectorFile.parse(path: "fuzz", text: text) else { continue }
      parsed += 1
      for format in formats {
        for _ in 0..<4 {
          let value = (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
          _ = DissectorEngine.decode(value, with: format)
        }
      }
    }
    #expect(parsed > 100, "the mutations should leave many files valid (\(parsed))")
  }
}
