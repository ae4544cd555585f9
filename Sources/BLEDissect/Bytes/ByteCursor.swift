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

  public mutating func readUInt24() throws(DecodeError) -> UInt32 {
    try need(3)
    let low = UInt32(try readUInt16())
    return low | UInt32(try readUInt8()) << 16
  }

  public mutating func readUInt64() throws(DecodeError) -> UInt64 {
    try need(8)
    let low = UInt64(try readUInt32())
    return low | UInt64(try readUInt32()) << 32
  }

  public mutating func readUInt128() throws(DecodeError) -> UInt128 {
    try need(16)
    let low = UInt128(try readUInt64())
    return low | UInt128(try readUInt64()) << 64
  }

  public mutating func readInt8() throws(DecodeError) -> Int8 {
    Int8(bitPattern: try readUInt8())
  }

  /// An attribute or connection handle.
  public mutating func readHandle() throws(DecodeError) -> UInt16 {
    try readUInt16()
  }

  /// A BD_ADDR, least significant byte first on the wire.
  public mutating func readAddress() throws(DecodeError) -> DeviceAddress {
    try need(6)
    let low = UInt64(try readUInt32())
    return DeviceAddress(rawValue: low | UInt64(try readUInt16()) << 32)
  }

  /// A UUID of `byteCount` 2, 4 or 16 bytes, little-endian.
  public mutating func readUUID(byteCount: Int) throws(DecodeError) -> BluetoothUUID {
    switch byteCount {
    case 2: return BluetoothUUID(uuid16: try readUInt16())
    case 4: return BluetoothUUID(uuid32: try readUInt32())
    case 16: return BluetoothUUID(uuid128: try readUInt128())
    default: throw DecodeError(.invalid("a UUID of \(byteCount) bytes"), at: offset, layer: layer)
    }
  }

  /// Consumes `count` bytes and copies them (for field trees, not the hot path).
  public mutating func readBytes(_ count: Int) throws(DecodeError) -> [UInt8] {
    try need(count)
    defer { position += count }
    return (0..<count).map { bytes.unsafeLoad(fromByteOffset: position + $0, as: UInt8.self) }
  }

  /// Copies the rest (for field trees, not the hot path).
  public mutating func readRemainingBytes() -> [UInt8] {
    (try? readBytes(remaining)) ?? []
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
