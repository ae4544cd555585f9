import Testing

@testable import BLEAnalysis

/// An expression the filter rejects, with the column and message of the error.
struct FilterErrorCase: Sendable, CustomTestStringConvertible {
  var expression: String
  var column: Int
  var message: String
  init(_ expression: String, _ column: Int, _ message: String) {
    self.expression = expression
    self.column = column
    self.message = message
  }
  var testDescription: String { expression }
}

let filterErrorCases: [FilterErrorCase] = [
  // Unknown fields, with a hint when a name is close or ends the same way.
  .init("att.opcod == 0x1b", 1, "unknown field 'att.opcod'; did you mean 'att.opcode'?"),
  .init("conn.per == D4:36:39:67:A2:61", 1, "unknown field 'conn.per'; did you mean 'conn.peer'?"),
  .init("att and opcode == 1", 9, "unknown field 'opcode'; did you mean 'att.opcode'?"),
  .init("ATT.OPCODE == 1", 1, "unknown field 'ATT.OPCODE'; did you mean 'att.opcode'?"),
  .init("smpp", 1, "unknown field 'smpp'; did you mean 'smp'?"),
  .init("frobnicate", 1, "unknown field 'frobnicate'"),
  // Literals that do not fit the field.
  .init("att.opcode == 0x1g", 15, "invalid hex integer '0x1g'"),
  .init("att.opcode == 0x", 15, "invalid hex integer '0x'"),
  .init("att.opcode == 1b", 15, "invalid integer '1b'; hex integers start with 0x"),
  .init("att.opcode == 99999999999999999999", 15, "integer '99999999999999999999' is out of range"),
  .init("att.opcode == 0x8000000000000000", 15, "integer '0x8000000000000000' is out of range"),
  .init("att.opcode == \"x\"", 15, "expected an integer (like 27 or 0x1b) for 'att.opcode', found \"x\""),
  .init(
    "att.opcode == D4:36:39:67:A2:61", 15,
    "expected an integer (like 27 or 0x1b) for 'att.opcode', found 'D4:36:39:67:A2:61'"),
  .init("att.opcode == true", 15, "expected an integer (like 27 or 0x1b) for 'att.opcode', found 'true'"),
  .init(
    "conn.peer == \"D4:36:39:67:A2:61\"", 14,
    "expected an address (like D4:36:39:67:A2:61) for 'conn.peer', found \"D4:36:39:67:A2:61\""),
  .init(
    "conn.peer == D4:36:39:67:A2", 14,
    "invalid address 'D4:36:39:67:A2'; write six 2-digit hex groups, like D4:36:39:67:A2:61"),
  .init("conn.peer == 0x1b", 14, "expected an address (like D4:36:39:67:A2:61) for 'conn.peer', found '0x1b'"),
  .init("att.value == 01:2:0a", 14, "invalid byte string '01:2:0a'; write 2 hex digits per byte, like 01:02:0a"),
  .init("att.value == 0x01", 14, "expected bytes (like 01:02:0a) for 'att.value', found '0x01'"),
  .init("conn.encrypted == yes", 19, "expected true or false for 'conn.encrypted', found 'yes'"),
  .init("gatt.characteristic == (", 24, "expected a value after '==', found '('"),
  .init("att.opcode == att.handle", 15, "comparing two fields is not supported; 'att.handle' is a field"),
  // Operators that do not fit the field.
  .init(
    "att.opcode contains 1", 12, "'contains' does not apply to integer field 'att.opcode'; use ==, !=, <, <=, > or >="
  ),
  .init("conn.peer < D4:36:39:67:A2:61", 11, "'<' does not apply to address field 'conn.peer'; use == or !="),
  .init("conn.peer contains 36:39", 11, "'contains' does not apply to address field 'conn.peer'; use == or !="),
  .init(
    "gatt.characteristic >= \"a\"", 21,
    "'>=' does not apply to string field 'gatt.characteristic'; use ==, != or contains"),
  .init("conn.encrypted gt true", 16, "'gt' does not apply to bool field 'conn.encrypted'; use == or !="),
  .init("att.value < 01:02", 11, "'<' does not apply to bytes field 'att.value'; use ==, != or contains"),
  .init("att == 1", 5, "'att' is a presence field; test it alone, like 'att' or 'not att'"),
  // Missing or unexpected tokens.
  .init("", 1, "empty filter expression"),
  .init("   ", 1, "empty filter expression"),
  .init("att.opcode ==", 14, "expected a value after '=='"),
  .init("att.opcode == and smp", 15, "expected a value after '==', found 'and'"),
  .init("att.opcode ge )", 15, "expected a value after 'ge', found ')'"),
  .init("att and", 8, "expected a field name after 'and'"),
  .init("att ||", 7, "expected a field name after '||'"),
  .init("not", 4, "expected a field name after 'not'"),
  .init("att and not", 12, "expected a field name after 'not'"),
  .init("and att", 1, "expected a field name, found 'and'"),
  .init("== 1", 1, "expected a field name before '=='"),
  .init("att and == 1", 9, "expected a field name after 'and', found '=='"),
  .init("()", 2, "expected a field name after '(', found ')'"),
  .init("0x1b == att.opcode", 1, "expected a field name, found '0x1b'"),
  .init("D4:36:39:67:A2:61", 1, "expected a field name, found 'D4:36:39:67:A2:61'"),
  .init("\"att\"", 1, "expected a field name, found \"att\""),
  .init(
    "att.opcode 0x1b", 12,
    "expected a comparison (==, !=, <, <=, >, >=, contains, in) after 'att.opcode', found '0x1b'"),
  .init("att.opcode == 1 2", 17, "expected 'and', 'or' or the end of the expression, found '2'"),
  .init("att)", 4, "unexpected ')' without a matching '('"),
  // Parentheses.
  .init("(att or smp", 12, "unclosed parenthesis opened at column 1"),
  .init("smp and (att or (smp)", 22, "unclosed parenthesis opened at column 9"),
  .init("(att.opcode == 1 smp)", 18, "expected ')' to close the parenthesis opened at column 1, found 'smp'"),
  .init("(att smp)", 6, "expected a comparison (==, !=, <, <=, >, >=, contains, in) after 'att', found 'smp'"),
  // Characters and strings.
  .init("att.opcode = 1", 12, "unexpected '='; compare with '=='"),
  .init("att & smp", 5, "unexpected '&'; use '&&' or 'and'"),
  .init("att | smp", 5, "unexpected '|'; use '||' or 'or'"),
  .init("att.opcode == 'x'", 15, "unexpected \"'\"; strings go in double quotes"),
  .init("att.opcode == #", 15, "unexpected character '#'"),
  .init("att.opcode == -", 15, "unexpected character '-'"),
  .init("att.opcode == é", 15, "unexpected character 'é'"),
  .init("gatt.characteristic == \"abc", 28, "unterminated string opened at column 24"),
  .init("gatt.characteristic == \"abc\\", 29, "unterminated string opened at column 24"),
  .init("gatt.characteristic == \"a\\nb\"", 26, "unknown escape '\\n' in string; only \\\" and \\\\ are allowed"),
]

@Suite("filter errors")
struct FilterErrorTests {
  @Test(arguments: filterErrorCases)
  func rejects(_ row: FilterErrorCase) {
    #expect(throws: FilterError(column: row.column, message: row.message, expression: row.expression)) {
      try Filter(row.expression, catalog: FilterFixture.catalog)
    }
  }

  @Test func nestingIsBounded() throws {
    let deep = String(repeating: "(", count: 101) + "att" + String(repeating: ")", count: 101)
    #expect(throws: FilterError(column: 101, message: "expression nests more than 100 levels deep", expression: deep)) {
      try Filter(deep, catalog: FilterFixture.catalog)
    }
    let nots = String(repeating: "not ", count: 101) + "att"
    #expect(throws: FilterError(column: 401, message: "expression nests more than 100 levels deep", expression: nots)) {
      try Filter(nots, catalog: FilterFixture.catalog)
    }
    let limit = String(repeating: "(", count: 100) + "att" + String(repeating: ")", count: 100)
    #expect(try Filter(limit, catalog: FilterFixture.catalog).matches(FilterFixture.packets[0]))
  }

  @Test func pointerPutsACaretUnderTheColumn() {
    let error = FilterError(column: 15, message: "invalid hex integer '0x1g'", expression: "att.opcode == 0x1g")
    #expect(error.pointer == "att.opcode == 0x1g\n              ^")
    #expect(error.description == "column 15: invalid hex integer '0x1g'\natt.opcode == 0x1g\n              ^")
  }

  @Test func pointerAtTheEnd() {
    let error = FilterError(column: 8, message: "expected a field name after 'and'", expression: "att and")
    #expect(error.pointer == "att and\n       ^")
  }

  @Test func pointerKeepsTabsAndFlattensLineBreaks() {
    let error = FilterError(column: 9, message: "", expression: "att\n\tand ==")
    #expect(error.pointer == "att \tand ==\n    \t   ^")
  }
}
