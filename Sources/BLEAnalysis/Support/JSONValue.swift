/// A parsed JSON document (RFC 8259), for the files bleanalyze reads back: the
/// databases of `--import-db`. Small and strict; errors give the byte offset.
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public struct ParseError: Error, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "\(message) at byte \(offset)" }
  }

  public init(parsing text: String) throws(ParseError) {
    var parser = Parser(bytes: Array(text.utf8))
    parser.skipSpace()
    self = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.offset == parser.bytes.count else { throw parser.error("unexpected text after the document") }
  }

  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  public var array: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  public var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  public var number: Double? {
    if case .number(let value) = self { return value }
    return nil
  }

  public var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  private struct Parser {
    let bytes: [UInt8]
    var offset = 0

    static let maximumDepth = 256

    func error(_ message: String) -> ParseError { ParseError(offset: offset, message: message) }

    mutating func skipSpace() {
      while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    mutating func value(depth: Int) throws(ParseError) -> JSONValue {
      guard depth < Self.maximumDepth else { throw error("nested too deeply") }
      guard offset < bytes.count else { throw error("unexpected end of the document") }
      switch bytes[offset] {
      case UInt8(ascii: "{"): return try object(depth: depth)
      case UInt8(ascii: "["): return try array(depth: depth)
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"): return try literal("true", .bool(true))
      case UInt8(ascii: "f"): return try literal("false", .bool(false))
      case UInt8(ascii: "n"): return try literal("null", .null)
      default: return try number()
      }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(ParseError) -> JSONValue {
      let expected = Array(word.utf8)
      guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected
      else { throw error("unexpected character") }
      offset += expected.count
      return value
    }

    mutating func number() throws(ParseError) -> JSONValue {
      let start = offset
      let allowed = Set("+-0123456789.eE".utf8)
      while offset < bytes.count, allowed.contains(bytes[offset]) { offset += 1 }
      guard offset > start, let value = Double(String(decoding: bytes[start..<offset], as: UTF8.self)) else {
        offset = start
        throw error("unexpected character")
      }
      return .number(value)
    }

    mutating func string() throws(ParseError) -> String {
      offset += 1
      var scalars = String.UnicodeScalarView()
      var run: [UInt8] = []
      func flush() {
        scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
        run.removeAll(keepingCapacity: true)
      }
      while offset < bytes.count {
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""):
          flush()
          return String(scalars)
        case UInt8(ascii: "\\"):
          flush()
          guard offset < bytes.count else { break }
          let escape = bytes[offset]
          offset += 1
          switch escape {
          case UInt8(ascii: "n"): scalars.append("\n")
          case UInt8(ascii: "t"): scalars.append("\t")
          case UInt8(ascii: "r"): scalars.append("\r")
          case UInt8(ascii: "b"): scalars.append("\u{08}")
          case UInt8(ascii: "f"): scalars.append("\u{0C}")
          case UInt8(ascii: "u"):
            guard bytes.count - offset >= 4,
              let code = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
            else { throw error("bad \\u escape") }
            offset += 4
            scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            scalars.append(Unicode.Scalar(escape))
          default: throw error("bad escape")
          }
        default:
          guard byte >= 0x20 else { throw error("control character in a string") }
          run.append(byte)
        }
      }
      throw error("unterminated string")
    }

    mutating func array(depth: Int) throws(ParseError) -> JSONValue {
      offset += 1
      var items: [JSONValue] = []
      skipSpace()
      if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
        offset += 1
        return .array(items)
      }
      while true {
        skipSpace()
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard offset < bytes.count else { throw error("unterminated array") }
        offset += 1
        if bytes[offset - 1] == UInt8(ascii: "]") { return .array(items) }
        guard bytes[offset - 1] == UInt8(ascii: ",") else {
          offset -= 1
          throw error("expected , or ]")
        }
      }
    }

    mutating func object(depth: Int) throws(ParseError) -> JSONValue {
      offset += 1
      var members: [String: JSONValue] = [:]
      skipSpace()
      if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
        offset += 1
        return .object(members)
      }
      while true {
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
        let key = try string()
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected :") }
        offset += 1
        skipSpace()
        members[key] = try value(depth: depth + 1)
        skipSpace()
        guard offset < bytes.count else { throw error("unterminated object") }
        offset += 1
        if bytes[offset - 1] == UInt8(ascii: "}") { return .object(members) }
        guard bytes[offset - 1] == UInt8(ascii: ",") else {
          offset -= 1
          throw error("expected , or }")
        }
      }
    }
  }
}
