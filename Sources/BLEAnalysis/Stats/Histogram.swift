/// Durations counted in log-spaced buckets, 1-2-5 per decade from 0.1 ms to 100 s, so
/// that a link that answers in 7 ms and one that answers in 700 ms both show their
/// shape. Only counts are kept, never the values.
///
///     bucket   0        1            2            …   18           19
///     range    < 0.1ms  [0.1, 0.2)ms [0.2, 0.5)ms …   [50, 100)s   ≥ 100 s
public struct Histogram: Hashable, Sendable {
  /// The upper bound (exclusive) of each bucket but the last, in µs.
  public static let bounds: [Int64] = [
    100, 200, 500,
    1_000, 2_000, 5_000,
    10_000, 20_000, 50_000,
    100_000, 200_000, 500_000,
    1_000_000, 2_000_000, 5_000_000,
    10_000_000, 20_000_000, 50_000_000,
    100_000_000,
  ]

  /// One bucket: `lower` ≤ value < `upper`, in µs; nil `lower` is the first bucket
  /// (negative values, from clocks that went back, count there too), nil `upper` the last.
  public struct Bucket: Hashable, Sendable {
    public var lower: Int64?
    public var upper: Int64?
    public var count: Int
  }

  /// Values per bucket: `bounds.count + 1` of them.
  public private(set) var counts: [Int]
  public private(set) var total = 0

  public init() {
    counts = Array(repeating: 0, count: Self.bounds.count + 1)
  }

  public init(_ values: some Sequence<Int64>) {
    self.init()
    for value in values { add(value) }
  }

  /// The bucket a value falls in.
  public static func bucket(of microseconds: Int64) -> Int {
    var low = 0
    var high = bounds.count
    // The first bound above the value.
    while low < high {
      let middle = (low + high) / 2
      if microseconds < bounds[middle] { high = middle } else { low = middle + 1 }
    }
    return low
  }

  public mutating func add(_ microseconds: Int64) {
    counts[Self.bucket(of: microseconds)] += 1
    total += 1
  }

  /// Adds the values `other` counted.
  public mutating func add(_ other: Self) {
    for i in counts.indices { counts[i] += other.counts[i] }
    total += other.total
  }

  /// The buckets from the first that holds a value to the last, empty ones between
  /// included (they are part of the shape); none when there are no values.
  public var buckets: [Bucket] {
    guard let first = counts.firstIndex(where: { $0 > 0 }), let last = counts.lastIndex(where: { $0 > 0 }) else {
      return []
    }
    return (first...last).map { index in
      Bucket(
        lower: index == 0 ? nil : Self.bounds[index - 1], upper: index < Self.bounds.count ? Self.bounds[index] : nil,
        count: counts[index])
    }
  }
}
