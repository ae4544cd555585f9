#if canImport(Glibc)
  import Glibc
#endif

/// A time zone's offsets from UTC over time, read from the system's tz database (TZif
/// files, RFC 8536, in `$TZDIR` or /usr/share/zoneinfo), so that a phone's local log
/// times (`persist.sys.timezone`: `Europe/Berlin`) become Unix time with the right
/// daylight saving. Foundation's `TimeZone` knows these names on Linux only through ICU,
/// which the tool does not otherwise load; the tests check that both agree.
///
/// Times past the file's last transition follow its footer rule (POSIX TZ,
/// `CET-1CEST,M3.5.0,M10.5.0/3`), as "slim" TZif files need.
public struct ZoneInfo: Sendable, Hashable {
  public let name: String
  /// Unix seconds at which an offset starts, ascending, and the offset (seconds east of
  /// UTC) in force from each.
  let transitions: [Int64]
  let offsets: [Int32]
  /// Before the first transition.
  let initialOffset: Int32
  let rule: Rule?

  /// The zone named `name` (an IANA name), or nil when the name is not one or no tz
  /// database file for it is installed.
  public static func named(_ name: String, directory: String? = nil) -> ZoneInfo? {
    let allowed = name.utf8.allSatisfy {
      ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || "_+-/".utf8.contains($0)
    }
    guard !name.isEmpty, name.utf8.count < 128, allowed, !name.hasPrefix("/"),
      !name.split(separator: "/").contains("..")
    else { return nil }
    let root = directory ?? getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
    guard let file = try? MappedFile(path: root + "/" + name), file.bytes.count < 1 << 20 else { return nil }
    return parse(file.bytes, name: name)
  }

  /// A fixed offset, for a zone known only by its offset.
  public init(name: String, fixedOffset seconds: Int) {
    self.init(name: name, transitions: [], offsets: [], initialOffset: Int32(clamping: seconds), rule: nil)
  }

  init(name: String, transitions: [Int64], offsets: [Int32], initialOffset: Int32, rule: Rule?) {
    self.name = name
    self.transitions = transitions
    self.offsets = offsets
    self.initialOffset = initialOffset
    self.rule = rule
  }

  /// Seconds east of UTC in force at `unixSeconds`.
  public func offset(atUnixSeconds time: Int64) -> Int {
    if let last = transitions.last, time >= last, let rule {
      return rule.offset(atUnixSeconds: time)
    }
    if transitions.isEmpty, let rule { return rule.offset(atUnixSeconds: time) }
    // The last transition at or before `time`.
    var low = 0
    var high = transitions.count
    while low < high {
      let mid = (low + high) / 2
      if transitions[mid] <= time { low = mid + 1 } else { high = mid }
    }
    return Int(low == 0 ? initialOffset : offsets[low - 1])
  }

  /// The Unix time of a local wall-clock time. In the hour a clock repeats (autumn),
  /// the first; in the hour it skips (spring), the offset before the change applies.
  public func unixMicroseconds(local: CivilTime) -> Int64 {
    let wall = local.unixMicroseconds
    let seconds = wall / 1_000_000
    let first = Int64(offset(atUnixSeconds: seconds))
    let second = Int64(offset(atUnixSeconds: seconds - first))
    let earlier = Int64(offset(atUnixSeconds: seconds - max(first, second)))
    return wall - max(first, second, earlier) * 1_000_000
  }

  // MARK: - TZif

  /// Version 1 block first (32-bit times); a version 2+ file repeats the data with 64-bit
  /// times after it, then a newline-framed POSIX TZ footer.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, name: String) -> ZoneInfo? {
    guard bytes.count >= 44, bytes.starts(with: Array("TZif".utf8)) else { return nil }
    let version = bytes[4]
    func counts(at header: Int) -> [Int]? {
      guard header + 44 <= bytes.count else { return nil }
      return (0..<6).map { Int(bytes.bigEndian32(at: header + 20 + 4 * $0)) }
    }
    var header = 0
    guard var c = counts(at: 0) else { return nil }
    var timeSize = 4
    func blockLength(_ c: [Int], _ timeSize: Int) -> Int {
      // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
      c[3] * timeSize + c[3] + c[4] * 6 + c[5] + c[2] * (timeSize + 4) + c[1] + c[0]
    }
    guard c.allSatisfy({ $0 < 1 << 20 }) else { return nil }
    if version >= 0x32 {
      header = 44 + blockLength(c, 4)
      guard let c2 = counts(at: header), c2.allSatisfy({ $0 < 1 << 20 }) else { return nil }
      c = c2
      timeSize = 8
    }
    let timeCount = c[3]
    let typeCount = c[4]
    var at = header + 44
    guard typeCount > 0, blockLength(c, timeSize) <= bytes.count - at else { return nil }
    var transitions: [Int64] = []
    for i in 0..<timeCount {
      transitions.append(
        timeSize == 8
          ? Int64(bitPattern: bytes.bigEndian64(at: at + 8 * i))
          : Int64(Int32(bitPattern: bytes.bigEndian32(at: at + 4 * i))))
    }
    at += timeCount * timeSize
    let indices = (0..<timeCount).map { Int(bytes[at + $0]) }
    at += timeCount
    let typeOffsets = (0..<typeCount).map { Int32(bitPattern: bytes.bigEndian32(at: at + 6 * $0)) }
    guard indices.allSatisfy({ $0 < typeCount }) else { return nil }
    var rule: Rule?
    if version >= 0x32 {
      let footer = header + 44 + blockLength(c, timeSize)
      if footer < bytes.count, bytes[footer] == 0x0A {
        let text = bytes[(footer + 1)...].prefix { $0 != 0x0A }
        rule = Rule(String(decoding: text, as: UTF8.self))
      }
    }
    return ZoneInfo(
      name: name, transitions: transitions, offsets: indices.map { typeOffsets[$0] }, initialOffset: typeOffsets[0],
      rule: rule)
  }

  // MARK: - POSIX TZ rule

  /// `std offset [dst [offset] [,start[/time],end[/time]]]`, dates as `Mm.w.d` (week w of
  /// month m, 5 = last; day d, 0 = Sunday), `Jn` or `n`. Offsets in POSIX are west of UTC.
  struct Rule: Sendable, Hashable {
    var standard: Int
    var daylight: Int?
    var start: DateRule?
    var end: DateRule?

    struct DateRule: Sendable, Hashable {
      enum Kind: Sendable, Hashable {
        case monthWeekDay(month: Int, week: Int, weekday: Int)
        case julianNoLeap(Int)
        case zeroBased(Int)
      }
      var kind: Kind
      /// Seconds after local midnight (may be negative or past 24 h).
      var time: Int

      /// Days since 1970-01-01 of the rule's date in `year`.
      func day(in year: Int) -> Int {
        switch kind {
        case .monthWeekDay(let month, let week, let weekday):
          let first = CivilTime.days(year: year, month: month, day: 1)
          // 1970-01-01 was a Thursday (4).
          let firstWeekday = ((first % 7) + 7 + 4) % 7
          var day = first + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
          let nextMonth =
            month == 12
            ? CivilTime.days(year: year + 1, month: 1, day: 1) : CivilTime.days(year: year, month: month + 1, day: 1)
          while day >= nextMonth { day -= 7 }
          return day
        case .julianNoLeap(let n):
          let base = CivilTime.days(year: year, month: 1, day: 1) + n - 1
          let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
          return base + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
          return CivilTime.days(year: year, month: 1, day: 1) + n
        }
      }
    }

    init?(_ text: String) {
      var scanner = Substring(text)
      guard Self.skipName(&scanner), let std = Self.offset(&scanner) else { return nil }
      standard = -std
      guard !scanner.isEmpty else { return }
      guard Self.skipName(&scanner) else { return nil }
      if let dst = Self.offset(&scanner) { daylight = -dst } else { daylight = standard + 3600 }
      guard scanner.first == "," else { return nil }
      scanner.removeFirst()
      guard let start = Self.date(&scanner), scanner.first == "," else { return nil }
      scanner.removeFirst()
      guard let end = Self.date(&scanner) else { return nil }
      self.start = start
      self.end = end
    }

    func offset(atUnixSeconds time: Int64) -> Int {
      guard let daylight, let start, let end else { return standard }
      let year = CivilTime(unixMicroseconds: (time + Int64(standard)) * 1_000_000).year
      // Start is given in standard local time, end in daylight local time.
      let begins = Int64(start.day(in: year)) * 86_400 + Int64(start.time) - Int64(standard)
      let ends = Int64(end.day(in: year)) * 86_400 + Int64(end.time) - Int64(daylight)
      let inDaylight = begins < ends ? (time >= begins && time < ends) : !(time >= ends && time < begins)
      return inDaylight ? daylight : standard
    }

    private static func skipName(_ s: inout Substring) -> Bool {
      if s.first == "<" {
        guard let close = s.firstIndex(of: ">") else { return false }
        s = s[s.index(after: close)...]
        return true
      }
      let name = s.prefix { $0.isLetter }
      guard name.count >= 3 else { return false }
      s = s.dropFirst(name.count)
      return true
    }

    /// `[+-]hh[:mm[:ss]]` in seconds; nil when none is there.
    private static func offset(_ s: inout Substring) -> Int? {
      var sign = 1
      if s.first == "+" || s.first == "-" {
        sign = s.first == "-" ? -1 : 1
        s.removeFirst()
      }
      guard let time = Self.time(&s) else { return nil }
      return sign * time
    }

    private static func time(_ s: inout Substring) -> Int? {
      var parts: [Int] = []
      while parts.count < 3 {
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 3, let value = Int(digits) else { break }
        parts.append(value)
        s = s.dropFirst(digits.count)
        guard s.first == ":" else { break }
        s.removeFirst()
      }
      guard !parts.isEmpty else { return nil }
      return parts[0] * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0)
    }

    private static func date(_ s: inout Substring) -> DateRule? {
      let kind: DateRule.Kind
      func number() -> Int? {
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 3 else { return nil }
        s = s.dropFirst(digits.count)
        return Int(digits)
      }
      if s.first == "M" {
        s.removeFirst()
        guard let m = number(), s.first == "." else { return nil }
        s.removeFirst()
        guard let w = number(), s.first == "." else { return nil }
        s.removeFirst()
        guard let d = number(), (1...12).contains(m), (1...5).contains(w), (0...6).contains(d) else { return nil }
        kind = .monthWeekDay(month: m, week: w, weekday: d)
      } else if s.first == "J" {
        s.removeFirst()
        guard let n = number(), (1...365).contains(n) else { return nil }
        kind = .julianNoLeap(n)
      } else {
        guard let n = number(), (0...365).contains(n) else { return nil }
        kind = .zeroBased(n)
      }
      var time = 7200
      if s.first == "/" {
        s.removeFirst()
        guard let t = offset(&s) else { return nil }
        time = t
      }
      return DateRule(kind: kind, time: time)
    }
  }
}
