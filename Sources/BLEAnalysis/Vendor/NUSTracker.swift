import BLEDissect

/// What a record says in the Nordic UART Service: the lines its PDU completes, and the
/// text it leaves waiting for a line end.
///
/// Nordic Semiconductor, nRF Connect SDK "Nordic UART Service (NUS)" (service
/// 6E400001-B5A3-F393-E0A9-E50E24DCCA9E; RX 6E400002-… written by the central, TX
/// 6E400003-… notified by the peripheral). The service moves bytes; consoles over it
/// send text lines ended by CR LF, LF or CR, which may take several PDUs.
public struct NUSRecord: Sendable {
  /// `rx`: written by the central to the peripheral's RX characteristic; `tx`:
  /// notified by the peripheral on TX (Nordic's names, from the peripheral's side).
  public var channel: String
  /// The text this PDU completes, from the first PDU of its first line, line ends included.
  public var text: String?
  /// The lines it completes, without their ends.
  public var lines: [String] = []
  /// Text after the last line end, waiting for more.
  public var partial: String?
  /// How many PDUs the completed text took, and their frames.
  public var pdus = 0
  public var frames: [Int] = []
  /// A PDU that is not text, as it is.
  public var data: [UInt8]?

  static let table: VendorFieldTable = {
    let p = "nus"
    let r: @Sendable (VendorRecord) -> NUSRecord? = { $0.nus }
    return VendorFieldTable(
      name: p,
      description:
        "Nordic UART Service text: the lines an RX write or TX notification completes, and the text waiting for a line end.",
      fields: [
        VendorField("stream", "Channel", .string, of: p, r) { .string($0.channel) },
        VendorField("text", "Text", .string, of: p, r) { .text($0.text) },
        VendorField("lines", "Lines", .strings, as: "line", of: p, r) { .list($0.lines) },
        VendorField("partial_line", "Waiting For A Line End", .string, of: p, r) { .text($0.partial) },
        VendorField("pdus", "PDUs", .integer, of: p, r) { $0.pdus > 0 ? .int($0.pdus) : nil },
        VendorField("frames", "Frames", .integers, as: "frame", of: p, r) {
          $0.frames.count > 1 ? .integers($0.frames.map(Int64.init)) : nil
        },
        VendorField("data", "Data", .bytes, of: p, r) { $0.data.map { .bytes($0) } },
      ])
  }()
}

/// Puts Nordic UART text back into lines, per connection and direction.
struct NUSTracker {
  struct Buffer {
    var bytes: [UInt8] = []
    var frames: [Int] = []
    /// The last line ended with CR: an LF first in the next PDU belongs to it.
    var afterCR = false
  }

  /// A line grows at most this long before it is shown in parts.
  static let maximumLine = 4_096

  private var links: [Int: [Bool: Buffer]] = [:]

  var connectionCount: Int { links.count }

  mutating func analyze(_ pdu: VendorPDU) -> VendorOutcome {
    let rx = pdu.role == .nusRX
    var record = NUSRecord(channel: rx ? "rx" : "tx")
    guard Self.isText(pdu.value) else {
      record.data = pdu.value
      return VendorOutcome(.nus(record))
    }
    var buffer = links[pdu.connection.id]?[rx] ?? Buffer()
    defer { links[pdu.connection.id, default: [:]][rx] = buffer }
    var value = pdu.value[...]
    if buffer.afterCR, value.first == 0x0A { value = value.dropFirst() }
    buffer.afterCR = false
    guard !value.isEmpty else { return VendorOutcome(.nus(record)) }
    buffer.bytes += value
    buffer.frames.append(pdu.frame)
    var diagnostics: [Diagnostic] = []
    var end = buffer.bytes.lastIndex { $0 == 0x0A || $0 == 0x0D }.map { $0 + 1 }
    let forced = end == nil && buffer.bytes.count > Self.maximumLine
    if forced {
      diagnostics.append(
        Diagnostic(
          id: "nus.line.limit", severity: .info,
          "\(buffer.bytes.count) bytes without a line end; shown as a line of their own"))
      end = buffer.bytes.count
    }
    if let end {
      let complete = Array(buffer.bytes[..<end])
      record.text = String(decoding: complete, as: UTF8.self)
      record.lines = forced ? [record.text ?? ""] : Self.lines(complete)
      record.pdus = buffer.frames.count
      record.frames = buffer.frames
      buffer.afterCR = complete.last == 0x0D
      buffer.bytes.removeFirst(end)
      buffer.frames = buffer.bytes.isEmpty ? [] : [pdu.frame]
    }
    if !buffer.bytes.isEmpty { record.partial = String(decoding: buffer.bytes, as: UTF8.self) }
    return VendorOutcome(.nus(record), diagnostics: diagnostics)
  }

  /// The lines of text that ends with a line end: CR LF, LF and CR each end one.
  static func lines(_ bytes: [UInt8]) -> [String] {
    var lines: [String] = []
    var start = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x0A || byte == 0x0D {
        lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
        if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
        start = index + 1
      }
      index += 1
    }
    return lines
  }

  /// No control characters other than tab, CR and LF (a UTF-8 character may be split
  /// between two PDUs, so the bytes are decoded once joined).
  static func isText(_ bytes: [UInt8]) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
  }

  mutating func ended(_ connection: Int) { links[connection] = nil }
}
