import BLEFuzz
import Testing

/// The `vendor` fuzz target runs each decoder on its seeds and on hostile values.
@Suite struct VendorFuzzTests {
  static func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter(\.isHexDigit))
    return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
  }

  @Test(arguments: [
    // The seeds of .ci/fuzz: CBOR, mcumgr, Secure DFU, init packet, HID Report Map, ANCS.
    "00a2636f66661901406464617461420102", "010a00000f00013201a2636f666600646461746142aabb",
    "026003018300000029cb410f", "030a1408011210080110341a02800220003889614800",
    "04050c0901a1018503150026ff0319002aff03751095018100c0", "05002a0000000102004869030300596f75",
    // Hostile: a CBOR array of 2^64 − 1 items; 40 nested arrays; an mcumgr header claiming 65,535
    // bytes; 64 nested HID collections; a HID report of Report Count 65,535.
    "009bffffffffffffffff", "00" + String(repeating: "81", count: 40) + "00", "010a00ffff0001000100",
    "04" + String(repeating: "a101", count: 64), "047520 96ffff 8102",
  ])
  func runs(_ hex: String) {
    #expect(FuzzTarget.vendor.run(Self.bytes(hex)) == 1)
  }

  @Test func emptyInput() {
    #expect(FuzzTarget.vendor.run([]) == 0)
  }
}
