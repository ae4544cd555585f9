import BLEAnalysis
import BLECapture
import BLEDissect

/// The decoded line of each record a report may show, as `show` writes its detail
/// column (without the answer a request gets, which `show` learns by holding it back),
/// kept while the capture is read once: the sequence diagram lists each step's frames
/// with their time, direction and line. Advertising reports, which no call holds, are
/// left out, and lines past `byteLimit` of text are not kept.
public final class FrameLines: @unchecked Sendable {
  private var text = OutputBuffer(fd: -1, flushThreshold: 1 << 20)
  /// Per kept line, in frame order: its frame, where its text starts, time and direction.
  private var frames: [Int32] = []
  private var starts: [Int32] = []
  private var times: [Int64] = []
  private var directions: [Direction?] = []
  let names: DissectorLibrary
  /// Lines not kept for want of room.
  public private(set) var dropped = 0
  static let byteLimit = 32 << 20

  public init(names: DissectorLibrary) {
    self.names = names
  }

  public func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    guard analyzed.decoded.advertising == nil, record.frame <= Int32.max else { return }
    guard text.count < Self.byteLimit else {
      dropped += 1
      return
    }
    frames.append(Int32(record.frame))
    starts.append(Int32(text.count))
    times.append(record.timestamp.unixMicroseconds)
    directions.append(record.direction)
    RecordLine.appendDetail(record, analyzed, names: names, into: &text)
  }

  /// The line of `frame`, if it was kept: its time (Unix µs), direction and text's place.
  func line(_ frame: Int) -> (time: Int64, direction: Direction?, range: Range<Int>)? {
    var low = 0
    var high = frames.count
    while low < high {
      let middle = (low + high) / 2
      if Int(frames[middle]) < frame { low = middle + 1 } else { high = middle }
    }
    guard low < frames.count, Int(frames[low]) == frame else { return nil }
    let end = low + 1 < starts.count ? Int(starts[low + 1]) : text.count
    return (times[low], directions[low], Int(starts[low])..<end)
  }

  /// The line of `frame` as text, without the answer `show` appends (` ← req #97 in …`),
  /// cut to `limit` characters.
  func text(_ frame: Int, limit: Int = 60) -> String? {
    guard let range = line(frame)?.range else { return nil }
    var line = text.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    if let answer = line.firstRange(of: " ← ") { line = String(line[..<answer.lowerBound]) }
    if let end = line.firstIndex(of: "\n") { line = String(line[..<end]) }
    return line.count > limit ? line.prefix(limit - 1) + "…" : line
  }

  /// The text of a line, escaped for HTML.
  func appendHTML(_ range: Range<Int>, into out: inout OutputBuffer) {
    text.withUnsafeBytes { out.appendHTML(raw: UnsafeRawBufferPointer(rebasing: $0[range])) }
  }
}
