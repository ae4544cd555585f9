import BLEDissect
import Foundation
import Testing

/// The binary embeds Dissectors/ through Dissectors/generate.py; this fails when a
/// file changed and the generator was not run again.
@Suite struct BuiltinFilesTests {
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Dissectors")

  @Test func embeddedFilesEqualDissectorsFolder() throws {
    let enumerator = try #require(FileManager.default.enumerator(atPath: Self.folder.path))
    let onDisk = (enumerator.allObjects as? [String] ?? [])
      .filter { $0.hasSuffix(".tsv") || $0.hasSuffix(".dissector") }.sorted()
    #expect(BuiltinFiles.all.map(\.path).sorted() == onDisk, "run Dissectors/generate.py")
    for (path, text) in BuiltinFiles.all {
      let disk = try String(contentsOf: Self.folder.appendingPathComponent(path), encoding: .utf8)
      #expect(text == disk, "\(path) differs from the embedded copy: run Dissectors/generate.py")
    }
  }
}
