#if canImport(Glibc)
  import Glibc
#endif

/// A one-line progress indication on stderr for long runs, shown only when stderr
/// is a terminal (and, for commands that print records, stdout is not the same
/// terminal). Redrawn at most five times a second; erased at the end.
public struct ProgressMeter {
  let enabled: Bool
  let label: String
  private var lastDraw: Int64 = 0
  private var drawn = false
  private var tick = 0

  /// `enabled` false keeps it quiet whatever the terminal.
  public init(label: String, stdoutIsOutput: Bool, enabled: Bool = true) {
    self.label = label
    self.enabled = enabled && isatty(2) != 0 && !(stdoutIsOutput && isatty(1) != 0)
    lastDraw = Self.now()
  }

  /// Call once per record; it looks at the clock only every 4096 calls.
  public mutating func update(records: Int, done: Int, total: Int) {
    guard enabled else { return }
    tick &+= 1
    guard tick & 4095 == 0 else { return }
    let now = Self.now()
    guard now - lastDraw >= 200_000_000 else { return }
    lastDraw = now
    let percent = total > 0 ? min(100, done * 100 / total) : 0
    let line = "\r\(label): \(percent)% (\(records) records)\u{1B}[K"
    writeStandardError(line)
    drawn = true
  }

  public mutating func finish() {
    guard drawn else { return }
    writeStandardError("\r\u{1B}[K")
    drawn = false
  }

  private static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
