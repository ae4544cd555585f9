import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// Shared helpers of the end-to-end tests: where things are, running the built binary and
// tshark, reading their output line by line, and reading and writing capture files.

/// Where the package, its samples and the shared test assets are.
enum Paths {
  /// The package root; this file is `<root>/Tests/EndToEndTests/Support.swift`.
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let samples = packageRoot.appending(path: "Samples")
  static let golden = packageRoot.appending(path: "Tests/EndToEndTests/Golden")
  /// `<package root>/../shared`, the assets the project shares with its other checkouts.
  static let shared = packageRoot.deletingLastPathComponent().appending(path: "shared")
  static let captures = shared.appending(path: "captures")

  /// The `bleanalyze` that `swift build --build-tests` put next to the test bundle, or
  /// `<package root>/.build/debug/bleanalyze`; `BLEANALYZE_E2E_BINARY` overrides both (to
  /// test a release build, or a deliberately broken wrapper that shows the tests can fail).
  static let binary: URL = {
    if let override = ProcessInfo.processInfo.environment["BLEANALYZE_E2E_BINARY"], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    var candidates: [URL] = []
    if let argument0 = CommandLine.arguments.first, !argument0.isEmpty {
      let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
      let bundle = URL(fileURLWithPath: argument0, relativeTo: cwd).standardizedFileURL
      candidates.append(bundle.deletingLastPathComponent().appending(path: "bleanalyze"))
    }
    candidates.append(Bundle.main.bundleURL.appending(path: "bleanalyze"))
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appending(path: "bleanalyze"))
    let fallback = packageRoot.appending(path: ".build/debug/bleanalyze")
    return candidates.first { isExecutableFile($0) } ?? fallback
  }()

  /// `/usr/bin/tshark`, or `tshark` on PATH.
  static let tshark: URL? = {
    var candidates = [URL(fileURLWithPath: "/usr/bin/tshark")]
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":") where !directory.isEmpty {
      candidates.append(URL(fileURLWithPath: String(directory)).appending(path: "tshark"))
    }
    return candidates.first { isExecutableFile($0) }
  }()

  /// A directory for the files the tests write, one per test process. Swift Testing has no
  /// hook after the last test, so the directories of earlier runs whose process is gone are
  /// removed here instead.
  static let scratch: URL = {
    let temporary = FileManager.default.temporaryDirectory
    for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] {
      let parts = name.split(separator: "-")
      guard name.hasPrefix("bleanalyze-e2e-"), parts.count > 2, let pid = Int32(parts[2]) else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH {
        try? FileManager.default.removeItem(at: temporary.appending(path: name))
      }
    }
    let url = temporary.appending(path: "bleanalyze-e2e-\(getpid())-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }()

  /// A new file name in `scratch` (the file is not created).
  static func scratchFile(_ suffix: String) -> URL {
    scratch.appending(path: "\(UUID().uuidString)-\(suffix)")
  }

  private static func isExecutableFile(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
      && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: url.path)
  }
}

/// tshark is installed; oracle tests are skipped without it.
let tsharkAvailable = Paths.tshark != nil
/// `../shared/captures` exists; tests on the shared captures are skipped without it.
let sharedAvailable = FileManager.default.fileExists(atPath: Paths.captures.path)
/// `BLEANALYZE_RECORD=1` rewrites golden files (and fails, so that a person reviews the diff).
let recordingGolden = ProcessInfo.processInfo.environment["BLEANALYZE_RECORD"] == "1"

// MARK: - Running programs

/// What a finished program left behind.
struct Output {
  var status: Int32
  var stdout: Data
  var stderr: String
  /// The signal that ended it, if one did (not the SIGKILL of a time limit).
  var signal: Int32?
  /// It ran over its time limit and was killed.
  var timedOut = false

  var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `executable` in the package root and waits for it. Standard output and error go to
/// temporary files, so neither pipe can fill up and block the child. With `timeLimit`, a
/// run that takes longer is killed with SIGKILL. `standardInput` is a file to read from
/// (none by default); `environment` adds to or overrides the inherited variables.
func execute(
  _ executable: URL, _ arguments: [String], timeLimit: TimeInterval? = nil, standardInput: URL? = nil,
  environment: [String: String] = [:]
) -> Output {
  let stdoutURL = Paths.scratchFile("stdout")
  let stderrURL = Paths.scratchFile("stderr")
  defer {
    try? FileManager.default.removeItem(at: stdoutURL)
    try? FileManager.default.removeItem(at: stderrURL)
  }
  do {
    _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
    let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
    let stderrHandle = try FileHandle(forWritingTo: stderrURL)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = Paths.packageRoot
    process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardOutput = stdoutHandle
    process.standardError = stderrHandle
    try process.run()
    var timedOut = false
    if let timeLimit {
      let deadline = Date().addingTimeInterval(timeLimit)
      while process.isRunning && Date() < deadline { usleep(5_000) }
      if process.isRunning {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
      }
    }
    process.waitUntilExit()
    try stdoutHandle.close()
    try stderrHandle.close()
    let stdout = try Data(contentsOf: stdoutURL)
    let stderr = try String(decoding: Data(contentsOf: stderrURL), as: UTF8.self)
    let signal = process.terminationReason == .uncaughtSignal && !timedOut ? process.terminationStatus : nil
    return Output(
      status: process.terminationStatus, stdout: stdout, stderr: stderr, signal: signal, timedOut: timedOut)
  } catch {
    return Output(status: 127, stdout: Data(), stderr: "could not run \(executable.path): \(error)")
  }
}

/// Runs the built `bleanalyze` with `arguments` in the package root.
func run(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
  let output = execute(Paths.binary, arguments)
  return (output.status, output.text, output.stderr)
}

/// Runs the built `bleanalyze`, keeping standard output as bytes (for large outputs).
func runRaw(_ arguments: [String]) -> Output {
  execute(Paths.binary, arguments)
}

/// Runs `tshark -r FILE -T fields -e …` and calls `body` with the columns of each line.
/// Returns false (and records an issue) when tshark fails.
@discardableResult
func tsharkFields(
  _ file: URL, _ fields: [String], sourceLocation: SourceLocation = #_sourceLocation,
  _ body: ([Substring]) -> Void
) -> Bool {
  tsharkFields(file, options: [], fields: fields, sourceLocation: sourceLocation, body)
}

/// The same with tshark `options` before the fields (`-E occurrence=a`…).
@discardableResult
func tsharkFields(
  _ file: URL, options: [String], fields: [String], sourceLocation: SourceLocation = #_sourceLocation,
  _ body: ([Substring]) -> Void
) -> Bool {
  guard let tshark = Paths.tshark else {
    Issue.record("tshark not installed", sourceLocation: sourceLocation)
    return false
  }
  let output = execute(tshark, ["-n", "-r", file.path, "-T", "fields"] + options + fields.flatMap { ["-e", $0] })
  guard output.status == 0 else {
    Issue.record(
      "tshark failed on \(file.path) with status \(output.status): \(output.stderr)",
      sourceLocation: sourceLocation)
    return false
  }
  forEachLine(output.stdout) { line in
    let text = String(decoding: line, as: UTF8.self)
    body(text.split(separator: "\t", omittingEmptySubsequences: false))
  }
  return true
}

// MARK: - Reading output

/// Calls `body` with each line of `data`, without its newline. A final newline does not
/// start another line; empty lines in the middle are passed on.
func forEachLine(_ data: Data, _ body: (UnsafeRawBufferPointer) -> Void) {
  data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
    guard let base = bytes.baseAddress else { return }
    var start = 0
    while start < bytes.count {
      let end: Int
      if let newline = memchr(base + start, 0x0A, bytes.count - start) {
        end = UnsafeRawPointer(newline) - base
      } else {
        end = bytes.count
      }
      body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
      start = end + 1
    }
  }
}

/// The lines of a text, without a trailing empty one.
func lines(_ text: String) -> [String] {
  var result = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  if result.last == "" { result.removeLast() }
  return result
}

/// The raw text of the top-level values of one JSON object line whose keys are in `keys`
/// (strings keep their quotes, numbers keep their digits exactly as printed). Stops as soon
/// as all of them are found. Nil when the line is not a JSON object.
func topLevelValues(_ line: UnsafeRawBufferPointer, keys: Set<String>) -> [String: String]? {
  let bytes = line.bindMemory(to: UInt8.self)
  let count = bytes.count
  var index = 0
  func skipSpace() {
    while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
  }
  /// Moves past the string that starts at `index`.
  func skipString() -> Bool {
    guard index < count, bytes[index] == UInt8(ascii: "\"") else { return false }
    index += 1
    while index < count {
      switch bytes[index] {
      case UInt8(ascii: "\\"): index += 2
      case UInt8(ascii: "\""):
        index += 1
        return true
      default: index += 1
      }
    }
    return false
  }
  /// Moves past the value that starts at `index`.
  func skipValue() -> Bool {
    guard index < count else { return false }
    switch bytes[index] {
    case UInt8(ascii: "\""): return skipString()
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var depth = 0
      while index < count {
        switch bytes[index] {
        case UInt8(ascii: "\""):
          guard skipString() else { return false }
          continue
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 {
            index += 1
            return true
          }
        default: break
        }
        index += 1
      }
      return false
    default:
      while index < count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}") { index += 1 }
      return true
    }
  }

  var found: [String: String] = [:]
  skipSpace()
  guard index < count, bytes[index] == UInt8(ascii: "{") else { return nil }
  index += 1
  skipSpace()
  if index < count, bytes[index] == UInt8(ascii: "}") { return found }
  while index < count {
    skipSpace()
    let keyStart = index
    guard skipString() else { return nil }
    let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[(keyStart + 1)..<(index - 1)]), as: UTF8.self)
    skipSpace()
    guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
    index += 1
    skipSpace()
    let valueStart = index
    guard skipValue() else { return nil }
    if keys.contains(key) {
      var end = index
      while end > valueStart, bytes[end - 1] == 0x20 { end -= 1 }
      found[key] = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)
      if found.count == keys.count { return found }
    }
    skipSpace()
    guard index < count else { return nil }
    if bytes[index] == UInt8(ascii: "}") { return found }
    guard bytes[index] == UInt8(ascii: ",") else { return nil }
    index += 1
  }
  return nil
}

/// One NDJSON record of `show`, with `ts` as printed (not converted to a Double).
struct RecordLine {
  var frame: String
  var ts: String
  /// "tx", "rx" or "null".
  var dir: String
  /// The whole object, for the fields that need no exact text (empty unless asked for).
  var object: [String: Any]
}

/// Parses `show --format ndjson` output; records an issue for a line that is not a record.
/// Without `objects`, only `frame`, `ts` and `dir` are read (fast enough for 500 000 lines).
func recordLines(
  _ stdout: Data, objects: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) -> [RecordLine] {
  var result: [RecordLine] = []
  forEachLine(stdout) { line in
    guard let raw = topLevelValues(line, keys: ["frame", "ts", "dir"]),
      let frame = raw["frame"], let ts = raw["ts"], let dir = raw["dir"],
      let object = objects ? try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] : [:]
    else {
      Issue.record(
        "not an NDJSON record: \(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
      return
    }
    result.append(
      RecordLine(frame: frame, ts: ts, dir: dir.replacingOccurrences(of: "\"", with: ""), object: object))
  }
  return result
}

/// A value from JSONSerialization as text ("-" when absent), for comparing records.
func jsonText(_ value: Any?) -> String {
  guard let value, !(value is NSNull) else { return "-" }
  return "\(value)"
}

// MARK: - Comparing sequences

/// Compares two sequences element by element and reports the count and the first few
/// differences as one issue, instead of one issue per element.
struct SequenceComparison {
  let label: String
  private(set) var compared = 0
  private(set) var mismatches = 0
  private var examples: [String] = []

  init(_ label: String) {
    self.label = label
  }

  /// Compares element `index` (0-based); `detail` is called only for a mismatch.
  mutating func check(_ index: Int, expected: String, actual: String, detail: () -> String = { "" }) {
    compared += 1
    guard expected != actual else { return }
    mismatches += 1
    if examples.count < 8 {
      let extra = detail()
      examples.append(
        "  #\(index + 1): expected \(expected)\n  #\(index + 1):   actual \(actual)\(extra.isEmpty ? "" : "\n    \(extra)")"
      )
    }
  }

  /// Records one issue when the counts differ or any element differed.
  func report(expectedCount: Int, actualCount: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    var problems: [String] = []
    if expectedCount != actualCount {
      problems.append("\(label): expected \(expectedCount) elements, got \(actualCount)")
    }
    if mismatches > 0 {
      problems.append(
        "\(label): \(mismatches) of \(compared) elements differ; first ones:\n" + examples.joined(separator: "\n"))
    }
    if !problems.isEmpty {
      Issue.record(Comment(rawValue: problems.joined(separator: "\n")), sourceLocation: sourceLocation)
    }
  }

  /// Compares two whole arrays.
  static func compare(
    _ label: String, expected: [String], actual: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    var comparison = SequenceComparison(label)
    for index in 0..<min(expected.count, actual.count) {
      comparison.check(index, expected: expected[index], actual: actual[index])
    }
    comparison.report(expectedCount: expected.count, actualCount: actual.count, sourceLocation: sourceLocation)
  }
}

// MARK: - tshark conventions

/// tshark's `frame.time_epoch` ("1715679000.004913123") cut to microseconds.
func microseconds(_ epoch: some StringProtocol) -> String {
  guard let dot = epoch.firstIndex(of: ".") else { return String(epoch) + ".000000" }
  let fraction = epoch[epoch.index(after: dot)...]
  return String(epoch[...dot]) + String(fraction.prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
}

/// A number as tshark prints it: decimal, or hex with `0x`.
func number(_ text: some StringProtocol) -> Int? {
  text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
}

/// The direction a Linux monitor opcode implies: 2, 4, 6, 18 (command, ACL, SCO, ISO sent)
/// are "tx", 3, 5, 7, 19 (event, ACL, SCO, ISO received) "rx"; other opcodes have none.
func monitorDirection(_ opcode: Int?) -> String? {
  switch opcode {
  case 2, 4, 6, 18: "tx"
  case 3, 5, 7, 19: "rx"
  default: nil
  }
}

/// The direction a PacketLogger record type implies (FORMATS.md §5).
func packetLoggerDirection(_ type: Int?) -> String? {
  switch type {
  case 0x00, 0x02, 0x08, 0x12: "tx"
  case 0x01, 0x03, 0x09, 0x13: "rx"
  default: nil
  }
}

/// The H4 packet type of a PacketLogger HCI record type, nil for the others (notes, syslog…).
func h4Type(packetLoggerType type: Int?) -> UInt8? {
  switch type {
  case 0x00: 0x01
  case 0x01: 0x04
  case 0x02, 0x03: 0x02
  case 0x08, 0x09: 0x03
  case 0x12, 0x13: 0x05
  default: nil
  }
}

/// The direction of a frame as tshark sees it, in our vocabulary ("tx", "rx" or "null"):
/// `frame.p2p_dir` 0 is sent, 1 received. Linux monitor frames carry no p2p_dir in btsnoop
/// and pcap, so their direction comes from the first `hci_mon.opcode` value (tshark lists a
/// control command's own opcode after it: "16,5"). tshark's PacketLogger reader sets no
/// p2p_dir either, so for those the decoded `packetlogger.type` gives it.
func tsharkDirection(p2pDir: Substring, monitorOpcode: Substring, packetLoggerType: Substring = "") -> String {
  switch p2pDir {
  case "0": return "tx"
  case "1": return "rx"
  default: break
  }
  if let first = monitorOpcode.split(separator: ",").first {
    return monitorDirection(number(first)) ?? "null"
  }
  if !packetLoggerType.isEmpty {
    return packetLoggerDirection(number(packetLoggerType)) ?? "null"
  }
  return "null"
}

// MARK: - Capture files

/// One complete record of a btsnoop file.
struct BTSnoopRecord {
  /// Where the record header starts in the file.
  var offset: Int
  var originalLength: Int
  var flags: UInt32
  /// µs since 0000-01-01 (the btsnoop epoch).
  var timestamp: Int64
  var payload: Data

  /// Unix µs.
  var unixMicroseconds: Int64 { timestamp - 0x00DC_DDB3_0F2F_8000 }
}

/// A btsnoop file read independently of the product, as FORMATS.md §1 describes it.
struct BTSnoopFile {
  var datalink: UInt32
  var records: [BTSnoopRecord]
  /// Where the first incomplete record starts, if the file ends inside one.
  var incompleteRecordOffset: Int?

  init(_ data: Data) throws {
    let bytes = [UInt8](data)
    func bigEndian(_ offset: Int, _ size: Int) -> UInt64 {
      bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
    guard bytes.count >= 16, bytes[0..<8].elementsEqual(Array("btsnoop\0".utf8)) else {
      throw CaptureFileError("not a btsnoop file")
    }
    datalink = UInt32(bigEndian(12, 4))
    records = []
    var offset = 16
    while offset < bytes.count {
      guard offset + 24 <= bytes.count else {
        incompleteRecordOffset = offset
        break
      }
      let included = Int(bigEndian(offset + 4, 4))
      guard offset + 24 + included <= bytes.count else {
        incompleteRecordOffset = offset
        break
      }
      records.append(
        BTSnoopRecord(
          offset: offset, originalLength: Int(bigEndian(offset, 4)), flags: UInt32(bigEndian(offset + 8, 4)),
          timestamp: Int64(bitPattern: bigEndian(offset + 16, 8)),
          payload: Data(bytes[(offset + 24)..<(offset + 24 + included)])))
      offset += 24 + included
    }
  }
}

struct CaptureFileError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Writes Apple PacketLogger files (FORMATS.md §5), a format the product reads but does not
/// write, so that tshark and bleanalyze can be compared on files the test made itself.
enum PacketLoggerWriter {
  enum ByteOrder: String, CustomStringConvertible {
    /// v1 files.
    case big
    /// v2 files.
    case little

    var description: String { rawValue + "-endian" }
  }

  /// The PacketLogger type of an H4 packet: command 0x00, event 0x01, ACL 0x02 sent / 0x03
  /// received, SCO 0x08 / 0x09, ISO 0x12 / 0x13.
  static func type(h4 type: UInt8, received: Bool) -> UInt8? {
    switch type {
    case 0x01: 0x00
    case 0x04: 0x01
    case 0x02: received ? 0x03 : 0x02
    case 0x03: received ? 0x09 : 0x08
    case 0x05: received ? 0x13 : 0x12
    default: nil
    }
  }

  /// Every record of an H4 btsnoop (datalink 1002) as a PacketLogger record:
  /// `len u32` (= 8 + 1 + payload), `seconds u32`, `microseconds u32`, `type u8`, then the
  /// payload without its H4 byte.
  static func convert(_ btsnoop: BTSnoopFile, byteOrder: ByteOrder) throws -> Data {
    guard btsnoop.datalink == 1002 else { throw CaptureFileError("datalink \(btsnoop.datalink) is not H4") }
    var out = Data()
    func append(_ value: UInt32) {
      let ordered = byteOrder == .big ? value.bigEndian : value.littleEndian
      withUnsafeBytes(of: ordered) { out.append(contentsOf: $0) }
    }
    for (index, record) in btsnoop.records.enumerated() {
      guard let h4 = record.payload.first,
        let type = type(h4: h4, received: record.flags & 1 == 1)
      else {
        throw CaptureFileError("record \(index + 1) has no H4 type PacketLogger can hold")
      }
      let payload = record.payload.dropFirst()
      let unix = record.unixMicroseconds
      append(UInt32(8 + 1 + payload.count))
      append(UInt32(unix / 1_000_000))
      append(UInt32(unix % 1_000_000))
      out.append(type)
      out.append(contentsOf: payload)
    }
    return out
  }
}
