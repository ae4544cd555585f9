import BLEDissect

/// Who the peer of a link is when the capture does not show it (a log that starts
/// mid-connection): `--peer ADDR` for every such link, `--peer HANDLE=ADDR` for the link
/// on one connection handle. The GATT database of that address then names its handles.
public struct PeerAssignments: Sendable {
  /// The peer of every link not named by handle.
  public var all: DeviceAddress?
  public var byHandle: [UInt16: DeviceAddress] = [:]

  public init() {}

  /// The assignments `--peer` gives, each `AA:BB:CC:DD:EE:FF` or `HANDLE=AA:BB:CC:DD:EE:FF`
  /// (the handle decimal or 0x hex).
  public init(parsing texts: [String]) throws(PeerAssignmentError) {
    for text in texts {
      let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let address = parts.last.flatMap({ DeviceAddress($0) }) else {
        throw PeerAssignmentError(text: text, message: "expected AA:BB:CC:DD:EE:FF or HANDLE=AA:BB:CC:DD:EE:FF")
      }
      guard parts.count == 2 else {
        guard all == nil || all == address else {
          throw PeerAssignmentError(text: text, message: "a second peer for every link; name the handle")
        }
        all = address
        continue
      }
      let handleText = parts[0].lowercased()
      let handle =
        handleText.hasPrefix("0x") ? UInt16(handleText.dropFirst(2), radix: 16) : UInt16(handleText, radix: 10)
      guard let handle, handle <= 0x0EFF else {
        throw PeerAssignmentError(text: text, message: "the connection handle is not 0-0x0eff")
      }
      byHandle[handle] = address
    }
  }

  /// The peer assumed for the link on `handle`.
  public func peer(ofHandle handle: UInt16) -> DeviceAddress? {
    byHandle.isEmpty ? all : byHandle[handle] ?? all
  }
}

/// A `--peer` value that does not parse.
public struct PeerAssignmentError: Error, CustomStringConvertible {
  public var text: String
  public var message: String
  public var description: String { "--peer '\(text)': \(message)" }
}
