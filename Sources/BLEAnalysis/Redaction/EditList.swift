import BLEDissect

/// How an address is written where it was found.
enum AddressForm: Hashable, Sendable {
  /// Six octets, least significant first, as HCI, SMP and the link layer carry it.
  case littleEndian
  /// Six octets, most significant first.
  case bigEndian
  /// `D4:36:39:67:A2:61`.
  case upperText
  /// `d4:36:39:67:a2:61`.
  case lowerText
}

/// What goes in place of a field.
enum RedactionValue: Hashable, Sendable {
  /// The address's pseudonym, written as the original was.
  case address(DeviceAddress, AddressForm)
  /// Filler octets.
  case filler
  /// The made-up key standing for this IRK (most significant octet first; written
  /// least significant first, as on the wire).
  case identityKey([UInt8])
  /// `device-N` for this name, padded with NULs to its length.
  case name([UInt8])
  /// `serial-N` (or another kind's pseudonym) for this text, padded with NULs.
  case identifier(IdentifierKind, [UInt8])
  /// These octets.
  case literal([UInt8])
  /// A value kept: swept in place for addresses (any spelling, or their last three
  /// octets), names and serial numbers.
  case keptValue
}

/// One piece of a field to overwrite in record `frame`: `count` octets at `offset`,
/// taken from `valueOffset` of the field's replacement (a field that spans fragments
/// is several pieces).
struct RedactionEdit: Sendable {
  var frame: Int
  var offset: Int
  var count: Int
  var value: RedactionValue
  var valueOffset: Int
}

/// The edits of every record, read back in frame order (a record's own edits in the
/// order they were added), kept in a few octets each: a capture may have one per
/// record or more, and `redact` must stay flat on millions of records.
///
/// The survey finds edits almost in frame order: only a field of a PDU put together
/// from fragments, and what `finish` adds, may land in a frame before the last one
/// edited. Edits in order go to a byte stream of fixed-size chunks (the frame as a
/// step from the last edit's, offset, count, value offset and value index, each a
/// LEB128 varint: five octets for most), which never grows by copying; the few out of
/// order go to a short list, sorted by frame once all are in. A frame's edits in the
/// stream were all added before any of its out-of-order ones (the stream's frame only
/// grows), so reading the stream's then the list's gives every frame's edits in the
/// order they were added, as a stable sort of them all by frame would.
///
/// Values are indexes into a table of the distinct values, filler and kept values
/// first.
struct EditList: Sendable {
  /// A run of the stream: its edits from `firstOrdinal` on, the first of frame
  /// `firstFrame` (the steps start from it).
  private struct Chunk: Sendable {
    var firstFrame: Int
    var firstOrdinal: Int
    var bytes: [UInt8]
  }

  /// An edit out of frame order; `order` keeps those of one frame as they came.
  private struct Late: Sendable {
    var frame: Int
    var offset: Int32
    var count: Int32
    var valueOffset: Int32
    var value: UInt32
    var order: Int
  }

  /// Where the stream is read from: chunk, octet, the frame of the last edit read
  /// (at a chunk's start, its first frame), and the ordinal of the next.
  private struct Cursor: Sendable {
    var chunk = 0
    var position = 0
    var frame = 0
    var ordinal = 0
  }

  /// Octets in a chunk; an edit takes at most 50 (five varints of ten).
  static let chunkSize = 1 << 16
  private static let longestEdit = 50

  private var chunks: [Chunk] = []
  /// The frame of the stream's last edit.
  private var lastFrame = Int.min
  private var streamCount = 0
  private var late: [Late] = []
  private var lateSorted = true
  /// New values (and value offsets) of edits of the stream, by ordinal (`replace`).
  private var replaced: [Int: (value: UInt32, valueOffset: Int)] = [:]
  /// The distinct values, filler and kept values first.
  private var values: [RedactionValue] = [.filler, .keptValue]
  private var valueIndex: [RedactionValue: UInt32] = [.filler: 0, .keptValue: 1]
  private var cursor = Cursor()

  /// Identifies an edit for `replace`: an ordinal of the stream, or (complemented)
  /// an index of the out-of-order list.
  typealias Index = Int

  var count: Int { streamCount + late.count }

  /// The octets this list holds on the heap, about: what must stay bounded per edit.
  var retainedBytes: Int {
    chunks.reduce(0) { $0 + $1.bytes.capacity } + chunks.capacity * MemoryLayout<Chunk>.stride
      + late.capacity * MemoryLayout<Late>.stride + replaced.capacity * 48 + values.capacity * 32
      + valueIndex.capacity * 48
  }

  private mutating func index(of value: RedactionValue) -> UInt32 {
    if let index = valueIndex[value] { return index }
    values.append(value)
    valueIndex[value] = UInt32(values.count - 1)
    return UInt32(values.count - 1)
  }

  /// Adds `edit`; returns its index, for `replace`.
  mutating func append(_ edit: RedactionEdit) -> Index {
    let value = index(of: edit.value)
    guard edit.frame >= lastFrame else {
      late.append(
        Late(
          frame: edit.frame, offset: Int32(truncatingIfNeeded: edit.offset),
          count: Int32(truncatingIfNeeded: edit.count), valueOffset: Int32(truncatingIfNeeded: edit.valueOffset),
          value: value, order: late.count))
      lateSorted = false
      return ~(late.count - 1)
    }
    if chunks.isEmpty || chunks[chunks.count - 1].bytes.count > Self.chunkSize - Self.longestEdit {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(Self.chunkSize)
      chunks.append(Chunk(firstFrame: edit.frame, firstOrdinal: streamCount, bytes: bytes))
      lastFrame = edit.frame
    }
    let last = chunks.count - 1
    LEB128.put(UInt64(edit.frame - lastFrame), into: &chunks[last].bytes)
    LEB128.put(LEB128.zigzag(edit.offset), into: &chunks[last].bytes)
    LEB128.put(LEB128.zigzag(edit.count), into: &chunks[last].bytes)
    LEB128.put(LEB128.zigzag(edit.valueOffset), into: &chunks[last].bytes)
    LEB128.put(UInt64(value), into: &chunks[last].bytes)
    lastFrame = edit.frame
    streamCount += 1
    return streamCount - 1
  }

  /// Gives the edit at `index` a new value, read from `offset` further into it.
  mutating func replace(_ index: Index, with value: RedactionValue, from offset: Int) {
    let value = self.index(of: value)
    if index < 0 {
      late[~index].value = value
      late[~index].valueOffset += Int32(truncatingIfNeeded: offset)
    } else {
      let before = replaced[index]?.valueOffset ?? 0
      replaced[index] = (value, before + offset)
    }
  }

  /// Readies the out-of-order edits for reading (after the last `append` before reads).
  mutating func sort() {
    guard !lateSorted else { return }
    late.sort { ($0.frame, $0.order) < ($1.frame, $1.order) }
    lateSorted = true
  }

  /// Calls `body` with every edit in frame order (once sorted), without keeping them.
  func forEach(_ body: (RedactionEdit) -> Void) {
    var stream = Cursor()
    var lateIndex = 0
    while let edit = next(&stream) {
      while lateIndex < late.count, late[lateIndex].frame < edit.frame {
        body(self.edit(late[lateIndex]))
        lateIndex += 1
      }
      body(edit)
    }
    for item in late[lateIndex...] { body(edit(item)) }
  }

  /// The edits of `frame` (once sorted). Reading frames in increasing order reads the
  /// stream once; an earlier frame starts again from its chunk.
  mutating func run(of frame: Int) -> [RedactionEdit] {
    var run: [RedactionEdit] = []
    if !chunks.isEmpty {
      // The cursor is past the last edit read: a frame not after it starts again.
      if cursor.frame >= frame { cursor = start(before: frame) }
      while true {
        var ahead = cursor
        guard let edit = next(&ahead), edit.frame <= frame else { break }
        cursor = ahead
        if edit.frame == frame { run.append(edit) }
      }
    }
    var low = 0
    var high = late.count
    while low < high {
      let middle = (low + high) / 2
      if late[middle].frame < frame { low = middle + 1 } else { high = middle }
    }
    while low < late.count, late[low].frame == frame {
      run.append(edit(late[low]))
      low += 1
    }
    return run
  }

  /// A cursor at the start of the last chunk whose first frame is before `frame`
  /// (a frame's edits may begin at the end of the chunk before its first).
  private func start(before frame: Int) -> Cursor {
    var low = 0
    var high = chunks.count
    while low < high {
      let middle = (low + high) / 2
      if chunks[middle].firstFrame < frame { low = middle + 1 } else { high = middle }
    }
    let chunk = max(0, low - 1)
    return Cursor(chunk: chunk, position: 0, frame: chunks[chunk].firstFrame, ordinal: chunks[chunk].firstOrdinal)
  }

  /// The stream's edit at `cursor`, which moves past it.
  private func next(_ cursor: inout Cursor) -> RedactionEdit? {
    while cursor.chunk < chunks.count, cursor.position >= chunks[cursor.chunk].bytes.count {
      cursor.chunk += 1
      cursor.position = 0
    }
    guard cursor.chunk < chunks.count else { return nil }
    // A chunk's steps start from its first frame.
    if cursor.position == 0 { cursor.frame = chunks[cursor.chunk].firstFrame }
    return chunks[cursor.chunk].bytes.withUnsafeBufferPointer { bytes in
      cursor.frame += Int(LEB128.take(bytes, &cursor.position))
      let offset = LEB128.unzigzag(LEB128.take(bytes, &cursor.position))
      let count = LEB128.unzigzag(LEB128.take(bytes, &cursor.position))
      var valueOffset = LEB128.unzigzag(LEB128.take(bytes, &cursor.position))
      var value = UInt32(truncatingIfNeeded: LEB128.take(bytes, &cursor.position))
      if !replaced.isEmpty, let replacement = replaced[cursor.ordinal] {
        value = replacement.value
        valueOffset += replacement.valueOffset
      }
      cursor.ordinal += 1
      return RedactionEdit(
        frame: cursor.frame, offset: offset, count: count, value: values[Int(value)], valueOffset: valueOffset)
    }
  }

  private func edit(_ late: Late) -> RedactionEdit {
    RedactionEdit(
      frame: late.frame, offset: Int(late.offset), count: Int(late.count), value: values[Int(late.value)],
      valueOffset: Int(late.valueOffset))
  }
}
