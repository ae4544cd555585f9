import ArgumentParser
import BLECapture
import BLEOutput

#if canImport(Glibc)
  import Glibc
#endif

/// Exit statuses (DESIGN.md): 0 success, 1 usage, 2 unreadable input, 3 damaged input.
enum ExitStatus {
  static let usage: Int32 = 1
  static let unreadable: Int32 = 2
  static let damaged: Int32 = 3
}

@main
struct Bleanalyze: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bleanalyze",
    abstract: "Bluetooth LE capture and ATT/GATT protocol analyzer.",
    discussion: """
      Reads btsnoop (Android btsnoop_hci.log, btmon -w), pcap and pcapng (HCI and LE \
      sniffer link types), Apple PacketLogger and Android bugreports (btsnooz). Formats \
      are recognised by content. `bleanalyze FILE` is `bleanalyze show FILE`.

      Exit status: 0 success, 1 usage error, 2 input cannot be read, 3 input damaged \
      (everything readable was still processed).
      """,
    version: "0.1.0",
    subcommands: [
      Show.self, TimelineCommand.self, AppCommand.self, Stats.self, ThroughputCommand.self, Gatt.self, Devices.self,
      Live.self, Dissectors.self,
      Convert.self, Redact.self, SchemaCommand.self,
    ],
    defaultSubcommand: Show.self
  )

  /// Runs the command, mapping errors to the documented exit statuses.
  static func main() {
    // A reader that goes away (`| head`) ends output quietly instead of killing us.
    signal(SIGPIPE, SIG_IGN)
    if let first = CommandLine.arguments.dropFirst().first, let command = misspelledCommand(first) {
      report("'\(first)' is neither a file nor a command; did you mean '\(command)'?")
      Glibc.exit(ExitStatus.usage)
    }
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let failure as Failure {
      report(failure.message)
      Glibc.exit(failure.status)
    } catch let code as ExitCode {
      Glibc.exit(code.rawValue)
    } catch {
      if exitCode(for: error) == .success {
        Bleanalyze.exit(withError: error)
      }
      writeStandardError(fullMessage(for: error) + "\n")
      Glibc.exit(ExitStatus.usage)
    }
  }
}

/// The command `argument` was probably meant to be: it is no file, no command, and at
/// most two edits (and under half its length) from one.
func misspelledCommand(_ argument: String) -> String? {
  guard !argument.hasPrefix("-"), access(argument, F_OK) != 0 else { return nil }
  let names = Bleanalyze.configuration.subcommands.map { $0._commandName }
  guard !names.contains(argument) else { return nil }
  let scored = names.map { (name: $0, distance: editDistance(argument, $0)) }
  guard let best = scored.min(by: { $0.distance < $1.distance }),
    best.distance <= 2, best.distance * 2 < best.name.count
  else { return nil }
  return best.name
}

/// Levenshtein distance: insertions, deletions and substitutions.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.unicodeScalars)
  let b = Array(b.unicodeScalars)
  var row = Array(0...b.count)
  for i in 1...max(a.count, 1) where !a.isEmpty {
    var previous = row[0]
    row[0] = i
    for j in stride(from: 1, through: b.count, by: 1) {
      let substitution = previous + (a[i - 1] == b[j - 1] ? 0 : 1)
      previous = row[j]
      row[j] = min(substitution, row[j] + 1, row[j - 1] + 1)
    }
  }
  return a.isEmpty ? b.count : row[b.count]
}

/// An error that ends the run with a message and a status.
struct Failure: Error {
  var message: String
  var status: Int32

  init(_ error: CaptureError) {
    message = error.description
    switch error.reason {
    case .cannotWrite: status = ExitStatus.usage
    default: status = ExitStatus.unreadable
    }
  }

  init(_ message: String, status: Int32) {
    self.message = message
    self.status = status
  }
}
