import BLEDissect
import Foundation
import Testing

@testable import BLEAnalysis

/// Users' dissector files: the default folder, --dissectors, order and errors.
@Suite struct DissectorDirectoryTests {
  func folder(_ files: [String: String]) throws -> String {
    let url = FileManager.default.temporaryDirectory.appending(path: "bleanalyze-dissectors-\(UUID().uuidString)")
    for (name, text) in files {
      let file = url.appending(path: name)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: file, atomically: true, encoding: .utf8)
    }
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
  }

  @Test func readsDissectorFilesRecursivelyInPathOrder() throws {
    let root = try folder([
      "b.dissector": "characteristic ff02 \"B\"", "a/z.dissector": "characteristic ff01 \"A\"",
      "readme.txt": "no", ".hidden.dissector": "characteristic ff03 \"Hidden\"",
    ])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let files = try DissectorDirectory.files(in: root)
    #expect(files.map(\.path) == [root + "/a/z.dissector", root + "/b.dissector"])
    #expect(files[0].text == "characteristic ff01 \"A\"")
  }

  @Test func theDirectoryGivenComesAfterTheDefaultFolder() throws {
    let home = try folder(["x.dissector": "characteristic ff01 \"Home\"\n  field a u8 \"A\""])
    let given = try folder(["x.dissector": "characteristic ff01 \"Given\"\n  field b u16 \"B\""])
    defer {
      try? FileManager.default.removeItem(atPath: home)
      try? FileManager.default.removeItem(atPath: given)
    }
    let both = try DissectorDirectory.library(defaultFolder: home, directories: [given])
    #expect(both.format(for: BluetoothUUID("ff01")!)?.name == "Given")
    let homeOnly = try DissectorDirectory.library(defaultFolder: home, directories: [])
    #expect(homeOnly.format(for: BluetoothUUID("ff01")!)?.name == "Home")
  }

  @Test func aMissingDefaultFolderIsFineAMissingDirectoryIsNot() throws {
    let library = try DissectorDirectory.library(defaultFolder: "/nonexistent/bleanalyze", directories: [])
    #expect(library.format(for: BluetoothUUID("2a37")!) != nil)
    #expect(throws: DissectorLoadError.self) {
      try DissectorDirectory.library(defaultFolder: nil, directories: ["/nonexistent/bleanalyze"])
    }
  }

  @Test func aSyntaxErrorNamesTheFile() throws {
    let root = try folder(["bad.dissector": "characteristic ff01 \"X\"\n  field a u8"])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let error = #expect(throws: DissectorLoadError.self) {
      try DissectorDirectory.library(defaultFolder: nil, directories: [root])
    }
    #expect(error?.description == "\(root)/bad.dissector:2:13: missing quoted name after the type")
  }

  @Test func defaultFolderFollowsXDG() {
    #expect(DissectorDirectory.defaultFolder?.hasSuffix("/bleanalyze/dissectors") ?? true)
  }
}
