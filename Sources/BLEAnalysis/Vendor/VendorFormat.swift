/// The few number formats vendor protocol messages share in text: durations in
/// seconds with one decimal, byte counts with thousands separators.
public enum VendorFormat {
  /// `4.2 s`.
  public static func seconds(_ microseconds: Int64) -> String {
    let tenths = (microseconds + 50_000) / 100_000
    return "\(tenths / 10).\(tenths % 10) s"
  }

  /// `12,288`.
  public static func bytes(_ count: Int) -> String {
    let digits = String(count.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(digit)
    }
    return count < 0 ? "-" + out : out
  }
}
