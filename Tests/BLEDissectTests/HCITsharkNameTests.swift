import Foundation
import Testing

@testable import BLEDissect

private let tsharkPath = "/usr/bin/tshark"

/// tshark (Wireshark 4.0 here) as an oracle for codes and names: every opcode, event
/// and subevent it knows must be ours too, unless Core 6.0 dropped it, and names must
/// agree unless Core 6.0 renamed them. Skipped when tshark is not installed.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: tsharkPath)))
struct HCITsharkNameTests {

  /// Value strings of `tshark -G values` for one field.
  static let values: [String: [Int: String]] = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tsharkPath)
    process.arguments = ["-G", "values"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return [:] }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var values: [String: [Int: String]] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard parts.count >= 4, parts[0] == "V" else { continue }
      let text = String(parts[2])
      let value = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
      if let value { values[String(parts[1]), default: [:]][value] = String(parts[3]) }
    }
    return values
  }()

  /// Commands Core 6.0 no longer defines (AMP, park mode, and older "previously used").
  static let droppedOpcodes: Set<Int> = [
    0x0407, 0x0435, 0x0436, 0x0437, 0x0438, 0x0439, 0x043A, 0x043B, 0x043C, 0x0805, 0x0806, 0x0C0B, 0x0C21,
    0x0C22, 0x0C3B, 0x0C3C, 0x0C3D, 0x0C3E, 0x0C61, 0x0C62, 0x0C64, 0x0C65, 0x0C69, 0x0C6A, 0x0C6B, 0x1007,
    0x1409, 0x140A, 0x140B, 0x1807, 0x1808, 0x1809,
  ]

  /// Commands whose Core 6.0 name differs from Wireshark 4.0's (inclusive language,
  /// Filter Accept List, [vN] suffixes, Page 0, spelling).
  static let renamedOpcodes: Set<Int> = [
    0x0417, 0x0441, 0x0442, 0x0C13, 0x0C2D, 0x0C2E, 0x0C2F, 0x0C31, 0x0C58, 0x0C59, 0x0C6C, 0x0C6D, 0x0C73, 0x0C76,
    0x1009, 0x100B, 0x1803, 0x2003, 0x2007, 0x200A, 0x200F, 0x2010, 0x2011, 0x2012, 0x2016, 0x2019, 0x2036,
    0x203E, 0x2043, 0x2074,
  ]

  static let droppedEvents: Set<Int> = [
    0x1F, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x49, 0x4A, 0x4B, 0x4C, 0x4D,
  ]
  static let renamedEvents: Set<Int> = [0x03, 0x04, 0x05, 0x08, 0x0A, 0x0B, 0x51, 0x52, 0x54, 0x55, 0xFF]
  static let renamedSubevents: Set<Int> = [0x04, 0x0A, 0x0B, 0x0E, 0x0F, 0x18, 0x19]

  @Test func opcodesAgreeWithTshark() throws {
    let tshark = try #require(Self.values["bthci_cmd.opcode"])
    #expect(tshark.count > 300)
    for (opcode, name) in tshark.sorted(by: { $0.key < $1.key }) where [1, 2, 3, 4, 5, 6, 8].contains(opcode >> 10) {
      let ours = HCIParameters.commandRow(UInt16(opcode))
      if Self.droppedOpcodes.contains(opcode) {
        #expect(ours == nil, "0x\(String(opcode, radix: 16)) \(name) is not in Core 6.0")
      } else if let ours {
        let same = ours.name.lowercased() == name.lowercased()
        #expect(same != Self.renamedOpcodes.contains(opcode), "0x\(String(opcode, radix: 16)): \(ours.name) / \(name)")
      } else {
        Issue.record("0x\(String(opcode, radix: 16)) \(name) is missing")
      }
    }
  }

  @Test func eventsAgreeWithTshark() throws {
    let tshark = try #require(Self.values["bthci_evt.code"])
    for (code, name) in tshark.sorted(by: { $0.key < $1.key }) {
      let ours = HCIParameters.eventRow(UInt8(code))
      if Self.droppedEvents.contains(code) {
        #expect(ours == nil, "0x\(String(code, radix: 16)) \(name) is not in Core 6.0")
      } else if let ours {
        let same = ours.name.lowercased() == name.lowercased()
        #expect(same != Self.renamedEvents.contains(code), "0x\(String(code, radix: 16)): \(ours.name) / \(name)")
      } else {
        Issue.record("event 0x\(String(code, radix: 16)) \(name) is missing")
      }
    }
  }

  @Test func subeventsAgreeWithTshark() throws {
    let tshark = try #require(Self.values["bthci_evt.le_meta_subevent"])
    for (code, name) in tshark.sorted(by: { $0.key < $1.key }) {
      let ours = try #require(HCIParameters.subeventRow(UInt8(code)), "subevent 0x\(String(code, radix: 16))")
      let same = ours.name.lowercased() == name.lowercased()
      #expect(same != Self.renamedSubevents.contains(code), "0x\(String(code, radix: 16)): \(ours.name) / \(name)")
    }
  }

  @Test func statusNamesAgreeWithTshark() throws {
    let tshark = try #require(Self.values["bthci_evt.status"])
    var differing: [Int] = []
    for (code, name) in tshark where HCIStatusCode.names[UInt8(code)] != nil {
      if HCIStatusCode(rawValue: UInt8(code)).name.lowercased() != name.lowercased() { differing.append(code) }
    }
    // Wireshark 4.0 still says "Slave"/"Master" and omits the LL halves of 0x1E, 0x20,
    // 0x22, 0x23; everything else matches.
    #expect(differing.count < 12, "\(differing.sorted().map { String($0, radix: 16) })")
  }
}
