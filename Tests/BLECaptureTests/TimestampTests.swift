import Testing

@testable import BLECapture

@Suite struct TimestampTests {
  /// Seconds and a fraction, and the Unix µs and leftover ns they make.
  struct Fraction: Sendable, CustomTestStringConvertible {
    var seconds: Int64
    var fraction: Int64
    var unitsPerSecond: Int64
    var micros: Int64
    var nanos: UInt16
    var testDescription: String { "\(seconds) s + \(fraction) / \(unitsPerSecond)" }
  }

  static let fractions: [Fraction] = [
    // 2024-05-14 09:30:00.123456
    .init(
      seconds: 1_715_679_000, fraction: 123_456, unitsPerSecond: 1_000_000, micros: 1_715_679_000_123_456, nanos: 0),
    // 2024-05-14 09:30:00.123456789
    .init(
      seconds: 1_715_679_000, fraction: 123_456_789, unitsPerSecond: 1_000_000_000, micros: 1_715_679_000_123_456,
      nanos: 789),
    .init(seconds: 0, fraction: 999, unitsPerSecond: 1_000_000_000, micros: 0, nanos: 999),
    .init(seconds: 0, fraction: 1_000, unitsPerSecond: 1_000_000_000, micros: 1, nanos: 0),
    // Before 1970: the microseconds round toward minus infinity, the nanoseconds stay 0...999.
    .init(seconds: -1, fraction: 0, unitsPerSecond: 1_000_000, micros: -1_000_000, nanos: 0),
    .init(seconds: -1, fraction: 500_000, unitsPerSecond: 1_000_000, micros: -500_000, nanos: 0),
    .init(seconds: 0, fraction: -1, unitsPerSecond: 1_000_000, micros: -1, nanos: 0),
    .init(seconds: 0, fraction: -1, unitsPerSecond: 1_000_000_000, micros: -1, nanos: 999),
    .init(seconds: 0, fraction: -1_000, unitsPerSecond: 1_000_000_000, micros: -1, nanos: 0),
    .init(seconds: 0, fraction: -1_001, unitsPerSecond: 1_000_000_000, micros: -2, nanos: 999),
    .init(seconds: -2, fraction: 999_999_999, unitsPerSecond: 1_000_000_000, micros: -1_000_001, nanos: 999),
  ]

  @Test(arguments: fractions)
  func fromSecondsAndFraction(_ f: Fraction) {
    let timestamp = Timestamp(seconds: f.seconds, fraction: f.fraction, unitsPerSecond: f.unitsPerSecond)
    #expect(timestamp.unixMicroseconds == f.micros)
    #expect(timestamp.nanoseconds == f.nanos)
  }

  @Test(arguments: [
    (Int64(1_715_679_000_123_456), Int64(1_715_679_000), Int64(123_456)),
    (0, 0, 0),
    (-1, -1, 999_999),
    (-999_999, -1, 1),
    (-1_000_000, -1, 0),
    (-1_500_000, -2, 500_000),
    // A btsnoop timestamp of 0: 0000-01-01 00:00
    (-0x00DC_DDB3_0F2F_8000, -62_168_256_000, 0),
  ])
  func secondsAndMicroseconds(micros: Int64, seconds: Int64, remainder: Int64) {
    let split = Timestamp(unixMicroseconds: micros).secondsAndMicroseconds
    #expect(split.seconds == seconds)
    #expect(split.microseconds == remainder)
  }

  @Test func btsnoopEpochOffset() {
    // The value AOSP's btsnooz.py and BlueZ use (719_540 days of 86_400 s), spelled out in the tests.
    #expect(Timestamp.btsnoopEpochOffset == btsnoopEpochDelta)
  }

  @Test func orderCountsNanoseconds() {
    let a = Timestamp(unixMicroseconds: 10, nanoseconds: 999)
    let b = Timestamp(unixMicroseconds: 11, nanoseconds: 0)
    let c = Timestamp(unixMicroseconds: 11, nanoseconds: 1)
    #expect(a < b)
    #expect(b < c)
    #expect(!(c < a))
    #expect(Timestamp(unixMicroseconds: -1, nanoseconds: 999) < Timestamp(unixMicroseconds: 0))
  }
}

@Suite struct TimestampBoundsTests {
  /// Any timestamp a damaged file gives is kept within ±2^58 µs, so that differences of
  /// two cannot overflow.
  @Test(arguments: [Int64.min, Int64.max, -(1 << 58) - 1, (1 << 58) + 1] as [Int64])
  func extremeTimestampsAreClamped(_ value: Int64) {
    let stamp = Timestamp(unixMicroseconds: value)
    #expect(abs(stamp.unixMicroseconds) == Timestamp.limit)
    let other = Timestamp(unixMicroseconds: -value.signum() * Int64.max)
    _ = stamp.unixMicroseconds - other.unixMicroseconds
  }

  /// btsnoop's year 0 (a zeroed timestamp) is inside the bounds.
  @Test func btsnoopYearZeroIsKept() {
    let stamp = Timestamp(unixMicroseconds: -Timestamp.btsnoopEpochOffset)
    #expect(stamp.unixMicroseconds == -Timestamp.btsnoopEpochOffset)
  }
}
