import BLEAnalysis
import BLECapture
import BLEDissect
import BLEOutput
import CZlib

#if canImport(Glibc)
  import Glibc
#endif

/// What the fuzzers drive: each target takes arbitrary bytes and must never crash, hang
/// or grow without bound on them. `bleanalyze-fuzz` runs them under libFuzzer (built
/// with `-DFUZZING -sanitize=fuzzer`) or replays files through them; the regression
/// tests call `run` on every input that once crashed.
public enum FuzzTarget: String, CaseIterable, Sendable {
  /// btsnoop file reader (memory-mapped): bytes → records, every record walked.
  case btsnoop
  /// pcap and pcapng through libpcap.
  case pcap
  /// Apple PacketLogger.
  case packetLogger = "packetlogger"
  /// btsnooz records: the bytes are the section's content after base64 (version,
  /// last timestamp, then records), compressed here with zlib, base64-encoded and
  /// wrapped in a bugreport's markers, so mutations reach the record parser.
  case btsnooz
  /// An Android bugreport zip: the zip directory (or the local headers when it is
  /// damaged), raw deflate within its limits, every HCI log merged or the btsnooz
  /// fallback, then the bugreport text's logcat read as the phone's log.
  case bugreportZip = "bugreport-zip"
  /// An iOS sysdiagnose `.tar.gz`: streaming gzip within its limits, tar headers (ustar,
  /// GNU long names, pax), every PacketLogger log merged.
  case sysdiagnose
  /// A bugreport's text as the phone's log: logcat lines, the recognizer table, the
  /// dumpstate time, properties; then the log→capture clock over what it found.
  case phoneLog = "phone-log"
  /// The live stream readers (btsnoop stream, pcap/pcapng over fopencookie), fed in
  /// chunks whose size the first byte picks.
  case stream
  /// The whole pipeline: any reader, `Analyzer` and the response lookahead, the
  /// timeline, statistics, devices and GATT, every output format rendered.
  case pipeline
  /// The decoders of protocols over GATT (mcumgr and CBOR, Nordic DFU, HID report
  /// descriptors and reports, ANCS, AMS) on raw values: the first byte picks one.
  case vendor

  /// Runs the target over `bytes` and returns how many records it read. Not
  /// reentrant: every call shares one input file.
  @discardableResult
  public func run(_ bytes: UnsafeRawBufferPointer) -> Int {
    switch self {
    case .btsnoop: Self.walk(bytes, reader: .btsnoop)
    case .pcap: Self.walk(bytes, reader: .pcap)
    case .packetLogger: Self.walk(bytes, reader: .packetLogger)
    case .btsnooz: Self.walk(Self.bugreportText(bytes), reader: .bugreportText)
    case .bugreportZip: Self.walk(bytes, reader: .bugreportZip) + Self.archiveLog(bytes)
    case .sysdiagnose: Self.walk(bytes, reader: .sysdiagnose)
    case .phoneLog: Self.phoneLog(bytes)
    case .stream: Self.stream(bytes)
    case .pipeline: Self.pipeline(bytes)
    case .vendor: VendorFuzz.run(bytes)
    }
  }

  @discardableResult
  public func run(_ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { run($0) }
  }

  // MARK: - Readers

  private static func walk(_ bytes: UnsafeRawBufferPointer, reader: CaptureReader) -> Int {
    guard let path = InputFile.shared.store(bytes),
      let source = try? CaptureFile.open(path, reader: reader)
    else { return 0 }
    return drain(source)
  }

  private static func walk(_ bytes: [UInt8], reader: CaptureReader) -> Int {
    bytes.withUnsafeBytes { walk($0, reader: reader) }
  }

  /// Reads every record and touches every byte of it, so that a record pointing
  /// outside its file shows under the address sanitizer.
  static func drain(_ source: any RecordSource) -> Int {
    var records = 0
    var sum = 0
    while let record = source.next() {
      for byte in record.bytes { sum &+= Int(byte) }
      sum &+= record.originalLength &+ record.frame
      records += 1
    }
    _ = source.damage
    _ = source.notes
    // Keeps the sum, so that the loop that touches every byte is not optimised away.
    return sum == Int.min ? 0 : records
  }

  /// `--- BEGIN:BTSNOOP_LOG_SUMMARY` … base64 of the preamble and the zlib-compressed
  /// records … `--- END:BTSNOOP_LOG_SUMMARY`. Inputs shorter than the preamble are
  /// encoded as they are.
  static func bugreportText(_ content: UnsafeRawBufferPointer) -> [UInt8] {
    var section = Array(content.prefix(9))
    if content.count > 9 {
      let records = UnsafeRawBufferPointer(rebasing: content[9...])
      var size = compressBound(uLong(records.count))
      var compressed = [UInt8](repeating: 0, count: Int(size))
      let status = compressed.withUnsafeMutableBufferPointer { out in
        compress(out.baseAddress, &size, records.bindMemory(to: Bytef.self).baseAddress, uLong(records.count))
      }
      guard status == Z_OK else { return [] }
      section += compressed.prefix(Int(size))
    }
    var text = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY (\(content.count) bytes in) ---\n".utf8)
    text += base64Lines(section)
    text += Array("--- END:BTSNOOP_LOG_SUMMARY (\(section.count) bytes out) ---\n".utf8)
    return text
  }

  static func base64Lines(_ bytes: [UInt8]) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 4 / 3 + bytes.count / 48 + 8)
    var index = 0
    var column = 0
    while index < bytes.count {
      let count = min(3, bytes.count - index)
      var group = 0
      for k in 0..<3 { group = group << 8 | (k < count ? Int(bytes[index + k]) : 0) }
      for k in 0..<4 {
        out.append(k <= count ? alphabet[(group >> (18 - 6 * k)) & 0x3F] : UInt8(ascii: "="))
      }
      index += 3
      column += 4
      if column >= 76 {
        out.append(0x0A)
        column = 0
      }
    }
    if column > 0 { out.append(0x0A) }
    return out
  }

  // MARK: - Phone logs

  /// The bugreport text inside an archive, read as the phone's log; how many events.
  private static func archiveLog(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let path = InputFile.shared.store(bytes), let archive = try? PhoneArchive(path: path),
      let log = PhoneLog(archive: archive, zoneLookup: zone)
    else { return 0 }
    return clock(log)
  }

  private static func phoneLog(_ bytes: UnsafeRawBufferPointer) -> Int {
    let log = PhoneLog(text: bytes.bindMemory(to: UInt8.self), zoneLookup: zone)
    return log.lines.count + clock(log)
  }

  /// Zones without reading the tz database on every input.
  private static func zone(_ name: String) -> ZoneInfo? {
    name.hasPrefix("Europe/") ? ZoneInfo(name: name, fixedOffset: 3600) : nil
  }

  /// The log's events as clock marks, refined against anchors made from the events
  /// themselves (a connect's packet 3 ms later); how many events.
  private static func clock(_ log: PhoneLog) -> Int {
    let marks = log.events.compactMap { event in
      log.unixMicroseconds(event.line.time).flatMap { LogClock.Mark(event, time: $0) }
    }
    let anchors = marks.map { mark in
      LogClock.Anchor(
        kind: mark.kind == .beforeCreateConnection ? .createConnection : .connectionComplete(status: 0),
        time: mark.time &+ (mark.kind == .beforeCreateConnection ? 3000 : -1000), peer: mark.device?.address)
    }
    _ = LogClock.refine(marks, anchors: anchors, zoneUnknown: marks.count < 64)
    return log.events.count
  }

  // MARK: - Streams

  private static func stream(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let first = bytes.first else { return 0 }
    // 0 feeds everything at once; otherwise chunks of 1 to 255 bytes.
    let feed = MemoryFeed(UnsafeRawBufferPointer(rebasing: bytes[1...]), chunk: first == 0 ? Int.max : Int(first))
    guard let source = try? LiveSources.open(feed) else { return 0 }
    return drain(source)
  }

  // MARK: - Pipeline

  private static let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
  /// A filter that reads every kind of field.
  private static let filter = try? RecordFilter.compile(
    "(att.opcode == 0x1b and att.handle >= 3) or smp or not hci.status == 0 or diagnostics.id contains \"cut\"")

  /// What `show` (text with -v, NDJSON), `timeline`, `stats`, `devices` and `gatt` do
  /// with a capture, in one pass over its records, every format rendered into memory.
  private static func pipeline(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let path = InputFile.shared.store(bytes), let source = try? CaptureFile.open(path) else { return 0 }
    var records = 0
    var out = OutputBuffer(fd: devNull, flushThreshold: 1 << 20)
    var shows = [makeShowRenderer(.text, verbose: true), makeShowRenderer(.ndjson), makeShowRenderer(.json)]
    for index in shows.indices {
      shows[index].beginCapture(path: path, format: source.formatDescription, file: nil, into: &out)
    }
    var pipeline = RecordPipeline(analyzer: Analyzer(), recordLimit: 64, byteLimit: 1 << 16)
    var builder = TimelineBuilder()
    var statistics = Statistics()
    var table = DeviceTable(limit: 64)
    func emit(_ record: Record, _ analyzed: AnalyzedRecord, start: Timestamp) {
      for index in shows.indices { shows[index].render(record, analyzed, start: start, into: &out) }
      _ = filter?.matches(FilterInput(record: record, analyzed: analyzed))
      out.flush()
      builder.add(record, analyzed)
      statistics.add(record, analyzed)
      table.add(record, analyzed.decoded)
    }
    var start: Timestamp?
    while let record = source.next() {
      records += 1
      let first = start ?? record.timestamp
      start = first
      pipeline.push(record) { emit($0, $1, start: first) }
    }
    let first = start ?? Timestamp(unixMicroseconds: 0)
    let unanswered = pipeline.finish { emit($0, $1, start: first) }
    let summary = pipeline.summary
    let capture = CaptureInfo(file: path, source: source, summary: summary)
    for index in shows.indices {
      shows[index].endCapture(summary, capture: capture, into: &out)
      shows[index].finish(into: &out)
    }
    let timeline = builder.finish(unanswered)
    statistics.finish(timeline)
    let devices = table.devices()
    let peers = pipeline.analyzer.gatt.servers.filter { !$0.database.isEmpty }.map {
      GATTRenderer.Peer(server: $0, file: nil)
    }
    for format in [RenderFormat.text, .json, .ndjson] {
      var timelineRenderer = TimelineRenderer(format: format, verbose: true, multipleFiles: false)
      timelineRenderer.render(path: path, timeline, capture: capture, into: &out)
      timelineRenderer.finish(into: &out)
      var statsRenderer = StatsRenderer(format: format, multipleFiles: false)
      statsRenderer.begin(into: &out)
      statsRenderer.render(path: path, statistics, capture: capture, into: &out)
      statsRenderer.finish(into: &out)
      var devicesRenderer = DevicesRenderer(format: format, multipleFiles: false)
      devicesRenderer.begin(into: &out)
      devicesRenderer.render(path: path, devices, table: table, capture: capture, into: &out)
      devicesRenderer.finish(into: &out)
      GATTRenderer.render(peers, format: format, captures: [capture], into: &out)
      out.flush(force: true)
    }
    return records
  }
}

/// A live feed over bytes in memory, handed out `chunk` bytes at a time.
final class MemoryFeed: LiveFeed {
  nonisolated(unsafe) static let sharedControl = LiveControl()

  let label = "fuzz input"
  var control: LiveControl { Self.sharedControl }
  var failure: String? { nil }
  private let bytes: UnsafeRawBufferPointer
  private let chunk: Int
  private var position = 0

  init(_ bytes: UnsafeRawBufferPointer, chunk: Int) {
    self.bytes = bytes
    self.chunk = max(1, chunk)
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> LiveFeedRead {
    let count = min(chunk, buffer.count, bytes.count - position)
    guard count > 0 else { return .end }
    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<position + count]))
    position += count
    return .bytes(count)
  }
}

/// The one file each fuzz input is written to, so that the readers open it by path as
/// they open any capture: an anonymous memory file (`memfd_create`, reached as
/// `/proc/self/fd/N`) when the kernel has them, else a file in `$TMPDIR`.
final class InputFile {
  nonisolated(unsafe) static let shared = InputFile()

  private let descriptor: Int32
  let path: String

  private init() {
    typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    if let symbol = dlsym(nil, "memfd_create") {
      let fd = unsafeBitCast(symbol, to: MemfdCreate.self)("bleanalyze-fuzz", 1)  // MFD_CLOEXEC
      if fd >= 0 {
        descriptor = fd
        path = "/proc/self/fd/\(fd)"
        return
      }
    }
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    path = "\(directory)/bleanalyze-fuzz-\(getpid()).input"
    descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  }

  /// Replaces the file's content with `bytes`; nil when that fails.
  func store(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard descriptor >= 0, ftruncate(descriptor, 0) == 0 else { return nil }
    var done = 0
    while done < bytes.count {
      let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(done))
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return nil }
      done += written
    }
    return path
  }
}
