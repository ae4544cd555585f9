import Synchronization

/// Every characteristic, descriptor and service format known: the built-ins of
/// Dissectors/ (embedded in the binary) and the user's files, which replace a built-in
/// with the same UUID. Built-ins are parsed lazily, one header's block at a time, the
/// first time their UUID is asked for; only the header lines are read up front.
public struct DissectorLibrary: Sendable {
  /// Formats by the 128-bit value of their (normalized) UUID; nil for the built-ins
  /// alone, whose index is made the first time a UUID is asked for.
  private let ownEntries: [UInt128: Entry]?
  let cache: FormatCache

  /// Formats by the 128-bit value of their (normalized) UUID.
  var entries: [UInt128: Entry] { ownEntries ?? Self.builtinEntries }

  enum Entry: Sendable {
    /// A user's format, parsed when it was loaded.
    case parsed(DissectorFormat)
    /// A built-in, parsed on first use.
    case builtin(BuiltinBlock)

    var name: String {
      switch self {
      case .parsed(let format): format.name
      case .builtin(let block): block.name
      }
    }
  }

  /// The lines of one header in an embedded file.
  struct BuiltinBlock: Sendable {
    var path: String
    var text: Substring
    var firstLine: Int
    var kind: DissectorFormat.Kind
    var uuid: BluetoothUUID
    var name: String
  }

  /// The formats of Dissectors/ shipped in the binary.
  public static let builtin = DissectorLibrary(entries: nil)

  /// The index of the built-ins, made on first use: a run that names no UUID (a capture
  /// without GATT) does not pay for it at start-up.
  static let builtinEntries = builtinIndex(BuiltinFiles.all)

  init(entries: [UInt128: Entry]?) {
    ownEntries = entries
    cache = FormatCache()
  }

  /// The built-ins plus `files` (path and text of each `*.dissector` file, in order): a
  /// user's format replaces a built-in or an earlier file's with the same UUID.
  public init(adding files: [(path: String, text: String)]) throws(DissectorError) {
    var entries = Self.builtin.entries
    for file in files {
      for format in try DissectorFile.parse(path: file.path, text: file.text) {
        entries[format.uuid.value] = .parsed(format)
      }
    }
    self.init(entries: entries)
  }

  /// The header blocks of the embedded `*.dissector` files: a block runs from a line at
  /// the left margin that is not a comment to the next one.
  static func builtinIndex(_ files: [(path: String, text: String)]) -> [UInt128: Entry] {
    var entries: [UInt128: Entry] = [:]
    for (path, text) in files where path.hasSuffix(".dissector") {
      var current: (start: String.Index, line: Int, header: (DissectorFormat.Kind, BluetoothUUID, String))?
      var lineNumber = 0
      var lineStart = text.startIndex
      func close(at end: String.Index) {
        guard let block = current else { return }
        let (kind, uuid, name) = block.header
        entries[uuid.value] = .builtin(
          BuiltinBlock(
            path: path, text: text[block.start..<end], firstLine: block.line, kind: kind, uuid: uuid, name: name))
      }
      // Over UTF-8 bytes: walking Characters costs about a millisecond at startup.
      let utf8 = text.utf8
      while lineStart < text.endIndex {
        lineNumber += 1
        let lineEnd = utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? text.endIndex
        let first = utf8[lineStart]
        if first != UInt8(ascii: " "), first != UInt8(ascii: "#"), first != UInt8(ascii: "\n"),
          first != UInt8(ascii: "\r")
        {
          close(at: lineStart)
          current = DissectorFile.headerSummary(text[lineStart..<lineEnd]).map { (lineStart, lineNumber, $0) }
        }
        lineStart = lineEnd < text.endIndex ? utf8.index(after: lineEnd) : lineEnd
      }
      close(at: text.endIndex)
    }
    return entries
  }

  /// The name of a service, characteristic or descriptor: the SIG's assigned numbers
  /// first, then the dissector headers (yours name your vendor UUIDs), then the vendor
  /// UUIDs of Dissectors/vendor-uuids/.
  public func name(of uuid: BluetoothUUID) -> String? {
    let listed = AssignedNumbers.uuids[uuid.value]
    if let listed, listed.vendor == nil { return listed.name }
    return entries[uuid.value]?.name ?? listed?.name
  }

  /// The format of a UUID, parsing a built-in on first use.
  public func format(for uuid: BluetoothUUID) -> DissectorFormat? {
    let key = uuid.normalized.value
    switch entries[key] {
    case nil: return nil
    case .parsed(let format): return format
    case .builtin(let block):
      if let format = cache.formats.withLock({ $0[key] }) { return format }
      // The embedded files are checked by a test to parse; a failure here means no format.
      guard let format = try? Self.parse(block) else { return nil }
      cache.formats.withLock { $0[key] = format }
      return format
    }
  }

  static func parse(_ block: BuiltinBlock) throws(DissectorError) -> DissectorFormat? {
    try DissectorFile.parse(path: block.path, text: block.text, firstLine: block.firstLine, isBuiltin: true).first
  }

  /// Decodes a characteristic or descriptor value; nil when no format has fields for the UUID.
  public func decode(_ value: [UInt8], uuid: BluetoothUUID) -> DecodeResult? {
    format(for: uuid)?.decode(value)
  }

  /// Every format, built-in and user, by kind then UUID (parses every built-in).
  public var formats: [DissectorFormat] {
    let kinds = DissectorFormat.Kind.allCases
    return entries.values.compactMap { entry -> DissectorFormat? in
      switch entry {
      case .parsed(let format): format
      case .builtin(let block): format(for: block.uuid)
      }
    }.sorted {
      ($0.kind != $1.kind)
        ? kinds.firstIndex(of: $0.kind)! < kinds.firstIndex(of: $1.kind)!
        : Self.sortKey($0.uuid) < Self.sortKey($1.uuid)
    }
  }

  /// SIG 16-bit UUIDs first, in numeric order, then the others.
  static func sortKey(_ uuid: BluetoothUUID) -> (Int, String) {
    (uuid.width == .bits128 ? 1 : 0, uuid.description)
  }
}

/// Built-in formats parsed so far, shared by copies of a library and across threads.
final class FormatCache: Sendable {
  let formats = Mutex<[UInt128: DissectorFormat]>([:])
}
