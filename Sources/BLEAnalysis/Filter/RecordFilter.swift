import BLECapture
import BLEDissect

/// What `show --filter` looks at: a record with everything decoded and learned.
public struct FilterInput {
  public var record: Record
  public var analyzed: AnalyzedRecord

  public init(record: Record, analyzed: AnalyzedRecord) {
    self.record = record
    self.analyzed = analyzed
  }
}

/// The data-contract fields (DESIGN.md, `show --format ndjson`) that `--filter` reads.
public enum RecordFilter {
  public static func compile(_ expression: String) throws(FilterError) -> Filter<FilterInput> {
    try Filter(expression, catalog: catalog)
  }

  /// The fields of ``ShowField/all`` that filters read, and the vendor protocols'.
  public static let catalog: FilterCatalog<FilterInput> = {
    var c = FilterCatalog<FilterInput>()
    for field in ShowField.all {
      guard let kind = field.filterKind, let reader = field.reader else { continue }
      c.add(field.id, kind, reader)
      for alias in field.aliases { c.add(alias, kind, reader) }
    }
    VendorFilterFields.add(to: &c)
    return c
  }()
}
