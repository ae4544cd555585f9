import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

struct Devices: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Every advertiser heard: names, report counts, RSSI, services, manufacturer data, beacons.",
    discussion: """
      One row per advertiser address (public and random addresses apart): report counts per \
      PDU type (ADV_IND, ADV_DIRECT_IND, ADV_SCAN_IND, ADV_NONCONN_IND, SCAN_RSP; extended \
      advertising as EXT_ADV and EXT_SCAN_RSP, periodic as PERIODIC), RSSI min/mean/max, an \
      estimate of the advertising interval, local names, service UUIDs, manufacturer data \
      with the company's name, Tx Power, Appearance, and iBeacon, Eddystone and Exposure \
      Notification beacons. Extended advertising data sent in several reports counts once, \
      in the frame that completes it.

      Resolvable private addresses are resolved with the IRKs the capture distributes \
      (SMP Identity Information) and those given with --irk; the addresses one IRK \
      resolves become one row for the identity.

      text: a table per capture. json: {"schema_version":2,"devices":[…]}. ndjson: one \
      device per line.
      """
  )

  @OptionGroup var input: CaptureFileArguments

  var files: [String] { input.files }

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @OptionGroup var identityKeys: IdentityKeysOption

  mutating func run() throws {
    let keys = identityKeys.keys
    var out = OutputBuffer()
    var renderer = DevicesRenderer(format: format, multipleFiles: files.count > 1)
    renderer.begin(into: &out)
    var inputs = CaptureInputs(files)
    try inputs.forEachInParallel(into: &out) { path, opened, _ in
      var pipeline = RecordPipeline(analyzer: Analyzer(), stages: .decode)
      var table = DeviceTable(resolver: AddressResolver(keys: keys))
      CaptureInputs.read(opened.source, label: path) { record in
        pipeline.push(record) { table.add($0, $1.decoded) }
        return true
      }
      return (table, table.devices(), pipeline.summary)
    } render: { path, opened, result, out in
      let (table, devices, summary) = result
      let capture = CaptureInfo(file: path, source: opened.source, summary: summary)
      renderer.render(path: path, devices, table: table, capture: capture, into: &out)
      guard out.flush() else { throw ExitCode.success }
      if table.droppedReports > 0 {
        report(
          "\(path): note: devices.limit: \(table.limit) advertisers tracked; \(table.droppedReports) reports of further ones not counted"
        )
      }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    try inputs.exitIfFailed()
  }
}
