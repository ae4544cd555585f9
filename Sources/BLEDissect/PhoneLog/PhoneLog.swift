import BLECapture

/// The phone's own words in an Android bugreport's text: the SYSTEM LOG section
/// (`logcat -v threadtime`, with or without `-v uid`) as typed lines, the Bluetooth lines
/// among them as `AppLogEvent`s, and what puts them on a clock: the dumpstate time (the
/// year logcat leaves out) and `persist.sys.timezone`; plus the build.
///
///     == dumpstate: 2024-05-14 11:42:15
///     ------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------
///     05-14 11:30:01.629 10187 14023 14023 D BluetoothGatt: connect() - device: D4:36:39:67:A2:61, auto: false
///     ------ 1.322s was the duration of 'SYSTEM LOG' ------
///     [persist.sys.timezone]: [Europe/Berlin]
///
/// Parsing is pure: the text in, values out (the zone's rules come from `zoneLookup`).
public struct PhoneLog: Sendable {
  /// Every logcat line of the SYSTEM LOG section, in order.
  public var lines: [LogcatLine] = []
  /// The SYSTEM LOG section's lines (after its banner, before its duration line):
  /// logcat lines and logcat's own `--------- beginning of main` markers.
  public var systemLogLines: ClosedRange<Int>?
  /// The lines `AppLogRecognizer.table` recognises, in order.
  public var events: [AppLogEvent] = []
  /// `== dumpstate: YYYY-MM-DD HH:MM:SS`: when the bugreport was taken, local time.
  public var dumpstate: CivilTime?
  /// `persist.sys.timezone` (an IANA name), and its rules when the tz database has them.
  public var timeZoneName: String?
  public var zone: ZoneInfo?
  public var build = AndroidBuild()
  /// Every `[name]: [value]` of the SYSTEM PROPERTIES section (`persist.bluetooth.btsnooplogmode`…).
  public var properties: [String: String] = [:]
  /// What could not be read or is missing, for people.
  public var notes: [String] = []

  /// Lines kept at most; a longer log keeps its first ones, with a note.
  public static let lineLimit = 4_000_000

  public init(
    text: UnsafeBufferPointer<UInt8>, zoneLookup: (String) -> ZoneInfo? = { ZoneInfo.named($0) }
  ) {
    var section = Section.other
    var lineNumber = 0
    var start = 0
    while start < text.count {
      var end = start
      while end < text.count && text[end] != 0x0A { end += 1 }
      lineNumber += 1
      var length = end - start
      if length > 0 && text[start + length - 1] == 0x0D { length -= 1 }
      read(UnsafeBufferPointer(rebasing: text[start..<start + length]), lineNumber: lineNumber, section: &section)
      start = end + 1
    }
    if lines.count >= Self.lineLimit {
      notes.append("system log holds more than \(Self.lineLimit) lines: the first ones are read")
    }
    if dumpstate == nil { notes.append("no \"== dumpstate:\" line: the year of log lines is unknown") }
    if let name = timeZoneName {
      zone = zoneLookup(name)
      if zone == nil {
        notes.append("time zone \(name) is not in this system's tz database: log times are taken as UTC")
      }
    } else {
      notes.append("no persist.sys.timezone property: log times are taken as UTC")
    }
    if build.fingerprint == nil { build.fingerprint = properties["ro.build.fingerprint"] }
    build.model = properties["ro.product.model"]
    build.product = properties["ro.product.name"]
    build.release = properties["ro.build.version.release"]
    build.sdk = properties["ro.build.version.sdk"].flatMap { Int($0) }
    build.id = build.id ?? properties["ro.build.id"]
  }

  /// The phone's log of the archive (its bugreport text), nil when it has none.
  public init?(archive: PhoneArchive, zoneLookup: (String) -> ZoneInfo? = { ZoneInfo.named($0) }) {
    guard let text = archive.mainText else { return nil }
    self.init(text: text, zoneLookup: zoneLookup)
  }

  /// Opens what a phone saved at `path` and reads its log.
  public static func open(_ path: String) throws(CaptureError) -> (archive: PhoneArchive, log: PhoneLog?) {
    let archive = try PhoneArchive(path: path)
    return (archive, PhoneLog(archive: archive))
  }

  /// A line's local time as Unix µs: the year from the dumpstate line (the year before
  /// when the month and day come after the dumpstate's: the log began last year), the
  /// offset from the zone (UTC when unknown). Logcat prints the millisecond the line was
  /// written in, so the time is the middle of it (500 µs after the printed value): off
  /// by at most half a millisecond. Nil without a dumpstate line.
  public func unixMicroseconds(_ time: LogcatTime) -> Int64? {
    guard let dumpstate else { return nil }
    let late = (time.month, time.day) > (dumpstate.month, dumpstate.day + 1)
    let local = time.civil(year: dumpstate.year - (late ? 1 : 0))
    return (zone.map { $0.unixMicroseconds(local: local) } ?? local.unixMicroseconds) + 500
  }

  private enum Section {
    case systemLog
    case properties
    case other
  }

  private static let systemLogStart = Array("------ SYSTEM LOG (".utf8)
  private static let propertiesStart = Array("------ SYSTEM PROPERTIES (".utf8)
  private static let sectionStart = Array("------ ".utf8)
  private static let dumpstateLine = Array("== dumpstate: ".utf8)
  private static let buildLine = Array("Build: ".utf8)
  private static let fingerprintLine = Array("Build fingerprint: ".utf8)

  private mutating func read(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, section: inout Section) {
    if line.starts(with: Self.sectionStart) {
      section =
        line.starts(with: Self.systemLogStart)
        ? .systemLog : line.starts(with: Self.propertiesStart) ? .properties : .other
      return
    }
    switch section {
    case .systemLog:
      systemLogLines = (systemLogLines?.lowerBound ?? lineNumber)...lineNumber
      guard lines.count < Self.lineLimit, line.count >= 18, line[2] == UInt8(ascii: "-"),
        let parsed = LogcatLine(parsing: Substring(String(decoding: line, as: UTF8.self)), lineNumber: lineNumber)
      else { return }
      lines.append(parsed)
      if let event = AppLogRecognizer.recognize(parsed) { events.append(event) }
    case .properties:
      // [name]: [value]
      let text = String(decoding: line, as: UTF8.self)
      guard text.hasPrefix("["), let middle = text.firstRange(of: "]: ["), text.hasSuffix("]") else { return }
      let name = String(text[text.index(after: text.startIndex)..<middle.lowerBound])
      properties[name] = String(text[middle.upperBound..<text.index(before: text.endIndex)])
      if name == "persist.sys.timezone" { timeZoneName = properties[name] }
    case .other:
      if dumpstate == nil, line.starts(with: Self.dumpstateLine) {
        dumpstate = Self.civil(String(decoding: line.dropFirst(Self.dumpstateLine.count), as: UTF8.self))
      } else if build.id == nil, line.starts(with: Self.buildLine) {
        build.id = String(decoding: line.dropFirst(Self.buildLine.count), as: UTF8.self)
      } else if build.fingerprint == nil, line.starts(with: Self.fingerprintLine) {
        let value = String(decoding: line.dropFirst(Self.fingerprintLine.count), as: UTF8.self)
        build.fingerprint = String(value.filter { $0 != "'" })
      }
    }
  }

  /// `YYYY-MM-DD HH:MM:SS`
  static func civil(_ text: String) -> CivilTime? {
    let parts = text.split { $0 == "-" || $0 == " " || $0 == ":" }.compactMap { Int($0) }
    guard parts.count >= 6, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
    return CivilTime(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
  }
}

/// The Android build a bugreport comes from.
public struct AndroidBuild: Hashable, Sendable {
  /// `ro.product.model`: `Pixel 7`
  public var model: String?
  /// `ro.product.name`: `panther`
  public var product: String?
  /// `ro.build.version.release`: `14`
  public var release: String?
  /// `ro.build.version.sdk`: `34`
  public var sdk: Int?
  /// `Build:` / `ro.build.id`: `AP1A.240505.004`
  public var id: String?
  /// `Build fingerprint:` / `ro.build.fingerprint`
  public var fingerprint: String?

  public init() {}
}
