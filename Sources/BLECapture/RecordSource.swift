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
  /// The files the records come from, when the source reads more than one or reads a
  /// part of a bigger file: the HCI logs of an Android bugreport or an iOS sysdiagnose
  /// (merged in time order), or the btsnooz summary of a bugreport's text.
  /// `Record.sourceIndex` indexes this list. Empty for a source that reads the one
  /// capture file it was opened on (its records' `sourceIndex` is 0).
  var sources: [CaptureSourceFile] { get }
  /// How many adapters (controller indices) the records name, counted up to `limit`
  /// without moving the reading position: 0 when records carry none (every format but
  /// the Linux monitor's); nil when it cannot be known before reading (a live socket,
  /// a stream).
  func adapterCount(upTo limit: Int) -> Int?
}

extension RecordSource {
  public var notes: [String] { [] }
  public var sources: [CaptureSourceFile] { [] }
  public func adapterCount(upTo limit: Int) -> Int? { family == .monitor ? nil : 0 }

  /// Every record comes from a btsnooz summary (a ring buffer of the last few hundred
  /// kilobytes, data packets cut to a few bytes): no full HCI log was found.
  public var isSummaryOnly: Bool { !sources.isEmpty && sources.allSatisfy(\.isSummary) }
}

/// One file a `RecordSource` read, and what it covered.
public struct CaptureSourceFile: Sendable, Hashable {
  /// The file's path inside its archive or folder (`FS/data/misc/bluetooth/logs/btsnoop_hci.log`,
  /// `…/logs/Bluetooth/bluetoothd-hci-latest.pklg`), or for a summary the text it is in.
  public var path: String
  /// What the file was read as, for people ("btsnoop, datalink 1002 (H4)").
  public var format: String
  /// A btsnooz summary: payloads cut, SCO and ISO left out.
  public var isSummary: Bool
  /// Records the file holds.
  public var records: Int
  /// Of those, records delivered: a record already read from another file (rotated logs
  /// overlap) is delivered once. Final once the source's `next()` returned nil.
  public var delivered: Int
  /// Time of the file's first and last record (in file order); nil when it holds none.
  public var first: Timestamp?
  public var last: Timestamp?
  /// Where reading this file stopped early, its offset inside the file.
  public var damage: CaptureDamage?

  public init(
    path: String, format: String, isSummary: Bool = false, records: Int, delivered: Int? = nil,
    first: Timestamp?, last: Timestamp?, damage: CaptureDamage? = nil
  ) {
    self.path = path
    self.format = format
    self.isSummary = isSummary
    self.records = records
    self.delivered = delivered ?? records
    self.first = first
    self.last = last
    self.damage = damage
  }
}
