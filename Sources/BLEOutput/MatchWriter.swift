import BLECapture
import BLEDissect

/// Writes the records `show --filter … -w OUT` keeps: every matching record, and for a
/// matching PDU put together from several records, every one of those records. The
/// fragments of a PDU under way are held (copied) until it completes or is abandoned.
public final class MatchWriter {
  private struct Held {
    var record: Record
    var storage: UnsafeMutableBufferPointer<UInt8>
    var written: Bool
  }

  private let writer: any CaptureWriter
  private var held: [ReassemblyGroup: [Held]] = [:]
  public private(set) var written = 0

  public init(_ writer: any CaptureWriter) {
    self.writer = writer
  }

  deinit {
    for group in held.values { for item in group { item.storage.deallocate() } }
  }

  public var formatDescription: String { writer.formatDescription }
  public var skipped: Int { writer.skipped }

  public func add(_ record: Record, _ decoded: DecodedRecord, matches: Bool) throws(CaptureError) {
    switch decoded.reassembly {
    case .whole:
      if matches { try write(record) }
    case .first(let group):
      drop(group)
      try hold(record, in: group, matches: matches)
    case .part(let group):
      try hold(record, in: group, matches: matches)
    case .last(let group):
      if matches {
        for item in held[group] ?? [] where !item.written { try write(item.record) }
        try write(record)
      }
      drop(group)
    }
  }

  /// Writes what the capture writer buffers to its file now.
  public func flush() throws(CaptureError) {
    try writer.flush()
  }

  public func close() throws(CaptureError) {
    try writer.close()
  }

  private func write(_ record: Record) throws(CaptureError) {
    try writer.write(record)
    written += 1
  }

  private func hold(_ record: Record, in group: ReassemblyGroup, matches: Bool) throws(CaptureError) {
    if matches { try write(record) }
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: record.bytes.count)
    _ = storage.initialize(from: record.bytes)
    var copy = record
    copy.bytes = UnsafeBufferPointer(storage)
    held[group, default: []].append(Held(record: copy, storage: storage, written: matches))
  }

  private func drop(_ group: ReassemblyGroup) {
    for item in held.removeValue(forKey: group) ?? [] { item.storage.deallocate() }
  }
}
