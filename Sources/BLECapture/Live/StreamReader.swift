#if canImport(Glibc)
  import Glibc
#endif

/// Reads btsnoop from a live feed (standard input, a TCP stream, a file being written):
/// the file header, then records as they arrive. Bytes are read into an owned buffer
/// and records are views into it, valid until the next call, as with the file reader.
///
/// A record not yet complete is waited for. When the feed restarts (a new connection, a
/// rotated or truncated file), the bytes of an unfinished record are dropped, a new file
/// header is expected, and frame numbers go on.
public final class StreamReader: RecordSource {
  /// Larger records are taken for garbage rather than waited for (btsnoop records hold one
  /// HCI packet, at most 65540 bytes).
  static let maximumRecordLength = 1 << 20

  let feed: any LiveFeed
  private(set) var datalink = BtsnoopReader.Datalink.h4
  private var storage: UnsafeMutableBufferPointer<UInt8>
  /// The bytes read and not yet consumed are `storage[start..<end]`.
  private var start = 0
  private var end = 0
  /// Offset in the current stream of `storage[start]`.
  private var streamOffset = 0
  private var needsHeader = false
  private var ended = false
  private var frame = 0
  private var consumed = 0
  public private(set) var damage: CaptureDamage?
  public private(set) var notes: [String] = []

  /// Reads the file header from `feed`, after `prefix` (bytes already read from it).
  init(feed: any LiveFeed, prefix: [UInt8]) throws(CaptureError) {
    self.feed = feed
    storage = .allocate(capacity: max(1 << 16, prefix.count))
    _ = storage.initialize(from: prefix)
    end = prefix.count
    while end < BtsnoopReader.headerLength {
      guard fetch(needing: BtsnoopReader.headerLength) else {
        throw CaptureError(
          .damagedHeader("btsnoop header cut off: \(end) of 16 bytes at byte offset 0"), path: feed.label)
      }
      // Started over before the header was whole: the new stream's header comes next.
      needsHeader = false
    }
    let header = UnsafeBufferPointer(rebasing: storage[0..<end])
    guard header.starts(with: BtsnoopReader.magic) else { throw CaptureError(.notACapture, path: feed.label) }
    datalink = try BtsnoopReader.datalink(ofHeader: header, path: feed.label)
    start = BtsnoopReader.headerLength
    streamOffset = start
  }

  deinit {
    storage.deallocate()
  }

  public var formatDescription: String { "btsnoop stream, \(datalink.name)" }
  public var family: LinkFamily { datalink == .monitor ? .monitor : .h4 }
  public var resolution: TimestampResolution { .microseconds }
  public var progress: (done: Int, total: Int) { (consumed, 0) }

  public func next() -> Record? {
    while damage == nil && !ended {
      let available = end - start
      if needsHeader {
        if available >= BtsnoopReader.headerLength {
          guard checkNewHeader() else { return nil }
          continue
        }
        guard fetch(needing: BtsnoopReader.headerLength) else { return nil }
        continue
      }
      var needed = BtsnoopReader.recordHeaderLength
      if available >= needed {
        let includedLength = Int(UnsafeBufferPointer(storage).bigEndian32(at: start + 4))
        guard includedLength <= Self.maximumRecordLength else {
          damage = CaptureDamage(
            offset: streamOffset,
            "record \(frame + 1) announces \(includedLength) bytes, more than a record can hold")
          return nil
        }
        needed += includedLength
        if available >= needed {
          frame += 1
          let record = BtsnoopReader.record(
            in: UnsafeBufferPointer(storage), at: start, frame: frame, datalink: datalink, fileOffset: streamOffset)
          consume(needed)
          // --from-end: this record was in the file before the capture started.
          if streamOffset <= feed.knownEnd { continue }
          return record
        }
      }
      guard fetch(needing: needed) else { return nil }
    }
    return nil
  }

  private func consume(_ count: Int) {
    start += count
    streamOffset += count
    consumed += count
  }

  /// Validates the header of a restarted stream: same magic, version and datalink.
  private func checkNewHeader() -> Bool {
    let header = UnsafeBufferPointer(rebasing: storage[start..<start + BtsnoopReader.headerLength])
    do {
      guard header.starts(with: BtsnoopReader.magic) else {
        throw CaptureError(.damagedHeader("no btsnoop header at its start"), path: feed.label)
      }
      let datalink = try BtsnoopReader.datalink(ofHeader: header, path: feed.label)
      guard datalink == self.datalink else {
        throw CaptureError(
          .unsupported("btsnoop \(datalink.name) after \(self.datalink.name) before"), path: feed.label)
      }
    } catch {
      damage = CaptureDamage(offset: 0, "the stream started over with another content: \(error)")
      return false
    }
    needsHeader = false
    consume(BtsnoopReader.headerLength)
    return true
  }

  /// Reads more bytes so that `needed` bytes from `start` can fit; false at the end of the
  /// feed (setting `damage` when it ends inside a record, unless a stop ended it).
  private func fetch(needing needed: Int) -> Bool {
    // The unconsumed bytes (part of one record at most) move to the front; the record
    // returned last is no longer needed.
    if start > 0 {
      let remaining = end - start
      if remaining > 0 {
        UnsafeMutableRawPointer(storage.baseAddress!).copyMemory(
          from: storage.baseAddress! + start, byteCount: remaining)
      }
      start = 0
      end = remaining
    }
    if needed > storage.count {
      let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(needed, storage.count * 2))
      larger.baseAddress!.initialize(from: storage.baseAddress!, count: end)
      storage.deallocate()
      storage = larger
    }
    switch feed.read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: storage[end...]))) {
    case .bytes(let count):
      end += count
      return true
    case .restart:
      if end > start {
        feed.control.notice(
          "\(feed.label): the stream started over inside record \(frame + 1); its \(end - start) bytes were dropped")
      }
      start = 0
      end = 0
      streamOffset = 0
      needsHeader = true
      return true
    case .end:
      ended = true
      if let failure = feed.failure { notes.append(failure) }
      let available = end - start
      if available > 0 && !feed.control.stopRequested && !needsHeader {
        // The file reader's words, with "stream" for "file".
        let header = BtsnoopReader.recordHeaderLength
        damage = CaptureDamage(
          offset: streamOffset,
          available < header
            ? "record \(frame + 1) header cut off: \(available) of \(header) bytes"
            : "record \(frame + 1) cut off: \(needed - header) bytes announced, \(available - header) in the stream")
      }
      return false
    }
  }
}
