import BLECapture

/// Names of the records that carry no HCI packet.
public enum RecordKindNames {
  /// Linux monitor opcodes (BlueZ `src/shared/btsnoop.h`), data-contract style.
  static let monitor: [UInt16: String] = [
    0: "new_index", 1: "del_index", 2: "command", 3: "event", 4: "acl_tx", 5: "acl_rx", 6: "sco_tx",
    7: "sco_rx", 8: "open_index", 9: "close_index", 10: "index_info", 11: "vendor_diag", 12: "system_note",
    13: "user_logging", 14: "ctrl_open", 15: "ctrl_close", 16: "ctrl_command", 17: "ctrl_event",
    18: "iso_tx", 19: "iso_rx",
  ]

  /// PacketLogger record types without an HCI packet.
  static let packetLogger: [UInt8: String] = [
    0x0A: "lmp_sent", 0x0B: "lmp_received", 0xF7: "syslog", 0xF8: "kernel", 0xF9: "kernel_debug",
    0xFA: "error", 0xFB: "power", 0xFC: "note", 0xFD: "config", 0xFE: "new_controller",
  ]

  public static func name(_ opcode: MonitorOpcode) -> String {
    monitor[opcode.rawValue] ?? "monitor_\(opcode.rawValue)"
  }

  public static func packetLoggerName(_ type: UInt8) -> String {
    packetLogger[type] ?? "packetlogger_0x" + hex(type)
  }
}
