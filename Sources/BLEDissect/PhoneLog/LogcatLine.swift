import BLECapture

/// One line of logcat's `threadtime` format, as a bugreport's SYSTEM LOG section holds
/// it, with or without the uid column (`logcat -v uid`; a uid may be a name: `wifi`):
///
///     05-14 11:30:01.629 10187 14023 14023 D BluetoothGatt: connect() - device: D4:36:39:67:A2:61, auto: false
///     MM-DD HH:MM:SS.mmm [uid]  pid   tid L tag: message
///
/// The tag is padded to 8 characters before its colon (`lmkd    : …`) and may itself
/// hold spaces or brackets (`ViewRootImpl[MainActivity]`): it ends at the first `": "`.
public struct LogcatLine: Hashable, Sendable {
  /// 1-based line number in the bugreport text.
  public var lineNumber: Int
  /// The phone's local time, without a year (logcat prints none).
  public var time: LogcatTime
  /// The uid column: a number (`10187`) or a name (`wifi`, `root`); nil without `-v uid`.
  public var uid: String?
  public var pid: Int
  public var tid: Int
  public var level: LogcatLevel
  public var tag: String
  public var message: String

  public init(
    lineNumber: Int, time: LogcatTime, uid: String?, pid: Int, tid: Int, level: LogcatLevel, tag: String,
    message: String
  ) {
    self.lineNumber = lineNumber
    self.time = time
    self.uid = uid
    self.pid = pid
    self.tid = tid
    self.level = level
    self.tag = tag
    self.message = message
  }

  /// The line parsed, nil when it is not a threadtime line (section banners,
  /// `--------- beginning of main`, wrapped text).
  public init?(parsing text: Substring, lineNumber: Int) {
    let utf8 = Array(text.utf8.prefix(64))
    guard utf8.count >= 20, let time = LogcatTime(utf8) else { return nil }
    // After the time: [uid] pid tid level, separated by runs of spaces.
    var rest = text.dropFirst(18)
    var fields: [Substring] = []
    while fields.count < 4 {
      rest = rest.drop { $0 == " " }
      let field = rest.prefix { $0 != " " }
      guard !field.isEmpty else { return nil }
      fields.append(field)
      rest = rest.dropFirst(field.count)
      // Three fields then a one-letter level: no uid column.
      if fields.count == 3, fields[2].count == 1, LogcatLevel(fields[2]) != nil, Int(fields[0]) != nil,
        Int(fields[1]) != nil
      {
        break
      }
    }
    let hasUID = fields.count == 4
    guard let pid = Int(fields[hasUID ? 1 : 0]), let tid = Int(fields[hasUID ? 2 : 1]),
      let level = LogcatLevel(fields[hasUID ? 3 : 2]), rest.first == " "
    else { return nil }
    rest = rest.dropFirst()
    guard
      let colon = rest.firstRange(of: ": ")
        ?? (rest.hasSuffix(":") ? rest.index(before: rest.endIndex)..<rest.endIndex : nil)
    else { return nil }
    var tag = rest[..<colon.lowerBound]
    while tag.last == " " { tag.removeLast() }
    self.init(
      lineNumber: lineNumber, time: time, uid: hasUID ? String(fields[0]) : nil, pid: pid, tid: tid, level: level,
      tag: String(tag), message: String(rest[colon.upperBound...]))
  }
}

/// Month, day and time of day to the millisecond, as logcat prints them.
public struct LogcatTime: Hashable, Sendable, Comparable {
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int
  public var millisecond: Int

  public init(month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
    self.second = second
    self.millisecond = millisecond
  }

  /// `MM-DD HH:MM:SS.mmm` at the start of `bytes`.
  init?(_ bytes: [UInt8]) {
    func number(_ at: Int, _ width: Int) -> Int? {
      var value = 0
      for index in at..<at + width {
        guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        value = value * 10 + Int(bytes[index] - 0x30)
      }
      return value
    }
    guard bytes.count >= 18, bytes[2] == UInt8(ascii: "-"), bytes[5] == 0x20, bytes[8] == UInt8(ascii: ":"),
      bytes[11] == UInt8(ascii: ":"), bytes[14] == UInt8(ascii: "."),
      let month = number(0, 2), let day = number(3, 2), let hour = number(6, 2), let minute = number(9, 2),
      let second = number(12, 2), let millisecond = number(15, 3), (1...12).contains(month), (1...31).contains(day),
      hour < 24, minute < 60, second < 61
    else { return nil }
    self.init(month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
  }

  /// The local time in `year`.
  public func civil(year: Int) -> CivilTime {
    CivilTime(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, microsecond: millisecond * 1000)
  }

  public static func < (a: Self, b: Self) -> Bool {
    (a.month, a.day, a.hour, a.minute, a.second, a.millisecond) < (
      b.month, b.day, b.hour, b.minute, b.second, b.millisecond
    )
  }
}

/// Android log priority, the letter logcat prints.
public enum LogcatLevel: String, Hashable, Sendable {
  case verbose = "V"
  case debug = "D"
  case info = "I"
  case warning = "W"
  case error = "E"
  case fatal = "F"
  case silent = "S"

  init?(_ letter: Substring) { self.init(rawValue: String(letter)) }
}

/// A Bluetooth address as a log line prints it: whole, or with the leading bytes hidden
/// (`XX:XX:XX:XX:5C:54`, newer Android's redaction). It matches every address that has
/// the bytes it shows.
public struct LoggedAddress: Hashable, Sendable, CustomStringConvertible {
  /// The bytes shown, in the low 48 bits as `DeviceAddress` keeps them.
  public var value: UInt64
  /// Which bits `value` knows.
  public var known: UInt64

  /// Parses `AA:BB:CC:DD:EE:FF` where any byte may be `XX`.
  public init?(_ text: some StringProtocol) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 6 else { return nil }
    var value: UInt64 = 0
    var known: UInt64 = 0
    for part in parts {
      value <<= 8
      known <<= 8
      if part == "XX" || part == "xx" { continue }
      guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
      value |= UInt64(byte)
      known |= 0xFF
    }
    guard known != 0 else { return nil }
    self.value = value
    self.known = known
  }

  public init(_ address: DeviceAddress) {
    value = address.rawValue
    known = 0xFFFF_FFFF_FFFF
  }

  /// Some bytes are hidden.
  public var isPartial: Bool { known != 0xFFFF_FFFF_FFFF }

  /// The whole address, when no byte is hidden.
  public var address: DeviceAddress? { isPartial ? nil : DeviceAddress(rawValue: value) }

  public func matches(_ address: DeviceAddress) -> Bool { address.rawValue & known == value }

  public var description: String {
    (0..<6).reversed().map { index -> String in
      guard (known >> (8 * UInt64(index))) & 0xFF != 0 else { return "XX" }
      let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: ":")
  }
}
