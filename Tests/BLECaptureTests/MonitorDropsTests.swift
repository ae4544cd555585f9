import Foundation
import Testing

@testable import BLECapture

/// Where the records the kernel dropped from the monitor socket are placed, and that the
/// writers and the btsnoop reader keep the count.
@Suite struct MonitorDropsTests {
  /// The counter read after each record (SO_MEMINFO): a rise found after the record
  /// stamped 300 (the check at 1,000) means the records queued before that check came
  /// before the gap, so the count goes to the first record stamped after 1,000.
  @Test func dropsGoToTheFirstRecordQueuedAfterTheCheckThatFoundThem() {
    var drops = MonitorDrops()
    drops.start(counter: 4)
    var counter = 4
    var clock: Int64 = 0
    var queued = 1
    func receive(_ timestamp: Int64) -> Int {
      drops.afterReceive(overflowCount: nil, timestamp: timestamp, counter: { (counter, queued) }, now: { clock })
    }
    clock = 150
    #expect(receive(100) == 0)
    counter = 9
    clock = 1_000
    #expect(receive(300) == 0)
    #expect(drops.pending == 5)
    #expect(receive(400) == 0)
    #expect(receive(900) == 0)
    #expect(receive(1_100) == 5)
    #expect(drops.pending == 0)
    #expect(receive(1_200) == 0)
    // Two more after the last record: only the count at the end can tell.
    counter = 11
    #expect(drops.finish(counter: { (counter, 0) }) == 2)
    #expect(drops.total == 11)
  }

  /// A User Logging record is stamped when it is read: its time says nothing about the
  /// gap, so the next record stamped when it was queued carries the drops, or the first
  /// record read after a check found the queue empty.
  @Test func recordsStampedOnReadDoNotCarryDropsUntilTheQueueDrained() {
    var drops = MonitorDrops()
    drops.start(counter: 0)
    var counter = 0
    var queued = 5
    func receive(_ timestamp: Int64, onRead: Bool = false) -> Int {
      drops.afterReceive(
        overflowCount: nil, timestamp: timestamp, stampedOnRead: onRead, counter: { (counter, queued) },
        now: { 1_000 })
    }
    counter = 3
    #expect(receive(100) == 0)
    #expect(receive(1_500, onRead: true) == 0)
    #expect(receive(1_600) == 3)
    // Again, with read-stamped records only: they wait until the queue was seen empty.
    counter = 5
    #expect(receive(1_700, onRead: true) == 0)
    #expect(receive(1_800, onRead: true) == 0)
    queued = 0
    #expect(receive(1_900, onRead: true) == 0)
    queued = 1
    #expect(receive(2_000, onRead: true) == 2)
  }

  /// A kernel that sends SO_RXQ_OVFL with each record gives the exact place.
  @Test func overflowControlMessageIsExact() {
    var drops = MonitorDrops()
    drops.start(counter: 0)
    let never: () -> (drops: Int, queued: Int)? = {
      Issue.record("SO_MEMINFO read although the control message came")
      return nil
    }
    #expect(drops.afterReceive(overflowCount: 0, timestamp: 1, counter: never, now: { 0 }) == 0)
    #expect(drops.afterReceive(overflowCount: 3, timestamp: 2, counter: never, now: { 0 }) == 3)
    #expect(drops.afterReceive(overflowCount: 3, timestamp: 3, counter: never, now: { 0 }) == 0)
    #expect(drops.total == 3)
  }

  /// Without a counter (SO_MEMINFO failed) nothing is counted or made up.
  @Test func noCounterNoDrops() {
    var drops = MonitorDrops()
    drops.start(counter: nil)
    #expect(!drops.counting)
    #expect(drops.afterReceive(overflowCount: nil, timestamp: 1, counter: { (50, 0) }, now: { 0 }) == 0)
    #expect(drops.finish(counter: { (60, 0) }) == 0)
  }

  /// `droppedBefore` survives btsnoop (cumulative drops) and pcapng (epb_dropcount) -w
  /// files; the btsnoop reader gives it back.
  @Test(arguments: [OutputFormat.btsnoop, .pcapng])
  func writersKeepTheCount(format: OutputFormat) throws {
    let source = try CaptureFile.open(samplePath("hr-sensor-monitor.btsnoop"))
    try withTemporaryPath(extension: format.rawValue) { path in
      let writer = try CaptureWriters.open(path, format: format, family: source.family, resolution: source.resolution)
      var written = 0
      while var record = source.next() {
        written += 1
        record.droppedBefore = written == 5 ? 7 : written == 9 ? 2 : 0
        try writer.write(record)
      }
      try writer.close()
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      if format == .btsnoop {
        let read = try CaptureFile.open(path)
        var dropped: [Int: Int] = [:]
        while let record = read.next() {
          if record.droppedBefore > 0 { dropped[record.frame] = record.droppedBefore }
        }
        #expect(dropped == [5: 7, 9: 2])
      } else {
        // epb_dropcount: option code 4, length 8, the count (little-endian).
        let option: [UInt8] = [4, 0, 8, 0]
        var counts: [UInt64] = []
        for index in 0..<(bytes.count - 12) where Array(bytes[index..<(index + 4)]) == option {
          counts.append(bytes[(index + 4)..<(index + 12)].reversed().reduce(0) { $0 << 8 | UInt64($1) })
        }
        #expect(counts == [7, 2])
      }
    }
  }
}
