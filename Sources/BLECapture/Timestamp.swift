/// A point in time as a capture records it: Unix microseconds, plus the
/// nanoseconds below the microsecond for sources that keep them (pcap-ns, pcapng).
///
/// Microseconds, not nanoseconds, are the base unit so that every btsnoop
/// timestamp fits, even a zero one (year 0, about −6.2e16 µs).
public struct Timestamp: Hashable, Comparable, Sendable {
  /// Microseconds since 1970-01-01 00:00 UTC, rounded toward minus infinity.
  public var unixMicroseconds: Int64
  /// Nanoseconds past `unixMicroseconds`, 0...999.
  public var nanoseconds: UInt16

  /// Timestamps are kept within ±2^58 µs (about ±9,000 years, btsnoop's year 0
  /// included), so that differences of two, and sums of a few, cannot overflow
  /// whatever a damaged file says.
  public static let limit: Int64 = 1 << 58

  public init(unixMicroseconds: Int64, nanoseconds: UInt16 = 0) {
    self.unixMicroseconds = min(max(unixMicroseconds, -Self.limit), Self.limit)
    self.nanoseconds = nanoseconds
  }

  /// From whole seconds and a fraction in `unitsPerSecond` (1e6 or 1e9).
  public init(seconds: Int64, fraction: Int64, unitsPerSecond: Int64) {
    let nanos = unitsPerSecond == 1_000_000_000 ? fraction : fraction * (1_000_000_000 / unitsPerSecond)
    let micros = nanos >= 0 ? nanos / 1000 : (nanos - 999) / 1000
    self.init(
      unixMicroseconds: seconds &* 1_000_000 &+ micros,
      nanoseconds: UInt16(truncatingIfNeeded: nanos - micros * 1000))
  }

  /// The btsnoop epoch, 0000-01-01 00:00, in microseconds before the Unix epoch.
  public static let btsnoopEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

  /// Whole seconds (floor) and the microseconds past them, 0...999_999.
  public var secondsAndMicroseconds: (seconds: Int64, microseconds: Int64) {
    let (q, r) = unixMicroseconds.quotientAndRemainder(dividingBy: 1_000_000)
    return r < 0 ? (q - 1, r + 1_000_000) : (q, r)
  }

  public static func < (a: Self, b: Self) -> Bool {
    (a.unixMicroseconds, a.nanoseconds) < (b.unixMicroseconds, b.nanoseconds)
  }
}

/// How finely a source records time.
public enum TimestampResolution: Sendable, Hashable {
  case microseconds
  case nanoseconds
}
