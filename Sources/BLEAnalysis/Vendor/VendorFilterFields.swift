import BLEDissect

/// The filter fields of the vendor protocols, from their tables: `mcumgr`, `hid`… for
/// presence, and each table row with a filter name (`mcumgr.group`, `hid.key`).
enum VendorFilterFields {
  static func add(to catalog: inout FilterCatalog<FilterInput>) {
    for table in VendorFieldTable.all {
      let name = table.name
      catalog.add(name) { input in input.analyzed.vendor.contains { VendorFieldTable.of($0).name == name } }
      for field in table.fields {
        guard let filter = field.filter, let kind = field.kind.filterKind else { continue }
        catalog.add(
          filter, kind,
          many: { input in
            input.analyzed.vendor.flatMap { record -> [FilterValue] in
              guard let value = field.read(record) else { return [] }
              return filterValues(value)
            }
          })
      }
    }
  }

  /// A field's value as filters compare it: decimals in millionths, lists element by element.
  static func filterValues(_ value: VendorValue) -> [FilterValue] {
    switch value {
    case .integer(let n): [.integer(n)]
    case .decimal(let d): d.isFinite ? [.integer(Int64((d * 1_000_000).rounded()))] : []
    case .string(let s): [.string(s)]
    case .bool(let b): [.bool(b)]
    case .bytes(let b): [.bytes(b)]
    case .strings(let list): list.map { .string($0) }
    case .integers(let list): list.map { .integer($0) }
    case .cbor: []
    }
  }
}
