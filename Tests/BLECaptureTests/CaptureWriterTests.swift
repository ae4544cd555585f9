import Foundation
import Testing

@testable import BLECapture

@Suite struct CaptureWriterTests {
  /// Writes every record of `source` to a temporary file of `format`, reads it back, and hands
  /// both to `check`: the records as written, the file as read, and the writer.
  func convert(
    _ source: any RecordSource, to format: OutputFormat,
    _ check: ([RecordSnapshot], CaptureContents, any CaptureWriter) throws -> Void
  ) throws {
    try withTemporaryPath(extension: format.rawValue) { path in
      let writer = try CaptureWriters.open(path, format: format, family: source.family, resolution: source.resolution)
      var written: [RecordSnapshot] = []
      while let record = source.next() {
        written.append(RecordSnapshot(record))
        try writer.write(record)
      }
      try writer.close()
      #expect(source.damage == nil)
      try check(written, try readAll(path: path), writer)
    }
  }

  @Test(
    arguments: ["hr-sensor.btsnoop", "hr-sensor-monitor.btsnoop", "hr-sensor-ns-be.pcap", "filtered.btsnoop"],
    OutputFormat.allCases)
  func roundTrip(sample: String, format: OutputFormat) throws {
    let source = try CaptureFile.open(samplePath(sample))
    let family = source.family
    let resolution = source.resolution
    try convert(source, to: format) { written, read, writer in
      #expect(writer.skipped == 0)
      #expect(read.damage == nil)
      #expect(read.family == family)
      #expect(written.count == (family == .monitor ? 53 : 49))
      var expected = written
      if format == .btsnoop {
        // btsnoop keeps microseconds only.
        #expect(read.resolution == .microseconds)
        for i in expected.indices { expected[i].timestamp.nanoseconds = 0 }
      } else {
        #expect(read.resolution == resolution)
      }
      expectSameRecords(read.records, expected)
    }
  }

  @Test func samplesExerciseWhatTheRoundTripKeeps() throws {
    // The round trip above would prove little if the samples had no nanoseconds, adapters,
    // monitor records or cut records: check they do.
    let ns = try readAll(path: samplePath("hr-sensor-ns-be.pcap"))
    #expect(ns.resolution == .nanoseconds)
    #expect(ns.records.allSatisfy { $0.timestamp.nanoseconds == 123 })
    let monitor = try readAll(path: samplePath("hr-sensor-monitor.btsnoop"))
    #expect(monitor.records.contains { $0.kind == .monitor(MonitorOpcode(rawValue: 12)) && $0.adapter == nil })
    #expect(monitor.records.contains { $0.kind == .monitor(MonitorOpcode(rawValue: 0)) && $0.adapter == 0 })
    // Samples/README.md: the filtered log cuts records 36, 37 and 46.
    let filtered = try readAll(path: samplePath("filtered.btsnoop"))
    #expect(filtered.records.filter(\.isCutBySource).map(\.frame) == [36, 37, 46])
  }

  @Test(arguments: [OutputFormat.pcap, .pcapng])
  func packetLoggerNoteIsSkipped(format: OutputFormat) throws {
    let btsnoop = try readAll(path: samplePath("hr-sensor.btsnoop"))
    try convert(try CaptureFile.open(samplePath("hr-sensor.pklg")), to: format) { written, read, writer in
      #expect(written.first?.kind == .packetLogger(0xFC))
      #expect(writer.skipped == 1)
      #expect(read.family == .h4)
      expectSameRecords(read.records, btsnoop.records)
    }
  }

  @Test func linkLayerCannotBeWrittenToBtsnoop() {
    withTemporaryPath(extension: "btsnoop") { path in
      let error = #expect(throws: CaptureError.self) {
        try CaptureWriters.open(path, format: .btsnoop, family: .linkLayer(.nordicBLE), resolution: .microseconds)
      }
      guard case .cannotWrite(let why) = error?.reason else {
        Issue.record("expected cannotWrite, got \(String(describing: error))")
        return
      }
      #expect(why.contains("272"))
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test(arguments: [OutputFormat.pcap, .pcapng])
  func linkLayerKeepsItsLinkType(format: OutputFormat) throws {
    // nRF Sniffer for Bluetooth LE, ADV_IND from d4:36:39:67:a2:61 on channel 37 (see PcapReaderTests)
    let packet: [UInt8] = [
      0x00, 0x19, 0x00, 0x03, 0x01, 0x00, 0x02, 0x0A, 0x01, 0x25, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0xD6, 0xBE, 0x89, 0x8E, 0x00, 0x06, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x20, 0xBB, 0x56,
    ]
    // HCI Command: Reset, which a link-layer file has no place for
    let command: [UInt8] = [0x03, 0x0C, 0x00]
    let family = LinkFamily.linkLayer(.nordicBLE)
    try withTemporaryPath(extension: format.rawValue) { path in
      let writer = try CaptureWriters.open(path, format: format, family: family, resolution: .microseconds)
      try packet.withUnsafeBufferPointer { bytes throws(CaptureError) in
        try writer.write(
          Record(
            frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart + 7), direction: nil, adapter: nil,
            kind: .linkLayer(.nordicBLE), bytes: bytes, originalLength: bytes.count, fileOffset: 0))
      }
      try command.withUnsafeBufferPointer { bytes throws(CaptureError) in
        try writer.write(
          Record(
            frame: 2, timestamp: Timestamp(unixMicroseconds: sessionStart + 8), direction: .sent, adapter: nil,
            kind: .hci(0x01), bytes: bytes, originalLength: bytes.count, fileOffset: 0))
      }
      try writer.close()
      #expect(writer.skipped == 1)
      let read = try readAll(path: path)
      #expect(read.family == family)
      expectSameRecords(
        read.records,
        [
          RecordSnapshot(
            frame: 1, timestamp: Timestamp(unixMicroseconds: sessionStart + 7), direction: nil,
            kind: .linkLayer(.nordicBLE), bytes: packet)
        ])
    }
  }

  @Test(arguments: [
    ("capture.pcap", OutputFormat.pcap),
    ("old.cap", .pcap),
    ("CAPTURE.PCAPNG", .pcapng),
    ("capture.ntar", .pcapng),
    ("hr-sensor.btsnoop", .btsnoop),
    ("btsnoop_hci.log", .btsnoop),
    ("capture.snoop", .btsnoop),
    ("capture.pklg", nil),
    ("capture.txt", nil),
    ("pcap", nil),
    ("capture.pcap.gz", nil),
  ])
  func formatFromFileName(name: String, format: OutputFormat?) {
    #expect(OutputFormat(fileName: name) == format)
  }
}
