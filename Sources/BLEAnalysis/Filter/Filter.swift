/// A compiled `--filter` expression over any subject a ``FilterCatalog`` describes.
///
/// The language, close to Wireshark's display filters:
///
/// - `FIELD OP LITERAL` compares: `==` `!=` `<` `<=` `>` `>=` `contains`, or the words
///   `eq` `ne` `lt` `le` `gt` `ge`. The field is always on the left.
/// - `FIELD in {a b c}` (commas optional) is `FIELD == a or FIELD == b or FIELD == c`.
/// - A bare `FIELD` tests presence: `att`, `smp`, `att.error`.
/// - `not`/`!`, `and`/`&&`, `or`/`||` and parentheses, `not` binding tightest and `or`
///   loosest: `not a or b and c` is `(not a) or (b and c)`. Keywords are case-insensitive.
/// - Literals: `27`, `-3`, `0x1b`; `"text"` with `\"` and `\\`; `D4:36:39:67:A2:61` (either
///   case); bytes `01:02:0a` or a single `0a`; `true`/`false`; decimals `59.5` for decimal
///   fields; a bare word for a string field (`dir == tx`); any UUID spelling for a UUID
///   field (`2A37`, `0x2a37`, 36 characters). A literal is read against
///   its field's kind (``FilterFieldKind``), so `10` is ten for an integer field and 0x10
///   for a bytes field, and an address works as 6 bytes against a bytes field.
///
/// Semantics:
///
/// - An absent field makes every comparison false, `!=` included: `att.opcode != 0x1b`
///   does not match a record without ATT (`not att.opcode == 0x1b` does).
/// - A many-valued field matches `==`, `<`, `<=`, `>`, `>=` and `contains` when any of
///   its values does. `a != v` matches when the field is present and every value differs
///   from `v`: for a present field it is exactly `not (a == v)`, which is what users
///   expect of `diagnostics.id != "x"`; like Wireshark's `!=`, it is not "some value
///   differs".
/// - `contains` is a case-sensitive substring test for strings and a contiguous
///   subsequence test for bytes; a string literal against a bytes field means its UTF-8.
/// - Integers compare as `Int64`.
///
/// Parsing resolves every field and literal once; ``matches(_:)`` runs a tree of closures
/// with no parsing or lookups.
public struct Filter<Subject: ~Copyable & ~Escapable>: Sendable {
  /// The expression as written.
  public let expression: String
  /// The fields the expression reads, sorted.
  public let fields: [String]
  private let predicate: @Sendable (borrowing Subject) -> Bool
  let node: FilterNode

  public init(_ expression: String, catalog: FilterCatalog<Subject>) throws(FilterError) {
    var parser = try FilterParser(expression, catalog: catalog)
    node = try parser.parse()
    self.expression = expression
    fields = parser.fields.sorted()
    predicate = Self.compile(node, catalog)
  }

  public func matches(_ subject: borrowing Subject) -> Bool { predicate(subject) }

  private static func compile(
    _ node: FilterNode, _ catalog: FilterCatalog<Subject>
  ) -> @Sendable (borrowing Subject) -> Bool {
    switch node {
    case .and:
      let terms = chain(node) { if case .and(let left, let right) = $0 { (left, right) } else { nil } }
        .map { compile($0, catalog) }
      return { subject in terms.allSatisfy { $0(subject) } }
    case .or:
      let terms = chain(node) { if case .or(let left, let right) = $0 { (left, right) } else { nil } }
        .map { compile($0, catalog) }
      return { subject in terms.contains { $0(subject) } }
    case .not(let inner):
      let inner = compile(inner, catalog)
      return { !inner($0) }
    case .present(let name):
      switch catalog.entries[name]?.reader {
      case .one(let read)?: return { read($0) != nil }
      case .many(let read)?: return { !read($0).isEmpty }
      case nil: return { _ in false }  // the parser only accepts catalogued fields
      }
    case .compare(let name, let comparison, let literal):
      // `!=` is "present and no value equal": test equality and negate per reader.
      let negated = comparison == .notEqual
      let test = valueTest(negated ? .equal : comparison, literal)
      switch catalog.entries[name]?.reader {
      case .one(let read)?:
        if negated {
          return { subject in
            guard let value = read(subject) else { return false }
            return !test(value)
          }
        }
        return { subject in
          guard let value = read(subject) else { return false }
          return test(value)
        }
      case .many(let read)?:
        if negated {
          return { subject in
            let values = read(subject)
            return !values.isEmpty && !values.contains(where: test)
          }
        }
        return { read($0).contains(where: test) }
      case nil: return { _ in false }
      }
    }
  }

  /// The terms of a left-leaning `a or b or c` chain, in order, found without recursion
  /// so a long chain compiles to one flat closure.
  private static func chain(
    _ node: FilterNode, _ split: (FilterNode) -> (FilterNode, FilterNode)?
  ) -> [FilterNode] {
    var terms: [FilterNode] = []
    var node = node
    while let (left, right) = split(node) {
      terms.append(right)
      node = left
    }
    terms.append(node)
    return terms.reversed()
  }

  /// One value against the literal. A value of another kind than the literal (a reader
  /// that broke its field's declared kind) never matches.
  private static func valueTest(
    _ comparison: FilterComparison, _ literal: FilterValue
  ) -> @Sendable (FilterValue) -> Bool {
    switch literal {
    case .integer(let expected):
      let compare: @Sendable (Int64, Int64) -> Bool =
        switch comparison {
        case .equal, .notEqual, .contains: (==)
        case .less: (<)
        case .lessOrEqual: (<=)
        case .greater: (>)
        case .greaterOrEqual: (>=)
        }
      return { value in
        guard case .integer(let actual) = value else { return false }
        return compare(actual, expected)
      }
    case .string(let expected):
      if comparison == .contains {
        return { value in
          guard case .string(let actual) = value else { return false }
          return actual.contains(expected)
        }
      }
      return { $0 == literal }
    case .bytes(let expected):
      if comparison == .contains {
        return { value in
          guard case .bytes(let actual) = value else { return false }
          return expected.isEmpty || actual.contains(expected)
        }
      }
      return { $0 == literal }
    case .address, .bool:
      return { $0 == literal }
    }
  }
}
