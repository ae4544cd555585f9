import Foundation
import Testing

@testable import BLEDissect

@Suite struct DiagnosticCatalogTests {
  /// Users filter on diagnostic ids, so each one is documented in README's table.
  @Test func everyIdIsUniqueAndInREADME() throws {
    let ids = Diagnostic.catalog.map(\.id)
    #expect(Set(ids).count == ids.count)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    for id in ids {
      #expect(readme.contains("| `\(id)` |"), "README does not document \(id)")
    }
  }
}
