/// Answers kept for the connections seen last: records of a few connections interleave,
/// and finding an answer again (hashing a key, walking tables) costs more than the record.
///
/// Direct-mapped by key (a connection id, or one derived from it) modulo its size, so
/// its memory stays fixed however many connections a capture holds. An answer is good
/// for as long as its `version` (the owner bumps it whenever any answer may change).
struct RecentByConnection<Value> {
  private var keys: [Int]
  private var versions: [Int]
  private var values: [Value?]

  /// `size` is a power of two.
  init(size: Int = 128) {
    precondition(size > 0 && size & (size - 1) == 0)
    keys = Array(repeating: -1, count: size)
    versions = Array(repeating: 0, count: size)
    values = Array(repeating: nil, count: size)
  }

  /// The answer kept for `key` at `version`, nil when there is none (or an older one).
  @inline(__always) func value(for key: Int, version: Int) -> Value? {
    let slot = key & (keys.count - 1)
    guard keys[slot] == key, versions[slot] == version else { return nil }
    return values[slot]
  }

  @inline(__always) mutating func set(_ value: Value, for key: Int, version: Int) {
    let slot = key & (keys.count - 1)
    keys[slot] = key
    versions[slot] = version
    values[slot] = value
  }
}
