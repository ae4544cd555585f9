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
    if let ended = analyzed.endedConnection, let i = position(ended.id) {
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
      if let peer = conn.peer { reconnected(PeerKey(adapter: nil, address: peer), as: conn.id, at: at) }
      return
    }
    guard ll.data?.control != nil else { return data(record, analyzed, at) }
    let fromPeripheral = ll.direction == .peripheralToCentral
    guard case .air(let control) = analyzed.link else { return }
    switch control {
    case .connectionUpdate(let parameters):
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: parameters, status: 0, what: LLControlOpcode.connectionUpdateInd.name))
    case .connectionParameterRequest:
      timeline.connections[i].updates.append(
        ParameterUpdate(at: at, parameters: nil, status: 0, what: LLControlOpcode.connectionParamReq.name))
    case .encryptionRequest:
      states[conn.id]?.encryptionStart = at
    case .startEncryption:
      // LL_START_ENC_REQ: the last plaintext step; what follows is encrypted.
      timeline.connections[i].encryption.append(
        EncryptionChange(
          start: states[conn.id]?.encryptionStart, change: at, status: 0, enabled: true, isKeyRefresh: false))
      states[conn.id]?.encryptionStart = nil
      if analyzed.security == .pairingEncrypted, let p = timeline.connections[i].pairing.indices.last {
        timeline.connections[i].pairing[p].encrypted = at
      }
    case .version(let version, let company) where fromPeripheral:
      timeline.connections[i].remoteVersion = (at, version, company)
    case .featureResponse where fromPeripheral:
      timeline.connections[i].remoteFeatures = at
    case .dataLength(let length):
      timeline.connections[i].dataLength.append(
        DataLengthChange(
          at: at, maxTXOctets: length.maxTXOctets, maxTXTime: length.maxTXTime, maxRXOctets: length.maxRXOctets,
          maxRXTime: length.maxRXTime))
    case .phyUpdate(let centralToPeripheral, let peripheralToCentral):
      // PHY bits: 1 LE 1M, 2 LE 2M, 4 LE Coded; 0 keeps the PHY.
      func phy(_ bits: UInt8) -> UInt8 { [0, 1, 2, 0, 3][Int(min(4, bits))] }
      timeline.connections[i].phy.append(PHYChange(at: at, tx: phy(centralToPeripheral), rx: phy(peripheralToCentral)))
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
      let reason: UInt8 = if case .air(.terminate(let reason)) = analyzed.link { reason } else { 0 }
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
    if let peer = ended.peer { lastEnded[PeerKey(adapter: nil, address: peer)] = (ended.id, disconnect.complete) }
  }
}
