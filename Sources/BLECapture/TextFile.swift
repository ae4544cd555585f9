#if canImport(Glibc)
  import Glibc
#endif

/// Small whole files that are not captures: databases for `--import-db`, exported
/// databases, user dissectors.
public enum TextFile {
  /// The file's bytes as UTF-8 text (invalid sequences replaced); a file larger than
  /// `limit` bytes is refused with `tooLarge` as the reason.
  public static func read(_ path: String, limit: Int = .max, tooLarge: String = "too large") throws(CaptureError)
    -> String
  {
    let file = try MappedFile(path: path)
    guard file.bytes.count <= limit else { throw CaptureError(.unsupported(tooLarge), path: path) }
    return String(decoding: file.bytes, as: UTF8.self)
  }

  /// Writes `bytes` to `path`, replacing what was there.
  public static func write(_ bytes: [UInt8], to path: String) throws(CaptureError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
      let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
      done += written
    }
  }
}
