import Foundation
import Testing

@testable import BLECapture

#if canImport(Glibc)
  import Glibc
#endif

/// The monitor socket reader fed through a socket pair with the datagrams the kernel's
/// monitor channel sends, since build machines have no AF_BLUETOOTH.
@Suite struct MonitorSocketReaderTests {
  /// The monitor datagrams of a btsnoop 2001 file, made independently of the product:
  /// opcode = flags & 0xffff, index = flags >> 16, then the 6-byte little-endian header
  /// `{opcode, index, length}` and the payload (FORMATS.md §2).
  static func datagrams(_ sample: String, index override: UInt16? = nil) throws -> [[UInt8]] {
    let file = CaptureRecords.btsnoop(try sampleBytes(sample))
    return file.records.map { record in
      let flags = record[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      let payload = record[24...]
      let opcode = UInt16(flags & 0xFFFF)
      let index = override ?? UInt16(flags >> 16)
      return datagram(opcode: opcode, index: index, length: UInt16(payload.count), payload)
    }
  }

  static func datagram(opcode: UInt16, index: UInt16, length: UInt16, _ payload: some Collection<UInt8>) -> [UInt8] {
    [
      UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
      UInt8(length & 0xFF), UInt8(length >> 8),
    ] + payload
  }

  /// Reads what `datagrams` give through a SOCK_SEQPACKET socket pair, sent from another
  /// thread (the pair queues only a few datagrams) that closes its end afterwards.
  static func receive(_ datagrams: [[UInt8]], adapter: UInt16? = nil) -> (CaptureContents, MonitorSocketReader) {
    var pair: [Int32] = [-1, -1]
    let made = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair)
    #expect(made == 0)
    let sender = Thread { [writer = pair[1]] in
      for datagram in datagrams {
        _ = datagram.withUnsafeBytes { send(writer, $0.baseAddress, $0.count, 0) }
      }
      close(writer)
    }
    sender.start()
    let reader = MonitorSocketReader(
      descriptor: pair[0], adapter: adapter, control: LiveControl(), ownsDescriptor: true)
    return (readAll(reader), reader)
  }

  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
  }

  @Test func recordsEqualTheBtsnoopMonitorReadersButForTheirTime() throws {
    let expected = try readAll(path: samplePath("hr-sensor-monitor.btsnoop"))
    let before = Self.now()
    let (received, reader) = Self.receive(try Self.datagrams("hr-sensor-monitor.btsnoop"))
    let after = Self.now()
    #expect(received.family == .monitor)
    #expect(received.damage == nil)
    #expect(received.records.count == 53)
    // The time is the kernel's receive time (SO_TIMESTAMP), not the file's.
    #expect(reader.withoutKernelTimestamp == 0)
    let times = received.records.map(\.timestamp.unixMicroseconds)
    #expect(times.allSatisfy { $0 >= before - 1000 && $0 <= after + 1000 })
    #expect(times == times.sorted())
    var withFileTimes = received.records
    for index in withFileTimes.indices { withFileTimes[index].timestamp = expected.records[index].timestamp }
    expectSameRecords(withFileTimes, expected.records)
    // The sample holds system notes (index 0xffff, no adapter) and New Index (adapter 0).
    #expect(received.records.contains { $0.kind == .monitor(.systemNote) && $0.adapter == nil })
    #expect(received.records.contains { $0.kind == .monitor(.newIndex) && $0.adapter == 0 })
  }

  @Test func adapterFilterKeepsOneControllersRecords() throws {
    let expected = try readAll(path: samplePath("hr-sensor-monitor.btsnoop")).records.filter { $0.adapter == 0 }
    // Every datagram also comes as adapter 1's; only adapter 0's are kept, numbered from 1.
    let interleaved = zip(
      try Self.datagrams("hr-sensor-monitor.btsnoop"), try Self.datagrams("hr-sensor-monitor.btsnoop", index: 1)
    ).flatMap { [$0, $1] }
    let (received, _) = Self.receive(interleaved, adapter: 0)
    #expect(received.records.count == expected.count)
    #expect(received.records.map(\.frame) == Array(1...expected.count))
    #expect(received.records.map(\.adapter) == expected.map(\.adapter))
    #expect(received.records.map(\.bytes) == expected.map(\.bytes))
    #expect(received.records.map(\.kind) == expected.map(\.kind))
  }

  @Test func malformedDatagramsAreRecordsNotCrashes() {
    let (received, _) = Self.receive([
      // 3 bytes: too short for the header
      [0x02, 0x00, 0x00],
      // < HCI Command: Reset (0x03|0x0003) plen 0, header length 3 but only 2 payload bytes
      Self.datagram(opcode: 2, index: 0, length: 3, [0x03, 0x0C]),
      // > HCI Event: Command Complete, header length 1 with 4 payload bytes: the rest is ignored
      Self.datagram(opcode: 3, index: 0, length: 1, [0x0E, 0x04, 0x01, 0x03]),
    ])
    #expect(received.damage == nil)
    #expect(received.records.count == 3)
    #expect(received.records[0].kind == .unframed)
    #expect(received.records[0].bytes == [0x02, 0x00, 0x00])
    #expect(received.records[1].kind == .hci(H4.command))
    #expect(received.records[1].direction == .sent)
    #expect(received.records[1].bytes == [0x03, 0x0C])
    #expect(received.records[1].originalLength == 3)
    #expect(received.records[1].isCutBySource)
    #expect(received.records[2].kind == .hci(H4.event))
    #expect(received.records[2].bytes == [0x0E])
  }

  @Test func stopEndsAQuietSocket() {
    var pair: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
    defer { close(pair[1]) }
    let control = LiveControl()
    let reader = MonitorSocketReader(descriptor: pair[0], adapter: nil, control: control, ownsDescriptor: true)
    control.requestStop()
    #expect(reader.next() == nil)
    #expect(reader.damage == nil)
  }

  /// Records the kernel queued before the stop were captured: they are still read, then
  /// the reader ends without waiting for more.
  @Test func stopReadsWhatIsAlreadyQueued() throws {
    var pair: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
    defer { close(pair[1]) }
    let control = LiveControl()
    let reader = MonitorSocketReader(descriptor: pair[0], adapter: nil, control: control, ownsDescriptor: true)
    let queued = Array(try Self.datagrams("hr-sensor-monitor.btsnoop").prefix(3))
    for datagram in queued {
      _ = datagram.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, 0) }
    }
    control.requestStop()
    let started = Self.now()
    #expect(readAll(reader).records.count == 3)
    #expect(reader.damage == nil)
    #expect(Self.now() - started < 1_000_000)
  }
}
