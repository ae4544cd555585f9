import ArgumentParser
import BLECapture
import BLEOutput

/// OUT and `--to`, as `convert` and `redact` take them: the capture to write and its
/// format, from the extension unless `--to` says.
struct CaptureOutputOptions: ParsableArguments {
  @Argument(help: "The file to write.")
  var output: String

  @Option(help: "Output format (pcap, pcapng, btsnoop); default from OUT's extension.")
  var to: OutputFormat?

  func validate() throws {
    if to == nil && OutputFormat(fileName: output) == nil {
      throw ValidationError(
        "cannot tell the output format from '\(output)'; use .pcap, .pcapng or .btsnoop, or --to")
    }
  }

  /// The format to write (valid once `validate` passed).
  var format: OutputFormat { to ?? OutputFormat(fileName: output) ?? .pcapng }

  /// Says so when OUT's extension names another format than --to writes
  /// (`--to btsnoop out.pcap`): the file is written as asked, but a reader that goes by
  /// the extension will be misled.
  func warnIfExtensionDiffers() {
    guard let to, let named = OutputFormat(fileName: output), named != to else { return }
    report("warning: \(output) is named like \(named.rawValue) but --to writes \(to.rawValue)")
  }
}

extension OutputFormat {
  /// Ends the run with a usage error when the format cannot hold records of `family`:
  /// btsnoop has no link type for air sniffer packets.
  func check(holds family: LinkFamily, path: String) throws {
    guard self == .btsnoop, case .linkLayer(let linkType) = family else { return }
    throw Failure(
      "\(path): cannot write: btsnoop cannot hold link-layer packets (link type \(linkType)); write pcap or pcapng",
      status: ExitStatus.usage)
  }
}
