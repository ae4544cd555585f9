import BLEDissect
import Testing

@testable import BLEAnalysis

/// A stand-in for a decoded record, with one field of every kind.
struct FilterPacket: Sendable {
  var name: String
  var opcode: Int64?
  var handle: Int64?
  var error: Int64?
  var value: [UInt8]?
  var peer: DeviceAddress?
  var encrypted: Bool?
  var characteristic: String?
  var interval: Int64?
  var smp = false
  var diagnostics: [String] = []
  var uuids: [Int64] = []
  var adData: [[UInt8]] = []
}

enum FilterFixture {
  static let peer = DeviceAddress("D4:36:39:67:A2:61")!
  static let otherPeer = DeviceAddress("AA:BB:CC:DD:EE:FF")!

  /// Five records: a notification, a write with two diagnostics, an error response, an SMP
  /// PDU and an advertising report.
  static let packets: [FilterPacket] = [
    FilterPacket(
      name: "notify", opcode: 0x1b, handle: 0x2a, value: [0x01, 0x02, 0x0a, 0xff], peer: peer, encrypted: true,
      characteristic: "Heart Rate Measurement"),
    FilterPacket(
      name: "write", opcode: 0x12, handle: 0x27, value: [0xd4, 0x36, 0x39, 0x67, 0xa2, 0x61], peer: otherPeer,
      encrypted: false, characteristic: "Heart Rate Control Point",
      diagnostics: ["att.length.invalid", "att.handle.unknown"]),
    FilterPacket(name: "error", opcode: 0x01, handle: 0x27, error: 0x0a, peer: otherPeer, encrypted: false),
    FilterPacket(name: "smp", peer: peer, interval: 24, smp: true, diagnostics: ["smp.unexpected"]),
    FilterPacket(name: "adv", uuids: [0x180d, 0x180f], adData: [[0x02, 0x01, 0x06], [0x03, 0x03, 0x0d, 0x18]]),
  ]

  static let catalog: FilterCatalog<FilterPacket> = {
    var catalog = FilterCatalog<FilterPacket>()
    catalog.add("att", present: { $0.opcode != nil })
    catalog.add("smp", present: { $0.smp })
    catalog.add("att.opcode", .integer, one: { $0.opcode.map { .integer($0) } })
    catalog.add("att.handle", .integer, one: { $0.handle.map { .integer($0) } })
    catalog.add("att.error", .integer, one: { $0.error.map { .integer($0) } })
    catalog.add("att.value", .bytes, one: { $0.value.map { .bytes($0) } })
    catalog.add("conn.peer", .address, one: { $0.peer.map { .address($0) } })
    catalog.add("conn.encrypted", .bool, one: { $0.encrypted.map { .bool($0) } })
    catalog.add("gatt.characteristic", .string, one: { $0.characteristic.map { .string($0) } })
    catalog.add("hci.le.conn_complete.interval", .integer, one: { $0.interval.map { .integer($0) } })
    catalog.add("diagnostics.id", .string, many: { $0.diagnostics.map { .string($0) } })
    catalog.add("adv.uuid16", .integer, many: { $0.uuids.map { .integer($0) } })
    catalog.add("adv.data", .bytes, many: { $0.adData.map { .bytes($0) } })
    return catalog
  }()
}

private let catalog = FilterFixture.catalog
private let peer = FilterFixture.peer

/// An expression and the names of the packets it matches.
struct FilterMatchCase: Sendable, CustomTestStringConvertible {
  var expression: String
  var matching: Set<String>
  init(_ expression: String, _ matching: Set<String>) {
    self.expression = expression
    self.matching = matching
  }
  var testDescription: String { expression }
}

let filterMatchCases: [FilterMatchCase] = [
  // The issue's example.
  .init("att.opcode == 0x1b and conn.peer == D4:36:39:67:A2:61", ["notify"]),
  .init("att.opcode == 0x1b && conn.peer == d4:36:39:67:a2:61", ["notify"]),
  // Integers: decimal, hex, negative, every operator and its word form.
  .init("att.opcode == 27", ["notify"]),
  .init("att.opcode == 0X1B", ["notify"]),
  .init("att.opcode eq 0x1b", ["notify"]),
  .init("att.opcode != 0x1b", ["write", "error"]),
  .init("att.opcode ne 0x1b", ["write", "error"]),
  .init("att.opcode < 0x12", ["error"]),
  .init("att.opcode lt 0x12", ["error"]),
  .init("att.opcode <= 0x12", ["write", "error"]),
  .init("att.opcode le 18", ["write", "error"]),
  .init("att.opcode > 0x12", ["notify"]),
  .init("att.opcode gt 0x12", ["notify"]),
  .init("att.opcode >= 0x12", ["notify", "write"]),
  .init("att.opcode ge 0x12", ["notify", "write"]),
  .init("att.opcode > -1", ["notify", "write", "error"]),
  .init("att.opcode>=-9223372036854775808", ["notify", "write", "error"]),
  .init("att.opcode<0x7fffffffffffffff", ["notify", "write", "error"]),
  .init("hci.le.conn_complete.interval == 24", ["smp"]),
  .init("att.handle == 0x0027", ["write", "error"]),
  // Presence, alone and negated; comparisons on absent fields are false, `!=` included.
  .init("att", ["notify", "write", "error"]),
  .init("smp", ["smp"]),
  .init("att.error", ["error"]),
  .init("not att", ["smp", "adv"]),
  .init("!att", ["smp", "adv"]),
  .init("att.error != 0x0a", []),
  .init("not att.error == 0x0a", ["notify", "write", "smp", "adv"]),
  .init("diagnostics.id", ["write", "smp"]),
  // Precedence: not > and > or, parentheses override.
  .init("smp or att and att.opcode == 0x1b", ["smp", "notify"]),
  .init("(smp or att) and conn.peer == D4:36:39:67:A2:61", ["smp", "notify"]),
  .init("att.opcode == 0x1b or att.opcode == 0x12 and att.handle == 0x2a", ["notify"]),
  .init("(att.opcode == 0x1b or att.opcode == 0x12) and att.handle == 0x27", ["write"]),
  .init("not att or smp", ["smp", "adv"]),
  .init("not (att or smp)", ["adv"]),
  .init("not not att", ["notify", "write", "error"]),
  .init("!(att.opcode == 0x1b) && att || smp", ["write", "error", "smp"]),
  .init("((att))", ["notify", "write", "error"]),
  // Strings: equality, contains (case-sensitive), escapes.
  .init("gatt.characteristic == \"Heart Rate Measurement\"", ["notify"]),
  .init("gatt.characteristic contains \"Rate\"", ["notify", "write"]),
  .init("gatt.characteristic contains \"rate\"", []),
  .init("gatt.characteristic != \"Heart Rate Measurement\"", ["write"]),
  .init("gatt.characteristic == \"Heart \\\"Rate\\\\\"", []),
  // Addresses.
  .init("conn.peer == D4:36:39:67:A2:61", ["notify", "smp"]),
  .init("conn.peer != D4:36:39:67:A2:61", ["write", "error"]),
  .init("conn.peer == aa:bb:cc:dd:ee:ff", ["write", "error"]),
  // Bytes: equality, subsequence, a single byte, an address as 6 bytes, text as UTF-8.
  .init("att.value == 01:02:0a:ff", ["notify"]),
  .init("att.value == 01:02:0A:FF", ["notify"]),
  .init("att.value contains 02:0a", ["notify"]),
  .init("att.value contains 0a", ["notify"]),
  .init("att.value contains 02:ff", []),
  .init("att.value == D4:36:39:67:A2:61", ["write"]),
  .init("att.value contains 36:39", ["write"]),
  .init("att.value != 01:02:0a:ff", ["write"]),
  // Bools.
  .init("conn.encrypted == true", ["notify"]),
  .init("conn.encrypted == false", ["write", "error"]),
  .init("conn.encrypted != true", ["write", "error"]),
  // Many-valued fields: any value matches; `!=` means present and no value equal.
  .init("diagnostics.id == \"att.handle.unknown\"", ["write"]),
  .init("diagnostics.id contains \"att.\"", ["write"]),
  .init("diagnostics.id != \"att.handle.unknown\"", ["smp"]),
  .init("not diagnostics.id == \"att.handle.unknown\"", ["notify", "error", "smp", "adv"]),
  .init("adv.uuid16 == 0x180f", ["adv"]),
  .init("adv.uuid16 > 0x180e", ["adv"]),
  .init("adv.uuid16 < 0x180d", []),
  .init("adv.uuid16 != 0x180d", []),
  .init("adv.data contains 0d:18", ["adv"]),
  .init("adv.data == 02:01:06", ["adv"]),
  // Keywords in any case, no spaces around symbols, line breaks as spaces.
  .init("att.opcode==0x1b AND conn.encrypted==true", ["notify"]),
  .init("att.opcode == 0x1b\n  Or\tsmp", ["notify", "smp"]),
  .init("att.value Contains 0a", ["notify"]),
]

@Suite("filter")
struct FilterTests {
  @Test(arguments: filterMatchCases)
  func matches(_ row: FilterMatchCase) throws {
    let filter = try Filter(row.expression, catalog: catalog)
    let matched = Set(FilterFixture.packets.filter { filter.matches($0) }.map(\.name))
    #expect(matched == row.matching)
  }

  @Test func longChainsEvaluateInOrder() throws {
    let terms = (0..<5000).map { "adv.uuid16 == \($0 + 0x1000)" }
    let any = try Filter(terms.joined(separator: " or "), catalog: catalog)
    let all = try Filter(terms.joined(separator: " and "), catalog: catalog)
    let adv = FilterFixture.packets[4]
    #expect(any.matches(adv))
    #expect(!all.matches(adv))
    #expect(!any.matches(FilterFixture.packets[0]))
  }

  @Test func hexAndDecimalParseTheSame() throws {
    let hex = try Filter("att.opcode == 0x1b", catalog: catalog)
    let decimal = try Filter("att.opcode eq 27", catalog: catalog)
    #expect(hex.node == decimal.node)
    #expect(hex.node == .compare("att.opcode", .equal, .integer(27)))
  }

  @Test func precedenceBuildsTheTree() throws {
    let filter = try Filter("not att or smp and att.error", catalog: catalog)
    #expect(filter.node == .or(.not(.present("att")), .and(.present("smp"), .present("att.error"))))
    let left = try Filter("att or smp or att.error", catalog: catalog)
    #expect(left.node == .or(.or(.present("att"), .present("smp")), .present("att.error")))
  }

  @Test func literalsAreReadAgainstTheFieldKind() throws {
    #expect(try Filter("att.opcode == 10", catalog: catalog).node == .compare("att.opcode", .equal, .integer(10)))
    #expect(try Filter("att.value == 10", catalog: catalog).node == .compare("att.value", .equal, .bytes([0x10])))
    #expect(
      try Filter("att.value == \"hi\"", catalog: catalog).node == .compare("att.value", .equal, .bytes([0x68, 0x69])))
    #expect(
      try Filter("conn.peer == d4:36:39:67:a2:61", catalog: catalog).node
        == .compare("conn.peer", .equal, .address(peer)))
    #expect(
      try Filter(#"gatt.characteristic == "a\"b\\c""#, catalog: catalog).node
        == .compare("gatt.characteristic", .equal, .string(#"a"b\c"#)))
  }

  @Test func fieldsListsWhatTheExpressionReads() throws {
    let filter = try Filter("smp or att.opcode == 1 and (smp or conn.peer == D4:36:39:67:A2:61)", catalog: catalog)
    #expect(filter.fields == ["att.opcode", "conn.peer", "smp"])
    #expect(filter.expression == "smp or att.opcode == 1 and (smp or conn.peer == D4:36:39:67:A2:61)")
  }

  @Test func catalogNamesAreSorted() {
    #expect(catalog.names.first == "adv.data")
    #expect(catalog.names == catalog.names.sorted())
    #expect(catalog.names.count == 13)
    #expect(catalog.kind(of: "conn.peer") == .address)
    #expect(catalog.kind(of: "conn") == nil)
  }

  @Test(arguments: [
    ("att", true), ("att.opcode", true), ("hci.le.conn_complete.interval", true), ("diagnostics.id", true),
    ("_private.x2", true), ("Att", false), ("att.", false), (".att", false), ("att..opcode", false),
    ("att.2x", false), ("", false), ("and", false), ("contains", false), ("att-opcode", false),
  ])
  func fieldNames(_ name: String, _ valid: Bool) {
    #expect(FilterLexer.isFieldName(name) == valid)
  }

  /// A noncopyable subject is borrowed, never copied.
  @Test func noncopyableSubject() throws {
    struct Handle: ~Copyable {
      var value: Int64
    }
    var handles = FilterCatalog<Handle>()
    handles.add("handle", .integer, one: { .integer($0.value) })
    let filter = try Filter("handle >= 0x10", catalog: handles)
    let handle = Handle(value: 0x27)
    let big = filter.matches(handle)
    let small = filter.matches(Handle(value: 3))
    #expect(big)
    #expect(!small)
  }
}
