/// Names from the Bluetooth assigned numbers in Dissectors/assigned-numbers/ (company
/// identifiers, service, characteristic, descriptor and declaration UUIDs, appearance
/// values) and from the vendor UUIDs in Dissectors/vendor-uuids/. Each table is parsed
/// from the embedded text the first time it is asked for.
public enum AssignedNumbers {
  /// The company behind a Company Identifier (`0x004c` → `Apple, Inc.`).
  public static func company(_ identifier: UInt16) -> String? { companies[identifier] }

  /// An Appearance value by name (`0x0341` → `Heart Rate Sensor: Heart Rate Belt`),
  /// falling back to the category for an unlisted subcategory.
  public static func appearance(_ value: UInt16) -> String? {
    appearances[value] ?? appearances[value & ~0x3F]
  }

  /// The SIG or well-known vendor name of a service, characteristic, descriptor or
  /// declaration UUID (`2a37` → `Heart Rate Measurement`, `6e400001-…` → `Nordic UART
  /// Service`).
  public static func name(of uuid: BluetoothUUID) -> String? { uuids[uuid.value]?.name }

  /// What the UUID names, when it is listed.
  public static func kind(of uuid: BluetoothUUID) -> AttributeKind? { uuids[uuid.value]?.kind }

  /// Who named the UUID in Dissectors/vendor-uuids/ (`nordic`, `apple`, `silabs`…); nil
  /// for the SIG's assigned numbers and for unlisted UUIDs.
  public static func vendor(of uuid: BluetoothUUID) -> String? { uuids[uuid.value]?.vendor }

  public enum AttributeKind: String, Sendable {
    case service, characteristic, descriptor, declaration
  }

  /// A listed UUID: its name, what it names, and the vendor source (nil for the SIG's).
  struct UUIDEntry: Sendable, Equatable {
    var kind: AttributeKind
    var name: String
    var vendor: String?
  }

  static let companies: [UInt16: String] = table("companies.tsv") { UInt16(hex: $0) }
  static let appearances: [UInt16: String] = table("appearance.tsv") { UInt16(hex: $0) }

  /// The SIG's tables, in the order that settles a UUID listed twice.
  static let sigTables: [(file: String, kind: AttributeKind)] = [
    ("declarations.tsv", .declaration), ("services.tsv", .service),
    ("characteristics.tsv", .characteristic), ("descriptors.tsv", .descriptor),
  ]
  /// The vendor tables: hand-kept rows win over the database's.
  static let vendorTables = ["hand-kept.tsv", "bluetooth-numbers-database.tsv"]

  static let uuids = uuidTable(
    sig: sigTables.map { (text(of: "assigned-numbers/" + $0.file), $0.kind) },
    vendor: vendorTables.map { text(of: "vendor-uuids/" + $0) })

  /// Every listed UUID from the SIG's `key<TAB>name` tables (`sig`, each of one kind) and
  /// the vendor `uuid<TAB>kind<TAB>name<TAB>source` tables (`vendor`). The first table to
  /// name a UUID wins, and the SIG's come first: a vendor never renames a SIG number.
  static func uuidTable(sig: [(text: String, kind: AttributeKind)], vendor: [String]) -> [UInt128: UUIDEntry] {
    var result: [UInt128: UUIDEntry] = [:]
    for (text, kind) in sig {
      forEachRow(text) { key, name, _, _ in
        guard let uuid = BluetoothUUID(key)?.value, result[uuid] == nil else { return }
        result[uuid] = UUIDEntry(kind: kind, name: String(name), vendor: nil)
      }
    }
    for text in vendor {
      forEachRow(text) { key, kind, name, source in
        guard let name, let source, let uuid = BluetoothUUID(key)?.value, result[uuid] == nil,
          let kind = AttributeKind(rawValue: String(kind))
        else { return }
        result[uuid] = UUIDEntry(kind: kind, name: String(name), vendor: String(source))
      }
    }
    return result
  }

  /// The embedded text of a file under Dissectors/ (empty when there is none).
  static func text(of path: String) -> String {
    BuiltinFiles.all.first { $0.path == path }?.text ?? ""
  }

  /// Calls `body` with the first two tab-separated columns of each line of `text` that has
  /// them, and the third and fourth when there are; `#` starts a comment line. A column
  /// runs to the next tab, the last one given to the end of the line.
  static func forEachRow(
    _ text: String, _ body: (Substring, Substring, Substring?, Substring?) -> Void
  ) {
    let tab = UInt8(ascii: "\t")
    /// Splits `rest` at its first tab: the column before it, and what follows.
    func cut(_ rest: Substring.UTF8View) -> (Substring, Substring.UTF8View?) {
      guard let end = rest.firstIndex(of: tab) else { return (Substring(rest), nil) }
      return (Substring(rest[..<end]), rest[rest.index(after: end)...])
    }
    // Over UTF-8 code units: splitting by Character would break graphemes on every line.
    for line in text.utf8.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
      let (key, afterKey) = cut(line)
      guard let afterKey else { continue }
      let (second, afterSecond) = cut(afterKey)
      let (third, afterThird) = afterSecond.map(cut) ?? (nil, nil)
      body(key, second, third, afterThird.map { Substring($0) })
    }
  }

  /// The rows of a `key<TAB>name` table in Dissectors/assigned-numbers/.
  static func table<Key: Hashable>(_ file: String, key: (Substring) -> Key?) -> [Key: String] {
    let text = text(of: "assigned-numbers/" + file)
    var result: [Key: String] = [:]
    for line in text.utf8.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
      guard let tab = line.firstIndex(of: UInt8(ascii: "\t")), let k = key(Substring(line[..<tab])) else { continue }
      result[k] = String(Substring(line[line.index(after: tab)...]))
    }
    return result
  }
}

extension UInt16 {
  /// `0x004c`.
  init?(hex text: Substring) {
    guard text.hasPrefix("0x") else { return nil }
    self.init(text.dropFirst(2), radix: 16)
  }
}
