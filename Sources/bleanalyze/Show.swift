import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput

extension RenderFormat: ExpressibleByArgument {}

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "One line per record, decoded.",
    discussion: """
      text: aligned columns and a summary line per capture. ndjson: one object per record \
      (frame, ts, dir, adapter, hci…), flushed as it goes. json: one document.
      """
  )

  @Argument(help: "Capture files (btsnoop, pcap, pcapng, PacketLogger, Android bugreport).")
  var files: [String]

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  mutating func run() throws {
    var out = OutputBuffer()
    var renderer = makeShowRenderer(format)
    let decoder = RecordDecoder()
    var worst: Int32 = 0
    for path in files {
      let source: any RecordSource
      do {
        source = try CaptureFile.open(path)
      } catch {
        // Report now, go on with the other files, and exit with the worst status.
        out.flush(force: true)
        report("\(error)")
        worst = max(worst, ExitStatus.unreadable)
        continue
      }
      renderer.beginCapture(
        path: path, format: source.formatDescription, file: files.count > 1 ? path : nil, into: &out)
      var summary = CaptureSummary()
      var progress = ProgressMeter(label: path, stdoutIsOutput: true)
      while let record = source.next() {
        let decoded = decoder.decode(record)
        summary.add(record, decoded)
        renderer.render(record, decoded, into: &out)
        guard out.flush() else { throw ExitCode.success }
        progress.update(records: summary.records, done: source.progress.done, total: source.progress.total)
      }
      progress.finish()
      renderer.endCapture(summary, damage: source.damage, into: &out)
      out.flush(force: true)
      for note in source.notes { report("\(path): note: \(note)") }
      if let damage = source.damage {
        report("\(path): warning: damaged: \(damage)")
        worst = max(worst, ExitStatus.damaged)
      }
    }
    renderer.finish(into: &out)
    out.flush(force: true)
    if worst != 0 { throw ExitCode(worst) }
  }
}
