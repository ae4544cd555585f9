import BLEFuzz

#if canImport(Glibc)
  import Glibc
#endif

/// The target named by `BLEANALYZE_FUZZ_TARGET`, or by the program's name
/// (`bleanalyze-fuzz-pcap` runs `pcap`); the pipeline when neither names one.
func selectedTarget() -> FuzzTarget? {
  if let name = getenv("BLEANALYZE_FUZZ_TARGET").map({ String(cString: $0) }), !name.isEmpty {
    return FuzzTarget(rawValue: name)
  }
  let program = CommandLine.arguments.first?.split(separator: "/").last ?? ""
  if program.hasPrefix("bleanalyze-fuzz-") {
    return FuzzTarget(rawValue: String(program.dropFirst("bleanalyze-fuzz-".count)))
  }
  return .pipeline
}

/// Writes `text` to standard error.
func complain(_ text: String) {
  _ = text.withCString { write(2, $0, strlen($0)) }
}

#if FUZZING
  // Built with -DFUZZING -sanitize=fuzzer: libFuzzer's main calls this for each input.
  let target: FuzzTarget = {
    guard let target = selectedTarget() else {
      let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
      complain("bleanalyze-fuzz: unknown BLEANALYZE_FUZZ_TARGET; targets: \(names)\n")
      exit(1)
    }
    return target
  }()

  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = target.run(UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size))
    return 0
  }

  /// libFuzzer's driver, for programs that have a main of their own.
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt

  /// SwiftPM links an executable's main to `<module>_main`; libFuzzer's own main is
  /// then never linked in, so this one starts its driver.
  @_cdecl("bleanalyze_fuzz_main")
  public func fuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
  ) -> CInt {
    var count = argc
    var arguments = argv
    _ = target
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
  }
#else
  /// Without libFuzzer: `bleanalyze-fuzz TARGET FILE…` runs a target over files (a
  /// crash input, a corpus), `bleanalyze-fuzz --list` names the targets.
  @main struct Replay {
    static func main() {
      var arguments = Array(CommandLine.arguments.dropFirst())
      if arguments.first == "--list" {
        for target in FuzzTarget.allCases { print(target.rawValue) }
        return
      }
      guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments.removeFirst()) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        complain("usage: bleanalyze-fuzz (\(names)) FILE…\n       bleanalyze-fuzz --list\n")
        exit(1)
      }
      for path in arguments {
        guard let bytes = readAll(path) else {
          complain("bleanalyze-fuzz: cannot read \(path)\n")
          exit(2)
        }
        let records = target.run(bytes)
        print("\(target.rawValue): \(path): \(bytes.count) bytes, \(records) records")
      }
    }

    static func readAll(_ path: String) -> [UInt8]? {
      guard let file = fopen(path, "rb") else { return nil }
      defer { fclose(file) }
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes += chunk[0..<count]
      }
      return ferror(file) == 0 ? bytes : nil
    }
  }
#endif
