import ArgumentParser

/// The captures a command reads: the arguments, and tshark's `-r FILE` (repeatable).
/// `-` is standard input.
struct CaptureFileArguments: ParsableArguments {
  @Argument(
    help: ArgumentHelp(
      "Capture files (btsnoop, pcap, pcapng, PacketLogger, Android bugreport); - reads stdin.", valueName: "files"))
  var positional: [String] = []

  @Option(name: .customShort("r"), help: ArgumentHelp("Read this capture file, as tshark -r does.", valueName: "file"))
  var read: [String] = []

  /// Every capture named, `-r` ones first.
  var files: [String] { read + positional }

  func validate() throws {
    if files.isEmpty { throw ValidationError("Missing expected argument '<files> ...' (or -r FILE)") }
    if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("stdin (-) can be read only once") }
  }
}
