import BLECapture
import BLEDissect

extension TimelineBuilder {
  /// An air packet: CONNECT_IND completes a connection (there is no separate attempt
  /// on air), LL Control PDUs give link setup (version, features, data length, PHY,
  /// parameter updates, encryption), LL_TERMINATE_IND or the supervision timeout end
  /// it, and L2CAP goes through the same ATT and SMP steps as ACL data. The
  /// peripheral's LL_VERSION_IND and LL_FEATURE_RSP are the "remote" ones, since the
  /// capture is read as the central's.
  mutating func addLinkLayer(_ record: Record, _ analyzed: AnalyzedRecord) {
    for request in analyzed.unanswered { settle(request) }
    let at = FrameTime(record)
    if let ended = analyzed.endedConnection, let i = index[ended.id] {
      linkLayerDisconnect(ended, i, analyzed, at)
    }
    guard let ll = analyzed.decoded.ll, let conn = analyzed.conn, let i = connection(conn, at) else { return }
    if timeline.connections[i].accessAddress == nil { timeline.connections[i].accessAddress = ll.accessAddress }
    if let connect = ll.advertising?.connect {
      timeline.connections[i].accessAddress = connect.accessAddress
      timeline.connections[i].complete = at
      timeline.connections[i].parameters = ConnectionParameters(
        interval: ConnectionInterval(units: connect.interval), latency: connect.latency,
        supervisionTimeout: SupervisionTimeout(units: connect.timeout))
      if let peer = conn.peer, let previous = lastEnded.removeValue(forKey: PeerKey(adapter: nil, address: peer)),
        let ended = timeline.connections[previous].disconnect
      {
        timeline.connections[previous].reconnectGapMicroseconds = ended.complete.microseconds(to: at)
        timeline.connections[previous].reconnectedAs = conn.id
      }
      return
    }
    guard let control = ll.data?.control else { return data(record, analyzed, at) }
    let fromPeripheral = ll.direction == .peripheralToCentral
    func integer(_ name: String) -> Int64? { control.parameters.lookup(name)?.value.integer }
    func u16(_ name: String) -> UInt16 { UInt16(truncatingIfNeeded: integer(name) ?? 0) }
    switch control.opcode.rawValue {
    case 0x00:
      timeline.connections[i].updates.append(
        ParameterUpdate(
          at: at,
          parameters: ConnectionParameters(
            interval: ConnectionInterval(units: u16("Interval")), latency: u16("Latency"),
            supervisionTimeout: SupervisionTimeout(units: u16("Timeout"))),
          status: 0, what: control.opcode.name))
    case 0x0F:
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: nil, status: 0, what: control.opcode.name))
    case 0x03:
      states[conn.id]?.encryptionStart = at
    case 0x05:
      // LL_START_ENC_REQ: the last plaintext step; what follows is encrypted.
      timeline.connections[i].encryption.append(
        EncryptionChange(
          start: states[conn.id]?.encryptionStart, change: at, status: 0, enabled: true, isKeyRefresh: false))
      states[conn.id]?.encryptionStart = nil
      if let p = timeline.connections[i].pairing.indices.last, timeline.connections[i].pairing[p].encrypted == nil,
        timeline.connections[i].pairing[p].failed == nil
      {
        timeline.connections[i].pairing[p].encrypted = at
      }
    case 0x0C where fromPeripheral:
      timeline.connections[i].remoteVersion = (
        at, UInt8(truncatingIfNeeded: integer("VersNr") ?? 0), u16("CompId")
      )
    case 0x09 where fromPeripheral:
      timeline.connections[i].remoteFeatures = at
    case 0x15:
      timeline.connections[i].dataLength.append(
        DataLengthChange(
          at: at, maxTXOctets: u16("MaxTxOctets"), maxTXTime: u16("MaxTxTime"), maxRXOctets: u16("MaxRxOctets"),
          maxRXTime: u16("MaxRxTime")))
    case 0x18:
      // PHY bits: 1 LE 1M, 2 LE 2M, 4 LE Coded; 0 keeps the PHY.
      func phy(_ bits: Int64?) -> UInt8 { [0, 1, 2, 0, 3][Int(min(4, bits ?? 0))] }
      timeline.connections[i].phy.append(
        PHYChange(at: at, tx: phy(integer("PHY_C_TO_P")), rx: phy(integer("PHY_P_TO_C"))))
    default:
      break
    }
  }

  /// LL_TERMINATE_IND (its ErrorCode is the reason; the central's is this side's) or
  /// the supervision timeout (Connection Timeout, when the timeout ran out).
  private mutating func linkLayerDisconnect(
    _ ended: ConnectionRef, _ i: Int, _ analyzed: AnalyzedRecord, _ at: FrameTime
  ) {
    let disconnect: Disconnect
    let terminate = analyzed.conn?.id == ended.id && analyzed.decoded.ll?.data?.control?.opcode == .terminateInd
    if !terminate {
      // Silence for the supervision timeout: the link was lost when it ran out.
      let last = timeline.connections[i].last
      let timeout = Int64(timeline.connections[i].currentParameters?.supervisionTimeout.milliseconds ?? 0) * 1000
      disconnect = Disconnect(
        command: nil, commandReason: nil, complete: FrameTime(frame: last.frame, timestamp: last.timestamp + timeout),
        reason: HCIStatusCode.connectionTimeout.rawValue, initiator: .linkLoss)
    } else {
      let ll = analyzed.decoded.ll
      let reason = UInt8(truncatingIfNeeded: ll?.data?.control?.parameters.lookup("ErrorCode")?.value.integer ?? 0)
      let byCentral = ll?.direction == .centralToPeripheral
      disconnect = Disconnect(
        command: nil, commandReason: nil, complete: at, reason: reason,
        initiator: DisconnectInitiator.of(
          reason: reason, localCommand: byCentral,
          sinceComplete: timeline.connections[i].complete?.microseconds(to: at),
          interval: timeline.connections[i].parameters?.interval))
      timeline.connections[i].last = at
    }
    timeline.connections[i].disconnect = disconnect
    states[ended.id] = nil
    if let peer = ended.peer { lastEnded[PeerKey(adapter: nil, address: peer)] = i }
  }
}
