#if canImport(Glibc)
  import Glibc
#endif

/// Rendered output kept in a temporary file rather than in memory, for a command that
/// renders pieces of its output as the capture is read and writes them out in another
/// order at the end: memory keeps only where each piece is (`Piece`).
public final class SpillFile: @unchecked Sendable {
  /// Bytes `offset..<offset + length` of the file.
  public struct Piece {
    public var offset: Int
    public var length: Int
  }

  private let file: UnsafeMutablePointer<FILE>
  private var buffer: OutputBuffer
  /// Bytes written to the file so far.
  private var flushed = 0
  /// Writing or reading the file failed.
  public private(set) var failed = false

  /// Nil when no temporary file can be made.
  public init?() {
    guard let file = tmpfile() else { return nil }
    self.file = file
    buffer = OutputBuffer(fd: fileno(file))
  }

  deinit { fclose(file) }

  /// Where the next byte written goes.
  public var offset: Int { flushed + buffer.count }

  /// Writes what `body` appends; returns where it went.
  @discardableResult
  public func write(_ body: (inout OutputBuffer) -> Void) -> Piece {
    let start = offset
    body(&buffer)
    let piece = Piece(offset: start, length: offset - start)
    flush()
    return piece
  }

  /// Writes the buffer to the file when it is full (`force`: now).
  private func flush(force: Bool = false) {
    let count = buffer.count
    guard force || count >= 1 << 16 else { return }
    if buffer.flush(force: true) { flushed += count } else { failed = true }
  }

  /// Reads pieces back (after the last write), a large block at a time.
  public func reader() -> Reader {
    flush(force: true)
    return Reader(fd: fileno(file))
  }

  /// Copies pieces of the file to an output, a block of the file at a time (they come
  /// mostly in the order written).
  public struct Reader: ~Copyable {
    let fd: Int32
    let block: UnsafeMutableRawBufferPointer
    var offset = 0
    var length = 0

    init(fd: Int32) {
      self.fd = fd
      block = .allocate(byteCount: 1 << 20, alignment: 1)
    }

    deinit { block.deallocate() }

    /// Appends the piece's bytes to `out`; false when the file cannot be read.
    @discardableResult
    public mutating func copy(_ piece: Piece, into out: inout OutputBuffer) -> Bool {
      var at = piece.offset
      let end = piece.offset + piece.length
      while at < end {
        if at < offset || at >= offset + length {
          let read = pread(fd, block.baseAddress, block.count, off_t(at))
          guard read > 0 else { return false }
          offset = at
          length = read
        }
        let upto = min(end, offset + length)
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[(at - offset)..<(upto - offset)]))
        at = upto
      }
      return true
    }
  }
}

/// Pieces of a spill file in runs: each run's pieces written one after the other, in
/// order of their key (a frame number). `merged` gives every piece of every run in
/// order of key; equal keys go in the order of their runs, then of the pieces in a run.
public struct SpillRuns {
  struct Run {
    var offset: Int
    var keys: [Int] = []
    var lengths: [UInt32] = []
  }

  private var runs: [Run] = []

  public init() {}

  /// Pieces written so far.
  public var count: Int { runs.reduce(0) { $0 + $1.keys.count } }

  /// Starts a run at the spill file's `offset`.
  public mutating func begin(at offset: Int) { runs.append(Run(offset: offset)) }

  /// Adds the next piece of the run begun last (`key` not below the one before).
  public mutating func add(key: Int, _ piece: SpillFile.Piece) {
    runs[runs.count - 1].keys.append(key)
    runs[runs.count - 1].lengths.append(UInt32(piece.length))
  }

  /// Calls `body` with every piece in order of key; stops when `body` returns false.
  public func merged(_ body: (SpillFile.Piece) -> Bool) {
    // (key, run, position, offset) of each run's next piece: a min-heap.
    var heap: [(key: Int, run: Int, position: Int, offset: Int)] = []
    func less(_ a: Int, _ b: Int) -> Bool { (heap[a].key, heap[a].run) < (heap[b].key, heap[b].run) }
    func push(_ item: (key: Int, run: Int, position: Int, offset: Int)) {
      heap.append(item)
      var i = heap.count - 1
      while i > 0, less(i, (i - 1) / 2) {
        heap.swapAt(i, (i - 1) / 2)
        i = (i - 1) / 2
      }
    }
    for (r, run) in runs.enumerated() where !run.keys.isEmpty { push((run.keys[0], r, 0, run.offset)) }
    while let top = heap.first {
      let run = runs[top.run]
      let length = Int(run.lengths[top.position])
      guard body(SpillFile.Piece(offset: top.offset, length: length)) else { return }
      let position = top.position + 1
      if position < run.keys.count {
        heap[0] = (run.keys[position], top.run, position, top.offset + length)
      } else {
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
      }
      var i = 0
      while true {
        var least = i
        for child in [2 * i + 1, 2 * i + 2] where child < heap.count && less(child, least) { least = child }
        guard least != i else { break }
        heap.swapAt(i, least)
        i = least
      }
    }
  }
}
