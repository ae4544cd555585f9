import Foundation
import Testing

@testable import BLECapture

/// `adapterCount(upTo:)`: the distinct controller indices a capture's records name, known
/// before reading (show's adapter column), without moving the reading position.
@Suite struct AdapterCountTests {
  /// The monitor btsnoop sample with its last record moved to controller 1.
  static func twoAdapterBtsnoop() throws -> [UInt8] {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: samplePath("hr-sensor-monitor.btsnoop"))))
    var at = 16
    var last = at
    while at + 24 <= bytes.count {
      last = at
      at += 24 + (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + 4 + $1]) }
    }
    // Flags are (index << 16) | opcode, big-endian.
    bytes[last + 8] = 0
    bytes[last + 9] = 1
    return bytes
  }

  /// The monitor pcap sample with its last record moved to controller 1.
  static func twoAdapterPcap() throws -> [UInt8] {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: samplePath("hr-sensor-monitor.pcap"))))
    // The magic's first byte: A1 big-endian; D4 (µs) or 4D (ns) little-endian.
    let littleEndian = bytes[0] == 0xD4 || bytes[0] == 0x4D
    func u32(_ at: Int) -> Int {
      (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * (littleEndian ? $1 : 3 - $1)) }
    }
    var at = 24
    var last = at
    while at + 16 <= bytes.count {
      last = at
      at += 16 + u32(at + 8)
    }
    // DLT 254's header: adapter index, then opcode, big-endian.
    bytes[last + 16] = 0
    bytes[last + 17] = 1
    return bytes
  }

  @Test(arguments: ["hr-sensor.btsnoop", "hr-sensor.pcap", "hr-sensor.pcapng", "hr-sensor.pklg", "air-sensor.pcap"])
  func formatsWithoutAdaptersCountNone(_ name: String) throws {
    #expect(try CaptureFile.open(samplePath(name)).adapterCount(upTo: 2) == 0)
  }

  @Test(arguments: ["hr-sensor-monitor.btsnoop", "hr-sensor-monitor.pcap"])
  func oneAdapterLeavesTheReadingWhereItWas(_ name: String) throws {
    let source = try CaptureFile.open(samplePath(name))
    #expect(source.adapterCount(upTo: 2) == 1)
    let whole = readAll(source)
    #expect(whole.records.first?.frame == 1)
    #expect(whole.records.count == 53)
  }

  @Test func twoAdaptersInAMonitorBtsnoop() throws {
    try withTemporaryFile(try Self.twoAdapterBtsnoop()) { path in
      let source = try CaptureFile.open(path)
      #expect(source.adapterCount(upTo: 2) == 2)
      #expect(source.adapterCount(upTo: 1) == 1)
      #expect(Set(readAll(source).records.compactMap(\.adapter)) == [0, 1])
    }
  }

  @Test func twoAdaptersInAMonitorPcap() throws {
    try withTemporaryFile(try Self.twoAdapterPcap()) { path in
      let source = try CaptureFile.open(path)
      #expect(source.adapterCount(upTo: 2) == 2)
      #expect(Set(readAll(source).records.compactMap(\.adapter)) == [0, 1])
    }
  }
}
