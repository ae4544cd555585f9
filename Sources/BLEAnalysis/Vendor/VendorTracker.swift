import BLECapture
import BLEDissect

/// Decodes the protocols developers run over GATT (mcumgr, Nordic DFU, Nordic UART,
/// HID over GATT, Apple ANCS and AMS) from the values of their characteristics, and
/// follows them across records: reassembly, request and response pairs, transfer
/// progress, HID report maps. A PDU about another attribute pays one check.
struct VendorTracker {
  private var mcumgr = MCUmgrTracker()
  private var dfu = DFUTracker()
  private var nus = NUSTracker()
  private var hid = HIDTracker()
  private var apple = AppleTracker()
  /// The attribute last looked up and its role: PDUs come in runs on one attribute.
  private var lastAttribute: ObjectIdentifier?
  private var lastRole: VendorCharacteristic?

  /// Connections followed at once, per protocol.
  static let maximumConnections = 16_384

  mutating func analyze(_ record: Record, _ analyzed: inout AnalyzedRecord) {
    if let reference = analyzed.attributeReference {
      let identity = ObjectIdentifier(reference.takeUnretainedValue())
      if identity != lastAttribute {
        lastAttribute = identity
        lastRole = reference._withUnsafeGuaranteedRef {
          VendorCharacteristic(uuid: $0.uuid, characteristic: $0.characteristic)
        }
      }
      if let role = lastRole { decode(role, reference.takeUnretainedValue(), record, &analyzed) }
    } else if let ended = analyzed.endedConnection {
      end(ended, at: record.timestamp.unixMicroseconds, &analyzed)
    }
  }

  private mutating func decode(
    _ role: VendorCharacteristic, _ attribute: GATTAttribute, _ record: Record, _ analyzed: inout AnalyzedRecord
  ) {
    guard let att = analyzed.decoded.att, let conn = analyzed.conn else { return }
    let fromClient: Bool
    switch att.opcode {
    case .writeRequest, .writeCommand, .signedWriteCommand, .executeWriteRequest: fromClient = true
    case .handleValueNotification, .handleValueIndication, .readResponse, .readBlobResponse: fromClient = false
    case .errorResponse:
      return appleError(role, att, &analyzed)
    default: return
    }
    var value: [UInt8]
    var frames: [Int] = []
    if let assembled = analyzed.assembled.first(where: { $0.attribute === attribute }) {
      value = assembled.value
      frames = assembled.frames
    } else {
      guard att.opcode != .readBlobResponse, att.opcode != .executeWriteRequest, let range = att.value else { return }
      // A Read Response that fills the ATT_MTU may go on in Read Blobs: decoded once whole.
      if att.opcode == .readResponse, range.count >= Int(analyzed.mtu ?? ATTPDU.minimumMTU) - 1 { return }
      value = DecodedRecord.withPayloadBytes(analyzed.decoded.reassembled, record) { $0.copy(range) }
    }
    let pdu = VendorPDU(
      role: role, value: value, fromClient: fromClient, frame: record.frame, time: record.timestamp.unixMicroseconds,
      connection: conn, attribute: attribute, frames: frames)
    let outcome: VendorOutcome
    switch role.protocolName.description {
    case "mcumgr": outcome = guarded(mcumgr.connectionCount, conn) { mcumgr.analyze(pdu) }
    case "dfu": outcome = guarded(dfu.connectionCount, conn) { dfu.analyze(pdu) }
    case "nus": outcome = guarded(nus.connectionCount, conn) { nus.analyze(pdu) }
    case "hid": outcome = hid.analyze(pdu)
    default: outcome = guarded(apple.connectionCount, conn) { apple.analyze(pdu) }
    }
    apply(outcome, &analyzed)
  }

  /// Runs `body` unless `count` connections are followed already (and this is not one).
  private func guarded(_ count: Int, _ conn: ConnectionRef, _ body: () -> VendorOutcome) -> VendorOutcome {
    guard count >= Self.maximumConnections else { return body() }
    return VendorOutcome(diagnostics: [
      Diagnostic(
        id: "vendor.state.limit", severity: .info,
        "vendor protocols are followed on \(Self.maximumConnections) connections at once; connection #\(conn.id) is not"
      )
    ])
  }

  private func apply(_ outcome: VendorOutcome, _ analyzed: inout AnalyzedRecord) {
    analyzed.decoded.diagnostics += outcome.diagnostics
    if let record = outcome.record { analyzed.vendor.append(record) }
  }

  /// An Error Response to an ANCS or AMS write: their own error codes by name.
  private func appleError(_ role: VendorCharacteristic, _ att: ATTPDU, _ analyzed: inout AnalyzedRecord) {
    guard let code = att.error?.rawValue else { return }
    switch role.protocolName.description {
    case "ancs":
      if let name = ANCSMessage.errorName(code) { analyzed.vendor.append(.ancs(ANCSRecord(error: name))) }
    case "ams":
      if let name = AMSMessage.errorName(code) { analyzed.vendor.append(.ams(AMSRecord(error: name))) }
    default: break
    }
  }

  /// A connection ended: transfers it cut short are reported on its disconnection, and
  /// its state goes.
  private mutating func end(_ connection: ConnectionRef, at time: Int64, _ analyzed: inout AnalyzedRecord) {
    var outcomes = [mcumgr.ended(connection.id, at: time), dfu.ended(connection.id, at: time)]
    nus.ended(connection.id)
    apple.ended(connection.id)
    hid.ended(connection.peer, connection: connection.id)
    for index in outcomes.indices {
      guard let progress = outcomes[index].record.flatMap({ $0.mcumgr?.progress ?? $0.dfu?.progress }),
        let stall = progress.stall
      else { continue }
      let id = outcomes[index].record?.mcumgr != nil ? "mcumgr.upload.stalled" : "dfu.stalled"
      outcomes[index].diagnostics.append(
        Diagnostic(
          id: id, severity: .warning,
          "\(progress.transfer) stopped at offset \(stall.offset) after \(VendorFormat.seconds(stall.microseconds)) without progress, when the link went down"
        ))
    }
    for outcome in outcomes { apply(outcome, &analyzed) }
  }
}
