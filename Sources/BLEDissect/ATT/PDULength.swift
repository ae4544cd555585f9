/// How many parameter bytes a PDU may carry after its opcode (ATT) or code (SMP)
/// byte. Each table row gives one; the dispatcher checks it, so the row's parser
/// only reads.
public enum PDULength: Hashable, Sendable {
  case exactly(Int)
  case atLeast(Int)
  /// One of two sizes: a request with a 16-bit or a 128-bit UUID.
  case either(Int, Int)

  /// The fewest bytes the rule allows.
  public var minimum: Int {
    switch self {
    case .exactly(let n), .atLeast(let n): n
    case .either(let a, let b): min(a, b)
    }
  }

  public func allows(_ count: Int) -> Bool {
    switch self {
    case .exactly(let n): count == n
    case .atLeast(let n): count >= n
    case .either(let a, let b): count == a || count == b
    }
  }

  /// `exactly 2`, `at least 4`, `6 or 20`.
  public var text: String {
    switch self {
    case .exactly(let n): "exactly \(n)"
    case .atLeast(let n): "at least \(n)"
    case .either(let a, let b): "\(a) or \(b)"
    }
  }

  /// The dispatcher of the ATT and SMP tables: checks the rest of `c` against the rule
  /// and reads it with the row's `parse`, consuming it all (bytes beyond an exact length
  /// are reported under `lengthID` and belong to no field). Nil when the parameters are
  /// too short or cannot be read, with a diagnostic: the caller keeps them as malformed.
  func parse<Parameters>(
    _ name: @autoclosure () -> String, _ c: inout ByteCursor, lengthID: String, diagnostics: inout [Diagnostic],
    _ parse: (inout ByteCursor) throws(DecodeError) -> Parameters
  ) -> Parameters? {
    defer { _ = c.readRemainingRange() }
    let count = c.remaining
    if !allows(count) {
      diagnostics.append(Diagnostic(id: lengthID, severity: .warning, violation(name(), count: count)))
      if count < minimum { return nil }
    }
    do throws(DecodeError) {
      return try parse(&c)
    } catch {
      diagnostics.append(Diagnostic(id: error.diagnosticID, severity: .warning, error.description))
      return nil
    }
  }

  /// The diagnostic message for `count` parameter bytes that break the rule.
  func violation(_ name: String, count: Int) -> String {
    "\(messageName(name)) has \(count) parameter \(count == 1 ? "byte" : "bytes"), needs \(text)"
  }
}

/// A spec name for a lower-case diagnostic message: ordinary words are lowered,
/// acronyms kept (`Exchange MTU Request` → `exchange MTU request`).
func messageName(_ name: String) -> String {
  name.split(separator: " ").map { word in
    word.dropFirst().contains(where: \.isUppercase) ? String(word) : word.lowercased()
  }.joined(separator: " ")
}

extension UnsafeRawBufferPointer {
  /// The little-endian UInt16 at `offset`, nil when it is not all there.
  public func littleEndianUInt16(at offset: Int) -> UInt16? {
    guard offset >= 0, offset <= count - 2 else { return nil }
    return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
  }

  /// The little-endian value of `width` bytes at `offset` (up to 16), nil when they are
  /// not all there.
  func littleEndianUInt128(at offset: Int, width: Int) -> UInt128? {
    guard offset >= 0, width >= 0, width <= 16, width <= count - offset else { return nil }
    var value: UInt128 = 0
    for index in (0..<width).reversed() {
      value = value << 8 | UInt128(self[offset + index])
    }
    return value
  }

  /// A UUID carried little-endian in `width` bytes (2, 4 or 16), nil when cut short
  /// or of another width.
  public func bluetoothUUID(at offset: Int, width: Int) -> BluetoothUUID? {
    guard let value = littleEndianUInt128(at: offset, width: width) else { return nil }
    switch width {
    case 2: return BluetoothUUID(uuid16: UInt16(truncatingIfNeeded: value))
    case 4: return BluetoothUUID(uuid32: UInt32(truncatingIfNeeded: value))
    case 16: return BluetoothUUID(uuid128: value)
    default: return nil
    }
  }

  /// A copy of the bytes `range` points at, clamped to the buffer (for field trees).
  public func copy(_ range: ByteRange) -> [UInt8] {
    Array(self[bounds(of: range)])
  }
}
