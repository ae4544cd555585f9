import BLEDissect

/// How attributes are named in output: the assigned-number name, else the UUID.
enum AttributeNames {
  static func name(of uuid: BluetoothUUID) -> String {
    AssignedNumbers.name(of: uuid) ?? uuid.normalized.description
  }
}

extension AttributeNames {
  /// The name alone, nil when the UUID has none.
  static func knownName(of uuid: BluetoothUUID) -> String? { AssignedNumbers.name(of: uuid) }
}
