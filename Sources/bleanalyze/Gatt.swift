import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

struct Gatt: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The GATT database of each server, rebuilt from the discovery in the capture.",
    discussion: """
      Services (primary and secondary), includes, characteristics with properties and value \
      handles, and descriptors, per server: the peer (kept across reconnections by its \
      address) or this host when the capture is on the peripheral's side. A Service Changed \
      indication forgets the range it names. --export-db writes the JSON form, which \
      --import-db (on show and gatt) reads back to name the handles of captures that lack \
      the discovery.
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Option(
    name: .customLong("export-db"),
    help: ArgumentHelp("Also write the databases as JSON to this file.", valueName: "file"))
  var exportPath: String?

  @OptionGroup var importDB: DatabaseImportOption

  @OptionGroup var identityKeys: IdentityKeysOption

  @OptionGroup var dissectors: DissectorOptions

  mutating func run() throws {
    let imported = try importDB.load()
    let library = try dissectors.library()
    var peers: [GATTRenderer.Peer] = []
    var captures: [CaptureInfo] = []
    var out = OutputBuffer()
    var inputs = CaptureInputs(files)
    try inputs.forEach(into: &out) { path, source, _ in
      var pipeline = RecordPipeline(
        analyzer: Analyzer(
          importedDatabases: imported, peers: try importDB.peers(), identityKeys: identityKeys.keys, library: library),
        stages: .analyze)
      CaptureInputs.read(source, label: path) { record in
        pipeline.push(record) { _, _ in }
        return true
      }
      let analyzer = pipeline.analyzer
      captures.append(CaptureInfo(file: path, source: source, summary: pipeline.summary))
      peers += analyzer.gatt.servers.filter { !$0.database.isEmpty }.map {
        GATTRenderer.Peer(server: $0, file: files.count > 1 ? path : nil)
      }
    }
    GATTRenderer.render(peers, format: format, names: library, captures: captures, into: &out)
    out.flush(force: true)
    if let exportPath {
      var document = OutputBuffer()
      GATTRenderer.render(peers, format: .json, names: library, captures: captures, into: &document)
      do {
        try TextFile.write(document.bytes, to: exportPath)
      } catch {
        throw Failure(error)
      }
      report("wrote \(peers.count) GATT database\(peers.count == 1 ? "" : "s") to \(exportPath)")
    }
    try inputs.exitIfFailed()
  }
}
