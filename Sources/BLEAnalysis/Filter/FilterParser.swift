import BLEDissect

/// A parsed, type-checked filter expression.
indirect enum FilterNode: Equatable, Sendable {
  case and(FilterNode, FilterNode)
  case or(FilterNode, FilterNode)
  case not(FilterNode)
  case present(String)
  case compare(String, FilterComparison, FilterValue)
}

/// Recursive descent over the grammar, checking fields and literals against the catalog
/// as it goes:
///
///     or         := and (("or" | "||") and)*
///     and        := unary (("and" | "&&") unary)*
///     unary      := ("not" | "!") unary | primary
///     primary    := "(" or ")" | FIELD | FIELD COMPARISON LITERAL | FIELD "in" SET
///     SET        := "{" LITERAL ("," | LITERAL)* "}"
///     COMPARISON := == != < <= > >= contains eq ne lt le gt ge
///
/// `FIELD in {a b c}` is read as `FIELD == a or FIELD == b or FIELD == c`.
struct FilterParser<Subject: ~Copyable & ~Escapable> {
  private var lexer: FilterLexer
  private let catalog: FilterCatalog<Subject>
  private var token: FilterToken
  private var previous: FilterToken?
  /// Open parentheses and `not`s around the current token, bounded so a hostile
  /// expression cannot exhaust the stack.
  private var depth = 0
  static var maximumDepth: Int { 100 }
  private(set) var fields: Set<String> = []

  init(_ expression: String, catalog: FilterCatalog<Subject>) throws(FilterError) {
    lexer = FilterLexer(expression)
    self.catalog = catalog
    token = try lexer.next()
  }

  mutating func parse() throws(FilterError) -> FilterNode {
    if token.kind == .end { throw error(1, "empty filter expression") }
    let node = try parseOr()
    switch token.kind {
    case .end: return node
    case .close: throw error(token.column, "unexpected ')' without a matching '('")
    default: throw error(token.column, "expected 'and', 'or' or the end of the expression, found \(token.shown)")
    }
  }

  private func error(_ column: Int, _ message: String) -> FilterError {
    FilterError(column: column, message: message, expression: lexer.expression)
  }

  private mutating func advance() throws(FilterError) {
    previous = token
    token = try lexer.next()
  }

  private mutating func parseOr() throws(FilterError) -> FilterNode {
    var node = try parseAnd()
    while token.kind == .or {
      try advance()
      node = .or(node, try parseAnd())
    }
    return node
  }

  private mutating func parseAnd() throws(FilterError) -> FilterNode {
    var node = try parseUnary()
    while token.kind == .and {
      try advance()
      node = .and(node, try parseUnary())
    }
    return node
  }

  private mutating func parseUnary() throws(FilterError) -> FilterNode {
    guard token.kind == .not else { return try parsePrimary() }
    try nest()
    defer { depth -= 1 }
    try advance()
    return .not(try parseUnary())
  }

  private mutating func nest() throws(FilterError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw error(token.column, "expression nests more than \(Self.maximumDepth) levels deep")
    }
  }

  private mutating func parsePrimary() throws(FilterError) -> FilterNode {
    switch token.kind {
    case .open:
      let open = token
      try nest()
      defer { depth -= 1 }
      try advance()
      let node = try parseOr()
      switch token.kind {
      case .close:
        try advance()
        return node
      case .end:
        throw error(token.column, "unclosed parenthesis opened at column \(open.column)")
      default:
        throw error(
          token.column, "expected ')' to close the parenthesis opened at column \(open.column), found \(token.shown)")
      }
    case .word(let name):
      return try parseField(name)
    case .comparison where previous == nil:
      throw error(token.column, "expected a field name before \(token.shown)")
    default:
      let after = previous.map { " after \($0.shown)" } ?? ""
      let found = token.kind == .end ? "" : ", found \(token.shown)"
      throw error(token.column, "expected a field name\(after)\(found)")
    }
  }

  private mutating func parseField(_ name: String) throws(FilterError) -> FilterNode {
    let field = token
    guard let kind = catalog.kind(of: name) else {
      guard let first = name.first, first.isLetter || first == "_", !name.contains(":") else {
        throw error(field.column, "expected a field name, found \(field.shown)")
      }
      if let new = ShowField.renamed[name] {
        throw error(field.column, "unknown field '\(name)'; schema_version 2 calls it '\(new)'")
      }
      let hint = catalog.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""
      throw error(field.column, "unknown field '\(name)'\(hint)")
    }
    fields.insert(name)
    try advance()
    switch token.kind {
    case .comparison(let comparison):
      let op = token
      try checkOperator(comparison, op, field: name, kind: kind)
      try advance()
      let value = try literal(for: name, kind: kind, after: op)
      try advance()
      return .compare(name, comparison, value)
    case .in:
      let op = token
      try checkOperator(.equal, op, field: name, kind: kind)
      try advance()
      return try parseSet(name, kind: kind, after: op)
    case .word, .string:
      throw error(
        token.column,
        "expected a comparison (==, !=, <, <=, >, >=, contains, in) after '\(name)', found \(token.shown)")
    default:
      return .present(name)
    }
  }

  /// `{0x12 0x52}` after `in`: an `or` of equalities, in the order written.
  private mutating func parseSet(_ name: String, kind: FilterFieldKind, after op: FilterToken) throws(FilterError)
    -> FilterNode
  {
    guard token.kind == .openSet else {
      throw error(token.column, "expected '{' after \(op.shown), found \(token.shown)")
    }
    let open = token
    try advance()
    var node: FilterNode?
    while token.kind != .closeSet {
      switch token.kind {
      case .end: throw error(token.column, "unclosed set opened at column \(open.column)")
      case .comma where node != nil:
        try advance()
        continue
      default: break
      }
      let value = try literal(for: name, kind: kind, after: previous ?? op)
      let term = FilterNode.compare(name, .equal, value)
      node = node.map { .or($0, term) } ?? term
      try advance()
    }
    guard let node else { throw error(token.column, "empty set after \(op.shown)") }
    try advance()
    return node
  }

  private func checkOperator(
    _ comparison: FilterComparison, _ op: FilterToken, field: String, kind: FilterFieldKind
  ) throws(FilterError) {
    let allowed: String
    switch kind {
    case .integer, .decimal:
      guard comparison == .contains else { return }
      allowed = "==, !=, <, <=, > or >="
    case .string, .bytes, .uuid:
      guard comparison.isOrdering else { return }
      allowed = "==, != or contains"
    case .address, .bool:
      guard comparison.isOrdering || comparison == .contains else { return }
      allowed = "== or !="
    case .presence:
      throw error(op.column, "'\(field)' is a presence field; test it alone, like '\(field)' or 'not \(field)'")
    }
    throw error(op.column, "\(op.shown) does not apply to \(kind) field '\(field)'; use \(allowed)")
  }

  /// Reads the literal token against the field's kind: the same word can be an integer
  /// (`10`) or a byte (`10` = 0x10) depending on the field.
  private func literal(for field: String, kind: FilterFieldKind, after op: FilterToken) throws(FilterError)
    -> FilterValue
  {
    let word: String
    switch token.kind {
    case .word(let text): word = text
    case .string(let text):
      switch kind {
      case .string: return .string(text)
      case .uuid:
        guard let uuid = BluetoothUUID(text) else { throw mismatch(field, kind) }
        return .string(uuid.normalized.description)
      case .bytes: return .bytes(Array(text.utf8))
      default: throw mismatch(field, kind)
      }
    case .end: throw error(token.column, "expected a value after \(op.shown)")
    default: throw error(token.column, "expected a value after \(op.shown), found \(token.shown)")
    }
    if catalog.kind(of: word) != nil {
      throw error(token.column, "comparing two fields is not supported; '\(word)' is a field")
    }
    switch kind {
    case .integer:
      if let value = try integer(word) { return .integer(value) }
    case .decimal:
      if let value = try decimal(word) { return .integer(value) }
    case .string:
      // A bare word is the string it spells (`dir == tx`); names with spaces need quotes.
      return .string(word)
    case .uuid:
      if let uuid = BluetoothUUID(word) { return .string(uuid.normalized.description) }
    case .address:
      if let address = DeviceAddress(word) { return .address(address) }
      if word.contains(":") {
        throw error(token.column, "invalid address '\(word)'; write six 2-digit hex groups, like D4:36:39:67:A2:61")
      }
    case .bytes:
      if let bytes = Self.bytes(word) { return .bytes(bytes) }
      if word.contains(":") {
        throw error(token.column, "invalid byte string '\(word)'; write 2 hex digits per byte, like 01:02:0a")
      }
    case .bool:
      switch word.lowercased() {
      case "true": return .bool(true)
      case "false": return .bool(false)
      default: break
      }
    case .presence:
      break
    }
    throw mismatch(field, kind)
  }

  private func mismatch(_ field: String, _ kind: FilterFieldKind) -> FilterError {
    let expected =
      switch kind {
      case .integer: "an integer (like 27 or 0x1b)"
      case .decimal: "a decimal number (like 59.5)"
      case .string: "a string in double quotes"
      case .uuid: "a UUID (like 2a37 or 6e400001-b5a3-f393-e0a9-e50e24dcca9e)"
      case .address: "an address (like D4:36:39:67:A2:61)"
      case .bytes: "bytes (like 01:02:0a)"
      case .bool: "true or false"
      case .presence: "nothing"
      }
    return error(token.column, "expected \(expected) for '\(field)', found \(token.shown)")
  }

  /// Decimal or `0x` hex, optionally negative; nil when the word is not shaped like a
  /// number at all, an error when it is but is malformed or out of range.
  private func integer(_ word: String) throws(FilterError) -> Int64? {
    guard !word.contains(":") else { return nil }
    var digits = Substring(word)
    let negative = digits.first == "-"
    if negative { digits = digits.dropFirst() }
    guard let first = digits.first, first.isASCII, first.isNumber else { return nil }
    var radix = 10
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
      radix = 16
      digits = digits.dropFirst(2)
      guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else {
        throw error(token.column, "invalid hex integer '\(word)'")
      }
    } else if !digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
      let hint = digits.allSatisfy(\.isHexDigit) ? "; hex integers start with 0x" : ""
      throw error(token.column, "invalid integer '\(word)'\(hint)")
    }
    guard let value = Int64((negative ? "-" : "") + digits, radix: radix) else {
      throw error(token.column, "integer '\(word)' is out of range")
    }
    return value
  }

  /// A decimal number in millionths (`59.5` is 59,500,000): up to six decimals,
  /// optionally negative; nil when the word is not shaped like a number.
  private func decimal(_ word: String) throws(FilterError) -> Int64? {
    guard !word.contains(":"), !word.hasPrefix("0x"), !word.hasPrefix("0X") else {
      if word.hasPrefix("0x") || word.hasPrefix("0X") { return try integer(word).map { $0 &* 1_000_000 } }
      return nil
    }
    var digits = Substring(word)
    let negative = digits.first == "-"
    if negative { digits = digits.dropFirst() }
    guard let first = digits.first, first.isASCII, first.isNumber else { return nil }
    let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts[0]
    let fraction = parts.count > 1 ? parts[1] : ""
    guard whole.allSatisfy({ $0.isASCII && $0.isNumber }), fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
      parts.count == 1 || !fraction.isEmpty
    else { throw error(token.column, "invalid decimal number '\(word)'") }
    guard fraction.count <= 6 else {
      throw error(token.column, "decimal number '\(word)' has more than 6 decimals")
    }
    let scaled = whole + fraction + String(repeating: "0", count: 6 - fraction.count)
    guard let value = Int64(scaled) else { throw error(token.column, "decimal number '\(word)' is out of range") }
    return negative ? -value : value
  }

  /// `01:02:0a` or a single `0a`: groups of exactly two hex digits separated by colons.
  static func bytes(_ word: String) -> [UInt8]? {
    var bytes: [UInt8] = []
    for group in word.split(separator: ":", omittingEmptySubsequences: false) {
      guard group.count == 2, group.allSatisfy(\.isHexDigit), let byte = UInt8(group, radix: 16) else { return nil }
      bytes.append(byte)
    }
    return bytes
  }
}
