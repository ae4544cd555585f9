import BLECapture

/// Everything decoded from one record: one value per layer, plus diagnostics.
public struct DecodedRecord: Sendable {
  public var hci: HCILayer?
  public var acl: ACLLayer?
  /// A Linux monitor record that carries no HCI packet.
  public var monitor: MonitorOpcode?
  /// A PacketLogger record that carries no HCI packet.
  public var packetLogger: UInt8?
  /// An air sniffer packet (decoded in a later layer).
  public var linkLayer: LinkType?
  public var diagnostics: [Diagnostic] = []

  public init() {}
}

/// Decodes records. Each record is an error boundary: a decode error becomes a
/// diagnostic and whatever was decoded before it is kept.
public struct RecordDecoder {
  public init() {}

  public func decode(_ record: Record) -> DecodedRecord {
    var decoded = DecodedRecord()
    if record.isCutBySource {
      decoded.diagnostics.append(
        Diagnostic(
          id: "capture.cut", severity: .info,
          "record cut by the capture source: \(record.bytes.count) of \(record.originalLength) bytes kept"))
    }
    switch record.kind {
    case .hci(let rawType):
      let type = HCIPacketType(rawValue: rawType)
      decoded.hci = HCILayer(type: type)
      do throws(DecodeError) {
        var c = ByteCursor(record.bytes.span.bytes, layer: type == .acl ? .acl : .hci)
        decoded.hci = try HCILayer.parse(
          type: type, &c, cut: record.originalLength - record.bytes.count, acl: &decoded.acl,
          diagnostics: &decoded.diagnostics)
      } catch {
        // A record cut by its source ends early by design; that is not malformed.
        if !record.isCutBySource {
          decoded.diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
        }
      }
    case .monitor(let opcode): decoded.monitor = opcode
    case .packetLogger(let type): decoded.packetLogger = type
    case .linkLayer(let type): decoded.linkLayer = type
    case .unframed:
      decoded.diagnostics.append(
        Diagnostic(id: "hci.truncated", severity: .warning, "record too short to hold its packet type"))
    }
    return decoded
  }
}

extension DecodedRecord {
  /// The data-contract name of what the record holds: the HCI packet type, the
  /// monitor or PacketLogger record name, `ll` for air packets, `unframed`.
  public var typeName: String {
    if let hci { return hci.type.name }
    if let monitor { return RecordKindNames.name(monitor) }
    if let packetLogger { return RecordKindNames.packetLoggerName(packetLogger) }
    if linkLayer != nil { return "ll" }
    return "unframed"
  }
}
