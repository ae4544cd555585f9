import Foundation
import Testing

/// show's text has an `adapter` column only when the capture has more than one adapter,
/// decided before its first record.
@Suite("show's adapter column")
struct AdapterColumnTests {
  static func header(_ text: String) -> String? { lines(text).dropFirst().first }

  @Test(arguments: ["Samples/hr-sensor.btsnoop", "Samples/hr-sensor-monitor.btsnoop", "Samples/hr-sensor-monitor.pcap"])
  func oneAdapterHasNoColumn(_ path: String) throws {
    let output = run(["show", path])
    #expect(output.status == 0)
    let header = try #require(Self.header(output.stdout))
    #expect(header.hasSuffix("time (s)  dir  conn                    type         detail"))
    #expect(!output.stdout.contains("hci0"))
  }

  /// The monitor sample with every other record moved to controller 1.
  @Test func twoAdaptersHaveTheColumn() throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Samples/hr-sensor-monitor.btsnoop")))
    var at = 16
    var odd = false
    while at + 24 <= bytes.count {
      // Flags, big-endian: (controller index << 16) | opcode.
      if odd { bytes[at + 9] = 1 }
      odd.toggle()
      at += 24 + (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + 4 + $1]) }
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("two-adapters-\(UUID()).btsnoop").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = run(["show", path]).stdout
    #expect(Self.header(text)?.hasSuffix("time (s)  dir  adapter  conn                    type         detail") == true)
    let records = lines(text).dropFirst(2).dropLast()
    #expect(records.contains { $0.contains("  hci0     ") } && records.contains { $0.contains("  hci1     ") })
  }
}
