import BLECapture

/// A dynamic L2CAP channel endpoint as signaling set it up.
public struct L2CAPChannel: Hashable, Sendable {
  /// How the channel carries data (Core 6.0, Vol 3, Part A, 2.4).
  public enum Mode: Hashable, Sendable {
    /// B-frames: the payload is the upper-layer PDU (BR/EDR Connection Request;
    /// configuration is not followed, so basic mode is assumed).
    case basic
    /// K-frames with SDU segmentation (LE Credit Based Connection Request).
    case leCreditBased
    /// K-frames with SDU segmentation (Credit Based Connection Request).
    case enhancedCreditBased
  }

  /// The PSM (BR/EDR) or SPSM (LE) the channel was opened for.
  public var psm: UInt16
  public var mode: Mode
  /// The MTU and MPS of the endpoint that receives on this CID, when signaled.
  public var mtu: UInt16?
  public var mps: UInt16?
  /// The CID that packets going the other way on the same channel carry.
  public var peerCID: UInt16?

  public init(psm: UInt16, mode: Mode, mtu: UInt16? = nil, mps: UInt16? = nil, peerCID: UInt16? = nil) {
    self.psm = psm
    self.mode = mode
    self.mtu = mtu
    self.mps = mps
    self.peerCID = peerCID
  }

  /// The channel is an ATT bearer: EATT (PSM 0x0027) or ATT over BR/EDR (0x001F).
  public var carriesATT: Bool { psm == L2CAPPSM.att.rawValue || psm == L2CAPPSM.eatt.rawValue }
}

/// The dynamic channels of every connection, learned from the signaling seen in
/// both directions.
///
/// The CID in an L2CAP header names the RECEIVER's endpoint. If side A asks with
/// Source CID X and side B answers with Destination CID Y, A's packets to B carry Y
/// and B's packets to A carry X, and both sides often pick 0x0040. So a channel is
/// looked up by the packet's direction and its CID.
///
/// Requests pair with responses by (adapter, handle, identifier), the response
/// going the opposite way. Disconnection Response removes both endpoints; `reset`
/// forgets a connection at disconnect.
public struct L2CAPChannelTable {
  struct ChannelKey: Hashable {
    var adapter: UInt16?
    var handle: UInt16
    /// The direction of the packets that carry `cid`.
    var direction: Direction?
    var cid: UInt16
  }

  struct RequestKey: Hashable {
    var adapter: UInt16?
    var handle: UInt16
    /// The request's direction.
    var direction: Direction?
    var identifier: UInt8
  }

  struct Request {
    var code: L2CAPSignalingCode
    var psm: UInt16
    /// The requester's endpoints (for Reconfigure: those it reconfigures).
    var cids: [UInt16]
    var mtu: UInt16?
    var mps: UInt16?
  }

  var channels: [ChannelKey: L2CAPChannel] = [:]
  var requests: [RequestKey: Request] = [:]
  /// Unanswered requests kept at most (a capture without responses stays bounded).
  static let maxRequests = 1024
  /// Channel endpoints kept at most, over all connections; they are freed at disconnect.
  public let maxChannels: Int
  /// A channel was not added since the last `takeRefusal()`: the table was full.
  private var refused = false

  /// Whether a channel was refused since the last call (for its diagnostic).
  public mutating func takeRefusal() -> Bool {
    defer { refused = false }
    return refused
  }

  public init(maxChannels: Int = 65_536) {
    self.maxChannels = maxChannels
  }

  /// Channels known, counting each direction's endpoint.
  public var count: Int { channels.count }

  /// The channel that packets going `direction` with `cid` in their header belong to.
  public func channel(adapter: UInt16?, handle: UInt16, direction: Direction?, cid: UInt16) -> L2CAPChannel? {
    channels[ChannelKey(adapter: adapter, handle: handle, direction: direction, cid: cid)]
  }

  /// Forgets a connection's channels and requests (at disconnect).
  public mutating func reset(adapter: UInt16?, handle: UInt16) {
    channels = channels.filter { !($0.key.adapter == adapter && $0.key.handle == handle) }
    requests = requests.filter { !($0.key.adapter == adapter && $0.key.handle == handle) }
  }

  /// Learns from one signaling command that went `direction`. `bytes` is the buffer
  /// the PDU's ranges point into (for CID lists).
  public mutating func observe(
    _ pdu: L2CAPSignalingPDU, adapter: UInt16?, handle: UInt16, direction: Direction?, bytes: UnsafeRawBufferPointer
  ) {
    let key = RequestKey(adapter: adapter, handle: handle, direction: direction, identifier: pdu.identifier)
    // The request a response answers went the other way.
    let requestKey = RequestKey(
      adapter: adapter, handle: handle, direction: opposite(direction), identifier: pdu.identifier)

    switch pdu.parameters {
    case .connectionRequest(let psm, let sourceCID),
      .createChannelRequest(let psm, let sourceCID, _):
      remember(key, Request(code: pdu.code, psm: psm, cids: [sourceCID]))

    case .connectionResponse(let destinationCID, _, let result, _):
      guard let request = requests[requestKey], request.code.response == pdu.code else { return }
      if result == 0x0001 { return }  // pending: the final response follows
      requests.removeValue(forKey: requestKey)
      guard result == 0x0000, destinationCID != 0, let sourceCID = request.cids.first else { return }
      let channel = L2CAPChannel(psm: request.psm, mode: .basic)
      add(adapter, handle, requestDirection: opposite(direction), requester: sourceCID, responder: destinationCID) {
        _ in channel
      }

    case .leCreditBasedConnectionRequest(let spsm, let sourceCID, let mtu, let mps, _):
      remember(key, Request(code: pdu.code, psm: spsm, cids: [sourceCID], mtu: mtu, mps: mps))

    case .leCreditBasedConnectionResponse(let destinationCID, let mtu, let mps, _, let result):
      guard let request = requests.removeValue(forKey: requestKey), request.code == .leCreditBasedConnectionRequest,
        result == 0x0000, destinationCID != 0, let sourceCID = request.cids.first
      else { return }
      add(adapter, handle, requestDirection: opposite(direction), requester: sourceCID, responder: destinationCID) {
        toResponder in
        toResponder
          ? L2CAPChannel(psm: request.psm, mode: .leCreditBased, mtu: mtu, mps: mps)
          : L2CAPChannel(psm: request.psm, mode: .leCreditBased, mtu: request.mtu, mps: request.mps)
      }

    case .creditBasedConnectionRequest(let spsm, let mtu, let mps, _, let sourceCIDs):
      let cids = L2CAPSignalingPDU.cids(sourceCIDs, in: bytes)
      remember(key, Request(code: pdu.code, psm: spsm, cids: Array(cids.prefix(5)), mtu: mtu, mps: mps))

    case .creditBasedConnectionResponse(let mtu, let mps, _, let result, let destinationCIDs):
      guard let request = requests[requestKey], request.code == .creditBasedConnectionRequest else { return }
      if (0x000D...0x000F).contains(result) { return }  // pending: the final response follows
      requests.removeValue(forKey: requestKey)
      // Success, or some refused: refused ones have Destination CID 0x0000.
      guard [0x0000, 0x0004, 0x0009, 0x000A].contains(result) else { return }
      for (sourceCID, destinationCID) in zip(request.cids, L2CAPSignalingPDU.cids(destinationCIDs, in: bytes))
      where destinationCID != 0 {
        add(adapter, handle, requestDirection: opposite(direction), requester: sourceCID, responder: destinationCID) {
          toResponder in
          toResponder
            ? L2CAPChannel(psm: request.psm, mode: .enhancedCreditBased, mtu: mtu, mps: mps)
            : L2CAPChannel(psm: request.psm, mode: .enhancedCreditBased, mtu: request.mtu, mps: request.mps)
        }
      }

    case .creditBasedReconfigureRequest(let mtu, let mps, let destinationCIDs):
      // The listed CIDs are the sender's own endpoints (it receives on them).
      let cids = L2CAPSignalingPDU.cids(destinationCIDs, in: bytes)
      remember(key, Request(code: pdu.code, psm: 0, cids: Array(cids.prefix(5)), mtu: mtu, mps: mps))

    case .result(let result) where pdu.code == .creditBasedReconfigureResponse:
      guard let request = requests.removeValue(forKey: requestKey), request.code == .creditBasedReconfigureRequest,
        result == 0x0000
      else { return }
      // Packets to the requester go the way of this response.
      for cid in request.cids {
        let channelKey = ChannelKey(adapter: adapter, handle: handle, direction: direction, cid: cid)
        channels[channelKey]?.mtu = request.mtu
        channels[channelKey]?.mps = request.mps
      }

    case .disconnection(let destinationCID, let sourceCID) where pdu.code == .disconnectionResponse:
      // Destination CID is the responder's endpoint (packets to it go the other
      // way), Source CID the requester's (packets to it go this way).
      channels.removeValue(
        forKey: ChannelKey(adapter: adapter, handle: handle, direction: opposite(direction), cid: destinationCID))
      channels.removeValue(forKey: ChannelKey(adapter: adapter, handle: handle, direction: direction, cid: sourceCID))

    case .commandReject:
      requests.removeValue(forKey: requestKey)

    default:
      break
    }
  }

  private mutating func remember(_ key: RequestKey, _ request: Request) {
    if requests.count >= Self.maxRequests { requests.removeAll() }
    requests[key] = request
  }

  /// Adds both endpoints of a channel: packets going the request's way carry the
  /// responder's CID, packets going the other way the requester's.
  private mutating func add(
    _ adapter: UInt16?, _ handle: UInt16, requestDirection: Direction?, requester: UInt16, responder: UInt16,
    _ make: (_ toResponder: Bool) -> L2CAPChannel
  ) {
    guard channels.count + 2 <= maxChannels else {
      refused = true
      return
    }
    var toResponder = make(true)
    toResponder.peerCID = requester
    var toRequester = make(false)
    toRequester.peerCID = responder
    channels[ChannelKey(adapter: adapter, handle: handle, direction: requestDirection, cid: responder)] = toResponder
    channels[ChannelKey(adapter: adapter, handle: handle, direction: opposite(requestDirection), cid: requester)] =
      toRequester
  }

  private func opposite(_ direction: Direction?) -> Direction? {
    switch direction {
    case .sent: .received
    case .received: .sent
    case nil: nil
    }
  }
}
