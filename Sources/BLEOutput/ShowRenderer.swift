import BLEAnalysis
import BLECapture
import BLEDissect

/// Renders the records of `show`, capture by capture.
public protocol ShowRenderer {
  /// `file` is set when several captures are shown, to tell their records apart.
  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer)
  /// `start` is the time of the capture's first record (shown or not).
  mutating func render(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer)
  mutating func endCapture(_ summary: CaptureSummary, capture: CaptureInfo, into out: inout OutputBuffer)
  mutating func finish(into out: inout OutputBuffer)
  /// Before `beginCapture`: how many adapters the capture's records name (nil: not known
  /// before reading), for a renderer that shows an adapter column only when there is a
  /// choice. `count` may walk the file; it is called only by a renderer that needs it.
  mutating func adapters(_ count: () -> Int?)
}

extension ShowRenderer {
  public mutating func adapters(_ count: () -> Int?) {}
}

/// A renderer for `format`; `verbose` adds the field tree of every record (`-v`),
/// `text` sets what only the text shows (time column, hex dump, colour). `names` names
/// the UUIDs of discovery responses.
public func makeShowRenderer(
  _ format: RenderFormat, verbose: Bool = false, text: TextShowOptions = .init(), names: DissectorLibrary = .builtin
) -> any ShowRenderer {
  switch format {
  case .text: TextShowRenderer(verbose: verbose, options: text, names: names)
  case .ndjson: JSONShowRenderer(document: false, verbose: verbose, names: names)
  case .json: JSONShowRenderer(document: true, verbose: verbose, names: names)
  }
}

/// NDJSON (one object per record and line) or one JSON document holding the same
/// objects: `{"schema_version":2,"captures":[{"file","format","records":[…]}]}`.
struct JSONShowRenderer: ShowRenderer {
  let document: Bool
  let verbose: Bool
  let names: DissectorLibrary
  private var file: String?
  private var capturesWritten = 0
  private var recordsWritten = 0

  init(document: Bool, verbose: Bool, names: DissectorLibrary = .builtin) {
    self.document = document
    self.verbose = verbose
    self.names = names
  }

  mutating func beginCapture(path: String, format: String, file: String?, into out: inout OutputBuffer) {
    self.file = file
    recordsWritten = 0
    guard document else { return }
    if capturesWritten == 0 {
      out.appendDocumentStart(.show, listing: "captures")
    } else {
      out.append(",")
    }
    out.append("{\"file\":")
    out.appendJSONString(path)
    out.append(",\"format\":")
    out.appendJSONString(format)
    out.append(",\"records\":[")
    capturesWritten += 1
  }

  mutating func render(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp, into out: inout OutputBuffer) {
    if document && recordsWritten > 0 { out.append(",") }
    recordsWritten += 1
    JSONRecord.append(record, analyzed, file: file, verbose: verbose, names: names, into: &out)
    if !document { out.append(0x0A) }
  }

  mutating func endCapture(_ summary: CaptureSummary, capture: CaptureInfo, into out: inout OutputBuffer) {
    guard document else { return }
    out.append("]")
    var k = JSONKeys(following: 1)
    capture.appendFields(&k, records: "record_count", skipFileAndFormat: true, into: &out)
    if summary.dropped > 0 {
      out.append(",\"dropped\":")
      out.appendDecimal(summary.dropped)
    }
    out.append("}")
  }

  /// `{"offset":370,"message":"…"}`, or `null` for a capture read to its end.
  static func appendDamage(_ damage: CaptureDamage?, into out: inout OutputBuffer) {
    guard let damage else { return out.append("null") }
    out.append("{\"offset\":")
    out.appendDecimal(damage.offset)
    out.append(",\"message\":")
    out.appendJSONString(damage.message)
    out.append("}")
  }

  mutating func finish(into out: inout OutputBuffer) {
    guard document else { return }
    if capturesWritten == 0 { out.appendDocumentStart(.show, listing: "captures") }
    out.append("]}\n")
  }
}

/// The data-contract object of one record (DESIGN.md, `show --format ndjson`).
enum JSONRecord {
  static func append(
    _ record: Record, _ analyzed: AnalyzedRecord, file: String?, verbose: Bool, names: DissectorLibrary = .builtin,
    into out: inout OutputBuffer
  ) {
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
    if let hci = analyzed.decoded.hci { appendHCI(hci, into: &out) }
    if let acl = analyzed.decoded.acl {
      out.append(",\"acl\":{\"handle\":")
      out.appendDecimal(Int(acl.handle))
      out.append(",\"pb\":")
      out.appendDecimal(Int(acl.pb))
      out.append(",\"length\":")
      out.appendDecimal(Int(acl.length))
      out.append("}")
    }
    if let l2cap = analyzed.decoded.l2cap { appendL2CAP(l2cap, analyzed.decoded.signaling, into: &out) }
    if let att = analyzed.decoded.att {
      analyzed.decoded.withPayloadBytes(record) { appendATT(att, analyzed, $0, names, into: &out) }
    }
    if let smp = analyzed.decoded.smp {
      out.append(",\"smp\":{\"code\":")
      out.appendDecimal(Int(smp.code.rawValue))
      out.append(",\"name\":")
      out.appendJSONString(smp.code.name)
      if let method = analyzed.pairingMethod {
        out.append(",\"method\":")
        out.appendJSONString(method.name)
      }
      out.append("}")
    }
    if let reports = analyzed.decoded.advertising { AdvertisingJSON.appendReports(reports, record, into: &out) }
    if analyzed.extrasID != 0, analyzed.decoded.att != nil || analyzed.endedConnection != nil {
      VendorRendering.appendJSON(analyzed.vendor, into: &out)
    }
    if let conn = analyzed.conn {
      out.append(",\"conn\":")
      // The name read without retaining its PeerName.
      if let name = analyzed.peerNameReference {
        name._withUnsafeGuaranteedRef { out.appendConnJSON(conn, peerName: $0.name) }
      } else {
        out.appendConnJSON(conn, peerName: nil)
      }
    }
    if let monitor = analyzed.decoded.monitor {
      out.append(",\"monitor\":{\"opcode\":")
      out.appendDecimal(Int(monitor.rawValue))
      out.append(",\"name\":")
      out.appendJSONString(RecordKindNames.name(monitor))
      out.append("}")
    }
    if let type = analyzed.decoded.packetLogger {
      out.append(",\"packetlogger\":{\"type\":")
      out.appendDecimal(Int(type))
      out.append(",\"name\":")
      out.appendJSONString(RecordKindNames.packetLoggerName(type))
      out.append("}")
    }
    if let linkType = analyzed.decoded.linkLayer {
      if let ll = analyzed.decoded.ll {
        LLJSON.append(ll, into: &out)
      } else {
        out.append(",\"ll\":{\"link_type\":")
        out.appendDecimal(Int(linkType.rawValue))
        out.append("}")
      }
    }
    if analyzed.decoded.hasDiagnostics {
      out.append(",\"diagnostics\":[")
      for (index, diagnostic) in analyzed.decoded.diagnostics.enumerated() {
        if index > 0 { out.append(",") }
        out.appendDiagnosticJSON(diagnostic)
      }
      out.append("]")
    }
    if verbose {
      out.append(",\"fields\":")
      out.appendFieldTreeJSON(analyzed.fieldTree(record, names: names))
    }
    out.append("}")
  }

  private static func appendL2CAP(_ l2cap: L2CAPLayer, _ signaling: L2CAPSignalingPDU?, into out: inout OutputBuffer) {
    out.append(",\"l2cap\":{\"cid\":")
    out.appendDecimal(Int(l2cap.cid))
    out.append(",\"length\":")
    out.appendDecimal(Int(l2cap.length))
    appendField(",\"psm\":", l2cap.psm, into: &out)
    appendField(",\"sdu_length\":", l2cap.sduLength, into: &out)
    if l2cap.fragments > 1 { appendField(",\"fragments\":", l2cap.fragments, into: &out) }
    if let signaling {
      out.append(",\"signaling\":{\"code\":")
      out.appendDecimal(Int(signaling.code.rawValue))
      out.append(",\"name\":")
      out.appendJSONString(signaling.code.name)
      out.append(",\"identifier\":")
      out.appendDecimal(Int(signaling.identifier))
      out.append("}")
    }
    out.append("}")
  }

  private static func appendATT(
    _ att: ATTPDU, _ analyzed: AnalyzedRecord, _ bytes: UnsafeRawBufferPointer, _ names: DissectorLibrary,
    into out: inout OutputBuffer
  ) {
    out.append(",\"att\":{\"opcode\":")
    out.appendDecimal(Int(att.opcode.rawValue))
    out.append(",\"name\":")
    if let name = att.opcode.staticName { out.appendJSONString(name) } else { out.appendJSONString(att.opcode.name) }
    appendField(",\"handle\":", analyzed.attHandle, into: &out)
    _ = analyzed.withAttribute { attribute in
      appendText(",\"uuid\":", attribute.uuidUTF8, into: &out)
      appendText(",\"service_uuid\":", attribute.serviceUUIDUTF8, into: &out)
      appendText(",\"service_name\":", attribute.serviceNameUTF8, into: &out)
      appendText(",\"characteristic_uuid\":", attribute.characteristicUUIDUTF8, into: &out)
      appendText(",\"characteristic_name\":", attribute.characteristicNameUTF8, into: &out)
      appendText(",\"descriptor_uuid\":", attribute.descriptorUUIDUTF8, into: &out)
      appendText(",\"descriptor_name\":", attribute.descriptorNameUTF8, into: &out)
    }
    switch att.parameters {
    case .handleRange(let start, let end), .readByType(let start, let end, _),
      .findByTypeValue(let start, let end, _, _):
      appendField(",\"start_handle\":", start, into: &out)
      appendField(",\"end_handle\":", end, into: &out)
    default: break
    }
    if let value = att.value {
      let end = min(bytes.count, value.start + value.count)
      out.append(",\"value\":\"")
      out.appendHexBytes(bytes[min(value.start, end)..<end])
      out.append("\"")
    }
    if let error = att.error {
      appendField(",\"error\":", error.rawValue, into: &out)
      out.append(",\"error_name\":")
      out.appendJSONString(error.name)
      appendField(",\"request_opcode\":", att.requestOpcode?.rawValue, into: &out)
    }
    appendField(",\"rx_mtu\":", att.mtu, into: &out)
    if let exchange = analyzed.exchange {
      appendField(",\"request_frame\":", exchange.requestFrame, into: &out)
      out.append(",\"latency_ms\":")
      out.appendMeasure(Double(exchange.latencyMicroseconds) / 1000)
    } else if let answer = analyzed.answer {
      appendField(",\"response_frame\":", answer.frame, into: &out)
      out.append(",\"latency_ms\":")
      out.appendMeasure(Double(answer.latencyMicroseconds) / 1000)
    }
    if let outcome = analyzed.outcome {
      out.append(",\"outcome\":\"")
      out.append(string: outcome)
      out.append("\"")
    }
    if analyzed.extrasID != 0, let value = analyzed.value {
      out.append(",\"decoded\":")
      out.appendDecodedJSON(value.fields)
    }
    DiscoveryRendering.appendJSON(att, analyzed, bytes, names, into: &out)
    if analyzed.extrasID != 0, !analyzed.assembled.isEmpty {
      out.append(",\"assembled\":[")
      for (index, value) in analyzed.assembled.enumerated() {
        out.append(index == 0 ? "{\"handle\":" : ",{\"handle\":")
        out.appendDecimal(Int(value.handle))
        if let uuid = value.attribute?.uuidText {
          out.append(",\"uuid\":")
          out.appendJSONString(uuid)
        }
        out.append(",\"value\":\"")
        out.appendHexBytes(value.value)
        out.append("\",\"frames\":[")
        for (i, frame) in value.frames.enumerated() {
          if i > 0 { out.append(",") }
          out.appendDecimal(frame)
        }
        out.append("]")
        if let decoded = value.decoded {
          out.append(",\"decoded\":")
          out.appendDecodedJSON(decoded.fields)
        }
        out.append("}")
      }
      out.append("]")
    }
    out.append("}")
  }

  private static func appendHCI(_ hci: HCILayer, into out: inout OutputBuffer) {
    out.append(",\"hci\":{\"type\":\"")
    out.append(string: hci.type.name)
    out.append("\"")
    appendField(",\"opcode\":", hci.opcode, into: &out)
    appendField(",\"event\":", hci.event, into: &out)
    appendField(",\"subevent\":", hci.subevent, into: &out)
    appendField(",\"status\":", hci.status, into: &out)
    appendField(",\"handle\":", hci.handle, into: &out)
    if hci.type == .command || hci.type == .event {
      out.append(",\"name\":")
      out.appendJSONString(hci.name)
    }
    out.append("}")
  }

  /// `key` and the text when there is one; a missing field is left out.
  private static func appendText(_ key: StaticString, _ utf8: UnsafeRawBufferPointer?, into out: inout OutputBuffer) {
    guard let utf8 else { return }
    out.append(key)
    out.appendJSONString(utf8: utf8)
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

  /// The same, right-aligned in `width` columns.
  static func appendSeconds(_ microseconds: Int64, width: Int, into out: inout OutputBuffer) {
    guard microseconds >= 0 else {
      let mark = out.count
      appendSeconds(microseconds, into: &out)
      return out.padLeft(from: mark, width: width)
    }
    let magnitude = microseconds.magnitude
    out.appendDecimal(magnitude / 1_000_000, width: width - 7)
    out.append(UInt8(ascii: "."))
    out.appendDecimal(magnitude % 1_000_000, minimumDigits: 6)
  }
}
