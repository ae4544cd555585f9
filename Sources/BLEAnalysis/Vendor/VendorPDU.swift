import BLECapture
import BLEDissect

/// One value of a vendor characteristic, as the trackers get it: whole (a long read
/// or prepared write already assembled), with who sent it and when.
struct VendorPDU {
  var role: VendorCharacteristic
  var value: [UInt8]
  /// Written by the GATT client (a write), rather than notified, indicated or read.
  var fromClient: Bool
  var frame: Int
  /// µs since the Unix epoch.
  var time: Int64
  var connection: ConnectionRef
  /// The attribute the value is about.
  unowned(unsafe) var attribute: GATTAttribute
  /// The frames whose PDUs carried the value, when it took several.
  var frames: [Int]
}

/// What a tracker makes of one PDU.
struct VendorOutcome {
  var record: VendorRecord?
  var diagnostics: [Diagnostic] = []

  init(_ record: VendorRecord? = nil, diagnostics: [Diagnostic] = []) {
    self.record = record
    self.diagnostics = diagnostics
  }

  static let none = VendorOutcome()
}

extension Diagnostic {
  /// A decoder's error as the diagnostic `id`: `mcumgr.body.invalid: cbor a length of 300 with 4 bytes left at offset 9`.
  static func vendor(_ id: String, _ error: DecodeError, severity: Severity = .warning) -> Diagnostic {
    Diagnostic(id: id, severity: severity, error.description)
  }
}
