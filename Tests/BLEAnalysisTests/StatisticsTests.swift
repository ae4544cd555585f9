import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

@Suite("latency summary: nearest-rank percentiles")
struct LatencySummaryTests {
  /// Values (in any order) and their count, min, median, p95, max.
  static let cases: [([Int64], [Int64])] = [
    // One value is every statistic.
    ([7], [1, 7, 7, 7, 7]),
    // Two: rank ⌈0.5·2⌉ = 1 is the lower, rank ⌈0.95·2⌉ = 2 the upper.
    ([30, 10], [2, 10, 10, 30, 30]),
    // Three: the middle one.
    ([3, 1, 2], [3, 1, 2, 3, 3]),
    // Four: the lower middle value, not the mean of the two.
    ([40, 10, 30, 20], [4, 10, 20, 40, 40]),
    // 1…20: rank 10 and rank 19.
    (Array(1...20), [20, 1, 10, 19, 20]),
    // 1…100 reversed: rank 50 and rank 95.
    (Array((1...100).reversed()), [100, 1, 50, 95, 100]),
    // 1…21: ⌈10.5⌉ = 11, ⌈19.95⌉ = 20.
    (Array(1...21), [21, 1, 11, 20, 21]),
    // Duplicates and a negative value (a clock that went back) are values like others.
    ([5, -2, 5, 5, 9], [5, -2, 5, 9, 9]),
  ]

  @Test(arguments: cases)
  func summary(values: [Int64], expected: [Int64]) throws {
    let summary = try #require(LatencySummary(values))
    #expect(
      [Int64(summary.count), summary.min, summary.median, summary.p95, summary.max] == expected, "\(values)")
  }

  @Test func noValuesNoSummary() {
    #expect(LatencySummary([]) == nil)
  }

  @Test func percentileRanks() {
    let sorted = Array(Int64(1)...10)
    #expect(LatencySummary.percentile(1, ofSorted: sorted) == 1)
    #expect(LatencySummary.percentile(10, ofSorted: sorted) == 1)
    #expect(LatencySummary.percentile(11, ofSorted: sorted) == 2)
    #expect(LatencySummary.percentile(90, ofSorted: sorted) == 9)
    #expect(LatencySummary.percentile(91, ofSorted: sorted) == 10)
    #expect(LatencySummary.percentile(100, ofSorted: sorted) == 10)
  }
}

@Suite("histogram: 1-2-5 buckets in µs")
struct HistogramTests {
  /// A value in µs and the bucket it falls in: lower bounds are inclusive.
  static let cases: [(Int64, Int)] = [
    (-5, 0), (0, 0), (99, 0), (100, 1), (199, 1), (200, 2), (499, 2), (500, 3), (999, 3), (1_000, 4),
    (1_999, 4), (2_000, 5), (20_489, 8), (49_999, 8), (50_000, 9), (999_999, 12), (1_000_000, 13),
    (4_002_829, 14), (99_999_999, 18), (100_000_000, 19), (.max, 19),
  ]

  @Test(arguments: cases)
  func bucket(value: Int64, index: Int) {
    #expect(Histogram.bucket(of: value) == index)
  }

  @Test func boundsAscendOneTwoFive() {
    let bounds = Histogram.bounds
    #expect(bounds.first == 100 && bounds.last == 100_000_000)
    for index in bounds.indices.dropFirst() {
      // ×2 (1→2, 5→10) or ×2.5 (2→5).
      let (low, high) = (bounds[index - 1], bounds[index])
      #expect(high == 2 * low || 2 * high == 5 * low, "\(low) → \(high)")
    }
  }

  @Test func bucketsSpanFirstToLastValueWithEmptyOnesBetween() {
    let histogram = Histogram([1_500, 1_200, 7_000, 30_000, 35_000, 36_000])
    #expect(histogram.total == 6)
    #expect(
      histogram.buckets == [
        .init(lower: 1_000, upper: 2_000, count: 2),
        .init(lower: 2_000, upper: 5_000, count: 0),
        .init(lower: 5_000, upper: 10_000, count: 1),
        .init(lower: 10_000, upper: 20_000, count: 0),
        .init(lower: 20_000, upper: 50_000, count: 3),
      ])
  }

  @Test func openEndedBuckets() {
    let histogram = Histogram([10, 200_000_000])
    #expect(histogram.buckets.count == Histogram.bounds.count + 1)
    #expect(histogram.buckets.first == .init(lower: nil, upper: 100, count: 1))
    #expect(histogram.buckets.last == .init(lower: 100_000_000, upper: nil, count: 1))
    #expect(Histogram().buckets.isEmpty)
  }
}

@Suite("statistics over analyzed records and their timeline")
struct StatisticsTests {
  /// Runs ATT PDUs over one LE link (handle 0x0040, up before the capture), 1 ms apart,
  /// through the Analyzer, the TimelineBuilder and Statistics.
  static func statistics(_ pdus: [(sent: Bool, hex: String)]) -> Statistics {
    var analyzer = Analyzer()
    var builder = TimelineBuilder()
    var statistics = Statistics()
    forEachATTRecord(pdus) { record in
      let analyzed = analyzer.analyze(record)
      builder.add(record, analyzed)
      statistics.add(record, analyzed)
    }
    statistics.finish(builder.finish(analyzer.finish()))
    return statistics
  }

  /// The Heart Rate service of GATTTrackerTests, then traffic on it.
  static let session: [(sent: Bool, hex: String)] =
    GATTTrackerTests.discovery + [
      // Read Request 0x0003 (Service Changed) → Read Response 4 bytes
      (true, "0a 0300"),
      (false, "0b 01000500"),
      // Read Request 0x0008 → Error Response Read Not Permitted
      (true, "0a 0800"),
      (false, "01 0a 0800 02"),
      // Write Command 0x0008, 2 bytes; Handle Value Notification 0x0008, 3 bytes
      (true, "52 0800 aabb"),
      (false, "1b 0800 064801"),
      // Read Request 0x000a (Characteristic User Description, a descriptor) → "HR"
      (true, "0a 0a00"),
      (false, "0b 4852"),
      // Read Request 0x0030 (a handle discovery did not name), never answered
      (true, "0a 3000"),
    ]

  @Test func countsPerOpcode() throws {
    let statistics = Self.statistics(Self.session)
    #expect(statistics.attPDUs == Self.session.count)
    let counts = Dictionary(uniqueKeysWithValues: statistics.opcodes.map { ($0.opcode.rawValue, $0.count) })
    #expect(
      counts == [
        0x01: 1, 0x04: 1, 0x05: 1, 0x08: 1, 0x09: 1, 0x0A: 4, 0x0B: 2, 0x10: 1, 0x11: 1, 0x12: 1, 0x13: 1, 0x1B: 2,
        0x52: 1,
      ])
    let reads = try #require(statistics.opcodes.first { $0.opcode == .readRequest }?.transactions)
    #expect(reads.outcomes.ok == 2 && reads.outcomes.error == 1 && reads.outcomes.unanswered == 1)
    #expect(reads.latency == LatencySummary([1_000, 1_000, 1_000]))
    #expect(statistics.opcodes.first { $0.opcode == .handleValueNotification }?.valueBytes == 2 + 3)
    #expect(statistics.transactions.outcomes.total == 8)
    #expect(statistics.errors == [ErrorStats(request: .readRequest, code: .init(rawValue: 0x02), count: 1)])
  }

  @Test func countsPerCharacteristicValue() throws {
    let statistics = Self.statistics(Self.session)
    let rows = statistics.characteristics.map(\.key)
    // The declarations and the description read are not values; the CCCD write counts
    // for Heart Rate Measurement; 0x0030 is unnamed. The link was up before the capture:
    // its peer is unknown.
    #expect(
      rows == [
        .init(peer: nil, valueHandle: 0x0003, uuid: BluetoothUUID(uuid16: 0x2A05)),
        .init(peer: nil, valueHandle: 0x0008, uuid: BluetoothUUID(uuid16: 0x2A37)),
        .init(peer: nil, valueHandle: 0x0030, uuid: nil),
      ])
    let serviceChanged = statistics.characteristics[0]
    #expect(
      serviceChanged.attribute?.characteristicName == "Service Changed"
        && serviceChanged.attribute?.serviceName == "Generic Attribute")
    #expect(serviceChanged.reads == 1 && serviceChanged.valueBytes == 4)
    #expect(serviceChanged.transactions?.latency == LatencySummary([1_000]))
    let heartRate = statistics.characteristics[1]
    #expect(heartRate.attribute?.characteristicName == "Heart Rate Measurement")
    #expect(heartRate.reads == 1 && heartRate.errors == 1 && heartRate.writeCommands == 1)
    #expect(heartRate.writeRequests == 0 && heartRate.cccdWrites == 1, "write requests, commands and CCCD writes apart")
    #expect(heartRate.notifications == 2 && heartRate.indications == 0)
    #expect(heartRate.valueBytes == 2 + 2 + 3, "both notifications and the write, not the CCCD's value")
    #expect(heartRate.transactions?.outcomes.error == 1)
    let unnamed = statistics.characteristics[2]
    #expect(unnamed.reads == 1 && unnamed.transactions?.outcomes.unanswered == 1 && unnamed.attribute == nil)
  }

  @Test func countsPerConnection() throws {
    let statistics = Self.statistics(Self.session)
    let connection = try #require(statistics.connections.first)
    #expect(statistics.connections.count == 1)
    #expect(connection.attPDUs == Self.session.count)
    #expect(connection.connectLatencyMicroseconds == nil && statistics.connectLatency == nil)
    #expect(connection.transactions.outcomes.total == 8)
    #expect(connection.durationMicroseconds == Int64(Self.session.count - 1) * 1000)
  }
}
