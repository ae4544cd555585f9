/// Names from the Bluetooth assigned numbers in Dissectors/assigned-numbers/: company
/// identifiers, service, characteristic, descriptor and declaration UUIDs, appearance
/// values. Each table is parsed from the embedded text the first time it is asked for.
public enum AssignedNumbers {
  /// The company behind a Company Identifier (`0x004c` → `Apple, Inc.`).
  public static func company(_ identifier: UInt16) -> String? { companies[identifier] }

  /// An Appearance value by name (`0x0341` → `Heart Rate Sensor: Heart Rate Belt`),
  /// falling back to the category for an unlisted subcategory.
  public static func appearance(_ value: UInt16) -> String? {
    appearances[value] ?? appearances[value & ~0x3F]
  }

  /// The SIG or well-known vendor name of a service, characteristic, descriptor or
  /// declaration UUID (`2a37` → `Heart Rate Measurement`).
  public static func name(of uuid: BluetoothUUID) -> String? { uuids[uuid.value]?.name }

  /// What the UUID names, when it is listed.
  public static func kind(of uuid: BluetoothUUID) -> AttributeKind? { uuids[uuid.value]?.kind }

  public enum AttributeKind: String, Sendable {
    case service, characteristic, descriptor, declaration
  }

  static let companies: [UInt16: String] = table("companies.tsv") { UInt16(hex: $0) }
  static let appearances: [UInt16: String] = table("appearance.tsv") { UInt16(hex: $0) }

  static let uuids: [UInt128: (kind: AttributeKind, name: String)] = {
    var result: [UInt128: (kind: AttributeKind, name: String)] = [:]
    let files: [(String, AttributeKind)] = [
      ("declarations.tsv", .declaration), ("services.tsv", .service),
      ("characteristics.tsv", .characteristic), ("descriptors.tsv", .descriptor),
    ]
    for (file, kind) in files {
      for (uuid, name) in table(file, key: { BluetoothUUID($0)?.value }) where result[uuid] == nil {
        result[uuid] = (kind, name)
      }
    }
    return result
  }()

  /// The rows of a `key<TAB>name` table; `#` starts a comment line.
  static func table<Key: Hashable>(_ file: String, key: (Substring) -> Key?) -> [Key: String] {
    let text = BuiltinFiles.all.first { $0.path == "assigned-numbers/" + file }?.text ?? ""
    var result: [Key: String] = [:]
    // Over UTF-8 code units: splitting by Character would break graphemes on every line.
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
