import BLECapture
import BLEDissect

/// The whole per-record pipeline of one capture: decode, follow links, rebuild GATT.
public struct Analyzer {
  public private(set) var gatt: GATTTracker
  private var decoder = RecordDecoder()
  private var links = LinkTracker()

  public init(importedDatabases: [(address: DeviceAddress?, database: GATTDatabase)] = []) {
    gatt = GATTTracker(imported: importedDatabases)
  }

  public mutating func analyze(_ record: Record) -> AnalyzedRecord {
    var analyzed = links.analyze(record, decoder.decode(record))
    gatt.analyze(record, &analyzed)
    return analyzed
  }
}
