import BLECapture

/// The parameters of the Linux monitor records that carry no HCI packet but name
/// the adapter, as HCI parameter layouts (BlueZ `src/shared/btsnoop.h`; FORMATS.md,
/// section 2), so that `HCIParameters.locations(of:in:from:)` finds their fields.
///
///     NEW_INDEX (0)    type (1) | bus (1) | bdaddr (6) | name (8, NUL padded)
///     INDEX_INFO (10)  bdaddr (6) | manufacturer (2)
public enum MonitorRecordLayout {
  /// INDEX_INFO.
  public static let indexInfo = MonitorOpcode(rawValue: 10)

  /// The layout of a monitor record's payload, nil for records without one here.
  public static func layout(for opcode: MonitorOpcode) -> [HCIParameter]? {
    switch opcode {
    case .newIndex:
      [
        .enumeration("Type", [0x00: "Primary", 0x01: "AMP"]), .enumeration("Bus", buses), .address("BD_ADDR"),
        .text("Name", 8),
      ]
    case indexInfo: [.address("BD_ADDR"), .hex16("Manufacturer")]
    default: nil
    }
  }

  static let buses: [UInt64: String] = [
    0: "Virtual", 1: "USB", 2: "PCCARD", 3: "UART", 4: "RS232", 5: "PCI", 6: "SDIO", 7: "SPI", 8: "I2C", 9: "SMD",
    10: "VIRTIO", 11: "IPC",
  ]
}
