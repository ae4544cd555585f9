import BLEAnalysis
import BLECapture
import BLEDissect

extension AnalyzedRecord {
  /// The field tree of `show -v`: the record's layers, then the attribute value decoded
  /// by its Dissectors/ format, and the long values this frame completes.
  func fieldTree(_ record: Record) -> [Field] {
    var fields = decoded.fields(record)
    if let value {
      fields.append(.group("Decoded Value (\(value.format.name))", value.fields.fieldTree))
    }
    for assembled in assembled {
      var children = [
        Field("Handle", .unsigned(UInt64(assembled.handle), hexDigits: 4)), Field("Value", .bytes(assembled.value)),
      ]
      if let value = assembled.decoded {
        children.append(.group("Decoded Value (\(value.format.name))", value.fields.fieldTree))
      }
      fields.append(
        .group("Assembled Value (frames \(assembled.frames.map(String.init).joined(separator: ", ")))", children))
    }
    return fields
  }
}
