import BLECapture
import BLEDissect

/// Names an attribute in a `--pair` rule: a handle (`0x002d`) or a characteristic UUID
/// (`ff01`, `2a37`, or a 128-bit UUID).
public enum AttributeSelector: Hashable, Sendable, CustomStringConvertible {
  case handle(UInt16)
  case uuid(BluetoothUUID)

  /// `0x` and hex digits is a handle; anything else must be a UUID.
  public init?(parsing text: String) {
    if text.hasPrefix("0x") || text.hasPrefix("0X") {
      guard let value = UInt16(text.dropFirst(2), radix: 16) else { return nil }
      self = .handle(value)
    } else if let uuid = BluetoothUUID(text) {
      self = .uuid(uuid.normalized)
    } else {
      return nil
    }
  }

  func matches(_ handle: UInt16, _ attribute: GATTAttribute?) -> Bool {
    switch self {
    case .handle(let wanted): wanted == handle
    case .uuid(let wanted): attribute?.kind == .value && attribute?.characteristic?.normalized == wanted
    }
  }

  public var description: String {
    switch self {
    case .handle(let handle): "0x" + hex(handle)
    case .uuid(let uuid): uuid.description
    }
  }
}

/// `--pair WRITE:NOTIFY`: a write to WRITE is answered by the first notification or
/// indication of NOTIFY.
public struct PairRule: Hashable, Sendable {
  public var write: AttributeSelector
  public var notify: AttributeSelector

  public init?(parsing text: String) {
    let sides = text.split(separator: ":", omittingEmptySubsequences: false)
    guard sides.count == 2, let write = AttributeSelector(parsing: String(sides[0])),
      let notify = AttributeSelector(parsing: String(sides[1]))
    else { return nil }
    self.write = write
    self.notify = notify
  }
}

/// Finds the notification or indication that answers each write on one connection:
/// the first one, within the window, on another characteristic of the written
/// characteristic's service, or the one a `--pair` rule names. A later write to the
/// same handle (or, without a rule, the same service) replaces an unanswered one.
///
/// An answer is one the peer could have sent after the write reached it: the write goes
/// out at a connection event at the earliest, and the peer's answer at the next one, so
/// a notification less than one connection interval after the write (less
/// `jitter` for the host's timestamps) crossed it on the air and answers nothing; the
/// write waits on. Without a known interval, any later notification can answer. This is
/// the one home of that rule (`timeline`'s pairs, `stats`' round trips).
struct WriteNotifyPairer {
  /// How much earlier than one interval an answer may be stamped: the host stamps the
  /// write when it hands it to the controller and the notification when it gets it.
  static let jitter: Int64 = 1_250

  struct PendingWrite {
    var at: FrameTime
    var opcode: UInt8
    var handle: UInt16
    var direction: Direction?
    var attribute: GATTAttribute?
    /// What the `--pair` rules that name this write accept; empty: the same-service rule.
    var answers: [AttributeSelector]
  }

  private var writes: [PendingWrite] = []

  /// Notes a write to a characteristic value (or to a handle discovery did not name).
  mutating func write(
    _ at: FrameTime, opcode: UInt8, handle: UInt16, direction: Direction?, attribute: GATTAttribute?,
    rules: [PairRule]
  ) {
    let answers = rules.filter { $0.write.matches(handle, attribute) }.map(\.notify)
    // Without a rule, only a write whose service is known can be paired.
    guard !answers.isEmpty || attribute?.serviceHandle != nil else { return }
    // A write replaces the one to the same handle, and (without a rule) the one to the
    // same service, that is still waiting.
    let service = answers.isEmpty ? attribute?.serviceHandle : nil
    writes.removeAll {
      $0.handle == handle || (service != nil && $0.answers.isEmpty && $0.attribute?.serviceHandle == service)
    }
    writes.append(
      PendingWrite(
        at: at, opcode: opcode, handle: handle, direction: direction, attribute: attribute, answers: answers))
  }

  /// A notification or indication: the writes it answers, as pairs.
  mutating func notify(
    _ at: FrameTime, opcode: UInt8, handle: UInt16, direction: Direction?, attribute: GATTAttribute?,
    conn: Int, window: Int64, interval: ConnectionInterval?
  ) -> [WriteNotifyPair] {
    guard !writes.isEmpty else { return [] }
    writes.removeAll { $0.at.microseconds(to: at) > window }
    let earliest = (interval?.microseconds).map { $0 - Self.jitter } ?? 0
    var pairs: [WriteNotifyPair] = []
    var waiting: [PendingWrite] = []
    for write in writes {
      guard write.direction != direction || direction == nil, answers(write, handle, attribute),
        write.at.microseconds(to: at) >= earliest
      else {
        waiting.append(write)
        continue
      }
      pairs.append(
        WriteNotifyPair(
          conn: conn, write: write.at, writeOpcode: write.opcode, writeHandle: write.handle,
          writeAttribute: write.attribute, notify: at, notifyOpcode: opcode, notifyHandle: handle,
          notifyAttribute: attribute, byRule: !write.answers.isEmpty))
    }
    writes = waiting
    return pairs
  }

  private func answers(_ write: PendingWrite, _ handle: UInt16, _ attribute: GATTAttribute?) -> Bool {
    if !write.answers.isEmpty { return write.answers.contains { $0.matches(handle, attribute) } }
    guard let service = write.attribute?.serviceHandle, attribute?.serviceHandle == service else { return false }
    return attribute?.valueHandle != write.attribute?.valueHandle
  }
}
