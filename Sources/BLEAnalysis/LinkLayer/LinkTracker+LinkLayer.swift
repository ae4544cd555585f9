import BLECapture
import BLEDissect

/// Connections heard on air: when each was last heard and its supervision timeout.
struct AirLinks {
  struct State {
    var last: Int64
    /// Supervision timeout in µs (CONNECT_IND, LL_CONNECTION_UPDATE_IND); nil when
    /// the connection was up before the capture started.
    var timeout: Int64?
  }

  /// Live connections, by connection number.
  var live: [UInt16: State] = [:]
  /// Connections that ended (LL_TERMINATE_IND or supervision timeout): later
  /// packets on them (the acknowledgement of LL_TERMINATE_IND) open nothing.
  var ended: Set<UInt16> = []
  /// Access addresses heard once without a CONNECT_IND, by connection number: when.
  var candidates: [UInt16: Int64] = [:]

  /// Two well-formed packets on one access address within this much make a stream: a
  /// central speaks at least once per connection interval (at most 4 s).
  static let streamWindow: Int64 = 4_000_000

  /// Whether a well-formed data PDU on connection `number`, which no CONNECT_IND
  /// opened, continues a stream: the second within `streamWindow` of the one before.
  /// One packet alone (a damaged access address, noise taken for a packet) opens
  /// nothing.
  mutating func streams(_ number: UInt16, at time: Int64) -> Bool {
    if let last = candidates[number], time - last <= Self.streamWindow {
      candidates[number] = nil
      return true
    }
    if candidates.count >= 4096 { candidates.removeAll() }
    candidates[number] = time
    return false
  }

  /// Diagnostics that say a packet is malformed: it does not count towards a stream.
  static let malformed: Set<String> = ["ll.length.mismatch", "ll.length.invalid", "ll.truncated", "ll.llid.reserved"]
}

extension LinkTracker {
  /// An air packet. A CONNECT_IND opens a connection: its initiator is the central,
  /// the advertiser the peripheral and its peer, and the capture is read as the
  /// central's (`role` central, central→peripheral `sent`). Data channel PDUs belong to
  /// it by access address; a stream of them without a CONNECT_IND (two well-formed
  /// packets within 4 s; the first belongs to no connection) opens a connection that
  /// was up before the capture, a single packet never does. LL_TERMINATE_IND ends it, and so does silence on its
  /// access address for longer than the supervision timeout.
  ///
  /// A retransmission and a packet with a bad CRC are decoded but kept out of the
  /// analysis: they belong to no connection here, so no ATT transaction, GATT
  /// database or timeline counts them twice or reads damaged bytes.
  mutating func analyzeLinkLayer(_ record: Record, _ analyzed: inout AnalyzedRecord) {
    guard let ll = analyzed.decoded.ll else { return }
    let time = record.timestamp.unixMicroseconds
    if time >= nextDeadline { expire(at: time, &analyzed) }
    endSilentLinks(at: time, &analyzed)
    guard let number = ll.connection, ll.radio.crc != .bad else { return }
    let key = LinkKey(adapter: nil, handle: number)
    if let advertising = ll.advertising, let connect = advertising.connect {
      if links[key] != nil { settleAll(key, .disconnected, into: &analyzed) }
      generations[key, default: 0] += 1
      var ref = newRef(adapter: nil, handle: number, generation: generations[key]!, isLE: true)
      ref.peer = advertising.advA
      ref.peerType = advertising.rxAdd ? 1 : 0
      ref.role = 0
      var link = Link(ref: ref)
      link.effectiveMTU = Self.defaultLEMTU
      links[key] = link
      airLinks.live[number] = AirLinks.State(last: time, timeout: connect.timeoutMicroseconds)
      airLinks.ended.remove(number)
      analyzed.conn = ref
      return
    }
    guard let data = ll.data, !ll.isRetransmission, !airLinks.ended.contains(number) else { return }
    if links[key] == nil {
      let malformed = analyzed.decoded.diagnostics.contains { AirLinks.malformed.contains($0.id) }
      guard !malformed, airLinks.streams(number, at: time) else { return }
      // Up before the capture started: its peer and MTU are unknown.
      var ref = newRef(adapter: nil, handle: number, generation: 0, isLE: true)
      ref.role = 0
      links[key] = Link(ref: ref)
    }
    airLinks.live[number, default: AirLinks.State(last: time)].last = time
    analyzed.conn = links[key]?.ref
    if let control = data.control {
      analyzed.link = LinkEvent(air: control)
      switch control.opcode {
      case .terminateInd:
        analyzed.endedConnection = links[key]?.ref
        settleAll(key, .disconnected, into: &analyzed)
        links[key] = nil
        airLinks.live[number] = nil
        airLinks.ended.insert(number)
      case .startEncReq:
        analyzed.security = links[key]?.pairing.encrypted()
      case .connectionUpdateInd:
        if case .air(.connectionUpdate(let parameters)) = analyzed.link {
          airLinks.live[number]?.timeout = Int64(parameters.supervisionTimeout.milliseconds) * 1000
        }
      default: break
      }
      return
    }
    if let slot = links.slot(adapter: key.adapter, handle: key.handle) { trackPDUs(record, at: slot, &analyzed) }
  }

  /// Connections silent for longer than their supervision timeout end; the record
  /// that shows it carries one of them (`endedConnection`, on a record that is not
  /// its LL_TERMINATE_IND), the next records the rest.
  private mutating func endSilentLinks(at time: Int64, _ analyzed: inout AnalyzedRecord) {
    guard analyzed.endedConnection == nil else { return }
    for (number, state) in airLinks.live {
      guard let timeout = state.timeout, time - state.last > timeout else { continue }
      let key = LinkKey(adapter: nil, handle: number)
      analyzed.endedConnection = links[key]?.ref
      settleAll(key, .disconnected, into: &analyzed)
      links[key] = nil
      airLinks.live[number] = nil
      airLinks.ended.insert(number)
      return
    }
  }
}
