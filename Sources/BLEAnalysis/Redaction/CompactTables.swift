/// LEB128 varints, for the tables `redact` keeps between its passes: seven bits an
/// octet, least significant first, the high bit set on all but the last.
enum LEB128 {
  static func put(_ value: UInt64, into bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  static func take(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let octet = bytes[position]
      position += 1
      value |= UInt64(octet & 0x7F) << shift
      if octet < 0x80 { return value }
      shift += 7
    }
  }

  /// A signed value as an unsigned one, small when near zero either way.
  static func zigzag(_ value: Int) -> UInt64 {
    UInt64(bitPattern: Int64(value) << 1 ^ Int64(value) >> 63)
  }

  static func unzigzag(_ value: UInt64) -> Int {
    Int(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1))
  }
}

/// A range of octets of some records, by frame (the PDU of each air packet whose CRC
/// follows it, for `RedactionPlan` to move the CRC by the PDU's change): added and
/// read in frame order, a few octets each where a dictionary took some forty.
///
/// A frame added after a later one (a source whose frames go back) is kept apart, and
/// wins over an earlier entry for the same frame, as in a dictionary.
struct FrameRanges: Sendable {
  /// Each entry: the frame as a step from the last, the start, and the length.
  private var bytes: [UInt8] = []
  private var lastFrame = 0
  private var apart: [Int: Range<Int>] = [:]
  /// The stream's next entry to read, and the frame of the one before it.
  private var position = 0
  private var readFrame = 0
  private(set) var count = 0

  /// The octets held on the heap, about.
  var retainedBytes: Int { bytes.capacity + apart.capacity * 40 }

  mutating func add(_ range: Range<Int>, frame: Int) {
    count += 1
    guard count == 1 || frame > lastFrame else {
      apart[frame] = range
      return
    }
    LEB128.put(LEB128.zigzag(frame - lastFrame), into: &bytes)
    LEB128.put(LEB128.zigzag(range.lowerBound), into: &bytes)
    LEB128.put(UInt64(range.count), into: &bytes)
    lastFrame = frame
  }

  /// The range of `frame`: reading frames in increasing order reads the stream once.
  mutating func range(of frame: Int) -> Range<Int>? {
    if let range = apart[frame] { return range }
    if position > 0, frame <= readFrame {
      position = 0
      readFrame = 0
    }
    return bytes.withUnsafeBufferPointer { bytes in
      while position < bytes.count {
        var next = position
        let entry = readFrame + LEB128.unzigzag(LEB128.take(bytes, &next))
        guard entry <= frame else { return nil }
        let lower = LEB128.unzigzag(LEB128.take(bytes, &next))
        let count = Int(LEB128.take(bytes, &next))
        position = next
        readFrame = entry
        if entry == frame { return lower..<lower + count }
      }
      return nil
    }
  }
}

/// Kept values whose octets span several records, for the plan to sweep once every
/// original is known: each one's pieces and octets, one after the other in a byte
/// stream (a capture may have one per notification).
struct SpannedValues: Sendable {
  private var bytes: [UInt8] = []
  private(set) var count = 0

  /// The octets held on the heap, about.
  var retainedBytes: Int { bytes.capacity }

  mutating func append(_ pieces: [(segment: Segment, valueOffset: Int)], _ value: UnsafeRawBufferPointer.SubSequence) {
    count += 1
    LEB128.put(UInt64(pieces.count), into: &bytes)
    for (segment, valueOffset) in pieces {
      for field in [segment.frame, segment.offset, segment.count, valueOffset] {
        LEB128.put(LEB128.zigzag(field), into: &bytes)
      }
    }
    LEB128.put(UInt64(value.count), into: &bytes)
    bytes.append(contentsOf: value)
  }

  /// Each value's pieces and octets, in the order they were added.
  func forEach(_ body: ([(segment: Segment, valueOffset: Int)], [UInt8]) -> Void) {
    bytes.withUnsafeBufferPointer { bytes in
      var position = 0
      while position < bytes.count {
        var pieces: [(segment: Segment, valueOffset: Int)] = []
        for _ in 0..<LEB128.take(bytes, &position) {
          var fields: [Int] = []
          for _ in 0..<4 { fields.append(LEB128.unzigzag(LEB128.take(bytes, &position))) }
          pieces.append((Segment(frame: fields[0], offset: fields[1], count: fields[2]), fields[3]))
        }
        let count = Int(LEB128.take(bytes, &position))
        body(pieces, Array(bytes[position..<position + count]))
        position += count
      }
    }
  }
}
