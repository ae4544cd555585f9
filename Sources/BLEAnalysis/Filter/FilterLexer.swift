/// A comparison operator, whichever spelling the expression used.
enum FilterComparison: Sendable {
  case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, contains

  var isOrdering: Bool {
    switch self {
    case .less, .lessOrEqual, .greater, .greaterOrEqual: true
    case .equal, .notEqual, .contains: false
    }
  }
}

/// One token of a filter expression with its 1-based column and its source text.
struct FilterToken {
  enum Kind: Equatable {
    /// A field name or an unquoted literal (number, address, byte string, true/false):
    /// its position in the grammar says which.
    case word(String)
    /// A double-quoted string, escapes resolved.
    case string(String)
    case comparison(FilterComparison)
    case and, or, not, open, close, end
    /// `in`, and the braces and commas of its set: `att.opcode in {0x12 0x52}`.
    case `in`, openSet, closeSet, comma
  }

  var kind: Kind
  var column: Int
  var text: String

  /// How messages name the token: `'and'`, `"text"`, `the end of the expression`.
  var shown: String {
    switch kind {
    case .end: "the end of the expression"
    case .string: text
    default: "'\(text)'"
    }
  }
}

/// Splits a filter expression into tokens on demand, so the first error in reading
/// order is the one reported.
struct FilterLexer {
  let characters: [Character]
  let expression: String
  private var index = 0

  init(_ expression: String) {
    self.expression = expression
    self.characters = Array(expression)
  }

  /// The column just past the last character, where "ended too early" errors point.
  var endColumn: Int { characters.count + 1 }

  static let keywords: [String: FilterToken.Kind] = [
    "and": .and, "or": .or, "not": .not,
    "eq": .comparison(.equal), "ne": .comparison(.notEqual), "lt": .comparison(.less),
    "le": .comparison(.lessOrEqual), "gt": .comparison(.greater), "ge": .comparison(.greaterOrEqual),
    "contains": .comparison(.contains), "in": .in,
  ]

  /// Dotted lower-case identifiers: `att`, `att.opcode`, `hci.le.conn_complete.interval`.
  /// Each part starts with a letter or an underscore; keywords are not names.
  static func isFieldName(_ name: String) -> Bool {
    guard keywords[name.lowercased()] == nil else { return false }
    guard name.utf8.allSatisfy({ $0 < 0x80 }) else {
      let parts = name.split(separator: ".", omittingEmptySubsequences: false)
      return parts.allSatisfy { part in
        guard let first = part.first, first == "_" || ("a"..."z").contains(first) else { return false }
        return part.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
      }
    }
    // ASCII, over its bytes (the catalog checks every name at start-up), the same test.
    var partStart = true
    for byte in name.utf8 {
      switch byte {
      case UInt8(ascii: "."):
        guard !partStart else { return false }
        partStart = true
      case UInt8(ascii: "_"), UInt8(ascii: "a")...UInt8(ascii: "z"): partStart = false
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        guard !partStart else { return false }
      default: return false
      }
    }
    return !partStart
  }

  /// Letters, digits and `_ . :`; `-` inside a word too, for UUIDs and negative numbers.
  private static func isWordCharacter(_ character: Character) -> Bool {
    character.isASCII
      && (character.isLetter || character.isNumber || character == "_" || character == "."
        || character == ":")
  }

  private func error(_ column: Int, _ message: String) -> FilterError {
    FilterError(column: column, message: message, expression: expression)
  }

  private func peek(_ offset: Int = 0) -> Character? {
    index + offset < characters.count ? characters[index + offset] : nil
  }

  mutating func next() throws(FilterError) -> FilterToken {
    while let character = peek(), character.isWhitespace { index += 1 }
    let start = index
    let column = start + 1
    guard let character = peek() else { return FilterToken(kind: .end, column: column, text: "") }

    func token(_ kind: FilterToken.Kind, length: Int) -> FilterToken {
      index = start + length
      return FilterToken(kind: kind, column: column, text: String(characters[start..<index]))
    }

    switch (character, peek(1)) {
    case ("=", "="): return token(.comparison(.equal), length: 2)
    case ("!", "="): return token(.comparison(.notEqual), length: 2)
    case ("<", "="): return token(.comparison(.lessOrEqual), length: 2)
    case (">", "="): return token(.comparison(.greaterOrEqual), length: 2)
    case ("<", _): return token(.comparison(.less), length: 1)
    case (">", _): return token(.comparison(.greater), length: 1)
    case ("&", "&"): return token(.and, length: 2)
    case ("|", "|"): return token(.or, length: 2)
    case ("!", _): return token(.not, length: 1)
    case ("(", _): return token(.open, length: 1)
    case (")", _): return token(.close, length: 1)
    case ("{", _): return token(.openSet, length: 1)
    case ("}", _): return token(.closeSet, length: 1)
    case (",", _): return token(.comma, length: 1)
    case ("=", _): throw error(column, "unexpected '='; compare with '=='")
    case ("&", _): throw error(column, "unexpected '&'; use '&&' or 'and'")
    case ("|", _): throw error(column, "unexpected '|'; use '||' or 'or'")
    case ("'", _): throw error(column, "unexpected \"'\"; strings go in double quotes")
    case ("\"", _): return try string(start: start)
    case ("-", let after?) where after.isASCII && after.isNumber: break
    default:
      guard Self.isWordCharacter(character) else { throw error(column, "unexpected character '\(character)'") }
    }

    index += 1
    while let next = peek(), Self.isWordCharacter(next) || (next == "-" && peek(1).map(Self.isWordCharacter) == true) {
      index += 1
    }
    let text = String(characters[start..<index])
    return FilterToken(kind: Self.keywords[text.lowercased()] ?? .word(text), column: column, text: text)
  }

  private mutating func string(start: Int) throws(FilterError) -> FilterToken {
    index = start + 1
    var value = ""
    while let character = peek() {
      index += 1
      switch character {
      case "\"":
        return FilterToken(kind: .string(value), column: start + 1, text: String(characters[start..<index]))
      case "\\":
        guard let escaped = peek() else { break }
        guard escaped == "\"" || escaped == "\\" else {
          throw error(index, "unknown escape '\\\(escaped)' in string; only \\\" and \\\\ are allowed")
        }
        value.append(escaped)
        index += 1
      default:
        value.append(character)
      }
    }
    throw error(endColumn, "unterminated string opened at column \(start + 1)")
  }
}
