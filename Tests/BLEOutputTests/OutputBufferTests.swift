import Testing

@testable import BLEOutput

@Suite struct OutputBufferTests {
  @Test(
    arguments: [
      (0, 1, "0"), (7, 1, "7"), (10, 1, "10"), (1_715_679_000, 1, "1715679000"), (312, 6, "000312"),
      (UInt64.max, 1, "18446744073709551615"), (0, 6, "000000"),
    ] as [(UInt64, Int, String)])
  func decimal(_ value: UInt64, _ minimumDigits: Int, _ expected: String) {
    var out = OutputBuffer(fd: -1)
    out.appendDecimal(value, minimumDigits: minimumDigits)
    #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
  }

  @Test func negativeDecimal() {
    var out = OutputBuffer(fd: -1)
    out.appendDecimal(-42)
    #expect(String(decoding: out.bytes, as: UTF8.self) == "-42")
  }

  @Test(arguments: [(0x0C03, 4, "0x0c03"), (0x3E, 2, "0x3e"), (0x1_2345, 4, "0x12345"), (0, 2, "0x00")])
  func hex(_ value: UInt64, _ width: Int, _ expected: String) {
    var out = OutputBuffer(fd: -1)
    out.appendHex(value, width: width)
    #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
  }

  @Test func jsonStringEscapes() {
    var out = OutputBuffer(fd: -1)
    out.appendJSONString("a\"b\\c\nd\u{01}é")
    #expect(String(decoding: out.bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001é""#)
  }

  @Test(
    arguments: [
      (1_715_679_000_000_312, "1715679000.000312"), (0, "0.000000"), (-1, "-0.000001"),
      (-1_500_000, "-1.500000"),
    ] as [(Int64, String)])
  func seconds(_ microseconds: Int64, _ expected: String) {
    var out = OutputBuffer(fd: -1)
    JSONRecord.appendSeconds(microseconds, into: &out)
    #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
  }

  @Test func padding() {
    var out = OutputBuffer(fd: -1)
    out.append("x")
    let mark = out.count
    out.append("42")
    out.padLeft(from: mark, width: 5)
    let right = out.count
    out.append("ab")
    out.padRight(from: right, width: 4)
    #expect(String(decoding: out.bytes, as: UTF8.self) == "x   42ab  ")
  }
}
