import BLEDissect

/// How attributes are named in output and filters: the assigned-number name, else the UUID.
public enum AttributeNames {
  public static func name(of uuid: BluetoothUUID) -> String {
    knownName(of: uuid) ?? uuid.normalized.description
  }

  /// The name alone, nil when the UUID has none.
  public static func knownName(of uuid: BluetoothUUID) -> String? { AssignedNumbers.name(of: uuid) }
}
