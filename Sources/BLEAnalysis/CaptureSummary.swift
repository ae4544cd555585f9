import BLECapture
import BLEDissect

/// Counts over a whole capture: records per HCI packet type and other kinds, the
/// time span, records cut by the capture source, records with diagnostics.
public struct CaptureSummary: Sendable {
  public private(set) var records = 0
  public private(set) var first: Timestamp?
  public private(set) var last: Timestamp?
  /// Records per data-contract type name (`command`, `event`, `acl`, `new_index`…).
  public var byType: [String: Int] { Dictionary(uniqueKeysWithValues: typeCounts.lazy.map { ($0.name, $0.count) }) }
  /// A handful of types at most, by `DecodedRecord.typeKey`: a list searched in order,
  /// the last one found first, beats hashing a string per record.
  private var typeCounts: [(key: UInt32, name: String, count: Int)] = []
  private var lastType = 0
  public private(set) var cutBySource = 0
  public private(set) var withDiagnostics = 0
  /// Records the capture source lost (`Record.droppedBefore`, and `addDropped`).
  public private(set) var dropped = 0

  public init() {}

  public mutating func add(_ record: Record, _ decoded: DecodedRecord) {
    records += 1
    if first == nil { first = record.timestamp }
    last = record.timestamp
    let key = decoded.typeKey
    if lastType < typeCounts.count, typeCounts[lastType].key == key {
      typeCounts[lastType].count += 1
    } else if let index = typeCounts.firstIndex(where: { $0.key == key }) {
      typeCounts[index].count += 1
      lastType = index
    } else {
      typeCounts.append((key, decoded.typeName, 1))
      lastType = typeCounts.count - 1
    }
    if record.isCutBySource { cutBySource += 1 }
    dropped += record.droppedBefore
    if decoded.hasDiagnostics { withDiagnostics += 1 }
  }

  /// Records lost after the last record, which no record carries.
  public mutating func addDropped(_ count: Int) {
    dropped += count
  }

  /// Seconds from the first record to the last.
  public var durationMicroseconds: Int64 {
    guard let first, let last else { return 0 }
    return last.unixMicroseconds - first.unixMicroseconds
  }
}
