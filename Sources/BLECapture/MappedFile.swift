#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A whole file mapped read-only into memory; records are views into it. A file taken
/// out of an archive is held in memory instead (`init(path:owned:)`), read the same way.
final class MappedFile {
  let path: String
  let bytes: UnsafeBufferPointer<UInt8>
  /// The memory of a file taken out of an archive; nil for a mapped file.
  private let owned: OwnedBytes?

  /// A file that is already in memory (inflated from an archive); `path` names it.
  init(path: String, owned: OwnedBytes) {
    self.path = path
    self.owned = owned
    bytes = owned.bytes
  }

  init(path: String) throws(CaptureError) {
    self.path = path
    owned = nil
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CaptureError(.cannotOpen(Self.errnoText()), path: path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CaptureError(.cannotOpen(Self.errnoText()), path: path) }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw CaptureError(.cannotOpen("is a directory"), path: path)
    }
    let size = Int(info.st_size)
    guard size > 0 else {
      bytes = UnsafeBufferPointer(start: nil, count: 0)
      return
    }
    guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
      throw CaptureError(.cannotOpen(Self.errnoText()), path: path)
    }
    _ = madvise(base, size, MADV_SEQUENTIAL)
    bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
  }

  deinit {
    if owned == nil, let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
  }

  /// Where the pages already given back end.
  private var released = 0
  /// Given back in steps of this many bytes (a multiple of any page size).
  static let releaseStep = 8 << 20

  /// Gives back the memory of the pages before `offset`, which a reader has gone past,
  /// so that a long file's resident size stays flat. The mapping stays: a page read
  /// again comes back from the file, unchanged.
  @inline(__always) func release(before offset: Int) {
    guard owned == nil, offset - released >= 2 * Self.releaseStep else { return }
    // Whole steps only: madvise takes page-aligned ranges.
    let end = (offset - Self.releaseStep) / Self.releaseStep * Self.releaseStep
    _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + released), end - released, MADV_DONTNEED)
    released = end
  }

  /// Gives back the memory of `range`'s whole release steps after a walk ahead of the
  /// reader (the reader maps them in again when it gets there).
  func release(walked range: Range<Int>) {
    guard owned == nil else { return }
    let start = (range.lowerBound + Self.releaseStep - 1) / Self.releaseStep * Self.releaseStep
    let end = range.upperBound / Self.releaseStep * Self.releaseStep
    guard end > start else { return }
    _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start), end - start, MADV_DONTNEED)
  }

  static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Big- and little-endian integer loads from unaligned positions of a buffer whose
/// bounds the caller has checked.
extension UnsafeBufferPointer<UInt8> {
  @inline(__always) func bigEndian32(at offset: Int) -> UInt32 {
    UInt32(bigEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt32.self))
  }
  @inline(__always) func littleEndian32(at offset: Int) -> UInt32 {
    UInt32(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt32.self))
  }
  @inline(__always) func bigEndian64(at offset: Int) -> UInt64 {
    UInt64(bigEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt64.self))
  }
  @inline(__always) func littleEndian16(at offset: Int) -> UInt16 {
    UInt16(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt16.self))
  }
  @inline(__always) func bigEndian16(at offset: Int) -> UInt16 {
    UInt16(bigEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt16.self))
  }
  @inline(__always) func littleEndian64(at offset: Int) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: UInt64.self))
  }

  /// The bytes `range` as a sub-view.
  @inline(__always) func view(_ start: Int, _ count: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: self[start..<start + count])
  }

  /// Whether the buffer starts with `prefix`.
  func starts(with prefix: [UInt8]) -> Bool {
    count >= prefix.count && zip(self, prefix).allSatisfy { $0 == $1 }
  }
}

/// Bytes made in memory (inflated btsnooz, zip entries) at a stable address, so
/// records can be views into them as into a mapped file.
final class OwnedBytes {
  let bytes: UnsafeBufferPointer<UInt8>

  init(_ content: [UInt8]) {
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: content.count)
    _ = storage.initialize(from: content)
    bytes = UnsafeBufferPointer(storage)
  }

  deinit { bytes.deallocate() }
}
