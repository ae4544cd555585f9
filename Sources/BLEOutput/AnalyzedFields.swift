import BLEAnalysis
import BLECapture
import BLEDissect

extension AnalyzedRecord {
  /// The field tree of `show -v`: the record's layers, then the attribute value decoded
  /// by its Dissectors/ format, and the long values this frame completes.
  func fieldTree(_ record: Record, names: DissectorLibrary = .builtin) -> [Field] {
    var fields = decoded.fields(record)
    var transaction = transactionFields
    if let att = decoded.att {
      transaction += decoded.withPayloadBytes(record) { DiscoveryRendering.fields(att, self, $0, names) }
    }
    if !transaction.isEmpty, let att = fields.lastIndex(where: { $0.name == "ATT" }) {
      fields[att].children += transaction
    }
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
    fields += VendorRendering.fields(vendor)
    return fields
  }

  /// The request an answer answers, or the answer a request got, and the time between:
  /// `Request In Frame: 12`, `Latency: 6.317 ms`; a request with no answer says why.
  var transactionFields: [Field] {
    func latency(_ microseconds: Int64) -> Field {
      Field(
        "Latency",
        .measure(UInt64(clamping: microseconds), hexDigits: 0, value: Double(microseconds) / 1000, unit: "ms"))
    }
    if let exchange {
      let indication = exchange.requestOpcode == ATTOpcode.handleValueIndication.rawValue
      return [
        Field(
          indication ? "Indication In Frame" : "Request In Frame",
          .unsigned(UInt64(exchange.requestFrame), hexDigits: 0)),
        latency(exchange.latencyMicroseconds),
      ]
    }
    if let answer {
      let name =
        switch answer.opcode {
        case ATTOpcode.errorResponse.rawValue: "Error Response In Frame"
        case ATTOpcode.handleValueConfirmation.rawValue: "Confirmation In Frame"
        default: "Response In Frame"
        }
      return [Field(name, .unsigned(UInt64(answer.frame), hexDigits: 0)), latency(answer.latencyMicroseconds)]
    }
    if let reason = unansweredReason {
      var why = "none before the capture ended"
      if reason == .timeout {
        why = "none within 30 s"
      } else if reason == .disconnected {
        why = "none before the link went down"
      } else if reason == .superseded {
        why = "none before the next request"
      }
      return [Field(decoded.att?.opcode == .handleValueIndication ? "Confirmation" : "Response", .text(why))]
    }
    return []
  }
}
