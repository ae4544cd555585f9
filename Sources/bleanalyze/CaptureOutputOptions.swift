import ArgumentParser
import BLECapture

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
}
