/// The diagnostics of the protocols carried in characteristic values (Vendor/ and its
/// trackers in BLEAnalysis).
public enum VendorDiagnostics {
  public static let ids: [(id: String, meaning: String)] = [
    (
      "mcumgr.truncated",
      "a new mcumgr message began before the one under way had all the bytes its header's Data Length announced (a fragment was lost)"
    ),
    ("mcumgr.body.invalid", "an mcumgr message's data is not one CBOR data item; the message gives the offset and why"),
    ("mcumgr.length.extra", "an ATT value holds bytes after the mcumgr message its header announces; they are ignored"),
    ("mcumgr.error", "an mcumgr response carries an error: `rc` other than 0, or an SMP v2 `err`"),
    (
      "mcumgr.upload.stalled",
      "an mcumgr image upload made no progress for 2 s or more; on the record where it moved on or ended"
    ),
    ("dfu.invalid", "a Nordic DFU control point value with an unknown opcode, or parameters that do not fit it"),
    ("dfu.error", "a Nordic DFU response whose result is not Success (an extended error is named)"),
    (
      "dfu.crc.mismatch",
      "a Secure DFU checksum (offset and CRC-32) differs from the CRC-32 of the bytes the capture shows written to the packet characteristic"
    ),
    ("dfu.init.invalid", "a Secure DFU init packet that is not a dfu-cc protocol buffer with an InitCommand"),
    ("dfu.stalled", "a Nordic DFU transfer made no progress for 2 s or more; on the record where it moved on or ended"),
    ("nus.line.limit", "a Nordic UART line grew past 4,096 bytes without a line end; it is shown in parts"),
    (
      "hid.report_map.invalid",
      "a HID Report Map is not a valid report descriptor (an item cut short, collections unbalanced or nested deeper than 32, a bound exceeded)"
    ),
    (
      "hid.report.truncated", "a HID report is shorter than its layout in the Report Map; the fields it holds are shown"
    ),
    ("hid.invalid", "a HID Information, Protocol Mode, Control Point or Report Reference value of the wrong size"),
    ("ancs.invalid", "an ANCS Notification Source, Control Point or Data Source value that does not fit the spec"),
    ("ams.invalid", "an AMS Remote Command, Entity Update or Entity Attribute value that does not fit the spec"),
    (
      "vendor.state.limit",
      "vendor protocol state reached its bound (16,384 connections or GATT servers followed, 64 KiB in reassembly per connection); further data is decoded without it"
    ),
  ]
}
