import BLEDissect

extension DissectorLibrary {
  /// How an attribute is named in output and filters: its assigned-number or dissector
  /// name, else the UUID (`2a37`, or the 36-character form).
  public func displayName(of uuid: BluetoothUUID) -> String {
    name(of: uuid) ?? uuid.normalized.description
  }
}
