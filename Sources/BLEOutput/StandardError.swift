#if canImport(Glibc)
  import Glibc
#endif

/// Writes `text` to standard error as it is (no newline added).
public func writeStandardError(_ text: String) {
  var text = text
  text.withUTF8 { bytes in
    var done = 0
    while done < bytes.count {
      let written = write(2, bytes.baseAddress! + done, bytes.count - done)
      if written <= 0 {
        if written < 0 && errno == EINTR { continue }
        return
      }
      done += written
    }
  }
}

/// Writes `bleanalyze: <message>` and a newline to standard error.
public func report(_ message: String) {
  writeStandardError("bleanalyze: \(message)\n")
}
