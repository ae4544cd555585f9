import Testing

@testable import BLEDissect

/// One layout of the tables (command parameters, return parameters, event or
/// subevent parameters), named for the test report.
struct HCILayoutCase: CustomTestStringConvertible, Sendable {
  var name: String
  var layout: [HCIParameter]
  var testDescription: String { name }

  static let all: [HCILayoutCase] =
    HCIParameters.commands.flatMap { row -> [HCILayoutCase] in
      var cases: [HCILayoutCase] = []
      if let parameters = row.parameters { cases.append(.init(name: row.name, layout: parameters)) }
      if let returns = row.returnParameters { cases.append(.init(name: row.name + " (return)", layout: returns)) }
      return cases
    }
    + HCIParameters.events.compactMap { row in row.parameters.map { .init(name: row.name, layout: $0) } }
    + HCIParameters.leSubevents.compactMap { row in row.parameters.map { .init(name: row.name, layout: $0) } }
}

@Suite struct HCITableTests {
  @Test func codesAreUniquePerTable() {
    let opcodes = HCIParameters.commands.map(\.opcode)
    #expect(Set(opcodes).count == opcodes.count)
    let events = HCIParameters.events.map(\.code)
    #expect(Set(events).count == events.count)
    let subevents = HCIParameters.leSubevents.map(\.code)
    #expect(Set(subevents).count == subevents.count)
    let names = HCIParameters.commands.map(\.name)
    #expect(Set(names).count == names.count)
  }

  @Test func commandsSitInTheirGroups() {
    for row in HCIParameters.commands {
      let opcode = HCIOpcode(rawValue: row.opcode)
      #expect([1, 2, 3, 4, 5, 6, 8].contains(opcode.ogf), "\(row.name)")
      #expect(row.name.hasPrefix("LE ") == (opcode.ogf == 8), "\(row.name)")
      #expect(opcode.name == row.name)
    }
  }

  /// Core 6.0 defines every LE OCF from 0x0001 to 0x009D but 0x0004.
  @Test func everyLECommandOfCore60IsNamedAndLaidOut() {
    for ocf in UInt16(0x0001)...0x009D where ocf != 0x0004 {
      let row = HCIParameters.commandRow(HCIOpcode(ogf: 0x08, ocf: ocf).rawValue)
      #expect(row != nil, "LE OCF 0x\(String(ocf, radix: 16)) missing")
      #expect(row?.parameters != nil, "LE OCF 0x\(String(ocf, radix: 16)) has no layout")
    }
  }

  /// Every event code of Core 6.0 (7.7), and every LE Meta subevent up to 0x35.
  @Test func everyEventOfCore60IsNamedAndLaidOut() {
    let codes: [UInt8] =
      Array(0x01...0x1E) + Array(0x20...0x23) + Array(0x2C...0x36) + [0x38, 0x39, 0x3B, 0x3C, 0x3D, 0x3E, 0x48]
      + Array(0x4E...0x59) + [0xFF]
    for code in codes {
      #expect(HCIParameters.eventRow(code)?.parameters != nil, "event 0x\(String(code, radix: 16))")
    }
    for code in UInt8(0x01)...0x35 {
      #expect(HCIParameters.subeventRow(code)?.parameters != nil, "subevent 0x\(String(code, radix: 16))")
    }
  }

  @Test func namesFollowTheSpec() {
    #expect(HCIOpcode(rawValue: 0x0406).name == "Disconnect")
    #expect(HCIOpcode(rawValue: 0x0C03).name == "Reset")
    #expect(HCIOpcode(rawValue: 0x1009).name == "Read BD_ADDR")
    #expect(HCIOpcode(rawValue: 0x2002).name == "LE Read Buffer Size [v1]")
    #expect(HCIOpcode(rawValue: 0x200C).name == "LE Set Scan Enable")
    #expect(HCIOpcode(rawValue: 0x2043).name == "LE Extended Create Connection [v1]")
    #expect(HCIOpcode(rawValue: 0x2085).name == "LE Extended Create Connection [v2]")
    #expect(HCIOpcode(rawValue: 0x2094).name == "LE CS Procedure Enable")
    #expect(HCIOpcode(rawValue: 0xFC0C).name == "Vendor (0xfc0c)")
    #expect(HCIOpcode(rawValue: 0x2099).name == "LE Remove Device From Monitored Advertisers List")
    #expect(HCIOpcode(rawValue: 0x20FF).name == "Unknown (0x20ff)")
    #expect(HCIOpcode(rawValue: 0x0000).name == "No Operation")
    #expect(HCIOpcode(rawValue: 0x2043).ogf == 0x08)
    #expect(HCIOpcode(rawValue: 0x2043).ocf == 0x0043)
    #expect(HCIOpcode(ogf: 0x3F, ocf: 0x00C).rawValue == 0xFC0C)

    #expect(HCIEventCode(rawValue: 0x05).name == "Disconnection Complete")
    #expect(HCIEventCode(rawValue: 0x08).name == "Encryption Change [v1]")
    #expect(HCIEventCode(rawValue: 0x59).name == "Encryption Change [v2]")
    #expect(HCIEventCode(rawValue: 0x3E).name == "LE Meta")
    #expect(HCIEventCode(rawValue: 0xFF).name == "Vendor Specific")
    #expect(HCIEventCode(rawValue: 0x5A).name == "Unknown (0x5a)")

    #expect(LESubeventCode(rawValue: 0x01).name == "LE Connection Complete")
    #expect(LESubeventCode(rawValue: 0x0A).name == "LE Enhanced Connection Complete [v1]")
    #expect(LESubeventCode(rawValue: 0x29).name == "LE Enhanced Connection Complete [v2]")
    #expect(LESubeventCode(rawValue: 0x2A).name == "LE CIS Established [v2]")
    #expect(LESubeventCode(rawValue: 0x2B).name == "LE Read All Remote Features Complete")
    #expect(LESubeventCode(rawValue: 0x36).name == "Unknown (0x36)")

    #expect(HCIStatusCode(rawValue: 0x13).name == "Remote User Terminated Connection")
    #expect(HCIStatusCode(rawValue: 0x08).name == "Connection Timeout")
    #expect(HCIStatusCode(rawValue: 0x3E).name == "Connection Failed to be Established / Synchronization Timeout")
    #expect(HCIStatusCode(rawValue: 0x46).name == "Too Late")
    #expect(HCIStatusCode(rawValue: 0x2B).name == "Unknown (0x2b)")
    #expect(HCIStatusCode(rawValue: 0xFF).name == "Unknown (0xff)")
  }

  /// Every code of Vol 1, Part F from 0x00 to 0x48, minus the reserved ones.
  @Test func statusCodesCoverCore60() {
    let reserved: Set<UInt8> = [0x2B, 0x31, 0x33, 0x3F]
    for code in UInt8(0x00)...0x48 where !reserved.contains(code) {
      #expect(HCIStatusCode.names[code] != nil, "0x\(String(code, radix: 16))")
    }
    #expect(HCIStatusCode.names.count == 0x49 - reserved.count)
  }

  /// A zero block of the smallest size a layout takes decodes completely: no
  /// error, no octet left over. For fixed layouts that is exactly their size.
  @Test(arguments: HCILayoutCase.all)
  func zeroBlockOfMinimumSizeDecodes(_ row: HCILayoutCase) {
    let size = row.layout.minimumSize
    let result = HCITestDecode.layout(row.layout, [UInt8](repeating: 0, count: size))
    #expect(result.error == nil)
    #expect(result.unparsed == nil)
    if let fixed = row.layout.fixedSize {
      #expect(fixed == size)
      if fixed > 0 {
        let short = HCITestDecode.layout(row.layout, [UInt8](repeating: 0, count: fixed - 1))
        #expect(short.error != nil)
      }
      let long = HCITestDecode.layout(row.layout, [UInt8](repeating: 0, count: fixed + 1))
      #expect(long.unparsed?.value == .bytes([0]))
    }
  }

  @Test(arguments: HCILayoutCase.all)
  func parameterNamesAreUniquePerLevel(_ row: HCILayoutCase) {
    #expect(HCIParameter.duplicateNames(row.layout).isEmpty)
  }

  /// Summaries only name parameters the layout has.
  @Test func summariesNameExistingParameters() {
    for row in HCIParameters.commands {
      let names = HCIParameter.allNames(row.parameters ?? [])
      for name in row.summary { #expect(names.contains(name), "\(row.name): \(name)") }
      let returns = HCIParameter.allNames(row.returnParameters ?? [.status])
      for name in row.returnSummary { #expect(returns.contains(name), "\(row.name) return: \(name)") }
      // A command on a connection says which.
      if row.parameters?.first?.name == "Connection_Handle" {
        #expect(row.summary.first == "Connection_Handle", "\(row.name)")
      }
    }
    for row in HCIParameters.events + HCIParameters.leSubevents {
      let names = HCIParameter.allNames(row.parameters ?? [])
      for name in row.summary { #expect(names.contains(name), "\(row.name): \(name)") }
      if row.parameters?.contains(where: { $0.name == "Connection_Handle" }) == true {
        #expect(row.summary.contains("Connection_Handle"), "\(row.name)")
      }
    }
  }

  /// Every opcode's return block decodes from a Command Complete event.
  @Test func commandCompleteCarriesEachCommandsReturnBlock() {
    for row in HCIParameters.commands {
      let size = row.returnParameters?.minimumSize ?? 1
      let opcode = [UInt8(row.opcode & 0xFF), UInt8(row.opcode >> 8)]
      let parameters = [0x01] + opcode + [UInt8](repeating: 0, count: size)
      let result = HCITestDecode.event([0x0E, UInt8(parameters.count)] + parameters)
      #expect(result.error == nil, "\(row.name)")
      #expect(result.unparsed == nil, "\(row.name)")
      #expect(result.value("Command_Opcode") == .code(UInt64(row.opcode), hexDigits: 4, name: row.name))
      #expect(result.integer("Status") == 0, "\(row.name)")
    }
  }

  @Test func leadingStatusComesFromTheTables() {
    #expect(HCIParameters.hasLeadingStatus(event: 0x05, subevent: nil))
    #expect(HCIParameters.hasLeadingStatus(event: 0x0F, subevent: nil))
    #expect(!HCIParameters.hasLeadingStatus(event: 0x13, subevent: nil))
    #expect(HCIParameters.hasLeadingStatus(event: 0x3E, subevent: 0x01))
    #expect(HCIParameters.hasLeadingStatus(event: 0x3E, subevent: 0x29))
    #expect(!HCIParameters.hasLeadingStatus(event: 0x3E, subevent: 0x14))
    #expect(!HCIParameters.hasLeadingStatus(event: 0x3E, subevent: 0x02))
    #expect(!HCIParameters.hasLeadingStatus(event: 0x3E, subevent: nil))
  }

  @Test func diagnosticIDsAreDottedAndUnique() {
    let ids = HCIParameters.diagnosticIDs.map(\.id)
    #expect(Set(ids).count == ids.count)
    for id in ids { #expect(id.hasPrefix("hci.parameters.") && id == id.lowercased()) }
  }
}
