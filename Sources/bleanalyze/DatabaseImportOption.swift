import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect

/// `--import-db FILE`: databases exported by `gatt --export-db` (or `gatt --format
/// json`) that name the handles of captures without discovery.
struct DatabaseImportOption: ParsableArguments {
  @Option(
    name: .customLong("import-db"),
    help: ArgumentHelp(
      "Name handles with the GATT databases in this file (from gatt --export-db).",
      discussion:
        "Matched by peer address; a file with one peer also serves connections whose peer the capture does not show.",
      valueName: "file"))
  var path: String?

  @Option(
    name: .customLong("peer"),
    help: ArgumentHelp(
      "The peer of links whose peer the capture does not show (repeatable).",
      discussion: """
        ADDR for every such link, or HANDLE=ADDR (0x0042=D4:36:39:1C:E5:11) for the link on one \
        connection handle: the database of that address names its handles.
        """, valueName: "[handle=]addr"))
  var peerTexts: [String] = []

  func validate() throws {
    _ = try peers()
  }

  func peers() throws -> PeerAssignments {
    do {
      return try PeerAssignments(parsing: peerTexts)
    } catch {
      throw ValidationError("\(error)")
    }
  }

  func load() throws -> [(address: DeviceAddress?, database: GATTDatabase)] {
    guard let path else { return [] }
    let text: String
    do {
      text = try TextFile.read(path)
    } catch {
      throw Failure("\(error)", status: ExitStatus.usage)
    }
    do {
      return try GATTDatabase.imported(from: text)
    } catch {
      throw Failure("\(path): \(error)", status: ExitStatus.usage)
    }
  }
}
