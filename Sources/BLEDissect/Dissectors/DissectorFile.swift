/// Reads `*.dissector` files (Dissectors/README.md): headers at the left margin, the
/// fields of a value indented under them, `bit` lines and continued `N=Name` lines
/// indented under a field, group members under their group. Any text either parses or
/// throws a `DissectorError` that points at the line and column; nothing traps.
public enum DissectorFile {
  /// Every header of a file, in order.
  public static func parse(path: String, text: String) throws(DissectorError) -> [DissectorFormat] {
    try parse(path: path, text: Substring(text), firstLine: 1, isBuiltin: false)
  }

  /// Lines of `text` numbered from `firstLine` (a block of a larger file).
  static func parse(
    path: String, text: Substring, firstLine: Int, isBuiltin: Bool
  ) throws(DissectorError) -> [DissectorFormat] {
    var parser = DissectorParser(path: path)
    var lines: [SourceLine] = []
    var number = firstLine
    // "\r\n" is one Character, so CRLF files are split on it too.
    for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      if let tokens = try parser.tokenize(line, number: number) { lines.append(tokens) }
      number += 1
    }
    var index = 0
    let nodes = try parser.block(lines, &index, indent: 0, depth: 0)
    var formats: [DissectorFormat] = []
    var seen: [UInt128: Int] = [:]
    for node in nodes {
      var format = try parser.header(node)
      format.isBuiltin = isBuiltin
      if let first = seen[format.uuid.value] {
        throw parser.error(
          node.line.number, node.line.tokens[1].column, "\(format.uuid) is already defined on line \(first)")
      }
      seen[format.uuid.value] = format.line
      formats.append(format)
    }
    return formats
  }

  /// The kind, UUID and name of a header line (one at the left margin), without parsing
  /// its fields: what the built-in index needs. Nil for any other line.
  static func headerSummary(_ line: Substring) -> (kind: DissectorFormat.Kind, uuid: BluetoothUUID, name: String)? {
    guard let first = line.first, first != " ", first != "#" else { return nil }
    let parser = DissectorParser(path: "")
    guard let tokens = try? parser.tokenize(line, number: 1)?.tokens, tokens.count >= 3,
      tokens[0].key == nil, let kind = DissectorFormat.Kind(rawValue: tokens[0].value),
      let uuid = BluetoothUUID(tokens[1].value), tokens[2].quoted
    else { return nil }
    return (kind, uuid.normalized, tokens[2].value)
  }
}

/// One word of a line: `field`, `"Heart Rate"`, `unit=bpm`, `0="Not supported"`.
struct Token {
  /// The part before `=`, when there is one.
  var key: String?
  /// The word, the string without its quotes, or the part after `=`.
  var value: String
  /// The value was a quoted string.
  var quoted: Bool
  var column: Int
  var valueColumn: Int
}

struct SourceLine {
  var number: Int
  var indent: Int
  var tokens: [Token]
  /// Characters on the line, for errors about what is missing at its end.
  var length: Int
}

struct Node {
  var line: SourceLine
  var children: [Node] = []
}

struct DissectorParser {
  let path: String
  /// Integer fields and bits defined so far in the current format, for `if=`,
  /// `repeat=` and `length=` (one namespace per format).
  var integers: Set<String> = []
  /// Every id defined so far in the current format.
  var known: Set<String> = []

  static let maximumDepth = 16

  init(path: String) {
    self.path = path
  }

  func error(_ line: Int, _ column: Int, _ message: String) -> DissectorError {
    DissectorError(path: path, line: line, column: column, message)
  }

  // MARK: - Lines and tokens

  /// The tokens of a line, or nil for a blank or comment line.
  func tokenize(_ line: Substring, number: Int) throws(DissectorError) -> SourceLine? {
    let chars = Array(line)
    var i = 0
    while i < chars.count, chars[i] == " " { i += 1 }
    let indent = i
    if i < chars.count, chars[i] == "\t" {
      throw error(number, i + 1, "indent with spaces, not tabs")
    }
    var tokens: [Token] = []
    func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" }
    func quoted() throws(DissectorError) -> String {
      let start = i
      i += 1
      var text = ""
      while true {
        guard i < chars.count else { throw error(number, start + 1, "unterminated string") }
        let c = chars[i]
        if c == "\"" {
          i += 1
          return text
        }
        if c == "\\" {
          guard i + 1 < chars.count, chars[i + 1] == "\"" || chars[i + 1] == "\\" else {
            throw error(number, i + 1, "unknown escape in a string; write \\\" or \\\\")
          }
          i += 1
        }
        text.append(chars[i])
        i += 1
      }
    }
    while true {
      while i < chars.count, isSpace(chars[i]) { i += 1 }
      guard i < chars.count, chars[i] != "#" else { break }
      let start = i
      if chars[i] == "\"" {
        let text = try quoted()
        tokens.append(Token(key: nil, value: text, quoted: true, column: start + 1, valueColumn: start + 1))
      } else {
        while i < chars.count, !isSpace(chars[i]), chars[i] != "=", chars[i] != "\"" { i += 1 }
        let word = String(chars[start..<i])
        if i < chars.count, chars[i] == "=" {
          guard !word.isEmpty else { throw error(number, start + 1, "missing name before '='") }
          i += 1
          let valueStart = i
          if i < chars.count, chars[i] == "\"" {
            let text = try quoted()
            tokens.append(Token(key: word, value: text, quoted: true, column: start + 1, valueColumn: valueStart + 1))
          } else {
            while i < chars.count, !isSpace(chars[i]) { i += 1 }
            guard i > valueStart else { throw error(number, start + 1, "missing value after '\(word)='") }
            let value = String(chars[valueStart..<i])
            tokens.append(Token(key: word, value: value, quoted: false, column: start + 1, valueColumn: valueStart + 1))
          }
        } else if i < chars.count, chars[i] == "\"" {
          throw error(number, i + 1, "unexpected '\"' inside '\(word)'")
        } else {
          tokens.append(Token(key: nil, value: word, quoted: false, column: start + 1, valueColumn: start + 1))
        }
      }
      if i < chars.count, !isSpace(chars[i]) {
        throw error(number, i + 1, "expected a space after '\(String(chars[start..<i]))'")
      }
    }
    return tokens.isEmpty ? nil : SourceLine(number: number, indent: indent, tokens: tokens, length: chars.count)
  }

  /// The lines from `index` indented by `indent`, each with the deeper lines below it.
  func block(_ lines: [SourceLine], _ index: inout Int, indent: Int, depth: Int) throws(DissectorError) -> [Node] {
    guard depth <= Self.maximumDepth else {
      throw error(lines[index].number, lines[index].indent + 1, "nested more than \(Self.maximumDepth) levels deep")
    }
    var nodes: [Node] = []
    while index < lines.count {
      let line = lines[index]
      if line.indent < indent { break }
      if line.indent > indent {
        guard let last = nodes.indices.last, nodes[last].children.isEmpty else {
          throw error(
            line.number, line.indent + 1,
            nodes.isEmpty
              ? "indented line outside a characteristic, descriptor or service"
              : "indentation does not match any line above")
        }
        nodes[last].children = try block(lines, &index, indent: line.indent, depth: depth + 1)
        continue
      }
      nodes.append(Node(line: line))
      index += 1
    }
    return nodes
  }

  // MARK: - Headers and fields

  mutating func header(_ node: Node) throws(DissectorError) -> DissectorFormat {
    let line = node.line
    let keyword = line.tokens[0]
    guard keyword.key == nil, !keyword.quoted, let kind = DissectorFormat.Kind(rawValue: keyword.value) else {
      throw error(
        line.number, keyword.column, "expected 'characteristic', 'descriptor' or 'service', found '\(keyword.value)'")
    }
    guard line.tokens.count > 1 else { throw error(line.number, line.length + 1, "missing UUID after '\(kind)'") }
    let uuidToken = line.tokens[1]
    guard uuidToken.key == nil, !uuidToken.quoted, let uuid = BluetoothUUID(uuidToken.value) else {
      throw error(
        line.number, uuidToken.column,
        "bad UUID '\(uuidToken.value)'; write 4 or 8 hex digits, or the 36-character form")
    }
    let name = try quotedName(line, at: 2, after: "the UUID")
    if line.tokens.count > 3 {
      throw error(line.number, line.tokens[3].column, "unexpected '\(text(of: line.tokens[3]))' after the name")
    }
    integers = []
    known = []
    let fields = try fieldList(node.children, depth: 1)
    if kind == .service, let first = node.children.first {
      throw error(first.line.number, first.line.indent + 1, "a service has no value to decode; only name it")
    }
    return DissectorFormat(uuid: uuid, kind: kind, name: name, fields: fields, path: path, line: line.number)
  }

  /// The token as written, for messages.
  func text(of token: Token) -> String {
    (token.key.map { $0 + "=" } ?? "") + (token.quoted ? "\"\(token.value)\"" : token.value)
  }

  func quotedName(_ line: SourceLine, at index: Int, after what: String) throws(DissectorError) -> String {
    guard index < line.tokens.count else {
      throw error(line.number, line.length + 1, "missing quoted name after \(what)")
    }
    let token = line.tokens[index]
    guard token.key == nil, token.quoted else {
      throw error(line.number, token.column, "expected a quoted name after \(what), found '\(text(of: token))'")
    }
    guard !token.value.isEmpty else { throw error(line.number, token.column, "empty name") }
    return token.value
  }

  func identifier(_ line: SourceLine, at index: Int, after what: String) throws(DissectorError) -> String {
    guard index < line.tokens.count else { throw error(line.number, line.length + 1, "missing id after \(what)") }
    let token = line.tokens[index]
    guard token.key == nil, !token.quoted, Self.isIdentifier(token.value) else {
      throw error(
        line.number, token.column,
        "bad id '\(text(of: token))'; use letters, digits and '_', starting with a letter")
    }
    return token.value
  }

  static func isIdentifier(_ text: some StringProtocol) -> Bool {
    guard let first = text.unicodeScalars.first, first.isASCIILetter, text.unicodeScalars.count <= 64 else {
      return false
    }
    return text.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
  }

  /// The `field` and `group` lines of a header or group.
  mutating func fieldList(_ nodes: [Node], depth: Int) throws(DissectorError) -> [DissectorField] {
    var fields: [DissectorField] = []
    for node in nodes {
      let field = try self.field(node, depth: depth)
      if let previous = fields.last(where: { $0.id == field.id }),
        previous.conditions.isEmpty || field.conditions.isEmpty
      {
        throw error(
          field.line, node.line.tokens[1].column,
          "'\(field.id)' is already a field on line \(previous.line); two fields may share an id only when both have if="
        )
      }
      if let last = fields.last, last.conditions.isEmpty, let reason = last.readsToEnd {
        throw error(
          field.line, field.column,
          "'\(field.id)' can never be decoded: '\(last.id)' on line \(last.line) \(reason)")
      }
      fields.append(field)
    }
    return fields
  }

  mutating func field(_ node: Node, depth: Int) throws(DissectorError) -> DissectorField {
    let line = node.line
    let keyword = line.tokens[0]
    switch (keyword.key, keyword.quoted, keyword.value) {
    case (nil, false, "field"):
      let id = try identifier(line, at: 1, after: "'field'")
      guard line.tokens.count > 2 else { throw error(line.number, line.length + 1, "missing type after '\(id)'") }
      let typeToken = line.tokens[2]
      guard typeToken.key == nil, !typeToken.quoted, let type = DissectorType.bySpelling[typeToken.value] else {
        throw error(
          line.number, typeToken.column,
          "unknown type '\(text(of: typeToken))'; expected u8-u64, s8-s64 (be suffix for big-endian), "
            + "f32, f64, sfloat, float, utf8, bytes, uuid16, uuid32, uuid128 or uuid")
      }
      let name = try quotedName(line, at: 3, after: "the type")
      var field = DissectorField(id: id, name: name, type: type, line: line.number, column: keyword.column)
      try attributes(line.tokens.dropFirst(4), line: line.number, into: &field)
      for child in node.children { try fieldChild(child, into: &field) }
      try checkReferences(field, line: line)
      known.insert(id)
      if type.isInteger { integers.insert(id) }
      for bits in field.bits {
        known.insert(bits.id)
        integers.insert(bits.id)
      }
      return field
    case (nil, false, "group"):
      let id = try identifier(line, at: 1, after: "'group'")
      let name = try quotedName(line, at: 2, after: "the id")
      var field = DissectorField(id: id, name: name, type: .group, line: line.number, column: keyword.column)
      try attributes(line.tokens.dropFirst(3), line: line.number, into: &field)
      try checkReferences(field, line: line)
      guard !node.children.isEmpty else {
        throw error(line.number, keyword.column, "group '\(id)' has no fields; indent them under it")
      }
      field.children = try fieldList(node.children, depth: depth + 1)
      known.insert(id)
      return field
    default:
      throw error(line.number, keyword.column, "expected 'field' or 'group', found '\(text(of: keyword))'")
    }
  }

  /// A line under a field: `bit`, `bits`, or more `N=Name` values.
  mutating func fieldChild(_ node: Node, into field: inout DissectorField) throws(DissectorError) {
    let line = node.line
    let keyword = line.tokens[0]
    if keyword.key != nil {
      guard node.children.isEmpty else {
        throw error(node.children[0].line.number, node.children[0].line.indent + 1, "unexpected indentation")
      }
      try attributes(line.tokens[...], line: line.number, into: &field, onlyValues: true)
      return
    }
    guard !keyword.quoted, keyword.value == "bit" || keyword.value == "bits" else {
      throw error(
        line.number, keyword.column,
        "expected 'bit', 'bits' or N=Name under a field, found '\(text(of: keyword))'")
    }
    guard case .unsigned(let size, _) = field.type else {
      throw error(line.number, keyword.column, "bits belong to an unsigned integer field, not \(field.type.spelling)")
    }
    guard line.tokens.count > 1 else { throw error(line.number, line.length + 1, "missing bit number") }
    let position = line.tokens[1]
    let range: (low: Int, high: Int)?
    if keyword.value == "bit" {
      range = Int(position.value).map { ($0, $0) }
    } else {
      let parts = position.value.split(separator: "-", omittingEmptySubsequences: false)
      if parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]) {
        range = (low, high)
      } else {
        range = nil
      }
    }
    guard position.key == nil, !position.quoted, let range else {
      throw error(
        line.number, position.column,
        keyword.value == "bit"
          ? "expected a bit number, found '\(text(of: position))'"
          : "expected a bit range such as 1-2, found '\(text(of: position))'")
    }
    guard range.low >= 0, range.low <= range.high, range.high < size * 8 else {
      throw error(
        line.number, position.column,
        "bits \(position.value) do not fit \(field.type.spelling) (bits 0-\(size * 8 - 1))")
    }
    let id = try identifier(line, at: 2, after: "the bit number")
    if field.bits.contains(where: { $0.id == id }) {
      throw error(line.number, line.tokens[2].column, "'\(id)' is already a bit of '\(field.id)'")
    }
    let name = try quotedName(line, at: 3, after: "the id")
    var holder = DissectorField(id: id, name: name, type: field.type)
    try attributes(line.tokens.dropFirst(4), line: line.number, into: &holder, onlyValues: true)
    for child in node.children {
      guard child.line.tokens[0].key != nil, child.children.isEmpty else {
        throw error(
          child.line.number, child.line.tokens[0].column, "only N=Name values can continue a bit's line")
      }
      try attributes(child.line.tokens[...], line: child.line.number, into: &holder, onlyValues: true)
    }
    field.bits.append(
      DissectorBits(
        low: range.low, high: range.high, id: id, name: name, enumeration: holder.enumeration, line: line.number,
        column: keyword.column))
  }

  // MARK: - Attributes

  /// `unit=`, `scale=`, `if=`… and `N=Name` (only those with `onlyValues`).
  func attributes(
    _ tokens: ArraySlice<Token>, line: Int, into field: inout DissectorField, onlyValues: Bool = false
  ) throws(DissectorError) {
    var given: Set<String> = []
    for token in tokens {
      let key = token.key ?? token.value
      func fail(_ message: String) -> DissectorError { error(line, token.valueColumn, message) }
      if let keyText = token.key, keyText.first == "-" || keyText.first?.isNumber == true {
        guard let value = Self.integer(keyText) else {
          throw error(line, token.column, "bad value '\(keyText)'; write a decimal or 0x number")
        }
        guard field.type.isInteger else {
          throw error(line, token.column, "named values belong to integers, not \(field.type.spelling)")
        }
        guard !token.value.isEmpty else { throw fail("empty name") }
        guard !field.enumeration.contains(where: { $0.value == value }) else {
          throw error(line, token.column, "value \(keyText) is already named")
        }
        field.enumeration.append(DissectorEnumValue(value: value, name: token.value))
        continue
      }
      if onlyValues {
        throw error(line, token.column, "expected N=Name, found '\(text(of: token))'")
      }
      if token.quoted && token.key == nil {
        throw error(line, token.column, "unexpected string \"\(token.value)\"")
      }
      if key != "if" {
        guard given.insert(key).inserted else { throw error(line, token.column, "'\(key)' given twice") }
      }
      let type = field.type
      func requireNumeric() throws(DissectorError) {
        guard type.isNumeric else {
          throw error(line, token.column, "'\(key)=' applies to numbers, not \(type.spelling)")
        }
      }
      switch (key, token.key != nil) {
      case ("unit", true):
        try requireNumeric()
        field.unit = token.value
      case ("scale", true):
        try requireNumeric()
        guard let scale = Self.scale(token.value), scale.numerator != 0 else {
          throw fail("bad scale '\(token.value)'; write a decimal (0.01) or a ratio (1/1024)")
        }
        field.scale = scale
      case ("exp", true):
        try requireNumeric()
        guard let exponent = Int(token.value), (-30...30).contains(exponent) else {
          throw fail("bad exponent '\(token.value)'; write an integer from -30 to 30")
        }
        field.exponent = exponent
      case ("offset", true):
        try requireNumeric()
        guard let offset = Double(token.value), offset.isFinite else {
          throw fail("bad offset '\(token.value)'; write a decimal")
        }
        field.offset = offset
      case ("if", true):
        field.conditions.append(try condition(token, line: line))
      case ("repeat", false):
        field.repetition = .toEnd
      case ("repeat", true):
        let (count, id) = try countOrID(token, line: line, in: 1...65535, what: "repeat", unit: "a count")
        field.repetition = count.map { .count($0) } ?? .field(id)
      case ("optional", false):
        field.isOptional = true
      case ("length", true):
        guard type == .utf8 || type == .bytes else {
          throw error(line, token.column, "'length=' applies to utf8 and bytes, not \(type.spelling)")
        }
        let (count, id) = try countOrID(token, line: line, in: 0...65535, what: "length", unit: "a byte count")
        field.length = count.map { .fixed($0) } ?? .field(id)
      case ("hex", false):
        guard type.isInteger else { throw error(line, token.column, "'hex' applies to integers, not \(type.spelling)") }
        field.isHex = true
      case ("names", true):
        guard case .unsigned = type else {
          throw error(line, token.column, "'names=' applies to unsigned integers, not \(type.spelling)")
        }
        guard let table = DissectorNameTable(rawValue: token.value) else {
          throw fail("unknown table '\(token.value)'; expected appearance or company")
        }
        field.names = table
      default:
        throw error(
          line, token.column,
          "unknown attribute '\(text(of: token))'; expected unit=, scale=, exp=, offset=, if=, length=, names=, "
            + "repeat, optional, hex or N=Name")
      }
      if type == .group, !["if", "repeat", "optional"].contains(key) {
        throw error(line, token.column, "'\(key)' does not apply to a group; use if=, repeat or optional")
      }
    }
  }

  /// The `N` (within `range`) or the id of `repeat=` and `length=`.
  func countOrID(
    _ token: Token, line: Int, in range: ClosedRange<Int>, what: String, unit: String
  ) throws(DissectorError) -> (count: Int?, id: String) {
    if let count = Int(token.value) {
      guard range.contains(count) else {
        throw error(
          line, token.valueColumn, "bad \(what) \(count); use \(range.lowerBound) to \(range.upperBound)")
      }
      return (count, "")
    }
    guard Self.isIdentifier(token.value) else {
      throw error(
        line, token.valueColumn,
        "bad \(what) '\(token.value)'; write \(unit) or the id of an integer field above")
    }
    return (nil, token.value)
  }

  /// `if=ID`, `if=!ID`, `if=ID==N`, `if=ID!=N`.
  func condition(_ token: Token, line: Int) throws(DissectorError) -> DissectorCondition {
    let text = token.value
    let bad = error(line, token.valueColumn, "bad condition '\(text)'; write ID, !ID, ID==N or ID!=N")
    if text.hasPrefix("!"), !text.contains("=") {
      guard Self.isIdentifier(text.dropFirst()) else { throw bad }
      return DissectorCondition(id: String(text.dropFirst()), test: .zero)
    }
    for (op, make) in [("==", DissectorCondition.Test.equal), ("!=", DissectorCondition.Test.notEqual)] {
      if let range = text.firstRange(of: op) {
        let id = text[..<range.lowerBound]
        guard Self.isIdentifier(id), let value = Self.integer(text[range.upperBound...]) else { throw bad }
        return DissectorCondition(id: String(id), test: make(value))
      }
    }
    guard Self.isIdentifier(text) else { throw bad }
    return DissectorCondition(id: text, test: .nonzero)
  }

  /// `if=`, `repeat=` and `length=` name integer fields or bits defined above.
  func checkReferences(_ field: DissectorField, line: SourceLine) throws(DissectorError) {
    var references = field.conditions.map { ($0.id, "if=") }
    if case .field(let id) = field.repetition { references.append((id, "repeat=")) }
    if case .field(let id) = field.length { references.append((id, "length=")) }
    for (id, key) in references where !integers.contains(id) {
      let column = line.tokens.first { $0.key == String(key.dropLast()) && $0.value.contains(id) }?.valueColumn ?? 1
      throw error(
        line.number, column,
        known.contains(id)
          ? "'\(id)' in \(key) is not an integer field or bit"
          : "unknown id '\(id)' in \(key); it must be a field or bit defined above")
    }
  }

  /// `12`, `-3`, `0x1F`.
  static func integer(_ text: some StringProtocol) -> Int64? {
    if text.hasPrefix("0x") || text.hasPrefix("0X") {
      return UInt64(text.dropFirst(2), radix: 16).flatMap { Int64(exactly: $0) }
    }
    return Int64(text)
  }

  /// `0.01`, `-2`, `1/1024`.
  static func scale(_ text: String) -> DissectorScale? {
    if let slash = text.firstIndex(of: "/") {
      guard let numerator = Int64(text[..<slash]), let denominator = Int64(text[text.index(after: slash)...]),
        denominator > 0
      else { return nil }
      return DissectorScale(numerator: numerator, denominator: denominator)
    }
    let negative = text.hasPrefix("-")
    let digits = negative ? text.dropFirst() : Substring(text)
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let whole = parts.first, !whole.isEmpty || parts.count == 2,
      whole.allSatisfy(\.isASCIIDigit), (parts.count == 1 || parts[1].allSatisfy(\.isASCIIDigit)),
      parts.count == 1 || !parts[1].isEmpty, whole.count + (parts.count == 2 ? parts[1].count : 0) <= 18
    else { return nil }
    let fraction = parts.count == 2 ? parts[1] : ""
    guard let numerator = Int64(whole + fraction) else { return nil }
    var denominator: Int64 = 1
    for _ in 0..<fraction.count { denominator *= 10 }
    return DissectorScale(numerator: negative ? -numerator : numerator, denominator: denominator)
  }
}

extension DissectorField {
  /// Why nothing can follow this field at its level, when it reads to the end of the value.
  var readsToEnd: String? {
    if repetition == .toEnd { return "repeats to the end of the value" }
    if length == nil, type == .utf8 || type == .bytes || type == .uuid {
      return "reads to the end of the value"
    }
    return nil
  }
}

extension Unicode.Scalar {
  var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Character {
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
