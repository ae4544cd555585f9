/// A pcap link type (LINKTYPE_* / DLT_* number).
public struct LinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// LINKTYPE_USER10: the Adafruit Bluefruit LE sniffer (legacy nRF Sniffer v1).
  public static let user10 = Self(rawValue: 157)
  /// LINKTYPE_BLUETOOTH_HCI_H4: H4 type byte + HCI, no direction.
  public static let bluetoothHCIH4 = Self(rawValue: 187)
  /// LINKTYPE_PPI: Per-Packet Information (Ubertooth LE captures).
  public static let ppi = Self(rawValue: 192)
  /// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR: 4-byte big-endian direction + H4 + HCI.
  public static let bluetoothHCIH4WithPHDR = Self(rawValue: 201)
  /// LINKTYPE_BLUETOOTH_LE_LL: access address + LL PDU + CRC.
  public static let bluetoothLELL = Self(rawValue: 251)
  /// LINKTYPE_BLUETOOTH_LINUX_MONITOR: 4-byte big-endian adapter + opcode header.
  public static let bluetoothLinuxMonitor = Self(rawValue: 254)
  /// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR: 10-byte RF header + LE LL packet.
  public static let bluetoothLELLWithPHDR = Self(rawValue: 256)
  /// LINKTYPE_NORDIC_BLE: nRF Sniffer.
  public static let nordicBLE = Self(rawValue: 272)

  /// The link types bleanalyze reads, with their names.
  public static let supported: [(LinkType, String)] = [
    (.bluetoothHCIH4, "BLUETOOTH_HCI_H4"),
    (.bluetoothHCIH4WithPHDR, "BLUETOOTH_HCI_H4_WITH_PHDR"),
    (.bluetoothLinuxMonitor, "BLUETOOTH_LINUX_MONITOR"),
    (.bluetoothLELL, "BLUETOOTH_LE_LL"),
    (.bluetoothLELLWithPHDR, "BLUETOOTH_LE_LL_WITH_PHDR"),
    (.nordicBLE, "NORDIC_BLE"),
    (.user10, "USER10 (Bluefruit LE sniffer)"),
    (.ppi, "PPI (Ubertooth)"),
  ]

  public var isSupported: Bool { Self.supported.contains { $0.0 == self } }

  public var description: String {
    Self.supported.first { $0.0 == self }.map { "\(rawValue) (\($0.1))" } ?? "\(rawValue)"
  }

  /// One line listing the accepted link types, for error messages.
  public static var acceptedList: String {
    supported.map { String($0.0.rawValue) }.joined(separator: ", ")
  }
}

/// How the records of a capture are framed, which decides how they can be written.
public enum LinkFamily: Sendable, Hashable {
  /// HCI packets with an H4 type and a direction (btsnoop 1001/1002, DLT 187/201,
  /// PacketLogger, btsnooz).
  case h4
  /// Linux monitor records (btsnoop 2001, DLT 254): HCI packets plus controller
  /// index, system notes and control messages.
  case monitor
  /// Air sniffer packets of one link type.
  case linkLayer(LinkType)
}
