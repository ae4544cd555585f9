import BLECapture

/// A capture's records as `redact` writes them: each record of `base` with `plan`
/// applied, in memory. `redact` writes them to a file; `report --redact` analyses them.
///
/// Each record's bytes are patched in a buffer of this source, valid until the next
/// call to `next()`, as `RecordSource` promises.
public final class RedactedSource: RecordSource {
  private let base: any RecordSource
  /// The plan, with the counts the records applied so far added (`RedactionPlan.apply`).
  public private(set) var plan: RedactionPlan
  private var bytes: [UInt8] = []
  private var buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)

  public init(_ base: any RecordSource, plan: RedactionPlan) {
    self.base = base
    self.plan = plan
  }

  deinit { buffer.deallocate() }

  public var formatDescription: String { base.formatDescription }
  public var family: LinkFamily { base.family }
  public func adapterCount(upTo limit: Int) -> Int? { base.adapterCount(upTo: limit) }
  public var resolution: TimestampResolution { base.resolution }
  public var damage: CaptureDamage? { base.damage }
  public var progress: (done: Int, total: Int) { base.progress }
  public var notes: [String] { base.notes }
  public var sources: [CaptureSourceFile] { base.sources }

  public func next() -> Record? {
    guard var record = base.next() else { return nil }
    bytes.removeAll(keepingCapacity: true)
    bytes.append(contentsOf: record.bytes)
    plan.apply(frame: record.frame, to: &bytes)
    if buffer.count < bytes.count {
      buffer.deallocate()
      buffer = .allocate(capacity: max(bytes.count, 2 * buffer.count))
    }
    _ = buffer.initialize(from: bytes)
    record.bytes = UnsafeBufferPointer(rebasing: buffer[..<bytes.count])
    return record
  }
}
