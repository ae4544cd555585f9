import ArgumentParser
import BLEAnalysis
import BLEDissect
import BLEOutput

/// `--dissectors DIR`, shared by the commands that decode characteristic values.
struct DissectorOptions: ParsableArguments {
  @Option(
    name: .customLong("dissectors"),
    help: ArgumentHelp(
      "Also load the *.dissector files under this directory.",
      discussion: """
        Files in ${XDG_CONFIG_HOME:-~/.config}/bleanalyze/dissectors are always loaded; those given here \
        come after them. A format replaces a built-in or an earlier file's with the same UUID. \
        Dissectors/README.md describes the format.
        """,
      valueName: "dir"))
  var directory: String?

  /// The built-ins, the default folder and `--dissectors`; a file that cannot be read or
  /// parsed is a usage error (`FILE:LINE:COL: message`, exit 1).
  func library() throws -> DissectorLibrary {
    do {
      return try DissectorDirectory.library(directories: directory.map { [$0] } ?? [])
    } catch {
      throw Failure("\(error)", status: ExitStatus.usage)
    }
  }
}

struct Dissectors: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the characteristic and descriptor value formats, or decode a value.",
    discussion: """
      Lists every format loaded, built-in and user, as the dissector text that defines it \
      (text) or as JSON. --decode UUID HEX decodes one value with the format of UUID, the way \
      show will: `bleanalyze dissectors --decode 2a37 164803`.
      """
  )

  @OptionGroup var dissectors: DissectorOptions

  @Option(help: "Output format: text, json or ndjson.")
  var format: RenderFormat = .text

  @Option(
    parsing: .upToNextOption,
    help: ArgumentHelp("Decode a value (hex, e.g. 1648 or 16:48) with the format of a UUID.", valueName: "uuid hex"))
  var decode: [String] = []

  func validate() throws {
    guard decode.isEmpty || decode.count == 2 else {
      throw ValidationError("--decode takes a UUID and a hex value, e.g. --decode 2a37 1648")
    }
    if decode.count == 2 {
      guard BluetoothUUID(decode[0]) != nil else {
        throw ValidationError("--decode: bad UUID '\(decode[0])'; write 4 or 8 hex digits, or the 36-character form")
      }
      guard Self.bytes(hex: decode[1]) != nil else {
        throw ValidationError("--decode: bad hex value '\(decode[1])'; write pairs of hex digits, e.g. 1648 or 16:48")
      }
    }
  }

  /// `1648`, `16:48`, `16 48`, `0x1648`.
  static func bytes(hex text: String) -> [UInt8]? {
    var digits = Substring(text)
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    let clean = digits.filter { $0 != ":" && $0 != " " && $0 != "-" }
    guard clean.count % 2 == 0, clean.allSatisfy(\.isHexDigit) else { return nil }
    var result: [UInt8] = []
    var index = clean.startIndex
    while index < clean.endIndex {
      let next = clean.index(index, offsetBy: 2)
      result.append(UInt8(clean[index..<next], radix: 16)!)
      index = next
    }
    return result
  }

  func run() throws {
    let library = try dissectors.library()
    var out = OutputBuffer()
    if decode.count == 2 {
      try decodeValue(uuid: BluetoothUUID(decode[0])!.normalized, value: Self.bytes(hex: decode[1])!, library, &out)
    } else {
      list(library, &out)
    }
    out.flush(force: true)
  }

  func list(_ library: DissectorLibrary, _ out: inout OutputBuffer) {
    let formats = library.formats
    switch format {
    case .text:
      let counts = DissectorFormat.Kind.allCases.map { kind in (kind, formats.count { $0.kind == kind }) }
      out.append(string: "# \(formats.count) formats: ")
      out.append(string: counts.map { "\($0.1) \($0.0.rawValue)\($0.1 == 1 ? "" : "s")" }.joined(separator: ", "))
      out.append(
        string: " (\(formats.count { $0.isBuiltin }) built-in, \(formats.count { !$0.isBuiltin }) from files)\n")
      for format in formats {
        out.append("\n")
        out.appendDissectorDefinition(format)
        out.flush()
      }
    case .json:
      out.appendDocumentStart(.dissectors, listing: "formats")
      for (index, format) in formats.enumerated() {
        if index > 0 { out.append(",") }
        out.appendDissectorJSON(format)
      }
      out.append("]}\n")
    case .ndjson:
      for format in formats {
        out.appendDissectorJSON(format)
        out.append("\n")
        out.flush()
      }
    }
  }

  func decodeValue(
    uuid: BluetoothUUID, value: [UInt8], _ library: DissectorLibrary, _ out: inout OutputBuffer
  ) throws {
    guard let format = library.format(for: uuid) else {
      throw Failure("no dissector format for \(uuid); `bleanalyze dissectors` lists them", status: ExitStatus.usage)
    }
    guard let result = library.decode(value, uuid: uuid) else {
      throw Failure(
        "\(uuid) (\(format.name)) has no fields to decode (\(format.source))", status: ExitStatus.usage)
    }
    switch self.format {
    case .text:
      out.append(string: "\(uuid) \(format.name): ")
      out.appendDecodedText(result.fields)
      out.append("\n")
      out.appendFieldTree(result.fields.fieldTree, indent: 2)
      if let diagnostic = result.diagnostic {
        out.append(string: "! \(diagnostic.id): \(diagnostic.message)\n")
      }
    case .json, .ndjson:
      out.appendDocumentHeader(.dissectors)
      out.append(",\"uuid\":")
      out.appendJSONString(uuid.description)
      out.append(",\"name\":")
      out.appendJSONString(format.name)
      out.append(",\"source\":")
      out.appendJSONString(format.source)
      out.append(",\"value\":\"")
      out.appendHexBytes(value)
      out.append("\",\"decoded\":")
      out.appendDecodedJSON(result.fields)
      out.append(",\"text\":")
      var text = OutputBuffer()
      text.appendDecodedText(result.fields)
      out.appendJSONString(String(decoding: text.bytes, as: UTF8.self))
      out.append(",\"diagnostics\":[")
      if let diagnostic = result.diagnostic { out.appendDiagnosticJSON(diagnostic) }
      out.append("]}\n")
    }
  }
}
