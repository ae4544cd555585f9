import Testing

@testable import BLEAnalysis

@Suite struct JSONValueTests {
  @Test func parsesEveryKind() throws {
    let value = try JSONValue(parsing: #" {"a": [1, -2.5e1, true, false, null], "b": "x\"\u00e9\n", "c": {}} "#)
    #expect(value["a"] == .array([.number(1), .number(-25), .bool(true), .bool(false), .null]))
    #expect(value["b"]?.string == "x\"é\n")
    #expect(value["c"] == .object([:]))
  }

  @Test(arguments: [
    ("", 0), ("{", 1), ("[1,]", 3), (#"{"a" 1}"#, 5), ("[1] x", 4), (#""abc"#, 4), ("nul", 0), ("[1x]", 2),
  ])
  func rejectsBadDocuments(text: String, offset: Int) {
    #expect {
      _ = try JSONValue(parsing: text)
    } throws: { error in
      (error as? JSONValue.ParseError)?.offset == offset
    }
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    #expect(throws: JSONValue.ParseError.self) { _ = try JSONValue(parsing: String(repeating: "[", count: 100_000)) }
  }
}
