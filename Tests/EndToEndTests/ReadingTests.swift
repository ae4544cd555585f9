import Foundation
import Testing

/// Issue 21, "Reading a capture like a developer": tshark's habits, stdin, the
/// connection column, discovery on the line, filters, printable values and colour.
@Suite("show read like a developer")
struct ReadingTests {
  static let sample = Paths.samples.appending(path: "hr-sensor.btsnoop").path

  /// The record lines of a text listing (without the `#` lines and the column header).
  static func recordLines(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("  frame") }
  }

  // MARK: - tshark habits

  @Test("-r, -Y and -V are -r FILE, --filter and -v")
  func tsharkAliases() {
    let long = run(["show", "-v", "--filter", "att.opcode == 0x12", Self.sample])
    let short = run(["-r", Self.sample, "-Y", "att.opcode == 0x12", "-V"])
    #expect(long.status == 0 && short.status == 0, "stderr: \(long.stderr) \(short.stderr)")
    #expect(!long.stdout.isEmpty)
    #expect(short.stdout == long.stdout)
    let timeline = run(["timeline", "-r", Self.sample])
    #expect(timeline.status == 0 && timeline.stdout == run(["timeline", Self.sample]).stdout)
  }

  @Test("-c N stops after N matching records", arguments: [1, 3, 7])
  func count(_ n: Int) {
    let all = run(["show", "-Y", "att", Self.sample])
    let some = run(["show", "-c", "\(n)", "-Y", "att", Self.sample])
    #expect(some.status == 0, "stderr: \(some.stderr)")
    let lines = Self.recordLines(some.stdout)
    #expect(lines.count == n)
    #expect(Array(lines) == Array(Self.recordLines(all.stdout).prefix(n)))
  }

  @Test("-c 0 is a usage error")
  func countZero() {
    #expect(run(["show", "-c", "0", Self.sample]).status == 1)
  }

  /// Frame 31 of hr-sensor: 09:30:00.487892 UTC on 2024-05-14, 58.903 ms after frame 30.
  @Test(
    "-t writes the time column in tshark's modes",
    arguments: [
      ("r", "    0.487892"), ("a", "09:30:00.487892"), ("ad", "2024-05-14 09:30:00.487892"),
      ("d", "    0.058903"), ("e", "1715679000.487892"),
    ])
  func timeModes(_ mode: String, _ expected: String) {
    let output = run(["show", "-t", mode, "-Y", "frame in {30 31}", Self.sample])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    let lines = Self.recordLines(output.stdout)
    #expect(lines.count == 2)
    #expect(lines.last?.hasPrefix("     31  \(expected)  rx") == true, "\(lines.last ?? "")")
    // The header's columns line up with the records'.
    let header = output.stdout.split(separator: "\n").first { $0.hasPrefix("  frame") }
    #expect(header?.firstRange(of: "  dir")?.lowerBound.utf16Offset(in: header!) == 9 + expected.count)
  }

  @Test("-x dumps each record's bytes under its line")
  func hexDump() {
    let output = run(["show", "-x", "-Y", "frame == 30", Self.sample])
    let lines = output.stdout.split(separator: "\n")
    let line = lines.firstIndex { $0.hasPrefix("     30") }
    #expect(line != nil)
    // ACL handle 0x0040, length 9, L2CAP length 5, cid 4, Write Request 0x000f 0100.
    #expect(
      lines[(line ?? 0) + 1] == "           0000  40 20 09 00 05 00 04 00  12 0f 00 01 00            @ ...........")
  }

  @Test(
    "- reads the capture from stdin", arguments: ["show", "timeline", "stats", "gatt", "devices", "app"])
  func standardInput(_ command: String) {
    let fromFile = run([command, Self.sample])
    let fromStdin = execute(Paths.binary, [command, "-"], standardInput: URL(fileURLWithPath: Self.sample))
    #expect(fromStdin.status == 0, "stderr: \(fromStdin.stderr)")
    #expect(!fromFile.stdout.isEmpty)
    #expect(fromStdin.text == fromFile.stdout.replacingOccurrences(of: Self.sample, with: "-"))
  }

  @Test("stdin that is not a capture is named '-'")
  func standardInputNotACapture() {
    let output = execute(
      Paths.binary, ["show", "-"], standardInput: Paths.packageRoot.appending(path: "Package.swift"))
    #expect(output.status == 2)
    #expect(output.stderr.hasPrefix("bleanalyze: -: not a capture file"), "\(output.stderr)")
  }

  @Test(
    "a misspelled command gets a suggestion and exit status 1",
    arguments: [("timline", "timeline"), ("shw", "show"), ("shwo", "show"), ("stat", "stats"), ("devics", "devices")])
  func didYouMean(_ typed: String, _ meant: String) {
    let output = run([typed, Self.sample])
    #expect(output.status == 1)
    #expect(output.stderr.contains("did you mean '\(meant)'?"), "\(output.stderr)")
    #expect(output.stdout.isEmpty)
  }

  @Test("a word far from any command is a usage error before anything is read, with the commands")
  func unknownWord() {
    let output = run(["frobnicate", Self.sample])
    #expect(output.status == 1)
    #expect(output.stderr.hasPrefix("bleanalyze: 'frobnicate' is neither a file nor a command\n"), "\(output.stderr)")
    #expect(output.stderr.contains("commands: show, timeline,"))
    #expect(output.stdout.isEmpty)
  }

  @Test("a missing file far from any command is still a missing file")
  func noSuggestion() {
    let output = run(["no-such-capture.btsnoop"])
    #expect(output.status == 2)
    #expect(!output.stderr.contains("did you mean"))
  }

  // MARK: - Filters

  @Test(
    "bare words, UUID spellings, sets and decimals match what their long forms match",
    arguments: [
      ("dir == tx and att", "dir == \"tx\" and att"),
      ("att.uuid == 2A37", "att.uuid == \"2a37\""),
      ("att.uuid == 0x2a37", "att.uuid == \"2a37\""),
      ("att.uuid == 00002a37-0000-1000-8000-00805f9b34fb", "att.uuid == \"2a37\""),
      ("att.opcode in {0x12 0x13}", "att.opcode == 0x12 or att.opcode == 0x13"),
      ("att.opcode in {0x12, 0x13, 0x0a}", "att.opcode == 0x12 or att.opcode == 0x13 or att.opcode == 0x0a"),
      ("dir in {rx}", "dir == \"rx\""),
      ("att.latency_ms > 59.5", "att.latency_us > 59500"),
      ("att.latency_ms <= 58.903", "att.latency_us <= 58903"),
      ("ts >= 1715679003.25", "frame >= 42"),
    ])
  func filterForms(_ short: String, _ long: String) {
    let a = run(["show", "-Y", short, Self.sample])
    let b = run(["show", "-Y", long, Self.sample])
    #expect(a.status == 0, "stderr: \(a.stderr)")
    #expect(!Self.recordLines(a.stdout).isEmpty)
    #expect(a.stdout == b.stdout)
  }

  @Test(
    "filter errors point at their column",
    arguments: [
      ("att.opcode in {0x12", 20, "unclosed set"), ("att.opcode in 0x12", 15, "expected '{'"),
      ("att.opcode in {}", 16, "empty set"), ("att.latency_ms > 5x", 18, "invalid decimal"),
      ("att.latency_ms > 1.1234567", 18, "decimal number '1.1234567' has more than 6 decimals"),
      ("att.uuid == zz", 13, "expected a UUID"),
    ])
  func filterErrors(_ expression: String, _ column: Int, _ message: String) {
    let output = run(["show", "-Y", expression, Self.sample])
    #expect(output.status == 1)
    #expect(output.stderr.contains("column \(column): \(message)"), "\(output.stderr)")
  }

  // MARK: - Text rendering

  @Test("ACL lines name the connection, not the link handle; attribute handles read attr")
  func attrAndConnection() {
    let output = run(["show", "-Y", "frame == 30", Self.sample])
    let line = Self.recordLines(output.stdout).first ?? ""
    #expect(line.contains("  #1 HR-Sensor  "))
    #expect(line.contains("acl          ATT Write Request attr 0x000f (Client Characteristic Configuration"))
    #expect(!line.contains("handle 0x0040"))
    // The link handle stays in -v and JSON.
    #expect(run(["show", "-v", "-Y", "frame == 30", Self.sample]).stdout.contains("Connection_Handle: 0x0040"))
    #expect(run(["show", "--format", "ndjson", "-Y", "frame == 30", Self.sample]).stdout.contains("\"handle\":64"))
  }

  @Test("latencies have three decimals")
  func latencyDecimals() {
    let output = run(["show", "-Y", "att.latency_ms >= 0", Self.sample])
    for line in Self.recordLines(output.stdout) {
      let latency = line.split(separator: " in ").last?.split(separator: " ms").first ?? ""
      let decimals = latency.split(separator: ".").last ?? ""
      #expect(decimals.count == 3 && decimals.allSatisfy(\.isNumber), "\(line)")
    }
  }

  @Test(
    "printable values are shown as text too",
    arguments: [
      ("0100", false), ("41542b56", true), ("41542b5645523f0d0a", true), ("415442", false), ("41540042", false),
    ])
  func printableValue(_ hex: String, _ shown: Bool) throws {
    // A Write Command on handle 0x0031 of hr-sensor's connection, with `hex` as value.
    let value = stride(from: 0, to: hex.count, by: 2).map {
      UInt8(hex.dropFirst($0).prefix(2), radix: 16)!
    }
    let file = try ReadingCaptures.writeCommand(value)
    let output = run(["show", "-Y", "att.opcode == 0x52", file.path])
    let line = Self.recordLines(output.stdout).first ?? ""
    #expect(line.contains("value \(hex)"), "\(line)")
    if shown {
      let text = String(decoding: value, as: UTF8.self).replacingOccurrences(of: "\r", with: "\\r")
        .replacingOccurrences(of: "\n", with: "\\n")
      #expect(line.hasSuffix("value \(hex) \"\(text)\""), "\(line)")
    } else {
      #expect(!line.contains("\""), "\(line)")
    }
  }

  @Test("a Device Name read on the connection names its peer from then on")
  func deviceName() throws {
    let output = run(["show", try ReadingCaptures.deviceNameRead().path])
    let lines = Self.recordLines(output.stdout)
    #expect(lines.count == 4)
    #expect(lines[1].contains("  #1 D4:36:39:67:A2:61    acl          ATT Read By Type Request"), "\(lines[1])")
    #expect(lines[3].contains("  #1 Lamp-7               acl          ATT Write Command attr 0x0031"), "\(lines[3])")
  }

  @Test("-v lists a discovery response's entries under Discovered")
  func discoveryTree() {
    let output = run(["show", "-v", "-Y", "frame == 26", Self.sample]).stdout
    let expected = [
      "             Discovered", "               Characteristic", "                 Declaration Handle: 0x000d",
      "                 Characteristic Properties: 0x10 (Notify)", "                 Value Handle: 0x000e",
      "                 UUID: 0x2a37 (Heart Rate Measurement)",
    ].joined(separator: "\n")
    #expect(output.contains(expected), "\(output)")
  }

  @Test("the AT commands of horizon-74 read as text", .enabled(if: sharedAvailable, "../shared not found"))
  func printableRealCapture() {
    let file = Paths.captures.appending(path: "real/horizon-74-at-ble__btsnoop_hci.btsnoop").path
    let output = run(["show", "-Y", "att.value", file])
    let texts = Self.recordLines(output.stdout).filter { $0.contains(" \"") }
    #expect(texts.count > 100)
  }

  // MARK: - Colour

  static let script = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

  /// `show` under a pseudo-terminal (`script -qc`), with `arguments` and `environment`.
  static func onTerminal(_ arguments: [String], environment: [String: String] = [:]) -> String {
    let command = ([Paths.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    return execute(
      URL(fileURLWithPath: script!), ["-qec", command, "/dev/null"],
      environment: environment.merging(["TERM": "xterm"]) { $1 }
    ).text
  }

  @Test(
    "colour on a terminal, none when asked or when NO_COLOR is set",
    .enabled(if: script != nil, "script(1) not installed; skipping the pseudo-terminal test"),
    arguments: [
      // NO_COLOR set but empty does not count (no-color.org); the tests' own may be set.
      ([] as [String], ["NO_COLOR": ""], true), (["--color", "never"], ["NO_COLOR": ""], false),
      ([], ["NO_COLOR": "1"], false), (["--color", "always"], ["NO_COLOR": "1"], true),
      (["--color", "auto"], ["NO_COLOR": ""], true),
    ])
  func colourOnTerminal(_ options: [String], _ environment: [String: String], _ painted: Bool) {
    let text = Self.onTerminal(["show", "-c", "5"] + options + [Self.sample], environment: environment)
    #expect(text.contains("Reset"), "\(text)")
    #expect(text.contains("\u{1B}[32mtx \u{1B}[0m") == painted, "\(text)")
    #expect(text.contains("\u{1B}[") == painted)
  }

  @Test("no colour when stdout is not a terminal, unless --color always")
  func colourOffPipe() {
    #expect(!run(["show", Self.sample]).stdout.contains("\u{1B}["))
    let always = run(["show", "--color", "always", "-Y", "frame in {43 45}", Self.sample]).stdout
    #expect(always.contains("\u{1B}[32mtx \u{1B}[0m") && always.contains("\u{1B}[36mrx \u{1B}[0m"))
    // Frame 45 is an Error Response (Invalid Handle): its error name is red.
    #expect(always.contains("\u{1B}[31mInvalid Handle\u{1B}[0m"), "\(always)")
  }
}

/// Small captures made on the spot for the text rendering tests.
enum ReadingCaptures {
  /// A btsnoop (datalink 1002) with hr-sensor's LE Connection Complete (handle 0x0040,
  /// peer D4:36:39:67:A2:61) and a Write Command on 0x0031 with `value`.
  static func writeCommand(_ value: [UInt8]) throws -> URL {
    try capture([(connectionComplete, 3), (acl([0x52, 0x31, 0x00] + value), 0)])
  }

  /// The same connection reading the Device Name by type, then a Write Command:
  /// Read By Type Request 0x0001-0xffff type 2a00, Read By Type Response handle 0x0003
  /// value "Lamp-7".
  static func deviceNameRead() throws -> URL {
    try capture([
      (connectionComplete, 3), (acl([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A]), 0),
      (acl([0x09, 0x08, 0x03, 0x00] + Array("Lamp-7".utf8)), 1), (acl([0x52, 0x31, 0x00, 0x01]), 0),
    ])
  }

  /// LE Meta, LE Connection Complete: Success, handle 0x0040, central, public
  /// D4:36:39:67:A2:61, interval 24, latency 0, timeout 72, clock accuracy 0.
  static let connectionComplete: [UInt8] = [
    0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x18, 0x00, 0x00,
    0x00, 0x48, 0x00, 0x00,
  ]

  /// ACL handle 0x0040 (first, flushable), L2CAP cid 4, carrying `att`.
  static func acl(_ att: [UInt8]) -> [UInt8] {
    let l2cap = le16(att.count) + [0x04, 0x00] + att
    return [0x02, 0x40, 0x20] + le16(l2cap.count) + l2cap
  }

  /// H4 packets with their btsnoop flags (bit 0 received, bit 1 command or event), 1 ms apart.
  static func capture(_ packets: [([UInt8], UInt32)]) throws -> URL {
    var file: [UInt8] = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
    // µs since year 0; 2024-05-14 09:30:00 UTC.
    let start: UInt64 = 0x00DC_DDB3_0F2F_8000 + 1_715_679_000_000_000
    for (index, (packet, flags)) in packets.enumerated() {
      file += be32(packet.count) + be32(packet.count) + be32(Int(flags)) + be32(0)
      let time = start + UInt64(index) * 1000
      file += (0..<8).reversed().map { UInt8(truncatingIfNeeded: time >> (8 * $0)) }
      file += packet
    }
    let url = Paths.scratchFile("reading.btsnoop")
    try Data(file).write(to: url)
    return url
  }

  private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
  private static func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }
}
