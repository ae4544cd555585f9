import BLECapture

/// Which stream of ACL fragments a fragment belongs to: each direction of each
/// connection reassembles on its own. A nil direction (captures without one) is a
/// stream of its own.
public struct ACLKey: Hashable, Sendable {
  public var adapter: UInt16?
  public var handle: UInt16
  public var direction: Direction?

  public init(adapter: UInt16?, handle: UInt16, direction: Direction?) {
    self.adapter = adapter
    self.handle = handle
    self.direction = direction
  }

  /// One word to hash: dictionaries keyed by connection are on every record's path.
  public var packed: UInt64 {
    let adapterBits = adapter.map { UInt64($0) | 1 << 16 } ?? 0
    let directionBits: UInt64 =
      switch direction {
      case .sent: 1
      case .received: 2
      case nil: 0
      }
    return adapterBits << 32 | UInt64(handle) << 2 | directionBits
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(packed) }
}

/// What became of one ACL fragment.
public enum ACLReassembly: Hashable, Sendable {
  /// The fragment alone holds the whole L2CAP PDU: decode it in place (no copy).
  /// `isCut`: the capture source left out some of its bytes.
  case complete(isCut: Bool)
  /// This fragment completed a PDU; the bytes are the whole L2CAP PDU (with its
  /// header), or the part before the first byte the capture source left out.
  case reassembled([UInt8], isCut: Bool)
  /// The fragment started or continued a PDU.
  case needMoreData
  /// The fragment belongs to no PDU that can be rebuilt (see the diagnostics).
  case dropped
}

/// Rebuilds L2CAP PDUs from HCI ACL fragments.
///
/// Core 6.0, Vol 4, Part E, 5.4.2 (Packet_Boundary_Flag) and Vol 3, Part A, 7.2:
/// 0b00 and 0b10 start a PDU, 0b01 continues it, 0b11 is a complete PDU (handled as
/// a start, so that a wrong flag still reassembles). The basic L2CAP header's length
/// in the start fragment gives the PDU's size, `4 + length`.
///
/// Records cut by the capture source keep their original size: missing bytes count
/// toward the PDU so that it completes on the right fragment, but nothing after the
/// first missing byte is kept (the bytes that follow would sit at the wrong offsets).
///
/// Memory stays bounded: all buffers together hold at most `maxBufferedBytes`, at most
/// `maxPendingPDUs` PDUs are under way at once (one per connection and direction, so
/// that many connections), and `reset` frees a connection's buffers at disconnect. A
/// PDU is at most 65,539 bytes by its 16-bit length.
public struct ACLReassembler {
  public let maxBufferedBytes: Int
  public let maxPendingPDUs: Int
  /// Bytes held in all pending PDUs.
  public private(set) var bufferedBytes = 0

  struct Pending {
    var buffer: [UInt8]
    /// `4 + length` once the length's two bytes are known.
    var expected: Int?
    /// Bytes of the PDU seen so far, those the capture source left out included.
    var received: Int
    /// A byte is missing: nothing more is appended.
    var isCut: Bool
    /// The PDU is lost (over the limit, or its length was cut away): continuations
    /// are swallowed quietly until it ends or a new one starts.
    var discarding = false
  }

  var pending: [ACLKey: Pending] = [:]
  /// A buffer freed by a discarded PDU, reused by the next one.
  var spare: [UInt8] = []

  public init(maxBufferedBytes: Int = 1 << 20, maxPendingPDUs: Int = 16_384) {
    self.maxBufferedBytes = maxBufferedBytes
    self.maxPendingPDUs = maxPendingPDUs
  }

  /// Every diagnostic id the reassembler emits.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("acl.length.extra", "ACL fragments hold more bytes than the L2CAP header's length; the extra ones are ignored"),
    ("acl.continuation.unexpected", "an ACL continuation fragment arrived with no PDU started on its connection"),
    ("acl.reassembly.incomplete", "a new L2CAP PDU started before the previous one was complete; the old one is lost"),
    (
      "acl.reassembly.limit",
      "reassembly buffers reached their limit (1 MiB in all, or 16,384 PDUs under way); the PDU is dropped"
    ),
  ]

  /// PDUs waiting for fragments.
  public var pendingCount: Int { pending.values.count { !$0.discarding } }

  /// Takes one fragment: `pb` is the ACL header's Packet_Boundary_Flag, `fragment`
  /// the ACL payload as captured, `cutBySource` how many of its bytes the capture
  /// source left out.
  public mutating func add(
    _ key: ACLKey, pb: UInt8, fragment: UnsafeRawBufferPointer, cutBySource: Int, diagnostics: inout [Diagnostic]
  ) -> ACLReassembly {
    // A capture's original length fits in 32 bits; clamping keeps the sums below
    // from overflowing whatever the caller passes.
    let cut = min(max(0, cutBySource), 1 << 32)
    // The fragment's size as sent.
    let size = fragment.count + cut
    if pb & 0b11 == 0b01 {
      return addContinuation(key, fragment: fragment, size: size, diagnostics: &diagnostics)
    }
    return addStart(key, fragment: fragment, size: size, diagnostics: &diagnostics)
  }

  /// Drops both directions' state of a connection (at disconnect).
  public mutating func reset(adapter: UInt16?, handle: UInt16) {
    for direction in [Direction.sent, .received, nil] {
      if let old = pending.removeValue(forKey: ACLKey(adapter: adapter, handle: handle, direction: direction)) {
        bufferedBytes -= old.buffer.count
      }
    }
  }

  /// Drops every pending PDU.
  public mutating func removeAll() {
    pending.removeAll()
    bufferedBytes = 0
  }

  private mutating func addStart(
    _ key: ACLKey, fragment: UnsafeRawBufferPointer, size: Int, diagnostics: inout [Diagnostic]
  ) -> ACLReassembly {
    if !pending.isEmpty, let old = pending.removeValue(forKey: key) {
      if !old.discarding {
        let expected = old.expected.map { "\($0)" } ?? "an unknown number of"
        diagnostics.append(
          Diagnostic(
            id: "acl.reassembly.incomplete", severity: .warning,
            "new l2cap pdu started on handle 0x\(hex(key.handle)) while one had \(old.received) of \(expected) bytes: "
              + "the old one is discarded"))
      }
      recycle(old.buffer)
    }
    var expected: Int?
    if fragment.count >= 2 {
      let total = 4 + Int(UInt16(fragment[0]) | UInt16(fragment[1]) << 8)
      if size >= total {
        if size > total { diagnostics.append(extra(key, size, total)) }
        return .complete(isCut: fragment.count < total)
      }
      expected = total
    } else if size > fragment.count {
      // The source cut the length away: the PDU cannot be rebuilt. Show what there
      // is and swallow its continuations.
      if pending.count < maxPendingPDUs {
        pending[key] = Pending(buffer: [], expected: nil, received: size, isCut: true, discarding: true)
      }
      return .complete(isCut: true)
    }
    var buffer: [UInt8] = []
    swap(&buffer, &spare)
    let state = Pending(buffer: buffer, expected: expected, received: 0, isCut: false)
    return append(key, state, fragment, size, &diagnostics)
  }

  private mutating func addContinuation(
    _ key: ACLKey, fragment: UnsafeRawBufferPointer, size: Int, diagnostics: inout [Diagnostic]
  ) -> ACLReassembly {
    guard let state = pending.removeValue(forKey: key) else {
      // Android's filtered logs rewrite a filtered PDU's lengths so that its start looks
      // whole, and cut its continuations to their ACL header: not malformed.
      if size > fragment.count { return .dropped }
      diagnostics.append(
        Diagnostic(
          id: "acl.continuation.unexpected", severity: .warning,
          "continuation fragment of \(size) bytes on handle 0x\(hex(key.handle)) with no l2cap pdu started"))
      return .dropped
    }
    return append(key, state, fragment, size, &diagnostics)
  }

  /// Adds a fragment to a PDU taken out of `pending` and settles it: complete,
  /// waiting (put back) or lost.
  private mutating func append(
    _ key: ACLKey, _ state: Pending, _ fragment: UnsafeRawBufferPointer, _ size: Int,
    _ diagnostics: inout [Diagnostic]
  ) -> ACLReassembly {
    var p = state
    if p.discarding {
      p.received += size
      if let expected = p.expected, p.received >= expected { return .dropped }
      if pending.count < maxPendingPDUs { pending[key] = p }
      return .dropped
    }
    // How many of this fragment's bytes belong to the PDU.
    var take = size
    if let expected = p.expected, p.received + size > expected {
      diagnostics.append(extra(key, p.received + size, expected))
      take = expected - p.received
    }
    let kept = min(fragment.count, take)
    if !p.isCut, kept > 0 {
      // Sums of buffer sizes stay far below Int.max: each is capped by the limit.
      guard bufferedBytes + kept <= maxBufferedBytes else {
        let expected = p.expected.map { "\($0)" } ?? "an unknown number of"
        diagnostics.append(
          Diagnostic(
            id: "acl.reassembly.limit", severity: .warning,
            "reassembly buffers would hold \(bufferedBytes + kept) bytes, over the limit of \(maxBufferedBytes): "
              + "l2cap pdu of \(expected) bytes on handle 0x\(hex(key.handle)) dropped"))
        bufferedBytes -= p.buffer.count
        p.buffer = []
        p.discarding = true
        p.received += take
        if let expected = p.expected, p.received >= expected { return .dropped }
        if pending.count < maxPendingPDUs { pending[key] = p }
        return .dropped
      }
      p.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: fragment[0..<kept]))
      bufferedBytes += kept
    }
    if kept < take { p.isCut = true }
    p.received += take

    if p.expected == nil {
      if p.buffer.count >= 2 {
        let expected = 4 + Int(UInt16(p.buffer[0]) | UInt16(p.buffer[1]) << 8)
        p.expected = expected
        if p.received > expected {
          diagnostics.append(extra(key, p.received, expected))
          p.received = expected
          if p.buffer.count > expected {
            bufferedBytes -= p.buffer.count - expected
            p.buffer.removeLast(p.buffer.count - expected)
          }
        }
      } else if p.isCut {
        // The length is lost: give what there is, swallow the rest.
        bufferedBytes -= p.buffer.count
        if pending.count < maxPendingPDUs {
          pending[key] = Pending(buffer: [], expected: nil, received: p.received, isCut: true, discarding: true)
        }
        return .reassembled(p.buffer, isCut: true)
      }
    }
    guard let expected = p.expected, p.received >= expected else {
      guard pending.count < maxPendingPDUs else {
        diagnostics.append(
          Diagnostic(
            id: "acl.reassembly.limit", severity: .warning,
            "\(pending.count) l2cap pdus are under way, the limit: "
              + "l2cap pdu of \(p.expected.map { "\($0)" } ?? "an unknown number of") bytes on handle 0x\(hex(key.handle)) dropped"
          ))
        bufferedBytes -= p.buffer.count
        return .dropped
      }
      pending[key] = p
      return .needMoreData
    }
    bufferedBytes -= p.buffer.count
    return .reassembled(p.buffer, isCut: p.isCut)
  }

  /// Keeps a discarded PDU's buffer for the next one.
  private mutating func recycle(_ buffer: [UInt8]) {
    bufferedBytes -= buffer.count
    var buffer = buffer
    buffer.removeAll(keepingCapacity: true)
    if buffer.capacity > spare.capacity { spare = buffer }
  }

  private func extra(_ key: ACLKey, _ size: Int, _ expected: Int) -> Diagnostic {
    Diagnostic(
      id: "acl.length.extra", severity: .warning,
      "acl fragments on handle 0x\(hex(key.handle)) hold \(size) bytes, the l2cap pdu has \(expected): "
        + "\(size - expected) extra bytes ignored")
  }
}
