import Testing

@testable import BLEAnalysis

@Suite struct RecentByConnectionTests {
  @Test func keepsAnAnswerPerKeyForItsVersion() {
    var recent = RecentByConnection<Int>(size: 4)
    #expect(recent.value(for: 1, version: 0) == nil)
    recent.set(10, for: 1, version: 0)
    recent.set(20, for: 2, version: 0)
    #expect(recent.value(for: 1, version: 0) == 10)
    #expect(recent.value(for: 2, version: 0) == 20)
    // The owner bumped its version: what was kept may be wrong now.
    #expect(recent.value(for: 1, version: 1) == nil)
  }

  @Test func aKeyInTheSameSlotReplacesTheOther() {
    var recent = RecentByConnection<Int>(size: 4)
    recent.set(10, for: 1, version: 0)
    // 5 and 1 share a slot of four: the memory stays four entries.
    recent.set(50, for: 5, version: 0)
    #expect(recent.value(for: 1, version: 0) == nil)
    #expect(recent.value(for: 5, version: 0) == 50)
  }

  @Test func anAnswerOfNoneIsAnAnswer() {
    var recent = RecentByConnection<Int?>(size: 4)
    #expect(recent.value(for: 3, version: 7) == nil)
    recent.set(nil, for: 3, version: 7)
    #expect(recent.value(for: 3, version: 7) == .some(nil))
  }
}
