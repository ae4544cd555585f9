import Testing

@testable import BLEDissect

/// The CBOR decoder against the examples of RFC 8949, Appendix A, and against hostile
/// items: each fails with a typed error at the offset of the item at fault.
@Suite struct CBORDecoderTests {
  static let examples: [(hex: String, value: CBORValue)] = [
    ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
    ("1a000f4240", .unsigned(1_000_000)), ("1bffffffffffffffff", .unsigned(.max)),
    ("20", .negative(0)), ("3863", .negative(99)), ("3bffffffffffffffff", .negative(.max)),
    ("f90000", .float(0)), ("f93c00", .float(1)), ("f97bff", .float(65504)), ("f90001", .float(5.960464477539063e-8)),
    ("fa47c35000", .float(100000)), ("fb3ff199999999999a", .float(1.1)), ("f9c400", .float(-4)),
    ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined), ("f0", .simple(16)),
    ("f8ff", .simple(255)), ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
    ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6161", .text("a")),
    ("6449455446", .text("IETF")), ("62c3bc", .text("ü")), ("80", .array([])),
    ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
    (
      "8301820203820405",
      .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
    ),
    ("a0", .map([])),
    (
      "a201020304",
      .map([.init(key: .unsigned(1), value: .unsigned(2)), .init(key: .unsigned(3), value: .unsigned(4))])
    ),
    (
      "a26161016162820203",
      .map([
        .init(key: .text("a"), value: .unsigned(1)),
        .init(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)])),
      ])
    ),
    // Indefinite lengths.
    ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5])), ("7f657374726561646d696e67ff", .text("streaming")),
    ("9fff", .array([])),
    (
      "9f018202039f0405ffff",
      .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
    ),
    (
      "bf61610161629f0203ffff",
      .map([
        .init(key: .text("a"), value: .unsigned(1)),
        .init(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)])),
      ])
    ),
  ]

  @Test(arguments: examples)
  func example(_ example: (hex: String, value: CBORValue)) throws {
    #expect(try CBORDecoder.decode(vendorBytes(example.hex)) == example.value)
  }

  @Test func halfPrecisionSpecials() throws {
    #expect(try CBORDecoder.decode(vendorBytes("f97c00")) == .float(.infinity))
    let nan = try CBORDecoder.decode(vendorBytes("f97e00"))
    if case .float(let value) = nan { #expect(value.isNaN) } else { Issue.record("not a float: \(nan)") }
  }

  @Test func accessors() throws {
    let value = try CBORDecoder.decode(vendorBytes("a3 636f6666 190140 6464617461 42abcd 627263 20"))
    #expect(value["off"]?.integer == 320)
    #expect(value["data"]?.bytes == [0xAB, 0xCD])
    #expect(value["rc"]?.integer == -1)
    #expect(value["missing"] == nil)
    #expect(CBORValue.negative(.max).integer == nil)
  }

  /// Hostile items: what is wrong, and where.
  static let hostile: [(hex: String, offset: Int, truncated: Bool, why: String)] = [
    // An array of 2^64 − 1 items in 9 bytes: refused before anything is allocated.
    ("9bffffffffffffffff", 0, false, "array length"),
    // A byte string of 4 GiB.
    ("5affffffff00", 0, false, "byte string length"),
    // A map of 3 entries with 4 bytes left (each entry needs 2).
    ("a3 01020304", 0, false, "map length"),
    // 17 nested arrays: nesting stops at 16.
    ("818181818181818181818181818181818100", 16, false, "nesting"),
    // Tags nest too.
    ("c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c600", 16, false, "tag nesting"),
    // Additional information 28–30 is reserved.
    ("1c", 0, false, "reserved"), ("5d", 0, false, "reserved string"),
    // A break outside an indefinite item.
    ("ff", 0, false, "break"),
    // A one-byte argument missing.
    ("18", 1, true, "argument"),
    // An array of 2 with one byte left: refused by its length.
    ("8201", 0, false, "array of 2 in 1 byte"),
    // An array of 2 whose second item's argument is missing.
    ("820118", 3, true, "second item"),
    // An indefinite array never closed.
    ("9f0102", 3, true, "no break"),
    // Text that is not UTF-8.
    ("62c328", 0, false, "UTF-8"),
    // An indefinite byte string with a text chunk inside.
    ("5f6161ff", 1, false, "chunk kind"),
    // An indefinite integer.
    ("1f", 0, false, "indefinite integer"),
    // A two-byte simple value below 32.
    ("f810", 0, false, "simple"),
    // Two items where one was expected.
    ("0000", 1, false, "trailing"),
    // Nothing at all.
    ("", 0, true, "empty"),
  ]

  @Test(arguments: hostile)
  func hostileItem(_ item: (hex: String, offset: Int, truncated: Bool, why: String)) {
    let error = #expect(throws: DecodeError.self, "\(item.why)") { try CBORDecoder.decode(vendorBytes(item.hex)) }
    #expect(error?.offset == item.offset, "\(item.why)")
    #expect(error?.layer == .cbor)
    if case .truncated = error?.kind { #expect(item.truncated, "\(item.why)") } else { #expect(!item.truncated) }
  }

  @Test func offsetsStartAtBase() {
    let error = #expect(throws: DecodeError.self) { try CBORDecoder.decode(vendorBytes("18"), base: 8) }
    #expect(error?.offset == 9)
  }

  /// Deep but legal: 16 levels decode, and a 64 KiB map of small entries stays linear.
  @Test func boundsThatHold() throws {
    let deep = [UInt8](repeating: 0x81, count: 16) + [0x00]
    #expect(throws: Never.self) { try CBORDecoder.decode(deep) }
    var wide: [UInt8] = [0xB9, 0x40, 0x00]
    for index in 0..<0x4000 { wide += [0x19, UInt8(index >> 8), UInt8(index & 0xFF), 0xF6] }
    #expect(try CBORDecoder.decode(wide).entries?.count == 0x4000)
  }
}
