/// One record of a capture: when, which way, which adapter, what kind, and its bytes.
///
/// `bytes` is a view into the reader's memory (the file mapping for btsnoop and
/// PacketLogger, libpcap's buffer for pcap). It stays valid until the next call to
/// `RecordSource.next()`; copy what must outlive that.
public struct Record {
  /// 1-based number of the record in file order, counting every record the file
  /// holds (tshark's `frame.number`).
  public var frame: Int
  public var timestamp: Timestamp
  public var direction: Direction?
  /// Controller index (Linux monitor sources); nil where the format records none.
  public var adapter: UInt16?
  public var kind: RecordKind
  /// Which file of the source the record comes from: an index into
  /// `RecordSource.sources` for a source that merges several files (the HCI logs of a
  /// bugreport or sysdiagnose), 0 otherwise. Kept next to `kind`, where it takes the
  /// padding before `bytes`: the record stays 72 bytes.
  public var sourceIndex: UInt16 = 0
  /// The packet without the capture format's framing: no H4 type byte, no monitor
  /// or direction pseudo-header. Link-layer packets are kept exactly as their link
  /// type defines them.
  public var bytes: UnsafeBufferPointer<UInt8>
  /// Length of the packet before the capture source cut it (Android filtered logs,
  /// btsnooz, snaplen); equal to `bytes.count` for a whole record.
  public var originalLength: Int
  /// Byte offset of the record in the file (for diagnostics).
  public var fileOffset: Int
  /// Records the capture source lost right before this one: the kernel dropped them from
  /// the monitor socket's full receive buffer, or a btsnoop file's cumulative drop count
  /// grew by this much.
  public var droppedBefore = 0

  public init(
    frame: Int, timestamp: Timestamp, direction: Direction?, adapter: UInt16?,
    kind: RecordKind, bytes: UnsafeBufferPointer<UInt8>, originalLength: Int, fileOffset: Int
  ) {
    self.frame = frame
    self.timestamp = timestamp
    self.direction = direction
    self.adapter = adapter
    self.kind = kind
    self.bytes = bytes
    self.originalLength = originalLength
    self.fileOffset = fileOffset
  }

  /// The capture source kept fewer bytes than the packet had.
  public var isCutBySource: Bool { originalLength > bytes.count }
}

/// Which way a packet went over the HCI transport.
public enum Direction: Sendable, Hashable {
  /// Host to controller (btsnoop "sent"; commands and outgoing data).
  case sent
  /// Controller to host (events and incoming data).
  case received
}

/// What a record holds, as its capture format frames it (nothing is decoded here).
public enum RecordKind: Sendable, Hashable {
  /// An HCI packet; the value is its H4 packet indicator (0x01 command, 0x02 ACL,
  /// 0x03 SCO, 0x04 event, 0x05 ISO), unknown values kept as they are.
  case hci(UInt8)
  /// A Linux monitor record that carries no HCI packet (New Index, System Note…).
  case monitor(MonitorOpcode)
  /// A PacketLogger record that carries no HCI packet (note, syslog, power…).
  case packetLogger(UInt8)
  /// A packet of an air sniffer's link type, raw.
  case linkLayer(LinkType)
  /// A record too short to hold its own framing (an H4 record without its type byte).
  case unframed
}

/// Linux monitor opcode (BlueZ `src/shared/btsnoop.h`), the same numbers in
/// btsnoop 2001 flags, the DLT 254 header and the live socket header.
public struct MonitorOpcode: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// NEW_INDEX
  public static let newIndex = Self(rawValue: 0)
  /// DEL_INDEX: the adapter went away.
  public static let deleteIndex = Self(rawValue: 1)
  /// OPEN_INDEX
  public static let openIndex = Self(rawValue: 8)
  /// CLOSE_INDEX
  public static let closeIndex = Self(rawValue: 9)
  /// COMMAND_PKT
  public static let commandPacket = Self(rawValue: 2)
  /// EVENT_PKT
  public static let eventPacket = Self(rawValue: 3)
  /// ACL_TX_PKT
  public static let aclTXPacket = Self(rawValue: 4)
  /// ACL_RX_PKT
  public static let aclRXPacket = Self(rawValue: 5)
  /// SCO_TX_PKT
  public static let scoTXPacket = Self(rawValue: 6)
  /// SCO_RX_PKT
  public static let scoRXPacket = Self(rawValue: 7)
  /// SYSTEM_NOTE
  public static let systemNote = Self(rawValue: 12)
  /// USER_LOGGING
  public static let userLogging = Self(rawValue: 13)
  /// ISO_TX_PKT
  public static let isoTXPacket = Self(rawValue: 18)
  /// ISO_RX_PKT
  public static let isoRXPacket = Self(rawValue: 19)
}

/// H4 packet indicators, as the capture formats use them for framing.
public enum H4 {
  public static let command: UInt8 = 0x01
  public static let acl: UInt8 = 0x02
  public static let sco: UInt8 = 0x03
  public static let event: UInt8 = 0x04
  public static let iso: UInt8 = 0x05

  /// The monitor opcodes that carry HCI packets, with their H4 type and direction.
  static let monitorPackets: [(MonitorOpcode, UInt8, Direction)] = [
    (.commandPacket, command, .sent), (.eventPacket, event, .received),
    (.aclTXPacket, acl, .sent), (.aclRXPacket, acl, .received),
    (.scoTXPacket, sco, .sent), (.scoRXPacket, sco, .received),
    (.isoTXPacket, iso, .sent), (.isoRXPacket, iso, .received),
  ]

  /// The H4 type and direction a monitor opcode stands for, nil for the others.
  static func packet(for opcode: MonitorOpcode) -> (type: UInt8, direction: Direction)? {
    guard let row = monitorPackets.first(where: { $0.0 == opcode }) else { return nil }
    return (row.1, row.2)
  }

  /// The monitor opcode for an HCI packet, nil for unknown types or directions.
  static func monitorOpcode(type: UInt8, direction: Direction?) -> MonitorOpcode? {
    guard let direction else { return nil }
    return monitorPackets.first(where: { $0.1 == type && $0.2 == direction })?.0
  }
}
