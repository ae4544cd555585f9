#if canImport(Glibc)
  import Glibc
#endif

/// The capture formats bleanalyze writes.
public enum OutputFormat: String, CaseIterable, Sendable {
  case pcap, pcapng, btsnoop

  /// The format a file name asks for by its extension, if any.
  public init?(fileName: String) {
    let lower = fileName.lowercased()
    if lower.hasSuffix(".pcap") || lower.hasSuffix(".cap") {
      self = .pcap
    } else if lower.hasSuffix(".pcapng") || lower.hasSuffix(".ntar") {
      self = .pcapng
    } else if lower.hasSuffix(".btsnoop") || lower.hasSuffix(".snoop") || lower.hasSuffix(".log")
      || lower.hasSuffix(".cfa")
    {
      self = .btsnoop
    } else {
      return nil
    }
  }
}

/// Writes records to a capture file.
public protocol CaptureWriter: AnyObject {
  /// Writes one record; records the output cannot hold are counted in `skipped`.
  func write(_ record: Record) throws(CaptureError)
  /// Writes what is buffered to the file now, so that a process killed later loses
  /// little (live capture calls it whenever its source is idle).
  func flush() throws(CaptureError)
  /// Flushes and closes the file.
  func close() throws(CaptureError)
  /// Records left out because the output's framing has no place for them.
  var skipped: Int { get }
  /// What the writer writes, for people ("pcap, link type 201 (…)").
  var formatDescription: String { get }
}

/// Opens writers.
public enum CaptureWriters {
  /// A writer of `format` at `path` for records of `family`.
  ///
  /// H4 sources become DLT 201 or btsnoop 1002; monitor sources DLT 254 or btsnoop
  /// 2001; link-layer sources keep their link type (btsnoop cannot hold them).
  public static func open(
    _ path: String, format: OutputFormat, family: LinkFamily, resolution: TimestampResolution
  ) throws(CaptureError) -> any CaptureWriter {
    let framing = OutputFraming(family: family)
    switch format {
    case .pcap: return try PcapWriter(path: path, framing: framing, resolution: resolution)
    case .pcapng: return try PcapngWriter(path: path, framing: framing, resolution: resolution)
    case .btsnoop:
      guard case .linkLayer(let linkType) = family else {
        return try BtsnoopWriter(path: path, framing: framing)
      }
      throw CaptureError(
        .cannotWrite("btsnoop cannot hold link-layer packets (link type \(linkType)); write pcap or pcapng"), path: path
      )
    }
  }
}

/// How records are framed in the output: the pseudo-header and type byte put back
/// in front of `record.bytes`.
struct OutputFraming {
  let family: LinkFamily

  var linkType: LinkType {
    switch family {
    case .h4: .bluetoothHCIH4WithPHDR
    case .monitor: .bluetoothLinuxMonitor
    case .linkLayer(let type): type
    }
  }

  /// Fills `packet` with the record as a pcap/pcapng packet of `linkType`; returns
  /// false when the record has no place in it.
  func pcapPacket(_ record: Record, into packet: inout [UInt8]) -> Bool {
    packet.removeAll(keepingCapacity: true)
    switch (family, record.kind) {
    case (.h4, .hci(let type)):
      appendBigEndian(UInt32(record.direction == .received ? 1 : 0), to: &packet)
      packet.append(type)
    case (.h4, .unframed):
      appendBigEndian(UInt32(record.direction == .received ? 1 : 0), to: &packet)
    case (.monitor, _):
      guard let opcode = monitorOpcode(record) else { return false }
      appendBigEndian(record.adapter ?? 0xFFFF, to: &packet)
      appendBigEndian(opcode.rawValue, to: &packet)
    case (.linkLayer, .linkLayer):
      break
    default:
      return false
    }
    packet.append(contentsOf: record.bytes)
    return true
  }

  /// Fills `packet` with the btsnoop payload of the record and returns its flags;
  /// nil when the record has no place in btsnoop 1002/2001.
  func btsnoopPacket(_ record: Record, into packet: inout [UInt8]) -> UInt32? {
    packet.removeAll(keepingCapacity: true)
    let flags: UInt32
    switch (family, record.kind) {
    case (.h4, .hci(let type)):
      packet.append(type)
      flags = (record.direction == .received ? 1 : 0) | (type == H4.command || type == H4.event ? 2 : 0)
    case (.h4, .unframed):
      flags = record.direction == .received ? 1 : 0
    case (.monitor, _):
      guard let opcode = monitorOpcode(record) else { return nil }
      flags = UInt32(record.adapter ?? 0xFFFF) << 16 | UInt32(opcode.rawValue)
    default:
      return nil
    }
    packet.append(contentsOf: record.bytes)
    return flags
  }

  private func monitorOpcode(_ record: Record) -> MonitorOpcode? {
    switch record.kind {
    case .monitor(let opcode): opcode
    case .hci(let type): H4.monitorOpcode(type: type, direction: record.direction)
    default: nil
    }
  }
}

func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
  withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
}

func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
  withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
}

/// A file written through a large buffer with write(2).
final class OutputFile {
  let path: String
  private let fd: Int32
  private var buffer: [UInt8] = []

  init(path: String) throws(CaptureError) {
    self.path = path
    fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
    buffer.reserveCapacity(1 << 20)
  }

  func append(_ bytes: [UInt8]) throws(CaptureError) {
    buffer.append(contentsOf: bytes)
    if buffer.count >= 1 << 20 { try flush() }
  }

  func flush() throws(CaptureError) {
    var done = 0
    while done < buffer.count {
      let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      guard written > 0 else {
        if written < 0 && errno == EINTR { continue }
        throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path)
      }
      done += written
    }
    buffer.removeAll(keepingCapacity: true)
  }

  func close() throws(CaptureError) {
    try flush()
    guard Glibc.close(fd) == 0 else { throw CaptureError(.cannotWrite(MappedFile.errnoText()), path: path) }
  }
}
