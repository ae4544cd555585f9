#if canImport(Glibc)
  import Glibc
#endif

/// Bytes on their way to a file descriptor: text and JSON are built here without
/// intermediate Strings, and written in large blocks.
public struct OutputBuffer: ~Copyable {
  private var storage: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  public private(set) var count = 0
  let fd: Int32
  let flushThreshold: Int

  public init(fd: Int32 = 1, flushThreshold: Int = 1 << 16) {
    self.fd = fd
    self.flushThreshold = flushThreshold
    capacity = flushThreshold + 4096
    storage = .allocate(capacity: capacity)
  }

  deinit { storage.deallocate() }

  /// What the buffer holds and has not written yet.
  public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

  /// Calls `body` with what the buffer holds and has not written yet.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: storage, count: count))
  }

  /// Writes everything out when the buffer is full; `force` writes it now.
  /// Returns false when the reader went away (EPIPE) or writing failed.
  @discardableResult
  public mutating func flush(force: Bool = false) -> Bool {
    guard force || count >= flushThreshold, count > 0 else { return true }
    var done = 0
    defer { count = 0 }
    while done < count {
      let written = write(fd, storage + done, count - done)
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      done += written
    }
    return true
  }

  /// Replaces the byte at `index` (below `count`).
  mutating func overwrite(at index: Int, with byte: UInt8) {
    precondition(index >= 0 && index < count)
    storage[index] = byte
  }

  /// Drops what was appended after the first `newCount` bytes.
  mutating func truncate(to newCount: Int) {
    count = min(count, max(0, newCount))
  }

  /// Room for `extra` more bytes, growing the storage when a record does not fit.
  @inline(__always) private mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(count + extra) }
  }

  private mutating func grow(_ needed: Int) {
    let larger = max(needed, capacity * 2)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
    moved.update(from: storage, count: count)
    storage.deallocate()
    storage = moved
    capacity = larger
  }

  @inline(__always) public mutating func append(_ byte: UInt8) {
    reserve(1)
    storage[count] = byte
    count += 1
  }

  @inline(__always) public mutating func append(_ text: StaticString) {
    append(bytes: UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
  }

  public mutating func append(contentsOf raw: UnsafeRawBufferPointer) {
    guard let base = raw.baseAddress else { return }
    append(bytes: base, count: raw.count)
  }

  @inline(__always) private mutating func append(bytes source: UnsafeRawPointer, count length: Int) {
    reserve(length)
    let target = UnsafeMutableRawPointer(storage + count)
    // Most appends are a few bytes: two overlapping words cost less than a call to
    // memcpy, or a loop over the bytes.
    if length > 16 {
      target.copyMemory(from: source, byteCount: length)
    } else if length >= 8 {
      target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
      target.storeBytes(
        of: source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self), toByteOffset: length - 8,
        as: UInt64.self)
    } else if length >= 4 {
      target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
      target.storeBytes(
        of: source.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self), toByteOffset: length - 4,
        as: UInt32.self)
    } else if length > 0 {
      target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
      target.storeBytes(
        of: source.load(fromByteOffset: length >> 1, as: UInt8.self), toByteOffset: length >> 1, as: UInt8.self)
      target.storeBytes(
        of: source.load(fromByteOffset: length - 1, as: UInt8.self), toByteOffset: length - 1, as: UInt8.self)
    }
    count += length
  }

  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    for byte in bytes { append(byte) }
  }

  /// A String's UTF-8. Literals take the `StaticString` overload, which copies
  /// without looking at the String's storage.
  public mutating func append(string text: borrowing String) {
    let appended: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: UnsafeRawBufferPointer($0)) }
    if appended == nil { append(contentsOf: text.utf8) }
  }

  /// A decimal integer. Inlined, like the next: records hold a dozen numbers each.
  @inline(__always) public mutating func appendDecimal(_ value: Int) {
    if value < 0 {
      append(UInt8(ascii: "-"))
      appendDecimal(UInt64(value.magnitude))
    } else {
      appendDecimal(UInt64(value))
    }
  }

  @inline(__always) public mutating func appendDecimal(_ value: UInt64, minimumDigits: Int = 1) {
    if value < 10 && minimumDigits <= 1 { return append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)) }
    let digits = max(Self.decimalDigits(value), min(minimumDigits, 40))
    reserve(digits)
    writeDecimal(value, digits: digits, at: count)
    count += digits
  }

  /// A decimal integer right-aligned in `width` columns (spaces before it).
  public mutating func appendDecimal(_ value: UInt64, width: Int) {
    let digits = Self.decimalDigits(value)
    let padding = max(0, width - digits)
    reserve(padding + digits)
    appendSpaces(padding)
    writeDecimal(value, digits: digits, at: count)
    count += digits
  }

  /// `n` spaces (room reserved): a few at a time, without a call to memset.
  @inline(__always) private mutating func appendSpaces(_ n: Int) {
    var index = 0
    let target = UnsafeMutableRawPointer(storage + count)
    let spaces = UInt64(0x2020_2020_2020_2020)
    while index + 8 <= n {
      target.storeBytes(of: spaces, toByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < n {
      target.storeBytes(of: UInt8(ascii: " "), toByteOffset: index, as: UInt8.self)
      index += 1
    }
    count += n
  }

  /// How many decimal digits `value` has.
  @inline(__always) static func decimalDigits(_ value: UInt64) -> Int {
    var digits = 1
    var rest = value
    while rest >= 100 {
      rest /= 100
      digits += 2
    }
    return rest >= 10 ? digits + 1 : digits
  }

  /// Writes `value` in `digits` digits (zeros before it) at `offset`, two at a time.
  @inline(__always) private func writeDecimal(_ value: UInt64, digits: Int, at offset: Int) {
    let pairs = Self.decimalPairs.utf8Start
    var index = offset + digits
    var rest = value
    while rest >= 100 {
      let pair = Int(rest % 100) * 2
      rest /= 100
      index -= 2
      storage[index] = pairs[pair]
      storage[index + 1] = pairs[pair + 1]
    }
    if rest >= 10 {
      index -= 2
      storage[index] = pairs[Int(rest) * 2]
      storage[index + 1] = pairs[Int(rest) * 2 + 1]
    } else {
      index -= 1
      storage[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
    }
    while index > offset {
      index -= 1
      storage[index] = UInt8(ascii: "0")
    }
  }

  /// Every number below 100 as two decimal digits, in order.
  private static let decimalPairs: StaticString = """
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """

  /// Lower-case hex with `0x` and at least `width` digits.
  public mutating func appendHex(_ value: UInt64, width: Int) {
    append("0x")
    appendHexDigits(value, width: width)
  }

  public mutating func appendHexDigits(_ value: UInt64, width: Int) {
    if width == 4 && value <= 0xFFFF {
      // Handles and opcodes: four digits, no counting.
      reserve(4)
      let pairs = Self.hexPairs.utf8Start
      let high = Int(value >> 8) * 2
      let low = Int(value & 0xFF) * 2
      storage[count] = pairs[high]
      storage[count + 1] = pairs[high + 1]
      storage[count + 2] = pairs[low]
      storage[count + 3] = pairs[low + 1]
      count += 4
      return
    }
    var digits = 1
    while digits < 16, value >> (4 * UInt64(digits)) != 0 { digits += 1 }
    digits = max(digits, width)
    reserve(digits)
    for index in 0..<digits {
      storage[count + index] = Self.hexDigit(value >> (4 * UInt64(digits - 1 - index)))
    }
    count += digits
  }

  /// Two lower-case hex digits per byte, with no separator.
  public mutating func appendHexBytes(_ raw: UnsafeRawBufferPointer) {
    reserve(raw.count * 2)
    let pairs = UnsafeRawPointer(Self.hexPairs.utf8Start)
    let target = UnsafeMutableRawPointer(storage + count)
    for (index, byte) in raw.enumerated() {
      target.storeBytes(
        of: pairs.loadUnaligned(fromByteOffset: Int(byte) &* 2, as: UInt16.self), toByteOffset: index &* 2,
        as: UInt16.self)
    }
    count += raw.count * 2
  }

  /// Every byte's two hex digits, in order.
  private static let hexPairs: StaticString = """
    000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
    202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\
    404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\
    606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f\
    808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\
    a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\
    c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf\
    e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
    """

  @inline(__always) static func hexDigit(_ value: UInt64) -> UInt8 {
    let nibble = UInt8(truncatingIfNeeded: value) & 0xF
    return nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
  }

  /// A JSON string literal, escaped.
  public mutating func appendJSONString(_ text: borrowing String) {
    append(UInt8(ascii: "\""))
    let appended: Void? = text.utf8.withContiguousStorageIfAvailable { appendJSONEscaped(UnsafeRawBufferPointer($0)) }
    if appended == nil {
      for byte in text.utf8 { appendJSONEscaped(byte) }
    }
    append(UInt8(ascii: "\""))
  }

  /// A JSON string literal of a name from a table, escaped.
  public mutating func appendJSONString(_ text: StaticString) {
    append(UInt8(ascii: "\""))
    appendJSONEscaped(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    append(UInt8(ascii: "\""))
  }

  /// A JSON string literal of UTF-8 bytes, escaped.
  public mutating func appendJSONString(utf8 text: UnsafeRawBufferPointer) {
    append(UInt8(ascii: "\""))
    appendJSONEscaped(text)
    append(UInt8(ascii: "\""))
  }

  /// A name from a table when there is one, else the String that names the rest.
  @inline(__always) public mutating func append(_ name: StaticString?, else fallback: @autoclosure () -> String) {
    if let name { append(name) } else { append(string: fallback()) }
  }

  /// Runs of bytes that need no escape go in one copy.
  private mutating func appendJSONEscaped(_ raw: UnsafeRawBufferPointer) {
    guard let base = raw.baseAddress else { return }
    var runStart = 0
    var index = 0
    while index < raw.count {
      // Eight bytes at a time while none needs an escape.
      if index + 8 <= raw.count, !Self.needsEscape(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
        index += 8
        continue
      }
      let byte = raw[index]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        append(bytes: base + runStart, count: index - runStart)
        appendJSONEscaped(byte)
        runStart = index + 1
      }
      index += 1
    }
    append(bytes: base + runStart, count: raw.count - runStart)
  }

  /// Whether any of the eight bytes of `word` is below 0x20, a quote or a backslash
  /// (the bit tricks of "Bit Twiddling Hacks": `hasless`, and `haszero` of a XOR).
  @inline(__always) private static func needsEscape(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let control = (word &- ones &* 0x20) & ~word & highs
    let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
    let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
    let zeros = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
    return control | zeros != 0
  }

  private mutating func appendJSONEscaped(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""): append("\\\"")
    case UInt8(ascii: "\\"): append("\\\\")
    case 0x0A: append("\\n")
    case 0x0D: append("\\r")
    case 0x09: append("\\t")
    case 0..<0x20:
      append("\\u00")
      append(Self.hexDigit(UInt64(byte >> 4)))
      append(Self.hexDigit(UInt64(byte)))
    default: append(byte)
    }
  }

  /// Pads with spaces on the left so that what follows `mark` is `width` wide.
  public mutating func padLeft(from mark: Int, width: Int) {
    let written = count - mark
    guard written < width else { return }
    let shift = width - written
    reserve(shift)
    (storage + mark + shift).update(from: storage + mark, count: written)
    (storage + mark).update(repeating: UInt8(ascii: " "), count: shift)
    count += shift
  }

  /// Pads with spaces on the right up to `width` since `mark`.
  public mutating func padRight(from mark: Int, width: Int) {
    let written = count - mark
    guard written < width else { return }
    reserve(width - written)
    appendSpaces(width - written)
  }
}
