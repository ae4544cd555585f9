/// The fields a filter subject offers: a name, a kind, and how to read the values from
/// a subject.
///
/// ```swift
/// var catalog = FilterCatalog<Row>()
/// catalog.add("att", .presence, one: { $0.att == nil ? nil : .bool(true) })
/// catalog.add("att.opcode", .integer, one: { $0.att.map { .integer(Int64($0.opcode.rawValue)) } })
/// catalog.add("diagnostics.id", .string, many: { $0.diagnostics.map { .string($0.id) } })
/// ```
///
/// A one-valued field is absent when its reader returns nil, a many-valued field when its
/// reader returns no values. Names are dotted lower-case identifiers (`att.opcode`,
/// `hci.le.conn_complete.interval`); adding an invalid or duplicate name is a programming
/// error and traps.
public struct FilterCatalog<Subject: ~Copyable & ~Escapable>: Sendable {
  enum Reader: Sendable {
    case one(@Sendable (borrowing Subject) -> FilterValue?)
    case many(@Sendable (borrowing Subject) -> [FilterValue])
  }

  struct Entry: Sendable {
    var kind: FilterFieldKind
    var reader: Reader
  }

  private(set) var entries: [String: Entry] = [:]

  public init() {}

  /// Adds a field with at most one value per subject.
  public mutating func add(
    _ name: String, _ kind: FilterFieldKind, one: @escaping @Sendable (borrowing Subject) -> FilterValue?
  ) {
    insert(name, Entry(kind: kind, reader: .one(one)))
  }

  /// Adds a field with any number of values per subject (diagnostic ids, AD types…).
  public mutating func add(
    _ name: String, _ kind: FilterFieldKind, many: @escaping @Sendable (borrowing Subject) -> [FilterValue]
  ) {
    insert(name, Entry(kind: kind, reader: .many(many)))
  }

  /// Adds a presence field (`att`, `smp`) from a test.
  public mutating func add(_ name: String, present: @escaping @Sendable (borrowing Subject) -> Bool) {
    insert(name, Entry(kind: .presence, reader: .one({ present($0) ? .bool(true) : nil })))
  }

  /// Adds a field whose reader is already made (``ShowField``'s).
  mutating func add(_ name: String, _ kind: FilterFieldKind, _ reader: Reader) {
    insert(name, Entry(kind: kind, reader: reader))
  }

  /// Every field name, sorted, for help and error hints.
  public var names: [String] {
    // Names are ASCII (`insert` checks them), for which byte order is String order.
    entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// The kind of a field, nil when the catalog has no such field.
  public func kind(of name: String) -> FilterFieldKind? { entries[name]?.kind }

  /// The values of field `name` for `subject` (none when it is absent), for output that
  /// prints fields (`show -T fields -e NAME`); nil when the catalog has no such field.
  public func values(of name: String, in subject: borrowing Subject) -> [FilterValue]? {
    switch entries[name]?.reader {
    case .one(let read): read(subject).map { [$0] } ?? []
    case .many(let read): read(subject)
    case nil: nil
    }
  }

  private mutating func insert(_ name: String, _ entry: Entry) {
    precondition(FilterLexer.isFieldName(name), "invalid filter field name '\(name)'")
    precondition(entries[name] == nil, "filter field '\(name)' added twice")
    entries[name] = entry
  }

  /// The closest name to a misspelt one: by edit distance when close, else a name that
  /// ends with it (`opcode` → `att.opcode`).
  func suggestion(for name: String) -> String? {
    let typed = Array(name.lowercased())
    var best: (name: String, distance: Int)?
    for candidate in names {
      let distance = editDistance(typed, Array(candidate))
      if distance < best?.distance ?? Int.max { best = (candidate, distance) }
    }
    if let best, best.distance <= max(1, min(3, typed.count / 3)) { return best.name }
    let suffix = "." + name.lowercased()
    return names.first { $0.hasSuffix(suffix) }
  }
}

/// Levenshtein distance: insertions, deletions and substitutions each cost 1.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
      current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}
