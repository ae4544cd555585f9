import BLEAnalysis
import Foundation
import Testing

@testable import BLEOutput

/// vendor.schema.json is what the vendor protocols' field tables say:
/// `BLEANALYZE_RECORD=1 swift test --filter VendorSchemaTests` rewrites it (and fails,
/// so that the diff is reviewed).
@Suite struct VendorSchemaTests {
  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Sources/BLEOutput/Schemas/vendor.schema.json")

  @Test func schemaFileMatchesTheTables() throws {
    let generated = VendorSchema.text
    if ProcessInfo.processInfo.environment["BLEANALYZE_RECORD"] == "1" {
      try Data(generated.utf8).write(to: Self.file)
      Issue.record("recorded \(Self.file.path); review the diff, then run again without BLEANALYZE_RECORD")
      return
    }
    let stored = try String(contentsOf: Self.file, encoding: .utf8)
    #expect(stored == generated, "vendor.schema.json differs from the field tables; record it again")
  }

  @Test func schemaIsJSONAndListsEveryProtocol() throws {
    let object = try JSONSerialization.jsonObject(with: Data(VendorSchema.text.utf8)) as? [String: Any]
    let defs = try #require(object?["$defs"] as? [String: Any])
    #expect(Set(defs.keys) == Set(VendorFieldTable.all.map(\.name)))
    #expect(DataSchema.files["vendor"] != nil, "the schema is embedded for `bleanalyze schema show`")
  }

  /// Filter names are unique, and every filter name starts with its protocol's.
  @Test func filterNamesAreUniqueAndPrefixed() {
    var seen: Set<String> = []
    for table in VendorFieldTable.all {
      for field in table.fields {
        guard let filter = field.filter else { continue }
        #expect(filter.hasPrefix(table.name + "."), "\(filter)")
        #expect(seen.insert(filter).inserted, "\(filter) twice")
      }
    }
    #expect(seen.contains("mcumgr.group") && seen.contains("hid.key") && seen.contains("dfu.opcode"))
    #expect(seen.contains("nus.text"))
  }
}
