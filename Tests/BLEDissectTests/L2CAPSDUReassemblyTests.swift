import BLECapture
import Testing

@testable import BLEDissect

extension SDUReassembler {
  /// Feeds one K-frame payload given as an array.
  mutating func add(
    _ key: ACLKey, cid: UInt16, _ payload: [UInt8], isCut: Bool = false, payloadLength: Int? = nil,
    _ diagnostics: inout [Diagnostic]
  ) -> SDUReassembly {
    payload.withUnsafeBytes {
      add(
        key: key, cid: cid, kframePayload: $0, isCut: isCut, payloadLength: payloadLength, diagnostics: &diagnostics)
    }
  }
}

/// The K-frame payloads of one SDU: SDU Length and the SDU, cut by `plan`.
struct KFrameStream {
  var key: ACLKey
  var cid: UInt16
  var sdu: [UInt8]
  var frames: [[UInt8]]
  var next = 0
  var result: [UInt8]?
  var completedAt: Int?

  init(key: ACLKey, cid: UInt16, sdu: [UInt8], plan: [Int]) {
    self.key = key
    self.cid = cid
    self.sdu = sdu
    let bytes = [UInt8(sdu.count & 0xFF), UInt8(sdu.count >> 8)] + sdu
    var at = 0
    frames = plan.map { size in
      defer { at += size }
      return Array(bytes[at..<at + size])
    }
  }

  var isDone: Bool { next == frames.count }

  mutating func feed(_ reassembler: inout SDUReassembler, _ diagnostics: inout [Diagnostic]) {
    let frame = frames[next]
    switch reassembler.add(key, cid: cid, frame, &diagnostics) {
    case .complete(let range):
      result = Array(frame[range.start..<range.start + range.count])
      completedAt = next
    case .reassembled(let bytes, let isCut):
      #expect(!isCut)
      result = bytes
      completedAt = next
    case .needMoreData: break
    case .dropped: Issue.record("k-frame \(next) dropped")
    }
    next += 1
  }
}

/// Plans for an SDU of `length` bytes: the first K-frame holds at least the SDU Length.
func kframePlans(_ length: Int, seed: UInt64) -> [[Int]] {
  splitPlans(length + 2, seed: seed).filter { $0[0] >= 2 }
    + (length > 0 ? [[2, length], [2] + Array(repeating: 1, count: length)] : [])
}

@Suite struct L2CAPSDUReassemblyTests {
  static let lengths = [0, 1, 23, 100, 1000]

  /// However an SDU is cut into K-frames, and however they interleave with another
  /// channel's, the same SDU comes out on the last K-frame.
  @Test(arguments: lengths)
  func sameSDUForEverySplit(length: Int) {
    let sdu = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    let key = ACLKey(adapter: 0, handle: 0x40, direction: .received)
    var rng = SplitMix(state: UInt64(length) &+ 5)
    for (index, plan) in kframePlans(length, seed: UInt64(length)).enumerated() {
      // The other SDU: the same CID the other way, or another CID the same way.
      let (otherKey, otherCID): (ACLKey, UInt16) =
        index % 2 == 0 ? (ACLKey(adapter: 0, handle: 0x40, direction: .sent), 0x40) : (key, 0x41)
      let otherSDU = [UInt8](repeating: 0xA5, count: Self.lengths.randomElement(using: &rng)!)
      var a = KFrameStream(key: key, cid: 0x40, sdu: sdu, plan: plan)
      var b = KFrameStream(
        key: otherKey, cid: otherCID, sdu: otherSDU,
        plan: kframePlans(otherSDU.count, seed: UInt64(index)).randomElement(using: &rng)!)
      var reassembler = SDUReassembler()
      var diagnostics: [Diagnostic] = []
      while !a.isDone || !b.isDone {
        if !a.isDone && (b.isDone || Bool.random(using: &rng)) {
          a.feed(&reassembler, &diagnostics)
        } else {
          b.feed(&reassembler, &diagnostics)
        }
      }
      #expect(a.result == sdu, "plan \(plan)")
      #expect(a.completedAt == a.frames.count - 1, "plan \(plan)")
      #expect(b.result == otherSDU)
      #expect(b.completedAt == b.frames.count - 1)
      #expect(diagnostics.isEmpty, "plan \(plan): \(diagnostics)")
      #expect(reassembler.bufferedBytes == 0)
      #expect(reassembler.pendingCount == 0)
    }
  }

  static let key = ACLKey(adapter: nil, handle: 1, direction: .received)

  @Test func kframeWithoutSDULength() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    #expect(reassembler.add(Self.key, cid: 0x40, [0x05], &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["l2cap.sdu.truncated"])
    // Cut by the capture source: quiet
    #expect(reassembler.add(Self.key, cid: 0x40, [0x05], isCut: true, payloadLength: 20, &diagnostics) == .dropped)
    #expect(diagnostics.count == 1)
  }

  @Test func extraBytesInTheFirstKFrame() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    // SDU Length 2, 3 bytes follow
    let result = reassembler.add(Self.key, cid: 0x40, [0x02, 0x00, 0x0A, 0x0B, 0x0C], &diagnostics)
    #expect(result == .complete(range: ByteRange(start: 2, count: 2)))
    #expect(diagnostics.map(\.id) == ["l2cap.sdu.length.extra"])
  }

  @Test func extraBytesInAFollowingKFrame() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    #expect(reassembler.add(Self.key, cid: 0x40, [0x04, 0x00, 0x01, 0x02], &diagnostics) == .needMoreData)
    let result = reassembler.add(Self.key, cid: 0x40, [0x03, 0x04, 0xEE], &diagnostics)
    #expect(result == .reassembled([0x01, 0x02, 0x03, 0x04], isCut: false))
    #expect(diagnostics.map(\.id) == ["l2cap.sdu.length.extra"])
    #expect(reassembler.bufferedBytes == 0)
  }

  @Test func limitDropsTheSDUButStaysInStep() {
    var reassembler = SDUReassembler(maxBufferedBytes: 8)
    var diagnostics: [Diagnostic] = []
    // SDU of 20 bytes in K-frames of 2 + 6, 6, 8: dropped at the second
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x14, 0x00] + [UInt8](repeating: 1, count: 6), &diagnostics)
        == .needMoreData)
    #expect(reassembler.add(Self.key, cid: 0x40, [UInt8](repeating: 2, count: 6), &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["l2cap.sdu.reassembly.limit"])
    #expect(reassembler.bufferedBytes == 0)
    // The rest is swallowed, then the next SDU starts cleanly.
    #expect(reassembler.add(Self.key, cid: 0x40, [UInt8](repeating: 3, count: 8), &diagnostics) == .dropped)
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x01, 0x00, 0x77], &diagnostics)
        == .complete(range: ByteRange(start: 2, count: 1)))
    #expect(diagnostics.count == 1)
  }

  @Test func limitOnTheFirstKFrame() {
    var reassembler = SDUReassembler(maxBufferedBytes: 4)
    var diagnostics: [Diagnostic] = []
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x0A, 0x00] + [UInt8](repeating: 1, count: 6), &diagnostics) == .dropped)
    #expect(diagnostics.map(\.id) == ["l2cap.sdu.reassembly.limit"])
    #expect(reassembler.add(Self.key, cid: 0x40, [1, 2, 3, 4], &diagnostics) == .dropped)
    #expect(reassembler.pendingCount == 0)
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x00, 0x00], &diagnostics)
        == .complete(range: ByteRange(start: 2, count: 0)))
  }

  @Test func cutKFramesCountTheirOriginalSize() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    // SDU of 30 bytes: first K-frame 2 + 10 kept to 5, then 20 bytes
    let first: [UInt8] = [0x1E, 0x00, 0x01, 0x02, 0x03]
    #expect(reassembler.add(Self.key, cid: 0x40, first, isCut: true, payloadLength: 12, &diagnostics) == .needMoreData)
    let result = reassembler.add(Self.key, cid: 0x40, [UInt8](repeating: 9, count: 20), &diagnostics)
    #expect(result == .reassembled([0x01, 0x02, 0x03], isCut: true))
    #expect(diagnostics.isEmpty)
  }

  @Test func cutKFrameOfUnknownSizeEndsItsSDU() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    // First K-frame cut, size unknown: taken as the whole SDU
    let result = reassembler.add(Self.key, cid: 0x40, [0x30, 0x00, 0x01, 0x02], isCut: true, &diagnostics)
    #expect(result == .complete(range: ByteRange(start: 2, count: 2)))
    // A following K-frame cut, size unknown: ends the pending SDU
    #expect(reassembler.add(Self.key, cid: 0x40, [0x05, 0x00, 0x01, 0x02], &diagnostics) == .needMoreData)
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x03], isCut: true, &diagnostics) == .reassembled([1, 2, 3], isCut: true))
    #expect(diagnostics.isEmpty)
    #expect(reassembler.pendingCount == 0)
  }

  @Test func resetDropsTheConnection() {
    var reassembler = SDUReassembler()
    var diagnostics: [Diagnostic] = []
    let sent = ACLKey(adapter: nil, handle: 1, direction: .sent)
    let other = ACLKey(adapter: nil, handle: 2, direction: .sent)
    for key in [Self.key, sent, other] {
      #expect(reassembler.add(key, cid: 0x40, [0x04, 0x00, 0x01, 0x02], &diagnostics) == .needMoreData)
    }
    reassembler.reset(adapter: nil, handle: 1)
    #expect(reassembler.pendingCount == 1)
    #expect(reassembler.bufferedBytes == 2)
    // After the reset, a K-frame starts a new SDU.
    #expect(
      reassembler.add(Self.key, cid: 0x40, [0x01, 0x00, 0x07], &diagnostics)
        == .complete(range: ByteRange(start: 2, count: 1)))
    reassembler.reset(key: other, cid: 0x40)
    #expect(reassembler.bufferedBytes == 0)
    #expect(diagnostics.isEmpty)
  }

  @Test func diagnosticIDsAreUnique() {
    let ids = SDUReassembler.diagnosticIDs.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.hasPrefix("l2cap.sdu.") })
  }
}
