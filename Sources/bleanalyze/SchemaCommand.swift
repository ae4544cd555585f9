import ArgumentParser
import BLEOutput

extension DataSchema: ExpressibleByArgument {}

struct SchemaCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "schema",
    abstract: "Print the JSON Schema of a command's JSON or NDJSON output.",
    discussion: """
      Prints the JSON Schema (draft 2020-12) of `bleanalyze COMMAND --format json`, or with \
      --ndjson of one line of `--format ndjson`; `live-list` is `live --list`'s and \
      `redact-map` the `redact --map` file's. Every JSON document names its schema in \
      `$schema` (`urn:bleanalyze:schema:timeline:2`); NDJSON lines carry none. The schemas \
      a schema refers to are embedded in its `$defs`, so the output validates on its own: \
      `bleanalyze schema timeline > timeline.schema.json`.
      """
  )

  @Argument(help: "The command whose output the schema describes.")
  var command: DataSchema

  @Flag(help: "The schema of one line of --format ndjson instead of the --format json document.")
  var ndjson = false

  func run() throws {
    var out = OutputBuffer()
    out.append(string: command.bundled(ndjson: ndjson))
    out.flush(force: true)
  }
}
