import Foundation
import Testing

/// `timeline` and `app` paint what went wrong on a terminal, as `show` does, and honour
/// `--color never` and NO_COLOR.
@Suite("timeline and app colour")
struct ReportColorTests {
  static let red = "\u{1B}[31m"

  @Test(arguments: ["timeline", "app"])
  func failedLinesAreRed(_ command: String) {
    let painted = run([command, "--color", "always", "Samples/secure-sensor.btsnoop"]).stdout
    let failed = lines(painted).filter { $0.contains("error") || $0.contains("failed") }
    #expect(!failed.isEmpty)
    #expect(failed.allSatisfy { $0.hasPrefix(Self.red) && $0.hasSuffix("\u{1B}[0m") })
    let plain = run([command, "--color", "never", "Samples/secure-sensor.btsnoop"]).stdout
    #expect(!plain.contains("\u{1B}"))
    #expect(
      painted.replacingOccurrences(of: Self.red, with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        .replacingOccurrences(of: "\u{1B}[2m", with: "").replacingOccurrences(of: "\u{1B}[33m", with: "") == plain)
  }
}
