import CZlib

/// zlib inflation (btsnooz sections, zip entries, gzip archives): of a whole buffer into
/// memory with a cap on what it may produce, or a chunk at a time (`InflateStream`).
enum Inflate {
  enum Wrapper {
    /// RFC 1950 zlib stream (btsnooz).
    case zlib
    /// RFC 1951 raw deflate (zip method 8).
    case raw
    /// RFC 1952 gzip (a sysdiagnose `.tar.gz`); members after the first are read too.
    case gzip

    var windowBits: Int32 {
      switch self {
      case .zlib: MAX_WBITS
      case .raw: -MAX_WBITS
      case .gzip: MAX_WBITS + 16
      }
    }
  }

  struct Failure: Error {
    var message: String
    /// What was inflated before the failure.
    var partial: [UInt8]
  }

  /// The whole of `input` inflated. More than `limit` bytes of output is a failure whose
  /// `partial` holds the first `limit` bytes (a zip bomb stops there).
  static func inflate(
    _ input: UnsafeBufferPointer<UInt8>, wrapper: Wrapper, expectedSize: Int = 0, limit: Int = .max
  ) throws(Failure) -> [UInt8] {
    let stream: InflateStream
    do {
      stream = try InflateStream(input, wrapper: wrapper)
    } catch {
      throw Failure(message: error.message, partial: [])
    }
    // Deflate expands at most 1032 to 1: a size from a header beyond that is a lie, and
    // must not reserve memory.
    let plausible = min(max(0, expectedSize), input.count &* 1032 &+ 4096, limit)
    var output = [UInt8](repeating: 0, count: max(min(plausible, limit), min(input.count * 4, limit), 1))
    var produced = 0
    while true {
      if produced == output.count {
        guard output.count < limit else {
          // At the limit: the stream must end here, one more byte is too many.
          var probe: UInt8 = 0
          if withUnsafeMutablePointer(
            to: &probe, { stream.read(into: UnsafeMutableBufferPointer(start: $0, count: 1)) })
            > 0
          {
            throw Failure(message: "inflated size exceeds the limit of \(limit) bytes", partial: output)
          }
          break
        }
        output.append(contentsOf: repeatElement(0, count: min(output.count, limit - output.count)))
      }
      let count = output.withUnsafeMutableBufferPointer {
        stream.read(into: UnsafeMutableBufferPointer(rebasing: $0[produced...]))
      }
      produced += count
      if count == 0 { break }
    }
    output.removeSubrange(produced...)
    if let failure = stream.failure { throw Failure(message: failure, partial: output) }
    return output
  }
}

/// Inflates `input` a chunk at a time, so that an archive far larger than memory can be
/// walked (a `.tar.gz` whose entries are mostly skipped). The input must stay valid
/// while the stream is used.
final class InflateStream {
  private var stream = z_stream()
  private let input: UnsafeBufferPointer<UInt8>
  private let wrapper: Inflate.Wrapper
  /// The compressed stream ended properly.
  private(set) var finished = false
  /// Why inflation stopped early (cut off, damaged).
  private(set) var failure: String?
  /// Bytes produced so far.
  private(set) var produced = 0

  init(_ input: UnsafeBufferPointer<UInt8>, wrapper: Inflate.Wrapper) throws(Inflate.Failure) {
    self.input = input
    self.wrapper = wrapper
    guard inflateInit2_(&stream, wrapper.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw Inflate.Failure(message: "cannot start zlib", partial: [])
    }
    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    // zlib counts in UInt32: more than 4 GiB of input is fed in parts (see `read`).
    stream.avail_in = UInt32(min(input.count, Int(UInt32.max)))
  }

  deinit { inflateEnd(&stream) }

  /// Compressed bytes consumed so far.
  var consumed: Int {
    guard let base = input.baseAddress, let next = stream.next_in else { return 0 }
    return UnsafePointer(next) - base
  }

  /// Fills `buffer` with the next inflated bytes and says how many; 0 at the end of
  /// the stream or at a failure (see `failure`).
  func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
    guard !finished, failure == nil, buffer.count > 0 else { return 0 }
    var filled = 0
    while filled < buffer.count {
      if stream.avail_in == 0 && consumed < input.count {
        stream.avail_in = UInt32(min(input.count - consumed, Int(UInt32.max)))
      }
      stream.next_out = buffer.baseAddress! + filled
      stream.avail_out = UInt32(min(buffer.count - filled, Int(UInt32.max)))
      let before = stream.avail_out
      let status = CZlib.inflate(&stream, Z_NO_FLUSH)
      filled += Int(before - stream.avail_out)
      switch status {
      case Z_STREAM_END:
        // gzip: another member may follow (`cat a.gz b.gz`); anything else is trailing junk.
        if wrapper == .gzip, input.count - consumed >= 2, input[consumed] == 0x1F, input[consumed + 1] == 0x8B,
          inflateReset(&stream) == Z_OK
        {
          continue
        }
        finished = true
        produced += filled
        return filled
      case Z_OK:
        continue
      case Z_BUF_ERROR where stream.avail_in > 0 || stream.avail_out == 0:
        continue
      default:
        failure =
          status == Z_BUF_ERROR
          ? "compressed data cut off at byte offset \(consumed)"
          : "compressed data damaged (zlib error \(status)) near byte offset \(consumed)"
        produced += filled
        return filled
      }
    }
    produced += filled
    return filled
  }
}
