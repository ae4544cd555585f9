/// The records of several capture files of one phone (a bugreport's `btsnoop_hci.log.last`
/// and `btsnoop_hci.log`, a sysdiagnose's `bluetoothd-hci-*.pklg`), merged in time order
/// and numbered from 1 over the merged stream.
///
/// Rotated logs can overlap: a record found in two files (same time, kind, direction
/// and bytes) is delivered once. Copies within one file are all kept (a log quantised to
/// the millisecond can hold the same packet twice at one time): of a packet at one time,
/// as many are delivered as the file holding the most has. Each file is taken to be in
/// time order, as loggers write; a file that is not is merged as it stands.
///
/// The member readers view memory that lives as long as they do (an archive entry in
/// memory, a mapped file), so records held back for the merge stay valid.
final class MergedRecordSource: RecordSource {
  struct Member {
    var path: String
    var isSummary: Bool
    /// Makes a fresh reader over the file (once to survey it, once to read it).
    var open: () throws(CaptureError) -> any RecordSource
  }

  let formatDescription: String
  private(set) var sources: [CaptureSourceFile]
  private let readers: [any RecordSource]
  private var heads: [Record?]
  /// Records of the current timestamp delivered so far, with their file and whether a
  /// copy from another file was already matched to them. Bounded: see `groupLimit`.
  private var group: [(member: Int, record: Record, matched: Bool)] = []
  private static let groupLimit = 4096
  private var frame = 0
  private(set) var duplicates = 0
  private let archiveNotes: [String]
  private let archiveDamage: CaptureDamage?

  /// Surveys each member (records, first and last time, damage), then opens it again
  /// for the merge. A member that cannot be opened is left out with a note; when none
  /// opens, the first error is thrown.
  init(
    members: [Member], describe: ([CaptureSourceFile]) -> String, notes: [String], damage: CaptureDamage?
  ) throws(CaptureError) {
    var sources: [CaptureSourceFile] = []
    var readers: [any RecordSource] = []
    var notes = notes
    var firstError: CaptureError?
    for member in members {
      do {
        let survey = try member.open()
        var count = 0
        var first: Timestamp?
        var last: Timestamp?
        while let record = survey.next() {
          count += 1
          if first == nil { first = record.timestamp }
          last = record.timestamp
        }
        sources.append(
          CaptureSourceFile(
            path: member.path, format: survey.formatDescription, isSummary: member.isSummary, records: count,
            delivered: 0, first: first, last: last, damage: survey.damage))
        readers.append(try member.open())
      } catch {
        firstError = firstError ?? error
        notes.append("\(member.path): not read: \(Self.reason(error))")
      }
    }
    guard !readers.isEmpty else {
      throw firstError ?? CaptureError(.notACapture, path: members.first?.path ?? "")
    }
    // Oldest first: the order sources are listed and ties are broken in.
    let order = sources.indices.sorted {
      (sources[$0].first?.unixMicroseconds ?? .max, $0) < (sources[$1].first?.unixMicroseconds ?? .max, $1)
    }
    self.sources = order.map { sources[$0] }
    self.readers = order.map { readers[$0] }
    heads = self.readers.map { $0.next() }
    formatDescription = describe(self.sources)
    for source in self.sources where source.isSummary {
      notes.append(
        "\(source.path): btsnooz summary only: a ring buffer of the last records, data packets cut to a few bytes, "
          + "SCO and ISO left out")
    }
    archiveNotes = notes
    var damage = damage
    for source in self.sources {
      if damage == nil, let cut = source.damage {
        damage = CaptureDamage(offset: cut.offset, "\(source.path): \(cut.message)")
      }
    }
    archiveDamage = damage
  }

  private static func reason(_ error: CaptureError) -> String {
    let text = "\(error)"
    let prefix = "\(error.path): "
    return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
  }

  var family: LinkFamily { readers.first?.family ?? .h4 }
  var resolution: TimestampResolution { .microseconds }
  var damage: CaptureDamage? { archiveDamage }
  var progress: (done: Int, total: Int) { (frame, sources.reduce(0) { $0 + $1.records }) }

  var notes: [String] {
    archiveNotes
      + (duplicates > 0
        ? ["\(duplicates) records found in two HCI logs (rotated logs overlap) were read once"] : [])
  }

  func next() -> Record? {
    while true {
      // The earliest head; ties go to the older file.
      var best: Int?
      for index in heads.indices {
        guard let head = heads[index] else { continue }
        if let current = best, let bestHead = heads[current], !(head.timestamp < bestHead.timestamp) { continue }
        best = index
      }
      guard let member = best, var record = heads[member] else { return nil }
      heads[member] = readers[member].next()
      if let last = group.last?.record, last.timestamp != record.timestamp { group.removeAll(keepingCapacity: true) }
      if let copy = group.firstIndex(where: { !$0.matched && $0.member != member && Self.same($0.record, record) }) {
        group[copy].matched = true
        duplicates += 1
        continue
      }
      if group.count == Self.groupLimit { group.removeFirst(Self.groupLimit / 2) }
      group.append((member, record, false))
      frame += 1
      record.frame = frame
      record.sourceIndex = UInt16(member)
      sources[member].delivered += 1
      return record
    }
  }

  /// The same packet: time, kind, direction, adapter, lengths and bytes.
  private static func same(_ a: Record, _ b: Record) -> Bool {
    a.timestamp == b.timestamp && a.kind == b.kind && a.direction == b.direction && a.adapter == b.adapter
      && a.originalLength == b.originalLength && a.bytes.elementsEqual(b.bytes)
  }
}
