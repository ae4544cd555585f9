import BLEAnalysis
import BLEDissect

#if canImport(Glibc)
  import Glibc
#endif

/// `app`'s output of one capture, written as its connections end, so that what is kept
/// is not the calls but where each piece of output sorts.
///
/// The output is in the order the calls began, and part of it only the end of the capture
/// tells (the scans come first in text, and whether a device a scan heard was connected
/// later; the role of a connect through the Filter Accept List). So each connection's
/// calls are rendered when it ends into a temporary file, as one piece per call (JSON,
/// NDJSON) or one section per connection (text), and only each piece's place is kept;
/// `finish` renders what the end of the capture held back and copies the pieces out in
/// order.
public final class AppSpool: @unchecked Sendable {
  /// Rendered output in the temporary file, and where it sorts.
  struct Piece {
    var key: AppCall.StartKey
    var offset: Int
    var length: Int

    /// Its bytes in the spill file.
    var place: SpillFile.Piece { SpillFile.Piece(offset: offset, length: length) }
  }

  /// Text: a connection's heading and steps, and what ends it once the capture is read.
  struct Section {
    var piece: Piece
    var key: Int
    var milestones: AppMilestones?
  }

  let format: RenderFormat
  let api: AppAPI
  let verbose: Bool
  let file: String?
  let color: Bool
  private let spill: SpillFile
  /// Writing the index failed.
  private var failed = false
  /// JSON, NDJSON: where each call's piece sorts, in a second temporary file in the order
  /// written; each connection's pieces are one run, already in order.
  private let index: UnsafeMutablePointer<FILE>
  private var indexed = 0
  private var runs: [Run] = []
  private var sections: [Section] = []
  /// Text: calls whose section waits for the end of the capture.
  private var held: [AppCall] = []
  /// Connections whose calls include the app's disconnect.
  private var disconnected: Set<Int> = []

  /// Nil when no temporary file can be made.
  public init?(format: RenderFormat, api: AppAPI, verbose: Bool, file: String?, color: Bool) {
    guard let spill = SpillFile(), let index = tmpfile() else { return nil }
    self.spill = spill
    self.index = index
    self.format = format
    self.api = api
    self.verbose = verbose
    self.file = file
    self.color = color
  }

  deinit { fclose(index) }

  /// What the spool keeps in memory: runs of pieces, text sections, calls held back.
  public var placesKept: Int { runs.count + sections.count + held.count }

  /// A connection's calls, once it ended; `start` is the capture's first record.
  public func add(_ group: AppCallGroup, start: Int64) {
    guard let conn = group.calls.first?.conn?.id else { return held += group.calls }
    switch format {
    case .text:
      // A call that waited until the capture ended tells how long it waited; a connect
      // through the accept list comes at the end: the section waits for them.
      if group.acceptListConnect || group.calls.contains(where: { $0.error.unanswered == "end_of_capture" }) {
        return held += group.calls
      }
      let calls = folded(group.calls)
      disconnected.formUnion(AppText.disconnectedByApp(calls))
      let text = AppText(api: api, verbose: verbose)
      for (key, calls) in AppText.sections(calls) { section(key, calls, text, start: start) }
    case .json, .ndjson:
      append(group.calls, peerNames: group.peerName.map { [conn: $0] } ?? [:])
    }
  }

  /// Renders what the end of the capture held back (`story`: the calls the builder kept,
  /// in the order they began) and copies every piece to `out` in order; `written` counts
  /// the JSON calls written so far. False when stdout closed or the file failed.
  func finish(
    _ story: AppStory, path: String, capture: CaptureInfo, throughput: ThroughputReport?, written: inout Int,
    into out: inout OutputBuffer
  ) -> Bool {
    let start = story.start ?? 0
    switch format {
    case .text:
      var calls = held + story.calls
      calls.sort { $0.startKey < $1.startKey }
      calls = folded(calls)
      held = []
      disconnected.formUnion(AppText.disconnectedByApp(calls))
      let text = AppText(api: api, verbose: verbose, throughput: throughput, captureEnd: story.end)
      for (key, section) in AppText.sections(calls) { self.section(key, section, text, start: start) }
      let scans = calls.filter { $0.kind == .scan }
      let stack = AppText.stack(calls)
      sections.sort { $0.piece.key < $1.piece.key }
      out.append("# ")
      out.append(string: path)
      out.append(": ")
      out.append(string: capture.format)
      out.append("\n")
      paint(into: &out) { text.appendScanner(scans, start: start, into: &$0) }
      if sections.isEmpty, scans.isEmpty, stack.isEmpty { out.append("no app calls in the capture\n") }
      var reader = spill.reader()
      for var section in sections {
        guard reader.copy(section.piece.place, into: &out) else { return false }
        section.milestones?.addScan(scans)
        paint(into: &out) { text.appendSectionEnd(section.key, section.milestones, into: &$0) }
        guard out.flush() else { return false }
      }
      sections = []
      paint(into: &out) { text.appendStack(stack, start: start, appDisconnected: disconnected, into: &$0) }
    case .json, .ndjson:
      var peerNames: [Int: String] = [:]
      for connection in story.connections { peerNames[connection.ref.id] = connection.peerName }
      append(held, peerNames: peerNames)
      held = []
      append(story.calls, peerNames: peerNames)
      guard fflush(index) == 0 else { return false }
      var reader = spill.reader()
      let merged = Merge(runs, index: index).forEach { piece in
        if format == .json, written > 0 { out.append(",") }
        guard reader.copy(piece.place, into: &out) else { return false }
        written += 1
        return out.flush()
      }
      runs = []
      guard merged else { return false }
    }
    return !failed && !spill.failed
  }

  /// JSON, NDJSON: one piece per call (Android: one discovery per `discoverServices()`).
  private func append(_ calls: [AppCall], peerNames: [Int: String]) {
    let calls = folded(calls)
    guard let first = calls.first else { return }
    disconnected.formUnion(AppText.disconnectedByApp(calls))
    runs.append(Run(first: indexed, count: calls.count, key: first.startKey))
    for call in calls {
      let place = spill.write { buffer in
        AppJSON.append(
          call, api: api, appDisconnected: disconnected, peerNames: peerNames, file: file, into: &buffer)
        if format == .ndjson { buffer.append("\n") }
      }
      var piece = Piece(key: call.startKey, offset: place.offset, length: place.length)
      if fwrite(&piece, MemoryLayout<Piece>.stride, 1, index) != 1 { failed = true }
      indexed += 1
    }
  }

  /// Android: one call per `discoverServices()` (`AppStory.onePerDiscovery`), which folds
  /// within a connection.
  private func folded(_ calls: [AppCall]) -> [AppCall] {
    guard api == .android else { return calls }
    var story = AppStory()
    story.calls = calls
    return story.onePerDiscovery().calls
  }

  /// Text: one section, its end left for `finish`.
  private func section(_ key: Int, _ calls: [AppCall], _ text: AppText, start: Int64) {
    let place = spill.write { buffer in
      paint(into: &buffer) { text.appendSection(key, calls, start: start, appDisconnected: disconnected, into: &$0) }
    }
    let piece = Piece(key: calls[0].startKey, offset: place.offset, length: place.length)
    sections.append(Section(piece: piece, key: key, milestones: key > 0 ? AppMilestones(calls) : nil))
  }

  /// Text on a terminal: failed calls red, the stack's lines dim (`LinePainter.report`).
  private func paint(into out: inout OutputBuffer, _ body: (inout OutputBuffer) -> Void) {
    LinePainter.painted(color, into: &out, body)
  }

  /// A connection's pieces in the index file: `count` from the `first`, in order from `key`.
  struct Run {
    var first: Int
    var count: Int
    var key: AppCall.StartKey
  }

  /// Puts the runs' pieces in one order: the runs by their first piece, and among the
  /// runs that overlap (connections up at once) the smallest next piece first. What it
  /// holds is a block of each open run's pieces.
  struct Merge {
    struct Cursor {
      var next: Int
      var end: Int
      var block: [Piece] = []
      var at = 0
      var head: Piece { block[at] }
    }

    let runs: [Run]
    let fd: Int32
    /// Open runs as a binary heap by their next piece.
    var heap: [Cursor] = []

    init(_ runs: [Run], index: UnsafeMutablePointer<FILE>) {
      self.runs = runs.sorted { $0.key < $1.key }
      fd = fileno(index)
    }

    /// Reads the cursor's next block of pieces; false at its end or when reading fails.
    static func fill(_ cursor: inout Cursor, from fd: Int32) -> Bool {
      let count = min(256, cursor.end - cursor.next)
      guard count > 0 else { return false }
      let stride = MemoryLayout<Piece>.stride
      cursor.block = [Piece](unsafeUninitializedCapacity: count) { buffer, initialized in
        let read = pread(fd, buffer.baseAddress, count * stride, off_t(cursor.next * stride))
        initialized = read == count * stride ? count : 0
      }
      cursor.next += count
      cursor.at = 0
      return !cursor.block.isEmpty
    }

    /// Calls `body` with every piece in order; false when `body` or reading failed.
    consuming func forEach(_ body: (Piece) -> Bool) -> Bool {
      var nextRun = 0
      while true {
        // Open the runs that begin before the smallest next piece.
        while nextRun < runs.count, heap.first.map({ runs[nextRun].key < $0.head.key }) ?? true {
          var cursor = Cursor(next: runs[nextRun].first, end: runs[nextRun].first + runs[nextRun].count)
          nextRun += 1
          guard Self.fill(&cursor, from: fd) else { return false }
          push(cursor)
        }
        guard !heap.isEmpty else { return true }
        guard body(heap[0].head) else { return false }
        heap[0].at += 1
        if heap[0].at == heap[0].block.count, !Self.fill(&heap[0], from: fd) {
          heap.swapAt(0, heap.count - 1)
          heap.removeLast()
        }
        siftDown(0)
      }
    }

    mutating func push(_ cursor: Cursor) {
      heap.append(cursor)
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard heap[child].head.key < heap[parent].head.key else { break }
        heap.swapAt(child, parent)
        child = parent
      }
    }

    mutating func siftDown(_ start: Int) {
      var parent = start
      while true {
        var smallest = parent
        for child in [2 * parent + 1, 2 * parent + 2]
        where child < heap.count && heap[child].head.key < heap[smallest].head.key {
          smallest = child
        }
        guard smallest != parent else { return }
        heap.swapAt(parent, smallest)
        parent = smallest
      }
    }
  }
}
