/// What `show`'s text alone can change: the time column (`-t`), a hex dump under each
/// line (`-x`) and colour.
public struct TextShowOptions: Sendable {
  /// The time column, in tshark's letters.
  public enum Time: String, Sendable, CaseIterable {
    /// Seconds since the capture's first record.
    case relative = "r"
    /// Time of day, UTC.
    case absolute = "a"
    /// Date and time of day, UTC.
    case absoluteWithDate = "ad"
    /// Seconds since the record shown before.
    case delta = "d"
    /// Unix seconds.
    case epoch = "e"
  }

  public var time: Time
  public var hexDump: Bool
  public var color: Bool
  /// Cut each record's line to this many columns, ending it with `…` (a terminal's width);
  /// nil: whole lines.
  public var width: Int?

  public init(time: Time = .relative, hexDump: Bool = false, color: Bool = false, width: Int? = nil) {
    self.time = time
    self.hexDump = hexDump
    self.color = color
    self.width = width
  }
}

extension OutputBuffer {
  /// Cuts what was appended since `start` (one line, no newline yet) to `width` columns,
  /// the last one `…`, when it is wider. Colour sequences take no column; a cut line ends
  /// with a reset when `color`.
  mutating func fit(from start: Int, width: Int, color: Bool) {
    guard width > 1 else { return }
    let cut: Int? = withUnsafeBytes { bytes in
      var columns = 0
      var i = start
      var keep: Int?
      while i < bytes.count {
        if bytes[i] == 0x1B {
          // CSI: ESC [ parameters final byte.
          i += 1
          if i < bytes.count, bytes[i] == 0x5B { i += 1 }
          while i < bytes.count, !(0x40...0x7E).contains(bytes[i]) { i += 1 }
          i += 1
          continue
        }
        if bytes[i] & 0xC0 != 0x80 {
          if columns == width - 1 { keep = i }
          columns += 1
          if columns > width { return keep }
        }
        i += 1
      }
      return nil
    }
    guard let cut else { return }
    truncate(to: cut)
    append(string: "…")
    if color { append(TextColor.reset) }
  }
}

/// The ANSI SGR sequences of the text's colours, in the style of `ip -c` and btmon:
/// direction, errors, warnings.
/// Paints the lines of a text report (`timeline`, `app`) for a terminal: `paint` says each
/// line's colour, nil for none.
enum LinePainter {
  /// A text report of one capture (`timeline`, `app`): its `# FILE: FORMAT` line, as show and
  /// stats begin, for one file as for many; then what `body` writes, painted when `color`.
  static func report(
    path: String, format: String, color: Bool, into out: inout OutputBuffer, _ body: (inout OutputBuffer) -> Void
  ) {
    out.append("# ")
    out.append(string: path)
    out.append(": ")
    out.append(string: format)
    out.append("\n")
    painted(color, into: &out, body)
  }

  /// What `body` writes, painted by `report` when `color`.
  static func painted(_ color: Bool, into out: inout OutputBuffer, _ body: (inout OutputBuffer) -> Void) {
    guard color else { return body(&out) }
    var text = OutputBuffer(fd: -1)
    body(&text)
    paint(text, into: &out, report)
  }

  static func paint(
    _ text: borrowing OutputBuffer, into out: inout OutputBuffer, _ colour: (Substring) -> StaticString?
  ) {
    let all = String(decoding: text.bytes, as: UTF8.self)
    for line in all.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      if let c = colour(line) {
        out.append(c)
        out.append(string: String(line))
        out.append(TextColor.reset)
      } else {
        out.append(string: String(line))
      }
      out.append("\n")
    }
  }

  /// A call or event that went wrong, and the stack's own lines.
  static func report(_ line: Substring) -> StaticString? {
    if line.contains("stack: ") { return TextColor.info }
    if line.contains(" error") || line.contains("failed") || line.contains("no answer") || line.contains("no response")
      || line.contains("timed out") || line.contains("cancelled")
    {
      return TextColor.error
    }
    if line.contains("finding") || line.contains("warning") { return TextColor.warning }
    return nil
  }
}

enum TextColor {
  static let sent: StaticString = "\u{1B}[32m"
  static let received: StaticString = "\u{1B}[36m"
  static let error: StaticString = "\u{1B}[31m"
  static let warning: StaticString = "\u{1B}[33m"
  static let info: StaticString = "\u{1B}[2m"
  static let reset: StaticString = "\u{1B}[0m"
}
