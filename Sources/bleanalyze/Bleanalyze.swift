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
      are recognised by content. `bleanalyze FILE` is `bleanalyze show FILE`; a first \
      argument that is neither a file nor a command is a usage error (with the command it \
      is close to). show and live take tshark's -r, -Y, -V, -c, -x, -t, -T json|ek|fields \
      with -e FIELD, -q and --json.

      Exit status: 0 success, 1 usage error, 2 input cannot be read (or an output cannot \
      be written), 3 input damaged (everything readable was still processed).
      """,
    version: "0.1.0",
    subcommands: [
      Show.self, TimelineCommand.self, AppCommand.self, Stats.self, ThroughputCommand.self, Gatt.self, Devices.self,
      Live.self, Dissectors.self,
      TablesCommand.self, Fleet.self, DiffCommand.self,
      Convert.self, Redact.self, SchemaCommand.self, ReportCommand.self,
    ],
    defaultSubcommand: Show.self
  )

  /// Runs the command, mapping errors to the documented exit statuses.
  static func main() {
    // A reader that goes away (`| head`) ends output quietly instead of killing us.
    signal(SIGPIPE, SIG_IGN)
    // Before anything is read: `bleanalyze shwo FILE` would otherwise show FILE, then
    // fail to open "shwo".
    if let first = CommandLine.arguments.dropFirst().first, let problem = unknownCommand(first) {
      report(problem)
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

/// The usage error for a first argument that is neither a file nor a command (nor an
/// option), or nil: a close command is suggested; a word far from every command is
/// listed with them; a missing path (with `/` or `.`) is left to `show`, which says it
/// cannot open it (exit status 2).
func unknownCommand(_ argument: String) -> String? {
  guard !argument.hasPrefix("-"), access(argument, F_OK) != 0 else { return nil }
  // A command's name costs its configuration (and a name made from its type's): the
  // names are made one by one, and the search stops at the one given.
  let commands = Bleanalyze.configuration.subcommands
  guard argument != "help", !commands.contains(where: { $0._commandName == argument }) else { return nil }
  let names = commands.map { $0._commandName } + ["help"]
  if let command = misspelledCommand(argument, names) {
    return "'\(argument)' is neither a file nor a command; did you mean '\(command)'?"
  }
  guard !argument.contains("/"), !argument.contains(".") else { return nil }
  return "'\(argument)' is neither a file nor a command\n"
    + "Usage: bleanalyze [show] FILE… or bleanalyze COMMAND …, commands: "
    + names.dropLast().joined(separator: ", ") + " (bleanalyze --help)"
}

/// The command `argument` was probably meant to be: at most two edits (and under half
/// its length) from one.
func misspelledCommand(_ argument: String, _ names: [String]) -> String? {
  let scored = names.map { (name: $0, distance: editDistance(argument, $0)) }
  guard let best = scored.min(by: { $0.distance < $1.distance }),
    best.distance <= 2, best.distance * 2 < best.name.count
  else { return nil }
  return best.name
}

/// Edit distance with insertions, deletions, substitutions and transpositions of
/// neighbours (`shwo` is one edit from `show`), each costing 1.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.unicodeScalars)
  let b = Array(b.unicodeScalars)
  guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
  var before = [Int](repeating: 0, count: b.count + 1)
  var previous = Array(0...b.count)
  var current = previous
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      current[j] = min(previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        current[j] = min(current[j], before[j - 2] + 1)
      }
    }
    (before, previous, current) = (previous, current, before)
  }
  return previous[b.count]
}

/// An error that ends the run with a message and a status.
struct Failure: Error {
  var message: String
  var status: Int32

  init(_ error: CaptureError) {
    // An output that cannot be written is as fatal as an input that cannot be read
    // (a format that cannot hold the records is a usage error, checked before).
    message = error.description
    status = ExitStatus.unreadable
  }

  init(_ message: String, status: Int32) {
    self.message = message
    self.status = status
  }
}
