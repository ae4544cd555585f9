import BLEDissect

/// What one record says in a protocol carried over GATT (mcumgr, Nordic DFU, Nordic
/// UART, HID over GATT, Apple ANCS and AMS), once `VendorTracker` has followed it
/// across records. Kept out of line, in the record's `AnalyzedExtras`.
public enum VendorRecord: Sendable {
  case mcumgr(MCUmgrRecord)
  case dfu(DFURecord)
  case nus(NUSRecord)
  case hid(HIDRecord)
  case ancs(ANCSRecord)
  case ams(AMSRecord)

  public var mcumgr: MCUmgrRecord? { if case .mcumgr(let r) = self { r } else { nil } }
  public var dfu: DFURecord? { if case .dfu(let r) = self { r } else { nil } }
  public var nus: NUSRecord? { if case .nus(let r) = self { r } else { nil } }
  public var hid: HIDRecord? { if case .hid(let r) = self { r } else { nil } }
  public var ancs: ANCSRecord? { if case .ancs(let r) = self { r } else { nil } }
  public var ams: AMSRecord? { if case .ams(let r) = self { r } else { nil } }
}

/// The request a response answers, and the time between them.
public struct VendorExchange: Hashable, Sendable {
  public var frame: Int
  public var latencyMicroseconds: Int64
}

/// How far a transfer (an mcumgr image upload, a DFU firmware) has got, as its
/// acknowledgements say.
public struct TransferProgress: Hashable, Sendable {
  /// `image upload`, `file upload`, `firmware`…
  public var transfer: String
  /// Bytes the receiver acknowledged.
  public var offset: Int
  /// The transfer's size, when the capture shows it.
  public var total: Int?
  /// Since the transfer's first message.
  public var elapsedMicroseconds: Int64
  /// Bytes acknowledged since the transfer's first message, per second of it.
  public var bytesPerSecond: Double?
  /// A wait of `stallThreshold` or more before this progress: how long, and the
  /// offset it was stuck at.
  public var stall: Stall?
  /// What acknowledged (DFU: `prn`, `checksum`, `execute`).
  public var source: String?
  /// The link went down before the transfer completed (on the disconnection).
  public var ended = false

  public struct Stall: Hashable, Sendable {
    public var microseconds: Int64
    public var offset: Int
  }

  /// No progress for this long is a stall.
  public static let stallThreshold: Int64 = 2_000_000

  /// The share acknowledged, in % with two decimals.
  public var percent: Double? {
    guard let total, total > 0 else { return nil }
    return (Double(offset) * 10_000 / Double(total)).rounded() / 100
  }

  /// The table rows of a progress object: `progress.offset`… under `protocolName`.
  static func fields(
    of protocolName: String, _ extract: @escaping @Sendable (VendorRecord) -> TransferProgress?
  ) -> [VendorField] {
    [
      VendorField("progress.transfer", "Transfer", .string, of: protocolName, extract) { .string($0.transfer) },
      VendorField("progress.offset", "Acknowledged", .integer, of: protocolName, extract) { .int($0.offset) },
      VendorField("progress.total", "Total", .integer, of: protocolName, extract) { .int($0.total) },
      VendorField("progress.percent", "Percent", .decimal, of: protocolName, extract) {
        $0.percent.map { .decimal($0) }
      },
      VendorField("progress.elapsed_ms", "Elapsed", .decimal, of: protocolName, extract) {
        .milliseconds($0.elapsedMicroseconds)
      },
      VendorField("progress.rate_kbps", "Rate", .decimal, of: protocolName, extract) {
        $0.bytesPerSecond.map { .decimal(($0 / 100).rounded() / 10) }
      },
      VendorField("progress.stalled_ms", "Stalled", .decimal, of: protocolName, extract) {
        .milliseconds($0.stall?.microseconds)
      },
      VendorField("progress.stalled_offset", "Stalled At", .integer, of: protocolName, extract) {
        .int($0.stall?.offset)
      },
      VendorField("progress.source", "Acknowledged By", .string, of: protocolName, extract) { .text($0.source) },
      VendorField("progress.ended", "Ended Incomplete", .bool, of: protocolName, extract) {
        $0.ended ? .bool(true) : nil
      },
    ]
  }
}

/// Follows one transfer's acknowledgements: its start, its rate, and its stalls.
struct ProgressClock {
  var transfer: String
  var total: Int?
  /// When the transfer's first message went out, µs since the epoch.
  var start: Int64
  var startOffset: Int
  var offset: Int
  var lastProgress: Int64

  init(transfer: String, total: Int?, start: Int64, offset: Int = 0) {
    self.transfer = transfer
    self.total = total
    self.start = start
    startOffset = offset
    self.offset = offset
    lastProgress = start
  }

  var complete: Bool { total.map { offset >= $0 } ?? false }

  /// An acknowledgement of `offset` bytes at `time`.
  mutating func advance(to offset: Int, at time: Int64, source: String? = nil) -> TransferProgress {
    var stall: TransferProgress.Stall?
    if offset > self.offset {
      if time - lastProgress >= TransferProgress.stallThreshold {
        stall = .init(microseconds: time - lastProgress, offset: self.offset)
      }
      lastProgress = time
      self.offset = offset
    }
    return progress(at: time, stall: stall, source: source)
  }

  /// Where the transfer stands at `time` (the link went down), with the stall since
  /// its last progress.
  func ended(at time: Int64) -> TransferProgress {
    let waited = time - lastProgress
    var progress = progress(
      at: time, stall: waited >= TransferProgress.stallThreshold ? .init(microseconds: waited, offset: offset) : nil,
      source: nil)
    progress.ended = true
    return progress
  }

  private func progress(at time: Int64, stall: TransferProgress.Stall?, source: String?) -> TransferProgress {
    let elapsed = max(0, time - start)
    return TransferProgress(
      transfer: transfer, offset: offset, total: total, elapsedMicroseconds: elapsed,
      bytesPerSecond: elapsed > 0 ? Double(offset - startOffset) * 1_000_000 / Double(elapsed) : nil, stall: stall,
      source: source)
  }
}
