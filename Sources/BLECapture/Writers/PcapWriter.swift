import CPcap

#if canImport(Glibc)
  import Glibc
#endif

/// Writes classic pcap through libpcap (`pcap_dump`).
///
/// The file's stdio buffer (`bufferSize`) is flushed before a record that would not fit
/// in what is left of it, so that stdio never writes part of a record: a process killed
/// at any moment leaves whole records only.
final class PcapWriter: CaptureWriter {
  static let bufferSize = 1 << 20

  let path: String
  let framing: OutputFraming
  private let dead: OpaquePointer
  private let dumper: OpaquePointer
  private let nanoseconds: Bool
  private var packet: [UInt8] = []
  private(set) var skipped = 0
  /// Bytes in the stdio buffer, not yet written.
  private var buffered = 0

  init(path: String, framing: OutputFraming, resolution: TimestampResolution) throws(CaptureError) {
    nanoseconds = resolution == .nanoseconds
    let precision = nanoseconds ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO
    guard let dead = pcap_open_dead_with_tstamp_precision(Int32(framing.linkType.rawValue), 262_144, UInt32(precision))
    else { throw CaptureError(.cannotWrite("libpcap cannot make a handle"), path: path) }
    guard let file = fopen(path, "we") else {
      pcap_close(dead)
      throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path)
    }
    setvbuf(file, nil, _IOFBF, Self.bufferSize)
    guard let dumper = pcap_dump_fopen(dead, file) else {
      let message = String(cString: pcap_geterr(dead))
      fclose(file)
      pcap_close(dead)
      throw CaptureError(.cannotWrite(message), path: path)
    }
    self.path = path
    self.framing = framing
    self.dead = dead
    self.dumper = dumper
    buffered = 24  // the file header
    packet.reserveCapacity(65_536)
  }

  var formatDescription: String {
    "pcap\(nanoseconds ? " (ns)" : ""), link type \(framing.linkType)"
  }

  func write(_ record: Record) throws(CaptureError) {
    guard framing.pcapPacket(record, into: &packet) else {
      skipped += 1
      return
    }
    let (seconds, micros) = record.timestamp.secondsAndMicroseconds
    var header = pcap_pkthdr()
    header.ts.tv_sec = Int(seconds)
    header.ts.tv_usec = nanoseconds ? Int(micros) * 1000 + Int(record.timestamp.nanoseconds) : Int(micros)
    header.caplen = UInt32(packet.count)
    header.len = UInt32(packet.count + record.originalLength - record.bytes.count)
    let size = MemoryLayout<UInt32>.size * 4 + packet.count
    if buffered + size > Self.bufferSize {
      try flush()
    }
    buffered += size
    packet.withUnsafeBufferPointer { bytes in
      pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header, bytes.baseAddress)
    }
  }

  func flush() throws(CaptureError) {
    guard pcap_dump_flush(dumper) == 0 else { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
    buffered = 0
  }

  func close() throws(CaptureError) {
    let failed = pcap_dump_flush(dumper) != 0
    pcap_dump_close(dumper)
    pcap_close(dead)
    if failed { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
  }
}
