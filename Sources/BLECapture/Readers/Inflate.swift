import CZlib

/// zlib inflation of a whole buffer into memory (btsnooz sections, zip entries).
enum Inflate {
  enum Wrapper {
    /// RFC 1950 zlib stream (btsnooz).
    case zlib
    /// RFC 1951 raw deflate (zip method 8).
    case raw
  }

  struct Failure: Error {
    var message: String
    /// What was inflated before the failure.
    var partial: [UInt8]
  }

  static func inflate(
    _ input: UnsafeBufferPointer<UInt8>, wrapper: Wrapper, expectedSize: Int = 0
  ) throws(Failure) -> [UInt8] {
    var stream = z_stream()
    let windowBits: Int32 = wrapper == .zlib ? MAX_WBITS : -MAX_WBITS
    guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw Failure(message: "cannot start zlib", partial: [])
    }
    defer { inflateEnd(&stream) }
    // Deflate expands at most 1032 to 1: a size from a header beyond that is a lie, and
    // must not reserve memory.
    let plausible = min(max(0, expectedSize), input.count &* 1032 &+ 4096)
    var output = [UInt8](repeating: 0, count: max(plausible, input.count * 4, 4096))
    var produced = 0
    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    stream.avail_in = UInt32(input.count)
    while true {
      if produced == output.count { output.append(contentsOf: repeatElement(0, count: output.count)) }
      let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
        stream.next_out = out.baseAddress! + produced
        stream.avail_out = UInt32(out.count - produced)
        let status = CZlib.inflate(&stream, Z_NO_FLUSH)
        produced = out.count - Int(stream.avail_out)
        return status
      }
      switch status {
      case Z_STREAM_END:
        output.removeSubrange(produced...)
        return output
      case Z_OK:
        continue
      case Z_BUF_ERROR where stream.avail_in > 0 || produced == output.count:
        continue
      default:
        output.removeSubrange(produced...)
        let message =
          status == Z_BUF_ERROR ? "compressed data cut off" : "compressed data damaged (zlib error \(status))"
        throw Failure(message: message, partial: output)
      }
    }
  }
}
