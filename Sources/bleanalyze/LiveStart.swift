import BLECapture

/// The lines `live` writes on stderr about its source.
enum LiveStart {
  /// Once the source is open and capturing: `capturing on hci0 (monitor socket open, …)`,
  /// `capturing on every adapter (…)`, `capturing from FILE (btsnoop stream, …)`.
  static func message(label: String, source: any RecordSource) -> String {
    guard let monitor = source as? MonitorSocketReader else {
      return "capturing from \(label) (\(source.formatDescription))"
    }
    let adapter = monitor.adapter.map { "hci\($0)" } ?? "every adapter"
    let drops = monitor.drops.counting ? "" : ", kernel drop count unavailable"
    return "capturing on \(adapter) (monitor socket open, receive buffer \(monitor.bufferSize) bytes\(drops))"
  }

  /// At the end, when the kernel dropped records.
  static func dropsMessage(_ count: Int, bufferSize: Int) -> String {
    "the kernel dropped \(count) record\(count == 1 ? "" : "s") (receive buffer of \(bufferSize) bytes full); "
      + "each gap is marked capture.dropped, --buffer-size raises the buffer"
  }
}
