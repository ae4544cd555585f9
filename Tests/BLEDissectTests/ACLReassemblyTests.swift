import BLECapture
import Testing

@testable import BLEDissect

/// A deterministic generator (SplitMix64), so random splits are the same every run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Ways to cut `count` bytes into fragments, as lists of fragment sizes: all at
/// once, one byte at a time, every split into up to 3 pieces for small sizes (every
/// composition for tiny ones), and 200 random splits for large ones.
func splitPlans(_ count: Int, seed: UInt64) -> [[Int]] {
  var plans: [[Int]] = [[count], Array(repeating: 1, count: count)]
  if count <= 12 {
    // Every composition: bit i set means a cut after byte i + 1.
    for mask in 0..<(1 << max(0, count - 1)) {
      var plan: [Int] = []
      var size = 1
      for i in 0..<max(0, count - 1) {
        if mask & (1 << i) != 0 {
          plan.append(size)
          size = 1
        } else {
          size += 1
        }
      }
      plan.append(size)
      plans.append(plan)
    }
  } else if count <= 40 {
    for a in 1..<count {
      plans.append([a, count - a])
      for b in (a + 1)..<count { plans.append([a, b - a, count - b]) }
    }
  } else {
    var rng = SplitMix(state: seed)
    for _ in 0..<200 {
      let pieces = Int.random(in: 2...min(count, 12), using: &rng)
      var cuts = Set<Int>()
      while cuts.count < pieces - 1 { cuts.insert(Int.random(in: 1..<count, using: &rng)) }
      let sorted = [0] + cuts.sorted() + [count]
      plans.append(zip(sorted.dropFirst(), sorted).map { $0 - $1 })
    }
  }
  return plans
}

/// An L2CAP PDU with a payload of `length` bytes that differ from PDU to PDU.
func l2capPDU(length: Int, cid: UInt16 = 0x0004, salt: UInt8 = 0) -> [UInt8] {
  [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)]
    + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(salt)) }
}

extension ACLReassembler {
  /// Feeds one fragment given as an array.
  mutating func add(
    _ key: ACLKey, pb: UInt8, _ bytes: [UInt8], cut: Int = 0, _ diagnostics: inout [Diagnostic]
  ) -> ACLReassembly {
    bytes.withUnsafeBytes { add(key, pb: pb, fragment: $0, cutBySource: cut, diagnostics: &diagnostics) }
  }
}

/// A PDU cut into fragments on one key, fed one fragment at a time.
struct FragmentStream {
  var key: ACLKey
  var pdu: [UInt8]
  var fragments: [[UInt8]]
  var next = 0
  /// The PDU as the reassembler gave it, and at which fragment.
  var result: [UInt8]?
  var completedAt: Int?

  init(key: ACLKey, pdu: [UInt8], plan: [Int]) {
    self.key = key
    self.pdu = pdu
    var at = 0
    fragments = plan.map { size in
      defer { at += size }
      return Array(pdu[at..<at + size])
    }
    if fragments.isEmpty { fragments = [[]] }
  }

  var isDone: Bool { next == fragments.count }

  mutating func feed(_ reassembler: inout ACLReassembler, _ diagnostics: inout [Diagnostic]) {
    let fragment = fragments[next]
    // Alternate the two start flags; later fragments continue.
    let pb: UInt8 = next > 0 ? 0b01 : (pdu.count % 2 == 0 ? 0b10 : 0b00)
    switch reassembler.add(key, pb: pb, fragment, &diagnostics) {
    case .complete(let isCut):
      #expect(!isCut)
      result = fragment
      completedAt = next
    case .reassembled(let bytes, let isCut):
      #expect(!isCut)
      result = bytes
      completedAt = next
    case .needMoreData: break
    case .dropped: Issue.record("fragment \(next) of \(key) dropped")
    }
    next += 1
  }
}

@Suite struct ACLReassemblyTests {
  static let lengths = [0, 1, 23, 27, 251, 300, 1000]

  /// However a PDU is split, and however its fragments interleave with another
  /// PDU's on another key, the same bytes come out on the last fragment.
  @Test(arguments: lengths)
  func sameBytesForEverySplit(length: Int) {
    let pdu = l2capPDU(length: length)
    let keyA = ACLKey(adapter: 0, handle: 0x0040, direction: .sent)
    var rng = SplitMix(state: UInt64(length) &+ 99)
    for (index, plan) in splitPlans(pdu.count, seed: UInt64(length)).enumerated() {
      // The other PDU goes the other way on the same handle, or on another handle
      // of a capture without directions.
      let keyB =
        index % 2 == 0
        ? ACLKey(adapter: 0, handle: 0x0040, direction: .received)
        : ACLKey(adapter: 0, handle: 0x0041, direction: nil)
      let other = l2capPDU(length: Self.lengths.randomElement(using: &rng)!, salt: 0x55)
      let otherPlans = splitPlans(other.count, seed: UInt64(index))
      var a = FragmentStream(key: keyA, pdu: pdu, plan: plan)
      var b = FragmentStream(key: keyB, pdu: other, plan: otherPlans.randomElement(using: &rng)!)
      var reassembler = ACLReassembler()
      var diagnostics: [Diagnostic] = []
      while !a.isDone || !b.isDone {
        // Interleave in a random order.
        if !a.isDone && (b.isDone || Bool.random(using: &rng)) {
          a.feed(&reassembler, &diagnostics)
        } else {
          b.feed(&reassembler, &diagnostics)
        }
      }
      #expect(a.result == pdu, "plan \(plan)")
      #expect(a.completedAt == a.fragments.count - 1, "plan \(plan)")
      #expect(b.result == other)
      #expect(b.completedAt == b.fragments.count - 1)
      #expect(diagnostics.isEmpty, "plan \(plan): \(diagnostics)")
      #expect(reassembler.bufferedBytes == 0)
      #expect(reassembler.pendingCount == 0)
    }
  }

  @Test func completePDUFlagIsAStart() {
    // > ACL Data RX: Handle 64 flags 0x03 dlen 9: ATT Handle Value Notification
    let pdu: [UInt8] = [0x05, 0x00, 0x04, 0x00, 0x1B, 0x2A, 0x00, 0x01, 0x02]
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 0x40, direction: .received)
    #expect(reassembler.add(key, pb: 0b11, pdu, &diagnostics) == .complete(isCut: false))
    #expect(diagnostics.isEmpty)
  }

  @Test func extraBytesInAStartFragment() {
    // L2CAP length 1 (a 5-byte PDU) in a 7-byte fragment
    let fragment: [UInt8] = [0x01, 0x00, 0x04, 0x00, 0x1E, 0xEE, 0xEE]
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .sent)
    #expect(reassembler.add(key, pb: 0b10, fragment, &diagnostics) == .complete(isCut: false))
    #expect(diagnostics.map(\.id) == ["acl.length.extra"])
    #expect(diagnostics.first?.message.contains("2 extra bytes") == true)
  }

  @Test func continuationOverrunsThePDU() {
    // A 10-byte PDU (length 6) sent as 6 + 7 bytes: 3 too many
    let pdu = l2capPDU(length: 6)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .sent)
    #expect(reassembler.add(key, pb: 0b00, Array(pdu[..<6]), &diagnostics) == .needMoreData)
    let result = reassembler.add(key, pb: 0b01, Array(pdu[6...]) + [0xEE, 0xEE, 0xEE], &diagnostics)
    #expect(result == .reassembled(pdu, isCut: false))
    #expect(diagnostics.map(\.id) == ["acl.length.extra"])
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func overrunWhileTheLengthWasUnknown() {
    // The start holds 1 byte; the continuation brings the length and 2 bytes too many
    let pdu = l2capPDU(length: 3)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: nil)
    #expect(reassembler.add(key, pb: 0b10, [pdu[0]], &diagnostics) == .needMoreData)
    let result = reassembler.add(key, pb: 0b01, Array(pdu[1...]) + [0xEE, 0xEE], &diagnostics)
    #expect(result == .reassembled(pdu, isCut: false))
    #expect(diagnostics.map(\.id) == ["acl.length.extra"])
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func continuationWithoutStart() {
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: 0, handle: 0x0EFF, direction: .received)
    #expect(reassembler.add(key, pb: 0b01, [0x01, 0x02], &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["acl.continuation.unexpected"])
    #expect(diagnostics.first?.message == "continuation fragment of 2 bytes on handle 0x0eff with no l2cap pdu started")
  }

  @Test func newStartDiscardsThePendingPDU() {
    let first = l2capPDU(length: 40)
    let second = l2capPDU(length: 10, salt: 3)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: 0, handle: 1, direction: .sent)
    #expect(reassembler.add(key, pb: 0b00, Array(first[..<20]), &diagnostics) == .needMoreData)
    #expect(reassembler.add(key, pb: 0b00, Array(second[..<5]), &diagnostics) == .needMoreData)
    #expect(diagnostics.map(\.id) == ["acl.reassembly.incomplete"])
    #expect(diagnostics.first?.message.contains("20 of 44 bytes") == true)
    #expect(reassembler.add(key, pb: 0b01, Array(second[5...]), &diagnostics) == .reassembled(second, isCut: false))
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func pendingPDULimit() {
    let pdu = l2capPDU(length: 30)
    var reassembler = ACLReassembler(maxPendingPDUs: 2)
    var diagnostics: [Diagnostic] = []
    let keys = (1...3).map { ACLKey(adapter: 0, handle: UInt16($0), direction: .sent) }
    #expect(reassembler.add(keys[0], pb: 0b10, Array(pdu[..<10]), &diagnostics) == .needMoreData)
    #expect(reassembler.add(keys[1], pb: 0b10, Array(pdu[..<10]), &diagnostics) == .needMoreData)
    // A third PDU under way is one too many: dropped, its buffer freed.
    #expect(reassembler.add(keys[2], pb: 0b10, Array(pdu[..<10]), &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["acl.reassembly.limit"])
    #expect(
      diagnostics.first?.message
        == "2 l2cap pdus are under way, the limit: l2cap pdu of 34 bytes on handle 0x0003 dropped")
    #expect(reassembler.pendingCount == 2)
    #expect(reassembler.bufferedBytes == 20)
    // The two under way still complete, and then a new one fits.
    #expect(reassembler.add(keys[0], pb: 0b01, Array(pdu[10...]), &diagnostics) == .reassembled(pdu, isCut: false))
    #expect(reassembler.add(keys[2], pb: 0b10, Array(pdu[..<10]), &diagnostics) == .needMoreData)
    #expect(diagnostics.count == 1)
  }

  @Test func limitDropsThePDUAndFreesItsBuffer() {
    let big = l2capPDU(length: 200)
    let small = l2capPDU(length: 20, salt: 9)
    var reassembler = ACLReassembler(maxBufferedBytes: 100)
    var diagnostics: [Diagnostic] = []
    let bigKey = ACLKey(adapter: 0, handle: 1, direction: .sent)
    let smallKey = ACLKey(adapter: 0, handle: 1, direction: .received)
    #expect(reassembler.add(bigKey, pb: 0b10, Array(big[..<60]), &diagnostics) == .needMoreData)
    #expect(reassembler.add(smallKey, pb: 0b10, Array(small[..<10]), &diagnostics) == .needMoreData)
    #expect(reassembler.bufferedBytes == 70)
    // 70 + 60 > 100: the big PDU goes, the small one stays.
    #expect(reassembler.add(bigKey, pb: 0b01, Array(big[60..<120]), &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["acl.reassembly.limit"])
    #expect(reassembler.bufferedBytes == 10)
    // The rest of the big PDU is swallowed quietly.
    #expect(reassembler.add(bigKey, pb: 0b01, Array(big[120...]), &diagnostics) == .dropped)
    #expect(diagnostics.count == 1)
    #expect(reassembler.add(smallKey, pb: 0b01, Array(small[10...]), &diagnostics) == .reassembled(small, isCut: false))
    // The big key works again, and an unexpected continuation is reported again.
    #expect(reassembler.add(bigKey, pb: 0b01, [0x00], &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["acl.reassembly.limit", "acl.continuation.unexpected"])
    #expect(reassembler.add(bigKey, pb: 0b10, small, &diagnostics) == .complete(isCut: false))
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func limitOnTheStartFragment() {
    let pdu = l2capPDU(length: 300)
    var reassembler = ACLReassembler(maxBufferedBytes: 64)
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 2, direction: nil)
    #expect(reassembler.add(key, pb: 0b10, Array(pdu[..<100]), &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["acl.reassembly.limit"])
    #expect(reassembler.add(key, pb: 0b01, Array(pdu[100...]), &diagnostics) == .dropped)
    #expect(diagnostics.count == 1)
    #expect(reassembler.bufferedBytes == 0)
    #expect(reassembler.pendingCount == 0)
  }

  @Test func startCutBySourceIsCompleteAndCut() {
    // Android "headers" filter: a 30-byte ATT notification PDU kept to 9 bytes
    let pdu = l2capPDU(length: 26)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .received)
    let result = reassembler.add(key, pb: 0b10, Array(pdu[..<9]), cut: 21, &diagnostics)
    #expect(result == .complete(isCut: true))
    #expect(diagnostics.isEmpty)
  }

  @Test func cutFragmentsStillCompleteOnTheRightFragment() {
    // 3 fragments of 20 bytes; the first is kept to 13 bytes, the second entirely cut
    let pdu = l2capPDU(length: 56)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .received)
    #expect(reassembler.add(key, pb: 0b10, Array(pdu[..<13]), cut: 7, &diagnostics) == .needMoreData)
    #expect(reassembler.add(key, pb: 0b01, [], cut: 20, &diagnostics) == .needMoreData)
    let result = reassembler.add(key, pb: 0b01, Array(pdu[40...]), &diagnostics)
    #expect(result == .reassembled(Array(pdu[..<13]), isCut: true))
    #expect(diagnostics.isEmpty)
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func cutContinuationMarksThePDUCut() {
    let pdu = l2capPDU(length: 36)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .sent)
    #expect(reassembler.add(key, pb: 0b10, Array(pdu[..<20]), &diagnostics) == .needMoreData)
    let result = reassembler.add(key, pb: 0b01, Array(pdu[20..<25]), cut: 15, &diagnostics)
    #expect(result == .reassembled(Array(pdu[..<25]), isCut: true))
    #expect(diagnostics.isEmpty)
  }

  @Test func startCutBeforeItsLength() {
    // One byte kept of a 20-byte start: the length is lost, the continuation is quiet
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let key = ACLKey(adapter: nil, handle: 1, direction: .sent)
    #expect(reassembler.add(key, pb: 0b10, [0x30], cut: 19, &diagnostics) == .complete(isCut: true))
    #expect(reassembler.add(key, pb: 0b01, [0x01, 0x02], &diagnostics) == .dropped)
    #expect(reassembler.add(key, pb: 0b10, l2capPDU(length: 2), &diagnostics) == .complete(isCut: false))
    #expect(diagnostics.isEmpty)
  }

  @Test func resetDropsBothDirections() {
    let pdu = l2capPDU(length: 30)
    var reassembler = ACLReassembler()
    var diagnostics: [Diagnostic] = []
    let sent = ACLKey(adapter: 1, handle: 7, direction: .sent)
    let received = ACLKey(adapter: 1, handle: 7, direction: .received)
    let other = ACLKey(adapter: 2, handle: 7, direction: .sent)
    for key in [sent, received, other] {
      #expect(reassembler.add(key, pb: 0b10, Array(pdu[..<10]), &diagnostics) == .needMoreData)
    }
    reassembler.reset(adapter: 1, handle: 7)
    #expect(reassembler.bufferedBytes == 10)
    #expect(reassembler.add(sent, pb: 0b01, Array(pdu[10...]), &diagnostics) == .dropped)
    #expect(reassembler.add(received, pb: 0b10, pdu, &diagnostics) == .complete(isCut: false))
    #expect(diagnostics.map(\.id) == ["acl.continuation.unexpected"])
    #expect(reassembler.add(other, pb: 0b01, Array(pdu[10...]), &diagnostics) == .reassembled(pdu, isCut: false))
  }

  @Test func diagnosticIDsAreUniqueAndDotted() {
    let ids = ACLReassembler.diagnosticIDs.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.hasPrefix("acl.") && $0 == $0.lowercased() })
  }
}
