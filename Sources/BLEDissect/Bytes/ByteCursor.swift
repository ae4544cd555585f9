/// A reader over borrowed bytes: `read…` consumes, `peek…` does not, `slice(n)`
/// splits off a sub-cursor for length-prefixed data. A failed read throws and leaves
/// the cursor where it was. Offsets are absolute within the record.
public struct ByteCursor: ~Escapable {
  let bytes: RawSpan
  let base: Int
  let layer: DecodeError.Layer
  public private(set) var position = 0

  @_lifetime(copy bytes)
  public init(_ bytes: RawSpan, base: Int = 0, layer: DecodeError.Layer) {
    self.bytes = bytes
    self.base = base
    self.layer = layer
  }

  /// Absolute offset of the next byte.
  public var offset: Int { base + position }
  public var remaining: Int { bytes.byteCount - position }
  public var isAtEnd: Bool { remaining == 0 }

  @inline(__always)
  func need(_ count: Int) throws(DecodeError) {
    guard remaining >= count else {
      throw DecodeError(.truncated(needed: count, available: remaining), at: offset, layer: layer)
    }
  }

  public func peekUInt8() throws(DecodeError) -> UInt8 {
    try need(1)
    return bytes.unsafeLoad(fromByteOffset: position, as: UInt8.self)
  }

  public mutating func readUInt8() throws(DecodeError) -> UInt8 {
    let value = try peekUInt8()
    position += 1
    return value
  }

  /// Little-endian, as every HCI, L2CAP, ATT and SMP field is.
  public mutating func readUInt16() throws(DecodeError) -> UInt16 {
    try need(2)
    let value = UInt16(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: position, as: UInt16.self))
    position += 2
    return value
  }

  public mutating func readUInt32() throws(DecodeError) -> UInt32 {
    try need(4)
    let value = UInt32(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: position, as: UInt32.self))
    position += 4
    return value
  }

  /// Consumes `count` bytes and returns a cursor over them.
  @_lifetime(copy self)
  public mutating func slice(_ count: Int) throws(DecodeError) -> ByteCursor {
    try need(count)
    let sub = ByteCursor(bytes.extracting(position..<position + count), base: offset, layer: layer)
    position += count
    return sub
  }

  /// Consumes `count` bytes and returns where they are in the record.
  public mutating func readRange(_ count: Int) throws(DecodeError) -> ByteRange {
    try need(count)
    defer { position += count }
    return ByteRange(start: offset, count: count)
  }

  /// Consumes the rest and returns where it is in the record.
  public mutating func readRemainingRange() -> ByteRange {
    defer { position = bytes.byteCount }
    return ByteRange(start: offset, count: remaining)
  }
}

/// Where a field's bytes are within a record (payloads are not copied).
public struct ByteRange: Hashable, Sendable {
  public var start: Int
  public var count: Int

  public init(start: Int, count: Int) {
    self.start = start
    self.count = count
  }
}
