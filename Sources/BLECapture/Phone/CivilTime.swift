/// A calendar date and time of day without a zone (a logcat line's `05-14 11:30:00.719`
/// with the year added, or the same instant in UTC), proleptic Gregorian.
public struct CivilTime: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var year: Int
  /// 1...12
  public var month: Int
  /// 1...31
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int
  /// 0...999_999
  public var microsecond: Int

  public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
    self.year = year
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
    self.second = second
    self.microsecond = microsecond
  }

  /// The fields of `unixMicroseconds` read as if it were UTC (or, with an offset added, as a
  /// local time).
  public init(unixMicroseconds: Int64) {
    let (seconds, micros) = Timestamp(unixMicroseconds: unixMicroseconds).secondsAndMicroseconds
    let (days, rest) = seconds.quotientAndRemainder(dividingBy: 86_400)
    let (dayIndex, secondOfDay) = rest < 0 ? (days - 1, rest + 86_400) : (days, rest)
    let date = Self.civil(fromDays: Int(dayIndex))
    self.init(
      year: date.year, month: date.month, day: date.day, hour: Int(secondOfDay / 3600),
      minute: Int(secondOfDay / 60 % 60), second: Int(secondOfDay % 60), microsecond: Int(micros))
  }

  /// The fields read as UTC, in Unix microseconds.
  public var unixMicroseconds: Int64 {
    let days = Int64(Self.days(year: year, month: month, day: day))
    return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000_000 + Int64(second) * 1_000_000
      + Int64(microsecond)
  }

  /// Days since 1970-01-01 of a date (`month` 1...12), counted from March so that the
  /// leap day ends the year; eras of 400 years repeat.
  public static func days(year: Int, month: Int, day: Int) -> Int {
    let y = year - (month <= 2 ? 1 : 0)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date `days` after 1970-01-01.
  public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  public static func < (a: Self, b: Self) -> Bool {
    a.unixMicroseconds < b.unixMicroseconds
  }

  /// `2024-05-14 09:30:00.000036`
  public var description: String {
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))."
      + pad(microsecond, 6)
  }
}
