import Foundation
import Testing

/// On a terminal `show` fits each record's line to its width, cutting with …; `--width`
/// sets it, -v and pipes get whole lines.
@Suite("show fits a terminal's width")
struct TerminalWidthTests {
  static func visible(_ line: String) -> String {
    line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
  }

  @Test(arguments: [60, 100, 160])
  func linesFit(_ width: Int) {
    for color in ["never", "always"] {
      let output = run(["show", "--width", "\(width)", "--color", color, "Samples/secure-sensor.btsnoop"])
      let records = lines(output.stdout).dropFirst(2).map(Self.visible)
      #expect(!records.isEmpty)
      #expect(records.allSatisfy { $0.count <= width }, "\(width) \(color)")
      #expect(records.contains { $0.hasSuffix("…") })
      if color == "always" {
        #expect(lines(output.stdout).dropFirst(2).allSatisfy { !$0.contains("…") || $0.hasSuffix("\u{1B}[0m") })
      }
    }
  }

  @Test func verboseAndPipesGetWholeLines() {
    let whole = run(["show", "Samples/secure-sensor.btsnoop"]).stdout
    #expect(whole == run(["show", "--width", "100000", "Samples/secure-sensor.btsnoop"]).stdout)
    #expect(lines(whole).contains { $0.count > 160 })
    let verbose = run(["show", "-v", "--width", "60", "Samples/secure-sensor.btsnoop"]).stdout
    #expect(verbose == run(["show", "-v", "Samples/secure-sensor.btsnoop"]).stdout)
  }
}
