/// Why a filter expression was rejected, with the 1-based column (in characters) of the
/// offending token; a column one past the end means the expression ended too early.
public struct FilterError: Error, Equatable, Sendable, CustomStringConvertible {
  public var column: Int
  public var message: String
  public var expression: String

  public init(column: Int, message: String, expression: String) {
    self.column = column
    self.message = message
    self.expression = expression
  }

  /// Two lines: the expression, then a caret under the column.
  ///
  ///     att.opcode == 0x1g
  ///                   ^
  ///
  /// Tabs before the column are repeated so the caret lines up; line breaks in the
  /// expression print as spaces.
  public var pointer: String {
    var line = ""
    var caret = ""
    for (index, character) in expression.enumerated() {
      let shown: Character = character.isNewline ? " " : character
      line.append(shown)
      if index < column - 1 { caret.append(shown == "\t" ? "\t" : " ") }
    }
    if column - 1 > expression.count {
      caret += String(repeating: " ", count: column - 1 - expression.count)
    }
    return line + "\n" + caret + "^"
  }

  /// `column 15: invalid hex integer '0x1g'` followed by the two pointer lines.
  public var description: String { "column \(column): \(message)\n\(pointer)" }
}
