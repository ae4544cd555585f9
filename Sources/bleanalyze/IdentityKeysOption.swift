import ArgumentParser
import BLEAnalysis

/// `--irk HEX` (repeatable): Identity Resolving Keys that resolve private addresses to
/// identities, besides those the capture's SMP Identity Information distributes.
struct IdentityKeysOption: ParsableArguments {
  @Option(
    name: .customLong("irk"),
    help: ArgumentHelp(
      "An Identity Resolving Key to resolve private addresses with (repeatable).",
      discussion: """
        32 hex digits, most significant octet first, as Android and BlueZ print it \
        (colons, hyphens and a 0x prefix are allowed).
        """, valueName: "hex"))
  var texts: [String] = []

  func validate() throws {
    for text in texts where IdentityKey.parseIRK(text) == nil {
      throw ValidationError("--irk '\(text)' is not 32 hex digits")
    }
  }

  var keys: [IdentityKey] {
    texts.compactMap(IdentityKey.parseIRK).map { IdentityKey(irk: $0, source: .commandLine) }
  }
}
