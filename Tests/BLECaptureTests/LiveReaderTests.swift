import Foundation
import Testing

@testable import BLECapture

#if canImport(Glibc)
  import Glibc
#endif

/// A live feed that plays a script: bytes handed out `chunk` at a time (so records arrive
/// split at every possible place), restarts, then the end.
final class ScriptFeed: LiveFeed {
  enum Step {
    case bytes([UInt8])
    case restart
  }

  let label = "script"
  let control = LiveControl()
  let chunk: Int
  var knownEnd = 0
  var failure: String?
  private var steps: [Step]
  private var position = 0
  private(set) var notices: [String] = []

  init(_ steps: [Step], chunk: Int = 1 << 16, knownEnd: Int = 0) {
    self.steps = steps
    self.chunk = chunk
    self.knownEnd = knownEnd
    control.onNotice = { [unowned self] in notices.append($0) }
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead {
    while let step = steps.first {
      switch step {
      case .restart:
        steps.removeFirst()
        knownEnd = 0
        return .restart
      case .bytes(let bytes):
        guard position < bytes.count else {
          steps.removeFirst()
          position = 0
          continue
        }
        let count = min(chunk, buffer.count, bytes.count - position)
        bytes.withUnsafeBytes {
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[position..<position + count]))
        }
        position += count
        return .bytes(count)
      }
    }
    return .end
  }
}

/// The records of a capture file, cut apart independently of the product (FORMATS.md §1, §3):
/// the file header and each record's bytes with its header.
struct CaptureRecords {
  var header: [UInt8]
  var records: [[UInt8]]

  /// btsnoop: 16-byte header, records with a 24-byte big-endian header (included length at 4).
  static func btsnoop(_ bytes: [UInt8]) -> CaptureRecords {
    split(bytes, headerLength: 16, recordHeader: 24) { bigEndian(bytes, $0 + 4) }
  }

  /// pcap: 24-byte header, records with a 16-byte header (captured length at 8, in the
  /// byte order of the magic).
  static func pcap(_ bytes: [UInt8]) -> CaptureRecords {
    let swapped = bytes[0] == 0xD4 || bytes[0] == 0x4D
    return split(bytes, headerLength: 24, recordHeader: 16) {
      let value = bigEndian(bytes, $0 + 8)
      return swapped ? value.byteSwapped : value
    }
  }

  private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  private static func split(
    _ bytes: [UInt8], headerLength: Int, recordHeader: Int, included: (Int) -> UInt32
  ) -> CaptureRecords {
    var records: [[UInt8]] = []
    var offset = headerLength
    while offset + recordHeader <= bytes.count {
      let end = offset + recordHeader + Int(included(offset))
      records.append(Array(bytes[offset..<end]))
      offset = end
    }
    return CaptureRecords(header: Array(bytes[0..<headerLength]), records: records)
  }

  /// The header and records `range`, as one byte string.
  func bytes(_ range: Range<Int>, header withHeader: Bool = true) -> [UInt8] {
    (withHeader ? header : []) + records[range].flatMap { $0 }
  }
}

func sampleBytes(_ name: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: URL(fileURLWithPath: samplePath(name))))
}

@Suite struct StreamReaderTests {
  /// Every record of a sample read from a stream, handed over `chunk` bytes at a time,
  /// equals the file reader's record: frame, time, direction, adapter, kind, bytes.
  @Test(
    arguments: [
      "hr-sensor.btsnoop", "hr-sensor-h1.btsnoop", "hr-sensor-monitor.btsnoop", "filtered.btsnoop", "hr-sensor.pcap",
      "hr-sensor.pcapng", "hr-sensor-ns-be.pcap", "hr-sensor-monitor.pcap",
    ], [1, 7, 24, 4096])
  func streamedRecordsEqualTheFileReaders(sample: String, chunk: Int) throws {
    let expected = try readAll(path: samplePath(sample))
    let source = try LiveSources.open(ScriptFeed([.bytes(try sampleBytes(sample))], chunk: chunk))
    let streamed = readAll(source)
    #expect(streamed.damage == nil)
    #expect(streamed.family == expected.family)
    #expect(streamed.resolution == expected.resolution)
    #expect(streamed.records.count > 40)
    expectSameRecords(streamed.records, expected.records)
  }

  @Test func btsnoopStreamCutInsideARecordIsDamaged() throws {
    let file = CaptureRecords.btsnoop(try sampleBytes("hr-sensor.btsnoop"))
    let cut = file.bytes(0..<5) + file.records[5].prefix(30)
    let capture = readAll(try LiveSources.open(ScriptFeed([.bytes(cut)], chunk: 11)))
    #expect(capture.records.count == 5)
    #expect(capture.damage?.offset == 16 + file.records[0..<5].map(\.count).reduce(0, +))
    #expect(capture.damage?.message.hasPrefix("record 6 cut off") == true)
  }

  @Test func stopWhileARecordIsHalfThereIsNoDamage() throws {
    let file = CaptureRecords.btsnoop(try sampleBytes("hr-sensor.btsnoop"))
    let feed = ScriptFeed([.bytes(file.bytes(0..<3) + file.records[3].prefix(10))])
    let source = try LiveSources.open(feed)
    feed.control.requestStop()
    let capture = readAll(source)
    #expect(capture.records.count == 3)
    #expect(capture.damage == nil)
  }

  /// A restart (reconnection, rotated or truncated file) drops the unfinished record,
  /// reads a new header, and frame numbers go on.
  @Test(arguments: [1, 13, 4096])
  func restartStartsOverWithFramesGoingOn(chunk: Int) throws {
    let file = CaptureRecords.btsnoop(try sampleBytes("hr-sensor.btsnoop"))
    let expected = try readAll(path: samplePath("hr-sensor.btsnoop")).records
    let feed = ScriptFeed(
      [.bytes(file.bytes(0..<10) + file.records[10].prefix(9)), .restart, .bytes(file.bytes(11..<49))], chunk: chunk)
    let capture = readAll(try LiveSources.open(feed))
    #expect(capture.damage == nil)
    var renumbered = Array(expected[0..<10] + expected[11..<49])
    for index in renumbered.indices { renumbered[index].frame = index + 1 }
    expectSameRecords(capture.records, renumbered)
    #expect(feed.notices == ["script: the stream started over inside record 11; its 9 bytes were dropped"])
  }

  @Test func pcapRestartStartsOverWithFramesGoingOn() throws {
    let file = CaptureRecords.pcap(try sampleBytes("hr-sensor.pcap"))
    let expected = try readAll(path: samplePath("hr-sensor.pcap")).records
    let feed = ScriptFeed(
      [.bytes(file.bytes(0..<10) + file.records[10].prefix(9)), .restart, .bytes(file.bytes(11..<49))], chunk: 5)
    let capture = readAll(try LiveSources.open(feed))
    #expect(capture.damage == nil)
    var renumbered = Array(expected[0..<10] + expected[11..<49])
    for index in renumbered.indices { renumbered[index].frame = index + 1 }
    expectSameRecords(capture.records, renumbered)
  }

  @Test func restartWithAnotherDatalinkIsDamage() throws {
    let h4 = CaptureRecords.btsnoop(try sampleBytes("hr-sensor.btsnoop"))
    let monitor = CaptureRecords.btsnoop(try sampleBytes("hr-sensor-monitor.btsnoop"))
    let feed = ScriptFeed([.bytes(h4.bytes(0..<4)), .restart, .bytes(monitor.bytes(0..<4))])
    let capture = readAll(try LiveSources.open(feed))
    #expect(capture.records.count == 4)
    #expect(capture.damage?.message.contains("datalink 2001 (Linux monitor) after datalink 1002 (H4)") == true)
  }

  /// --from-end: the records that end at or before the feed's known end are counted, not delivered.
  @Test(arguments: ["hr-sensor.btsnoop", "hr-sensor.pcap"])
  func knownRecordsAreSkippedButCounted(sample: String) throws {
    let bytes = try sampleBytes(sample)
    let file = sample.hasSuffix(".pcap") ? CaptureRecords.pcap(bytes) : CaptureRecords.btsnoop(bytes)
    let expected = try readAll(path: samplePath(sample)).records
    // The file held 20 records and half of the 21st when reading started.
    let knownEnd = file.bytes(0..<20).count + 5
    let capture = readAll(try LiveSources.open(ScriptFeed([.bytes(bytes)], chunk: 100, knownEnd: knownEnd)))
    expectSameRecords(capture.records, Array(expected[20...]))
    #expect(capture.records.first?.frame == 21)
  }

  @Test func headerErrors() throws {
    let h4 = try sampleBytes("hr-sensor.btsnoop")
    #expect(throws: CaptureError.self) { try LiveSources.open(ScriptFeed([])) }
    let notACapture = #expect(throws: CaptureError.self) {
      try LiveSources.open(ScriptFeed([.bytes(Array("hello, world\n".utf8))]))
    }
    #expect(notACapture?.reason.unsupportedText?.hasPrefix("not a btsnoop, pcap or pcapng stream") == true)
    let cut = #expect(throws: CaptureError.self) { try LiveSources.open(ScriptFeed([.bytes(Array(h4[0..<12]))])) }
    #expect(cut?.reason.damagedHeaderText == "btsnoop header cut off: 12 of 16 bytes at byte offset 0")
    var version2 = Array(h4[0..<16])
    version2[11] = 2
    let version = #expect(throws: CaptureError.self) { try LiveSources.open(ScriptFeed([.bytes(version2)])) }
    #expect(version?.reason.unsupportedText == "btsnoop version 2 is not supported; expected version 1")
  }

  @Test func oversizedRecordIsDamageNotAWait() throws {
    let file = CaptureRecords.btsnoop(try sampleBytes("hr-sensor.btsnoop"))
    // Record 3 announces 0x7fffffff included bytes.
    var garbage = file.records[2]
    garbage.replaceSubrange(4..<8, with: [0x7F, 0xFF, 0xFF, 0xFF])
    let capture = readAll(try LiveSources.open(ScriptFeed([.bytes(file.bytes(0..<2) + garbage)])))
    #expect(capture.records.count == 2)
    #expect(capture.damage?.message == "record 3 announces 2147483647 bytes, more than a record can hold")
  }
}

@Suite struct LiveFeedTests {
  @Test func stopWakesABlockedRead() throws {
    var descriptors: [Int32] = [-1, -1]
    #expect(pipe(&descriptors) == 0)
    defer {
      close(descriptors[0])
      close(descriptors[1])
    }
    let control = LiveControl()
    var idle = 0
    control.onIdle = { idle += 1 }
    let feed = DescriptorFeed(descriptor: descriptors[0], label: "pipe", control: control)
    let stopper = Thread { [control = UncheckedBox(control)] in
      usleep(50_000)
      control.value.requestStop()
    }
    stopper.start()
    var buffer = [UInt8](repeating: 0, count: 16)
    let started = DispatchTime.now().uptimeNanoseconds
    let read = buffer.withUnsafeMutableBytes { feed.read(into: $0) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - started
    #expect(read == .end)
    #expect(elapsed < 2_000_000_000)
    // The reader had nothing right away, so the command was told it is idle.
    #expect(idle >= 1)
    #expect(control.stopRequested)
  }

  @Test func followFeedSeesGrowthTruncationAndRotation() throws {
    try withTemporaryPath(extension: "btsnoop") { path in
      try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
      let control = LiveControl()
      var notices: [String] = []
      control.onNotice = { notices.append($0) }
      let feed = try FollowFeed(path: path, fromEnd: true, control: control)
      #expect(feed.knownEnd == 3)
      var buffer = [UInt8](repeating: 0, count: 64)
      func read() -> LiveFeedRead { buffer.withUnsafeMutableBytes { feed.read(into: $0) } }
      #expect(read() == .bytes(3))
      #expect(buffer.prefix(3) == [1, 2, 3])
      // Grown.
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data([4, 5]))
      #expect(read() == .bytes(2))
      // Truncated and written again, shorter than what was read.
      try handle.truncate(atOffset: 0)
      try handle.write(contentsOf: Data([9]))
      try handle.close()
      #expect(read() == .restart)
      #expect(feed.knownEnd == 0)
      #expect(read() == .bytes(1))
      #expect(buffer[0] == 9)
      // Rotated: the path names a new file.
      try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
      defer { try? FileManager.default.removeItem(atPath: path + ".1") }
      try Data([7, 7, 7, 7]).write(to: URL(fileURLWithPath: path))
      #expect(read() == .restart)
      #expect(read() == .bytes(4))
      #expect(
        notices == [
          "\(path): truncated; reading it again from the start",
          "\(path): replaced by a new file (rotated); reading it from the start",
        ])
      // Nothing more: a stop ends the wait.
      control.requestStop()
      #expect(read() == .end)
    }
  }

  @Test(arguments: [
    ("127.0.0.1:8872", "127.0.0.1", "8872"), ("localhost:1", "localhost", "1"), ("[::1]:8872", "::1", "8872"),
  ])
  func tcpAddresses(address: String, host: String, port: String) {
    let split = TCPFeed.split(address)
    #expect(split?.host == host)
    #expect(split?.port == port)
  }

  @Test(arguments: ["8872", "host:", ":8872", "host:0", "host:65536", "host:port"])
  func badTCPAddresses(address: String) {
    #expect(TCPFeed.split(address) == nil)
    #expect(throws: LiveError.self) { try TCPFeed(address: address, reconnect: false, control: LiveControl()) }
  }
}

/// Moves a non-Sendable value to another thread in a test that knows it is safe.
struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
