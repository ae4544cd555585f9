import Foundation
import Testing

/// One `$ bleanalyze …` example of README.md: its command and the output lines it shows.
struct ReadmeExample: Sendable, CustomTestStringConvertible {
  /// Its line in README.md (1-based).
  var line: Int
  /// The command line after `$ `.
  var command: String
  /// The lines shown under it, up to the next `$ ` line or the end of the block.
  var output: [String]

  var testDescription: String { "README.md:\(line): \(command)" }

  /// The `$ …` examples in README.md's code blocks, in order: every command (for the
  /// ../shared rule) with the output shown under it.
  static func all(in readme: String) -> [ReadmeExample] {
    var examples: [ReadmeExample] = []
    var inBlock = false
    var current: Int?  // the example whose output the block's next lines are
    for (index, text) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if text.hasPrefix("```") {
        inBlock.toggle()
        current = nil
      } else if inBlock, text.hasPrefix("$ ") {
        current = examples.count
        examples.append(ReadmeExample(line: index + 1, command: String(text.dropFirst(2)), output: []))
      } else if let current {
        examples[current].output.append(String(text))
      }
    }
    return examples
  }

  /// Why the example is not run here, or nil to run it. Kept short: what cannot run offline
  /// or without a shell.
  var skipReason: String? {
    if !command.hasPrefix("bleanalyze ") { return "not a bleanalyze command" }
    if command.contains("|") || command.contains(">") || command.contains("<") { return "needs a shell" }
    if command.hasPrefix("bleanalyze live ") { return "live sources: a monitor socket, a TCP server, a growing file" }
    if command.hasPrefix("bleanalyze fleet report"), !duckDBAvailable { return "needs DuckDB" }
    return nil
  }

  /// The command's words, as a POSIX shell splits them (single and double quotes).
  var arguments: [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    for character in command {
      if let open = quote {
        if character == open { quote = nil } else { word.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character == " " {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(character)
        inWord = true
      }
    }
    if inWord { words.append(word) }
    return Array(words.dropFirst())
  }
}

/// `python3 -c 'import duckdb'` works, or a `duckdb` command is on PATH (what `fleet report` uses).
let duckDBAvailable: Bool = {
  let python = execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import duckdb"])
  let command = execute(URL(fileURLWithPath: "/usr/bin/env"), ["duckdb", "-version"])
  return python.status == 0 || command.status == 0
}()

/// README's examples are the first thing a user runs: they must run on the files the
/// repository ships (Samples/), and show what the command prints.
@Suite("README examples")
struct ReadmeExampleTests {
  static let readme = (try? String(contentsOf: Paths.packageRoot.appending(path: "README.md"), encoding: .utf8)) ?? ""
  static let examples = ReadmeExample.all(in: readme)

  @Test("no example runs on ../shared, which users do not have")
  func noSharedPaths() {
    #expect(Self.examples.count >= 50, "README.md has \(Self.examples.count) examples")
    for example in Self.examples {
      let shown = ([example.command] + example.output).filter { $0.contains("../shared") }
      #expect(shown.isEmpty, "\(example.testDescription) uses ../shared: \(shown.first ?? "")")
    }
  }

  /// Each example is run in README order (one writes a file a later one reads), with its
  /// `/tmp/…` paths and `-w` outputs in a scratch directory. Every line it shows must be a
  /// line of the real stdout or stderr; a line with `…` is the real line cut there, so its
  /// pieces must appear in one line, in order. Lines that are only `…` mark cut lines.
  @Test("every example on Samples/ prints the lines README shows")
  func examplesRun() throws {
    let scratch = Paths.scratch.appending(path: "readme")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    var ran = 0
    for example in Self.examples where example.skipReason == nil {
      var arguments = example.arguments
      var renames: [(String, String)] = []
      for (index, argument) in arguments.enumerated() {
        let isOutput = index > 0 && arguments[index - 1] == "-w"
        guard argument.hasPrefix("/tmp/") || isOutput else { continue }
        let moved = scratch.appending(path: String(argument.dropFirst(argument.hasPrefix("/tmp/") ? 5 : 0))).path
        renames.append((argument, moved))
        arguments[index] = moved
      }
      let output = execute(Paths.binary, arguments, timeLimit: 120)
      ran += 1
      let actual = lines(output.text) + lines(output.stderr)
      let exact = Set(actual)
      for shown in example.output where !shown.trimmingCharacters(in: .whitespaces).isEmpty && shown != "…" {
        var expected = shown
        for (original, moved) in renames { expected = expected.replacingOccurrences(of: original, with: moved) }
        let found = exact.contains(expected) || (expected.contains("…") && actual.contains { Self.holds($0, expected) })
        #expect(found, "\(example.testDescription): not in its output: \(shown)")
      }
    }
    #expect(ran >= 45, "only \(ran) README examples ran")
  }

  /// `line` holds the pieces of `cut` (split at each `…`) in order.
  static func holds(_ line: String, _ cut: String) -> Bool {
    var rest = line[...]
    for piece in cut.split(separator: "…", omittingEmptySubsequences: true) {
      guard let range = rest.range(of: piece) else { return false }
      rest = rest[range.upperBound...]
    }
    return true
  }

  @Test("the skipped examples are the ones that cannot run here")
  func skipped() {
    let skipped = Self.examples.filter { $0.skipReason != nil && $0.command.hasPrefix("bleanalyze ") }
    #expect(skipped.count <= 12, "\(skipped.map(\.testDescription))")
  }
}
