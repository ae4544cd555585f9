import ArgumentParser
import BLECapture
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

extension OutputFormat: ExpressibleByArgument {}

struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Convert a capture to pcap, pcapng or btsnoop.",
    discussion: """
      The output format comes from OUT's extension (.pcap, .pcapng, .btsnoop/.log) or --to. \
      HCI captures become link type 201 or btsnoop 1002; Linux monitor captures 254 or 2001 \
      (adapter index and system records kept); sniffer captures keep their link type. \
      Timestamps keep their microseconds (nanoseconds in pcap and pcapng when the source has them).
      """
  )

  @Argument(help: "The capture to read.")
  var input: String

  @OptionGroup var destination: CaptureOutputOptions

  func run() throws {
    let format = destination.format
    let output = destination.output
    destination.warnIfExtensionDiffers()
    do {
      let source = try CaptureFile.open(input)
      try format.check(holds: source.family, path: output)
      let writer = try CaptureWriters.open(
        output, format: format, family: source.family, resolution: source.resolution)
      var progress = ProgressMeter(label: "converting \(input)", stdoutIsOutput: false)
      var records = 0
      while let record = source.next() {
        try writer.write(record)
        records += 1
        progress.update(records: records, done: source.progress.done, total: source.progress.total)
      }
      progress.finish()
      try writer.close()
      let written = records - writer.skipped
      report("wrote \(written) of \(records) records to \(output) (\(writer.formatDescription))")
      if writer.skipped > 0 {
        report(
          "note: \(writer.skipped) records have no place in \(format.rawValue) "
            + "(PacketLogger notes, syslog and other records without an HCI packet)")
      }
      if let damage = source.damage {
        report("\(input): warning: damaged: \(damage)")
        throw ExitCode(ExitStatus.damaged)
      }
    } catch let error as CaptureError {
      throw Failure(error)
    }
  }
}
