#if canImport(Glibc)
  import Glibc
#endif

/// Bytes on their way to a file descriptor: text and JSON are built here without
/// intermediate Strings, and written in large blocks.
public struct OutputBuffer: ~Copyable {
  public private(set) var bytes: [UInt8] = []
  let fd: Int32
  let flushThreshold: Int

  public init(fd: Int32 = 1, flushThreshold: Int = 1 << 16) {
    self.fd = fd
    self.flushThreshold = flushThreshold
    bytes.reserveCapacity(flushThreshold + 4096)
  }

  /// Writes everything out when the buffer is full; `force` writes it now.
  /// Returns false when the reader went away (EPIPE) or writing failed.
  @discardableResult
  public mutating func flush(force: Bool = false) -> Bool {
    guard force || bytes.count >= flushThreshold, !bytes.isEmpty else { return true }
    var done = 0
    let total = bytes.count
    while done < total {
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, total - done) }
      if written < 0 {
        if errno == EINTR { continue }
        bytes.removeAll(keepingCapacity: true)
        return false
      }
      done += written
    }
    bytes.removeAll(keepingCapacity: true)
    return true
  }

  @inline(__always) public mutating func append(_ byte: UInt8) { bytes.append(byte) }

  @inline(__always) public mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  public mutating func append(contentsOf raw: UnsafeRawBufferPointer) {
    bytes.append(contentsOf: raw)
  }

  public mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
  }

  /// A decimal integer.
  public mutating func appendDecimal(_ value: Int) {
    if value < 0 {
      bytes.append(UInt8(ascii: "-"))
      appendDecimal(UInt64(value.magnitude))
    } else {
      appendDecimal(UInt64(value))
    }
  }

  public mutating func appendDecimal(_ value: UInt64, minimumDigits: Int = 1) {
    var count = 1
    var scale: UInt64 = 10
    while count < 20, value >= scale {
      count += 1
      scale = scale &* 10
    }
    count = max(count, minimumDigits)
    let end = bytes.count + count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
    var rest = value
    var index = end - 1
    while rest > 0 {
      bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
      rest /= 10
      index -= 1
    }
  }

  /// Lower-case hex with `0x` and at least `width` digits.
  public mutating func appendHex(_ value: UInt64, width: Int) {
    append("0x")
    appendHexDigits(value, width: width)
  }

  public mutating func appendHexDigits(_ value: UInt64, width: Int) {
    var count = 1
    while count < 16, value >> (4 * UInt64(count)) != 0 { count += 1 }
    count = max(count, width)
    for shift in stride(from: count - 1, through: 0, by: -1) {
      bytes.append(Self.hexDigits[Int(value >> (4 * UInt64(shift)) & 0xF)])
    }
  }

  /// A JSON string literal, escaped.
  public mutating func appendJSONString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): append("\\\"")
      case UInt8(ascii: "\\"): append("\\\\")
      case 0x0A: append("\\n")
      case 0x0D: append("\\r")
      case 0x09: append("\\t")
      case 0..<0x20:
        append("\\u00")
        bytes.append(Self.hexDigits[Int(byte >> 4)])
        bytes.append(Self.hexDigits[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// Pads with spaces on the left so that what follows `mark` is `width` wide.
  public mutating func padLeft(from mark: Int, width: Int) {
    let written = bytes.count - mark
    guard written < width else { return }
    bytes.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: width - written), at: mark)
  }

  /// Pads with spaces on the right up to `width` since `mark`.
  public mutating func padRight(from mark: Int, width: Int) {
    let written = bytes.count - mark
    if written < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - written)) }
  }

  public var count: Int { bytes.count }

  static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
