import BLECapture
import BLEDissect

/// A run of octets of one record: `count` octets from `offset` of frame `frame`.
struct Segment: Hashable, Sendable {
  var frame: Int
  var offset: Int
  var count: Int
}

/// Where the octets of a buffer the decoders read are in the capture: the buffer is
/// the segments one after the other. A record's own bytes are one segment; a PDU put
/// together from ACL fragments, LL fragments, K-frames or advertising reports is one
/// segment per piece.
struct SegmentMap: Sendable {
  var segments: [Segment]

  init(_ segments: [Segment]) {
    self.segments = segments
  }

  /// The record itself.
  init(frame: Int, count: Int) {
    segments = [Segment(frame: frame, offset: 0, count: count)]
  }

  var count: Int { segments.reduce(0) { $0 + $1.count } }

  /// The pieces of `range` of the buffer, each with its offset in the range; nil when
  /// the range runs past the buffer.
  func pieces(of range: Range<Int>) -> [(segment: Segment, valueOffset: Int)]? {
    guard range.lowerBound >= 0 else { return nil }
    var pieces: [(Segment, Int)] = []
    var base = 0
    for segment in segments {
      let start = max(range.lowerBound, base)
      let end = min(range.upperBound, base + segment.count)
      if start < end {
        pieces.append(
          (
            Segment(frame: segment.frame, offset: segment.offset + start - base, count: end - start),
            start - range.lowerBound
          ))
      }
      base += segment.count
      if base >= range.upperBound { break }
    }
    return base >= range.upperBound ? pieces : nil
  }

  /// The map of `range` of this buffer, as a buffer of its own.
  func submap(_ range: Range<Int>) -> SegmentMap? {
    pieces(of: range).map { SegmentMap($0.map(\.segment)) }
  }
}

/// Follows the pieces PDUs are put together from, as the decoders do, so that a field
/// of a reassembled PDU can be found in the records that carried it: ACL (and LL data)
/// fragments per connection and direction, K-frames per credit-based channel, and
/// extended or periodic advertising data per advertiser. Each piece keeps its octets,
/// and a PDU is mapped only when the pieces give back exactly the decoder's octets.
struct FragmentTracker {
  struct Piece {
    var map: SegmentMap
    var bytes: [UInt8]
  }

  struct ChannelKey: Hashable {
    var stream: ACLKey
    var cid: UInt16
  }

  private var acl: [ACLKey: [Piece]] = [:]
  private var sdu: [ChannelKey: [Piece]] = [:]
  private var advertising: [AdvertisingDecoder.FragmentKey: [Piece]] = [:]
  /// Octets held in all pieces, bounded like the decoders' buffers.
  private var held = 0
  static let maxHeld = 4 << 20

  /// An ACL or LL data fragment: a start (`pb` other than 0b01) begins its stream's PDU.
  mutating func fragment(_ key: ACLKey, start: Bool, _ piece: Piece) {
    held += Self.append(piece, to: &acl, key, first: start)
    if held > Self.maxHeld { clear() }
  }

  /// The map of the PDU `key`'s fragments put together, if they give `bytes`.
  func pdu(_ key: ACLKey, bytes: [UInt8]) -> SegmentMap? {
    Self.join(acl[key] ?? [], matching: bytes)
  }

  /// The PDU `key`'s fragments put together as they are, unchecked (the SDU they
  /// end is checked as a whole).
  func pduPiece(_ key: ACLKey) -> Piece? {
    guard let pieces = acl[key], !pieces.isEmpty else { return nil }
    return Piece(map: SegmentMap(pieces.flatMap(\.map.segments)), bytes: pieces.flatMap(\.bytes))
  }

  /// A K-frame's SDU payload part (the SDU Length left out): the first one begins the
  /// channel's SDU.
  mutating func kframe(_ key: ChannelKey, first: Bool, _ piece: Piece) {
    held += Self.append(piece, to: &sdu, key, first: first)
    if held > Self.maxHeld { clear() }
  }

  /// The map of the SDU of `key`'s K-frames, if they give `bytes`.
  func sdu(_ key: ChannelKey, bytes: [UInt8]) -> SegmentMap? {
    Self.join(sdu[key] ?? [], matching: bytes)
  }

  /// A piece of advertising data; `last` ends the chain and returns its map, if the
  /// pieces give `bytes`.
  mutating func advertising(_ key: AdvertisingDecoder.FragmentKey, _ piece: Piece, last: [UInt8]?) -> SegmentMap? {
    advertising[key, default: []].append(piece)
    held += piece.bytes.count
    guard let bytes = last else { return nil }
    let map = Self.join(advertising[key] ?? [], matching: bytes)
    held -= Self.remove(&advertising, key)
    return map
  }

  /// Adds a piece to `key`'s list (a new list when `first`); returns how many octets
  /// the table holds more.
  private static func append<Key: Hashable>(_ piece: Piece, to table: inout [Key: [Piece]], _ key: Key, first: Bool)
    -> Int
  {
    var change = piece.bytes.count
    if first {
      change -= remove(&table, key)
      table[key] = [piece]
    } else {
      table[key, default: []].append(piece)
    }
    return change
  }

  /// Removes `key`'s pieces; returns how many octets they held.
  private static func remove<Key: Hashable>(_ table: inout [Key: [Piece]], _ key: Key) -> Int {
    table.removeValue(forKey: key)?.reduce(0) { $0 + $1.bytes.count } ?? 0
  }

  private mutating func clear() {
    acl.removeAll()
    sdu.removeAll()
    advertising.removeAll()
    held = 0
  }

  /// The pieces' maps one after the other, cut to `bytes.count`, when their octets
  /// are those octets.
  static func join(_ pieces: [Piece], matching bytes: [UInt8]) -> SegmentMap? {
    var joined: [UInt8] = []
    var segments: [Segment] = []
    for piece in pieces {
      joined += piece.bytes
      segments += piece.map.segments
    }
    guard joined.count >= bytes.count, joined.prefix(bytes.count).elementsEqual(bytes) else { return nil }
    return SegmentMap(segments).submap(0..<bytes.count)
  }
}
