import Foundation
import Testing

/// Every command reads what a phone saved: the header names the HCI logs used and what
/// each covered; a damaged archive is read as far as it goes and exits 3.
@Suite struct PhoneArchiveCommandTests {
  static let bugreport = "bugreport/bugreport-oriole-TQ3A.230901.001-2024-05-14-11-42-15.zip"
  static let summaryOnly = "bugreport/bugreport-oriole-TQ3A.230901.001-2024-05-14-12-20-20.zip"

  static func path(_ name: String) -> String? {
    let url = Paths.captures.appending(path: name)
    guard FileManager.default.fileExists(atPath: url.path) else {
      print("skipped: \(url.path) is absent (the shared test assets)")
      return nil
    }
    return url.path
  }

  @Test func showHeaderNamesTheLogsAndWhatEachCovered() throws {
    guard let zip = Self.path(Self.bugreport) else { return }
    let output = run(["show", zip])
    #expect(output.status == 0, "\(output.stderr)")
    let header = try #require(output.stdout.split(separator: "\n").first)
    #expect(
      header.hasSuffix(
        ": Android bugreport zip, 2 HCI logs merged (431 records): "
          + "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last (btsnoop, datalink 1002 (H4), 221 records, "
          + "2024-05-14 09:30:00.000036 → 09:30:03.814792 UTC), "
          + "FS/data/misc/bluetooth/logs/btsnoop_hci.log (btsnoop, datalink 1002 (H4), 210 records, "
          + "2024-05-14 09:30:03.906570 → 09:30:10.547508 UTC)"))
  }

  /// stats and devices print the same header; the frame numbers run over both logs.
  @Test(arguments: ["stats", "devices"])
  func otherCommandsNameTheLogsToo(_ command: String) throws {
    guard let zip = Self.path(Self.bugreport) else { return }
    let output = run([command, zip])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("Android bugreport zip, 2 HCI logs merged (431 records)"))
  }

  @Test func summaryOnlySaysSoOnStderrToo() throws {
    guard let zip = Self.path(Self.summaryOnly) else { return }
    let output = run(["stats", zip])
    #expect(output.status == 0)
    #expect(output.stdout.contains("btsnooz summary only (no full HCI log inside"))
    #expect(
      output.stderr.contains("note: bugreport-oriole-TQ3A.230901.001-2024-05-14-12-20-20.txt: btsnooz summary only"))
  }

  /// A zip cut in its second log: what it holds is shown, and the exit status is 3.
  @Test func cutArchiveIsDamagedNotUnreadable() throws {
    guard let zip = Self.path(Self.bugreport) else { return }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
    let cut = FileManager.default.temporaryDirectory.appending(path: "bleanalyze-e2e-\(UUID().uuidString).zip")
    defer { try? FileManager.default.removeItem(at: cut) }
    try bytes.prefix(bytes.count * 2 / 3).write(to: cut)
    let output = run(["stats", cut.path])
    #expect(output.status == 3, "\(output.stderr)")
    #expect(output.stderr.contains("warning: damaged: zip: zip end of central directory not found"))
    #expect(output.stdout.contains("records"))
  }

  @Test func archiveWithoutAnyLogIsUnreadable() throws {
    // An empty zip: only its end of central directory record.
    let empty = Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18))
    let file = FileManager.default.temporaryDirectory.appending(path: "bleanalyze-e2e-\(UUID().uuidString).zip")
    defer { try? FileManager.default.removeItem(at: file) }
    try empty.write(to: file)
    let output = run(["show", file.path])
    #expect(output.status == 2)
    #expect(output.stderr.contains("holds no HCI log"))
  }
}
