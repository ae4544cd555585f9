/// A stream of records from a capture.
public protocol RecordSource: AnyObject {
  /// What the file was recognised as, for people ("btsnoop, datalink 1002 (H4)").
  var formatDescription: String { get }
  /// How records are framed; decides the link type and datalink a writer uses.
  var family: LinkFamily { get }
  /// How finely the source records time.
  var resolution: TimestampResolution { get }
  /// The next record, or nil at the end (or at damage, see `damage`). The record's
  /// bytes stay valid until the next call.
  func next() -> Record?
  /// Set when reading stopped early because the rest of the file is damaged.
  var damage: CaptureDamage? { get }
  /// Bytes consumed so far and the total, for progress indication.
  var progress: (done: Int, total: Int) { get }
  /// Warnings about records read (PacketLogger records with no HCI equivalent…).
  var notes: [String] { get }
}

extension RecordSource {
  public var notes: [String] { [] }
}
