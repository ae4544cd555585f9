import CPcap

#if canImport(Glibc)
  import Glibc
#endif

/// Reads pcap or pcapng from a live feed with libpcap, which reads through a stdio stream
/// (`fopencookie`) whose reads come here: first the bytes already read to recognise the
/// format, then the feed's, waited for. libpcap therefore never sees the end of a stream
/// that is still growing, only a record that takes a while to arrive.
///
/// When the feed restarts (a rotated or truncated file, a new connection), the stream
/// ends for libpcap and a new handle reads the new content's header; frame numbers go on.
public final class PcapStreamReader: RecordSource {
  let feed: any LiveFeed
  let isNextGeneration: Bool
  public let resolution: TimestampResolution
  private var prefix: [UInt8]
  /// Bytes handed to stdio from the current stream.
  private var served = 0
  private var restarted = false
  private var reader: PcapReader?
  private var linkType = LinkType(rawValue: 0)
  private var frame = 0
  public private(set) var damage: CaptureDamage?
  public private(set) var notes: [String] = []

  /// Opens a libpcap handle on `feed`, after `prefix` (bytes already read from it).
  init(feed: any LiveFeed, prefix: [UInt8], isNextGeneration: Bool) throws(CaptureError) {
    self.feed = feed
    self.prefix = prefix
    self.isNextGeneration = isNextGeneration
    resolution = prefix.withUnsafeBufferPointer {
      PcapReader.resolution(ofStart: $0, isNextGeneration: isNextGeneration)
    }
    let reader = try openHandle()
    linkType = reader.linkType
    self.reader = reader
  }

  public var formatDescription: String {
    "\(isNextGeneration ? "pcapng" : "pcap") stream, link type \(linkType)"
  }

  public var family: LinkFamily {
    switch linkType {
    case .bluetoothHCIH4, .bluetoothHCIH4WithPHDR: .h4
    case .bluetoothLinuxMonitor: .monitor
    default: .linkLayer(linkType)
    }
  }

  public var progress: (done: Int, total: Int) { (reader?.progress.done ?? 0, 0) }

  public func next() -> Record? {
    while damage == nil, let reader {
      if var record = reader.next() {
        frame += 1
        record.frame = frame
        // --from-end: this record was in the file before the capture started.
        if reader.progress.done <= feed.knownEnd { continue }
        return record
      }
      guard restarted, !feed.control.stopRequested else {
        if !feed.control.stopRequested, let damage = reader.damage { self.damage = damage }
        if let failure = feed.failure { notes.append(failure) }
        self.reader = nil
        return nil
      }
      // The stream started over: a new handle reads the new content from its header.
      self.reader = nil
      restarted = false
      served = 0
      do {
        let replacement = try openHandle()
        guard replacement.linkType == linkType else {
          throw CaptureError(
            .unsupported("link type \(replacement.linkType) after \(linkType) before"), path: feed.label)
        }
        self.reader = replacement
      } catch {
        if !feed.control.stopRequested {
          damage = CaptureDamage(offset: 0, "the stream started over with another content: \(error)")
        }
        return nil
      }
    }
    return nil
  }

  private func openHandle() throws(CaptureError) -> PcapReader {
    var functions = bleanalyze_cookie_functions()
    functions.read = { cookie, buffer, size in
      Unmanaged<PcapStreamReader>.fromOpaque(cookie!).takeUnretainedValue().supply(buffer!, size)
    }
    // ftell (libpcap's position, used for --from-end) asks where the stream is.
    functions.seek = { cookie, offset, whence in
      guard whence == SEEK_CUR, let offset, offset.pointee == 0 else { return -1 }
      offset.pointee = Int64(Unmanaged<PcapStreamReader>.fromOpaque(cookie!).takeUnretainedValue().served)
      return 0
    }
    // The handle lives in `reader`, which this object owns, so the cookie cannot outlive it.
    guard let file = bleanalyze_fopencookie(Unmanaged.passUnretained(self).toOpaque(), "r", functions) else {
      throw CaptureError(.cannotOpen(MappedFile.errnoText()), path: feed.label)
    }
    return try PcapReader(file: file, label: feed.label, isNextGeneration: isNextGeneration, resolution: resolution)
  }

  /// stdio's read: the prefix, then the feed. 0 (end of file for libpcap) when the feed
  /// ends or restarts.
  private func supply(_ buffer: UnsafeMutablePointer<CChar>, _ size: Int) -> Int {
    let target = UnsafeMutableRawBufferPointer(start: buffer, count: size)
    if !prefix.isEmpty {
      let count = min(size, prefix.count)
      prefix.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      prefix.removeFirst(count)
      served += count
      return count
    }
    guard !restarted else { return 0 }
    switch feed.read(into: target) {
    case .bytes(let count):
      served += count
      return count
    case .restart:
      restarted = true
      return 0
    case .end:
      return 0
    }
  }
}

/// Opens live streams, recognising btsnoop, pcap and pcapng by their first bytes.
public enum LiveSources {
  /// A record source over `feed`. Waits for the first bytes; throws when the feed ends
  /// before them or holds something else.
  public static func open(_ feed: any LiveFeed) throws(CaptureError) -> any RecordSource {
    var prefix: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    reading: while prefix.count < BtsnoopReader.magic.count {
      switch chunk.withUnsafeMutableBytes({ feed.read(into: $0) }) {
      case .bytes(let count): prefix += chunk[0..<count]
      case .restart: prefix.removeAll()
      case .end: break reading
      }
    }
    if prefix.isEmpty {
      if let failure = feed.failure { throw CaptureError(.cannotOpen(failure), path: feed.label) }
      throw CaptureError(.unsupported("the stream ended before its first byte"), path: feed.label)
    }
    if prefix.starts(with: BtsnoopReader.magic) { return try StreamReader(feed: feed, prefix: prefix) }
    if prefix.count >= 4 {
      let magic = prefix.withUnsafeBufferPointer { $0.bigEndian32(at: 0) }
      if CaptureFile.pcapMagics.contains(magic) || magic == CaptureFile.pcapngMagic {
        return try PcapStreamReader(feed: feed, prefix: prefix, isNextGeneration: magic == CaptureFile.pcapngMagic)
      }
    }
    throw CaptureError(
      .unsupported("not a btsnoop, pcap or pcapng stream; live reads those (and the HCI monitor socket)"),
      path: feed.label)
  }
}
