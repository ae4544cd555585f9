/// Why a capture cannot be read at all. Each carries the path and says what was expected.
public struct CaptureError: Error, Sendable, CustomStringConvertible {
  public enum Reason: Sendable, Hashable {
    /// The file could not be opened or read (errno text).
    case cannotOpen(String)
    /// The file is empty (zero bytes).
    case empty
    /// The content is not a format bleanalyze reads.
    case notACapture
    /// A known format with something bleanalyze does not read (version, datalink,
    /// link type); the text names it.
    case unsupported(String)
    /// The file is damaged before its first record (header cut off, bad zip…).
    case damagedHeader(String)
    /// Writing failed.
    case cannotWrite(String)
  }

  public var path: String
  public var reason: Reason

  public init(_ reason: Reason, path: String) {
    self.reason = reason
    self.path = path
  }

  /// The formats bleanalyze reads, for messages.
  public static let acceptedFormats =
    "btsnoop (datalink 1001, 1002, 2001), pcap or pcapng (link types \(LinkType.acceptedList)), "
    + "Apple PacketLogger (.pklg), an Android bugreport (.zip, its folder, or its .txt with a btsnooz section) "
    + "or an iOS sysdiagnose (.tar.gz or its folder)"

  public var description: String {
    switch reason {
    case .cannotOpen(let why): return "\(path): cannot open: \(why)"
    case .empty: return "\(path): empty file; expected \(Self.acceptedFormats)"
    case .notACapture: return "\(path): not a capture file; expected \(Self.acceptedFormats)"
    case .unsupported(let what): return "\(path): \(what)"
    case .damagedHeader(let what): return "\(path): \(what)"
    case .cannotWrite(let why): return "\(path): cannot write: \(why)"
    }
  }
}

/// Where and why reading stopped before the end of the file: the records before it
/// were delivered, the rest of the file is not decodable as records.
public struct CaptureDamage: Sendable, Hashable, CustomStringConvertible {
  /// Byte offset in the file of the record that could not be read.
  public var offset: Int
  public var message: String

  public init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  public var description: String { "\(message) at byte offset \(offset)" }
}
