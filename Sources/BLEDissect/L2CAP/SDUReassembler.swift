/// Which stream of K-frames an SDU belongs to: one channel in one direction.
public struct SDUKey: Hashable, Sendable {
  public var acl: ACLKey
  public var cid: UInt16

  public init(acl: ACLKey, cid: UInt16) {
    self.acl = acl
    self.cid = cid
  }
}

/// What became of one K-frame.
public enum SDUReassembly: Hashable, Sendable {
  /// The SDU is inside this K-frame; `range` is relative to the start of the
  /// K-frame's information payload (it starts at 2, after the SDU Length), clipped
  /// to the bytes present.
  case complete(range: ByteRange)
  /// This K-frame completed an SDU of several K-frames: its bytes, or the part
  /// before the first byte the capture source left out (`isCut`).
  case reassembled([UInt8], isCut: Bool)
  /// The K-frame started or continued an SDU.
  case needMoreData
  /// The K-frame belongs to no SDU that can be rebuilt (see the diagnostics).
  case dropped
}

/// Rebuilds SDUs from the K-frames of credit based channels (LE credit based and
/// enhanced credit based modes).
///
/// Core 6.0, Vol 3, Part A, 3.4.3 and 7.3: the first K-frame of an SDU starts with a
/// 2-byte L2CAP SDU Length, the K-frames that follow carry only the rest. No flag
/// marks a start, so a lost SDU is still counted through to its end to stay in step.
///
///     first K-frame:     | length | cid | SDU Length | information payload |
///     following K-frame: | length | cid | information payload              |
public struct SDUReassembler {
  public let maxBufferedBytes: Int
  /// Bytes held in all pending SDUs.
  public private(set) var bufferedBytes = 0

  struct Pending {
    var buffer: [UInt8]
    /// The SDU Length.
    var expected: Int
    /// Bytes of the SDU seen so far, those the capture source left out included.
    var received: Int
    var isCut: Bool
    /// Over the limit: count the SDU's K-frames to its end without keeping them.
    var discarding = false
  }

  var pending: [SDUKey: Pending] = [:]

  public init(maxBufferedBytes: Int = 1 << 20) {
    self.maxBufferedBytes = maxBufferedBytes
  }

  /// Every diagnostic id the SDU reassembler emits.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("l2cap.sdu.truncated", "the first K-frame of an SDU is too short to hold the 2-byte L2CAP SDU Length"),
    ("l2cap.sdu.length.extra", "K-frames hold more bytes than the L2CAP SDU Length; the extra ones are ignored"),
    ("l2cap.sdu.reassembly.limit", "SDU reassembly buffers reached their memory limit; the SDU is dropped"),
  ]

  /// SDUs waiting for K-frames.
  public var pendingCount: Int { pending.values.count { !$0.discarding } }

  /// Takes one K-frame's information payload (after the basic L2CAP header) on
  /// channel `cid`. `isCut`: the capture source left out some of its bytes;
  /// `payloadLength` is then the payload's size before the cut (the L2CAP header's
  /// Length). A cut K-frame of unknown size is taken to end its SDU.
  public mutating func add(
    key: ACLKey, cid: UInt16, kframePayload: UnsafeRawBufferPointer, isCut: Bool, payloadLength: Int? = nil,
    diagnostics: inout [Diagnostic]
  ) -> SDUReassembly {
    let sduKey = SDUKey(acl: key, cid: cid)
    let kept = kframePayload.count
    // nil: cut, size unknown.
    // Clamped like any wire length, so that the sums below cannot overflow.
    let size: Int? = isCut ? payloadLength.map { min(max($0, kept), 1 << 32) } : kept
    guard let state = pending.removeValue(forKey: sduKey) else {
      return start(sduKey, kframePayload, size: size, diagnostics: &diagnostics)
    }
    var p = state
    var take = size ?? (p.expected - p.received)
    if p.received + take > p.expected {
      if !p.discarding { diagnostics.append(extra(sduKey, p.received + take, p.expected)) }
      take = p.expected - p.received
    }
    let keep = min(kept, take)
    if p.discarding {
      p.received += take
      if p.received < p.expected { pending[sduKey] = p }
      return .dropped
    }
    if !p.isCut, keep > 0 {
      guard bufferedBytes + keep <= maxBufferedBytes else {
        diagnostics.append(limit(sduKey, bufferedBytes + keep, p.expected))
        bufferedBytes -= p.buffer.count
        p.buffer = []
        p.discarding = true
        p.received += take
        if p.received < p.expected { pending[sduKey] = p }
        return .dropped
      }
      p.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: kframePayload[0..<keep]))
      bufferedBytes += keep
    }
    if keep < take || size == nil { p.isCut = true }
    p.received += take
    guard p.received >= p.expected else {
      pending[sduKey] = p
      return .needMoreData
    }
    bufferedBytes -= p.buffer.count
    return .reassembled(p.buffer, isCut: p.isCut)
  }

  private mutating func start(
    _ key: SDUKey, _ payload: UnsafeRawBufferPointer, size: Int?, diagnostics: inout [Diagnostic]
  ) -> SDUReassembly {
    guard payload.count >= 2 else {
      // A cut K-frame that lost its SDU Length was reported as cut already.
      if size != nil, size == payload.count {
        diagnostics.append(
          Diagnostic(
            id: "l2cap.sdu.truncated", severity: .warning,
            "k-frame on cid 0x\(hex(key.cid)) has \(payload.count) bytes, too few for the 2-byte l2cap sdu length"))
      }
      return .dropped
    }
    let sduLength = Int(UInt16(payload[0]) | UInt16(payload[1]) << 8)
    let keptBody = payload.count - 2
    guard let size else { return .complete(range: ByteRange(start: 2, count: min(sduLength, keptBody))) }
    let body = size - 2
    if body >= sduLength {
      if body > sduLength { diagnostics.append(extra(key, body, sduLength)) }
      return .complete(range: ByteRange(start: 2, count: min(sduLength, keptBody)))
    }
    var p = Pending(buffer: [], expected: sduLength, received: body, isCut: keptBody < body)
    guard bufferedBytes + keptBody <= maxBufferedBytes else {
      diagnostics.append(limit(key, bufferedBytes + keptBody, sduLength))
      p.discarding = true
      pending[key] = p
      return .dropped
    }
    p.buffer.reserveCapacity(min(sduLength, 4096))
    p.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[2...]))
    bufferedBytes += keptBody
    pending[key] = p
    return .needMoreData
  }

  /// Drops the state of every channel of a connection, both directions (at
  /// disconnect).
  public mutating func reset(adapter: UInt16?, handle: UInt16) {
    for (key, p) in pending where key.acl.adapter == adapter && key.acl.handle == handle {
      bufferedBytes -= p.buffer.count
      pending.removeValue(forKey: key)
    }
  }

  /// Drops the state of one channel in one direction (at channel disconnect).
  public mutating func reset(key: ACLKey, cid: UInt16) {
    if let old = pending.removeValue(forKey: SDUKey(acl: key, cid: cid)) { bufferedBytes -= old.buffer.count }
  }

  private func extra(_ key: SDUKey, _ size: Int, _ expected: Int) -> Diagnostic {
    Diagnostic(
      id: "l2cap.sdu.length.extra", severity: .warning,
      "k-frames on cid 0x\(hex(key.cid)) hold \(size) sdu bytes, the l2cap sdu length says \(expected): "
        + "\(size - expected) extra bytes ignored")
  }

  private func limit(_ key: SDUKey, _ total: Int, _ expected: Int) -> Diagnostic {
    Diagnostic(
      id: "l2cap.sdu.reassembly.limit", severity: .warning,
      "sdu buffers would hold \(total) bytes, over the limit of \(maxBufferedBytes): "
        + "sdu of \(expected) bytes on cid 0x\(hex(key.cid)) dropped")
  }
}
