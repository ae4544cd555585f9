import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders the records of `show`, capture by capture.
public protocol ShowRenderer {
  /// `file` is set when several captures are shown, to tell their records apart.
  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer)
  mutating func render(_ record: Record, _ decoded: DecodedRecord, into out: inout OutputBuffer)
  mutating func endCapture(_ summary: CaptureSummary, damage: CaptureDamage?, into out: inout OutputBuffer)
  mutating func finish(into out: inout OutputBuffer)
}

/// A renderer for `format`.
public func makeShowRenderer(_ format: RenderFormat) -> any ShowRenderer {
  switch format {
  case .text: TextShowRenderer()
  case .ndjson: JSONShowRenderer(document: false)
  case .json: JSONShowRenderer(document: true)
  }
}

/// NDJSON (one object per record and line) or one JSON document holding the same
/// objects: `{"schema_version":1,"captures":[{"file","format","records":[…]}]}`.
struct JSONShowRenderer: ShowRenderer {
  let document: Bool
  private var file: String?
  private var capturesWritten = 0
  private var recordsWritten = 0

  init(document: Bool) {
    self.document = document
  }

  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {
    self.file = file
    recordsWritten = 0
    guard document else { return }
    out.append(capturesWritten == 0 ? "{\"schema_version\":" : ",")
    if capturesWritten == 0 {
      out.appendDecimal(schemaVersion)
      out.append(",\"captures\":[")
    }
    out.append("{\"file\":")
    out.appendJSONString(path)
    out.append(",\"format\":")
    out.appendJSONString(format)
    out.append(",\"records\":[")
    capturesWritten += 1
  }

  mutating func render(_ record: Record, _ decoded: DecodedRecord, into out: inout OutputBuffer) {
    if document && recordsWritten > 0 { out.append(",") }
    recordsWritten += 1
    JSONRecord.append(record, decoded, file: file, into: &out)
    if !document { out.append(0x0A) }
  }

  mutating func endCapture(_ summary: CaptureSummary, damage: CaptureDamage?, into out: inout OutputBuffer) {
    guard document else { return }
    out.append("],\"damage\":")
    if let damage {
      out.append("{\"offset\":")
      out.appendDecimal(damage.offset)
      out.append(",\"message\":")
      out.appendJSONString(damage.message)
      out.append("}")
    } else {
      out.append("null")
    }
    out.append("}")
  }

  mutating func finish(into out: inout OutputBuffer) {
    guard document else { return }
    if capturesWritten == 0 {
      out.append("{\"schema_version\":")
      out.appendDecimal(schemaVersion)
      out.append(",\"captures\":[")
    }
    out.append("]}\n")
  }
}

/// The data-contract object of one record (DESIGN.md, `show --format ndjson`).
enum JSONRecord {
  static func append(_ record: Record, _ decoded: DecodedRecord, file: String?, into out: inout OutputBuffer) {
    out.append("{\"frame\":")
    out.appendDecimal(record.frame)
    if let file {
      out.append(",\"file\":")
      out.appendJSONString(file)
    }
    out.append(",\"ts\":")
    appendSeconds(record.timestamp.unixMicroseconds, into: &out)
    out.append(",\"dir\":")
    switch record.direction {
    case .sent: out.append("\"tx\"")
    case .received: out.append("\"rx\"")
    case nil: out.append("null")
    }
    out.append(",\"adapter\":")
    if let adapter = record.adapter { out.appendDecimal(Int(adapter)) } else { out.append("null") }
    out.append(",\"length\":")
    out.appendDecimal(record.bytes.count)
    if record.isCutBySource {
      out.append(",\"original_length\":")
      out.appendDecimal(record.originalLength)
    }
    if let hci = decoded.hci { appendHCI(hci, into: &out) }
    if let acl = decoded.acl {
      out.append(",\"acl\":{\"handle\":")
      out.appendDecimal(Int(acl.handle))
      out.append(",\"pb\":")
      out.appendDecimal(Int(acl.pb))
      out.append(",\"length\":")
      out.appendDecimal(Int(acl.length))
      out.append("}")
    }
    if let monitor = decoded.monitor {
      out.append(",\"monitor\":{\"opcode\":")
      out.appendDecimal(Int(monitor.rawValue))
      out.append(",\"name\":")
      out.appendJSONString(RecordKindNames.name(monitor))
      out.append("}")
    }
    if let type = decoded.packetLogger {
      out.append(",\"packetlogger\":{\"type\":")
      out.appendDecimal(Int(type))
      out.append(",\"name\":")
      out.appendJSONString(RecordKindNames.packetLoggerName(type))
      out.append("}")
    }
    if let linkType = decoded.linkLayer {
      out.append(",\"ll\":{\"link_type\":")
      out.appendDecimal(Int(linkType.rawValue))
      out.append("}")
    }
    if !decoded.diagnostics.isEmpty {
      out.append(",\"diagnostics\":[")
      for (index, diagnostic) in decoded.diagnostics.enumerated() {
        if index > 0 { out.append(",") }
        out.append("{\"id\":")
        out.appendJSONString(diagnostic.id)
        out.append(",\"severity\":")
        out.appendJSONString(diagnostic.severity.rawValue)
        out.append(",\"message\":")
        out.appendJSONString(diagnostic.message)
        out.append("}")
      }
      out.append("]")
    }
    out.append("}")
  }

  private static func appendHCI(_ hci: HCILayer, into out: inout OutputBuffer) {
    out.append(",\"hci\":{\"type\":\"")
    out.append(hci.type.name)
    out.append("\"")
    appendField(",\"opcode\":", hci.opcode, into: &out)
    appendField(",\"event\":", hci.event, into: &out)
    appendField(",\"subevent\":", hci.subevent, into: &out)
    appendField(",\"status\":", hci.status, into: &out)
    appendField(",\"handle\":", hci.handle, into: &out)
    out.append("}")
  }

  /// `key` and the value when there is one; a missing field is left out.
  private static func appendField(_ key: StaticString, _ value: (some FixedWidthInteger)?, into out: inout OutputBuffer)
  {
    guard let value else { return }
    out.append(key)
    out.appendDecimal(Int(value))
  }

  /// Unix seconds with six decimals: `1715679000.000312`, `-0.500000`.
  static func appendSeconds(_ microseconds: Int64, into out: inout OutputBuffer) {
    if microseconds < 0 { out.append(UInt8(ascii: "-")) }
    let magnitude = microseconds.magnitude
    out.appendDecimal(magnitude / 1_000_000)
    out.append(UInt8(ascii: "."))
    out.appendDecimal(magnitude % 1_000_000, minimumDigits: 6)
  }
}
