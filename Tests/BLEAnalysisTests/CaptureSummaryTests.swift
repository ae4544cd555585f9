import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

@Suite("capture summary")
struct CaptureSummaryTests {
  @Test func emptySummaryHasNoDuration() {
    let summary = CaptureSummary()
    #expect(summary.records == 0)
    #expect(summary.durationMicroseconds == 0)
  }
}
