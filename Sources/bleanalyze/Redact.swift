import ArgumentParser
import BLEAnalysis
import BLECapture
import BLEOutput

struct Redact: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a copy of a capture that is safe to share: secrets filled, addresses and names replaced.",
    discussion: """
      Keys and pairing values are overwritten with filler octets of the same length: SMP \
      confirm and random values, LTK, EDIV and Rand, CSRK, public keys and DHKey checks; \
      HCI link keys, PIN codes, LTKs, EDIV and Rand, passkeys and numeric values, OOB data, \
      LE Encrypt and DHKey values; LL_ENC_REQ and LL_ENC_RSP's session values; OOB AD types. \
      Every address (HCI parameters, advertising reports, SMP Identity Address Information, \
      LL AdvA/InitA/TargetA/ScanA, monitor New Index) gets a pseudonym, the same \
      everywhere, that keeps its top two bits (static, resolvable, non-resolvable); IRKs \
      get stand-ins that resolve the pseudonymised private addresses as the originals \
      resolved the originals. Device names (AD Local Name, Device Name reads and \
      notifications, HCI local and remote names) become device-1, device-2… unless \
      --keep-names. Every record is then swept for copies of those values elsewhere. \
      Lengths never change, so every frame keeps its structure; sniffer CRCs are \
      recomputed, so a good packet stays good.

      Attribute values: Device Name becomes its name's pseudonym, Serial Number String \
      serial-N, System ID the address's pseudonym, and with --strict the Hardware, \
      Firmware and Software Revision Strings hardware-N, firmware-N, software-N. Values \
      known to be safe (SIG measurements, levels, CCCDs, Appearance, PnP ID, \
      manufacturer and model names…) stay, swept for any spelling of an address (six \
      octets either way, hex text in either case with ':', '-' or nothing between \
      octets), its last three octets, names and serial numbers. Values not known to be \
      safe (vendor characteristics, undiscovered handles, user text) are blanked by \
      default (--blank-values); --keep-values keeps them, swept the same way. The summary \
      lists every characteristic whose values stay or were blanked, with counts and \
      bytes. Air packets received with a bad CRC get their address fields pseudonymised \
      as far as they parse and every other octet without structure blanked; \
      --keep-damaged keeps them, with a warning.

      The output format comes from OUT's extension or --to, as for `convert` (sniffer \
      captures cannot be written as btsnoop). A summary of what was replaced, and of the \
      frames left as is because they could not be parsed (encrypted or malformed \
      payloads, vendor events), goes to stderr. --map writes the old→new mapping for you; \
      it never goes into OUT.
      """
  )

  @Argument(help: "The capture to read.")
  var input: String

  @OptionGroup var destination: CaptureOutputOptions

  @Flag(name: .customLong("keep-names"), help: "Keep device names.")
  var keepNames = false

  /// `--keep-values` or `--blank-values` (the default).
  enum ValueAction: String, EnumerableFlag {
    case keepValues, blankValues

    static func help(for value: Self) -> ArgumentHelp? {
      switch value {
      case .keepValues: "Keep attribute values not known to be safe (swept for addresses, names and serials)."
      case .blankValues: "Blank them with filler octets (the default)."
      }
    }
  }

  @Flag var values: ValueAction = .blankValues

  @Flag(help: "Also replace the Hardware, Firmware and Software Revision Strings with pseudonyms.")
  var strict = false

  @Flag(name: .customLong("keep-damaged"), help: "Keep air packets with a bad CRC as they were (a warning says so).")
  var keepDamaged = false

  @Option(name: .customLong("map"), help: "Write the old→new mapping (JSON) to this file.")
  var mapPath: String?

  func validate() throws {
    let output = destination.output
    if output == input || mapPath == input || (mapPath != nil && mapPath == output) {
      throw ValidationError("IN, OUT and --map must be three different files")
    }
  }

  func run() throws {
    let format = destination.format
    let output = destination.output
    destination.warnIfExtensionDiffers()
    do {
      try format.check(holds: try CaptureFile.open(input).family, path: output)
      let options = RedactionSurvey.Options(
        keepNames: keepNames, keepValues: values == .keepValues, strict: strict, keepDamaged: keepDamaged)
      let plan = RedactionSurvey.plan(of: try CaptureFile.open(input), label: "reading \(input)", options)

      // Second pass: copy every record with its fields replaced.
      let source = RedactedSource(try CaptureFile.open(input), plan: plan)
      let writer = try CaptureWriters.open(
        output, format: format, family: source.family, resolution: source.resolution)
      var progress = ProgressMeter(label: "redacting \(input)", stdoutIsOutput: false)
      var records = 0
      while let record = source.next() {
        try writer.write(record)
        records += 1
        progress.update(records: records, done: source.progress.done, total: source.progress.total)
      }
      progress.finish()
      try writer.close()
      report("wrote \(records - writer.skipped) of \(records) records to \(output) (\(writer.formatDescription))")
      if writer.skipped > 0 {
        report("note: \(writer.skipped) records have no place in \(format.rawValue) (records without an HCI packet)")
      }
      for line in RedactionRenderer.disclosure(source.plan) { report(line) }
      if let mapPath {
        var document = OutputBuffer()
        RedactionRenderer.mapping(source.plan, input: input, output: output, into: &document)
        try TextFile.write(document.bytes, to: mapPath)
        report("wrote the mapping to \(mapPath); keep it apart from \(output)")
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

extension RedactionSurvey {
  /// `redact`'s first pass: every field of `source` to replace, and what replaces it.
  /// The pipeline releases each record's extras once the survey has seen it.
  static func plan(of source: any RecordSource, label: String, _ options: Options) -> RedactionPlan {
    var pipeline = RecordPipeline(analyzer: Analyzer(), stages: .analyze)
    var survey = RedactionSurvey(options)
    CaptureInputs.read(source, label: label) { record in
      pipeline.push(record) { survey.add($0, $1) }
      return true
    }
    pipeline.finish { survey.add($0, $1) }
    return survey.finish()
  }
}
