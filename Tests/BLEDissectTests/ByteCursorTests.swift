import Testing

@testable import BLEDissect

/// Runs `body` on a cursor over `bytes`. Values are taken out of the closure before
/// they are checked, since `#expect` cannot capture a non-escapable cursor.
private func withCursor<R>(
  _ bytes: [UInt8], base: Int = 0, layer: DecodeError.Layer = .hci,
  _ body: (inout ByteCursor) throws(DecodeError) -> R
) throws(DecodeError) -> R {
  try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in
    var cursor = ByteCursor(buffer.span.bytes, base: base, layer: layer)
    return try body(&cursor)
  }
}

@Suite struct ByteCursorTests {
  @Test func readsLittleEndianAndAdvances() throws {
    let values = try withCursor([0x01, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12]) { c throws(DecodeError) in
      (try c.readUInt8(), try c.readUInt16(), try c.readUInt32(), c.isAtEnd)
    }
    #expect(values.0 == 0x01)
    #expect(values.1 == 0x1234)
    #expect(values.2 == 0x1234_5678)
    #expect(values.3)
  }

  @Test func peekDoesNotConsume() throws {
    let values = try withCursor([0xAA, 0xBB]) { c throws(DecodeError) in
      (try c.peekUInt8(), c.offset, try c.readUInt8(), try c.peekUInt8())
    }
    #expect(values == (0xAA, 0, 0xAA, 0xBB))
  }

  @Test func failedReadLeavesCursorAndGivesOffset() throws {
    // One byte left when two are needed, at absolute offset 3 (cursor based at 2).
    let values = try withCursor([0x10, 0x2A], base: 2, layer: .att) { c throws(DecodeError) in
      _ = try c.readUInt8()
      var caught: DecodeError?
      do throws(DecodeError) { _ = try c.readUInt16() } catch { caught = error }
      return (caught, c.offset, try c.readUInt8())
    }
    #expect(values.0?.offset == 3)
    #expect(values.0?.kind == .truncated(needed: 2, available: 1))
    #expect(values.0?.diagnosticID == "att.truncated")
    #expect(values.1 == 3)
    #expect(values.2 == 0x2A)
  }

  @Test func sliceSplitsOffWithAbsoluteOffsets() throws {
    let values = try withCursor([0x03, 0xAA, 0xBB, 0xCC, 0xDD], layer: .l2cap) { c throws(DecodeError) in
      let length = Int(try c.readUInt8())
      var inner = try c.slice(length)
      let innerStart = (inner.offset, inner.remaining, try inner.readUInt8(), inner.readRemainingRange())
      let outer = (c.offset, try c.readRange(1))
      var overrun: DecodeError?
      do throws(DecodeError) { _ = try c.slice(1) } catch { overrun = error }
      return (innerStart, outer, overrun)
    }
    #expect(values.0.0 == 1)
    #expect(values.0.1 == 3)
    #expect(values.0.2 == 0xAA)
    #expect(values.0.3 == ByteRange(start: 2, count: 2))
    #expect(values.1.0 == 4)
    #expect(values.1.1 == ByteRange(start: 4, count: 1))
    #expect(values.2?.offset == 5)
  }
}
