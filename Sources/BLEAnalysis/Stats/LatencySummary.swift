/// Count, minimum, median, 95th percentile and maximum of a set of durations, in µs.
///
/// Percentiles are exact and nearest-rank: the p-th percentile of n sorted values is
/// the value of rank ⌈p·n/100⌉ (ranks from 1), always one of the values. So the median
/// of an even count is the lower of the two middle values, the median of 1 value is
/// that value, and the 95th percentile of fewer than 20 values is the maximum.
public struct LatencySummary: Hashable, Sendable {
  public var count: Int
  public var min: Int64
  public var median: Int64
  public var p95: Int64
  public var max: Int64

  /// Nil for no values.
  public init?(_ values: [Int64]) {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    count = sorted.count
    min = sorted[0]
    median = Self.percentile(50, ofSorted: sorted)
    p95 = Self.percentile(95, ofSorted: sorted)
    max = sorted[sorted.count - 1]
  }

  /// The nearest-rank `p`-th percentile (0 < p ≤ 100) of ascending, non-empty `sorted`.
  public static func percentile(_ p: Int, ofSorted sorted: [Int64]) -> Int64 {
    // ⌈p·n/100⌉ in integers; rank 1 at least, so p near 0 gives the minimum.
    let rank = Swift.max(1, (p * sorted.count + 99) / 100)
    return sorted[Swift.min(rank, sorted.count) - 1]
  }
}
