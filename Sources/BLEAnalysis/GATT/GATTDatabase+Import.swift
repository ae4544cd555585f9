import BLEDissect

/// A database file that `--import-db` cannot use, with where in it.
public struct GATTImportError: Error, CustomStringConvertible {
  public var path: String
  public var message: String
  public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension GATTDatabase {
  /// The databases of a `gatt --format json` / `--export-db` document:
  /// `{"peers": [{"address", "services": [{"start", "end", "uuid", "primary",
  /// "includes", "characteristics": [{"declaration", "value", "uuid", "properties",
  /// "descriptors": [{"handle", "uuid"}]}]}]}]}`. Names are ignored.
  public static func imported(from text: String) throws(GATTImportError) -> [(
    address: DeviceAddress?, database: GATTDatabase
  )] {
    let document: JSONValue
    do {
      document = try JSONValue(parsing: text)
    } catch {
      throw GATTImportError(path: "", message: "not JSON: \(error)")
    }
    guard let peers = document["peers"]?.array else {
      throw GATTImportError(path: "", message: "expected an object with \"peers\" (as `gatt --format json` writes)")
    }
    var result: [(address: DeviceAddress?, database: GATTDatabase)] = []
    for (p, peer) in peers.enumerated() {
      let path = "peers[\(p)]"
      var address: DeviceAddress?
      if let text = peer["address"]?.string {
        guard let parsed = DeviceAddress(text) else {
          throw GATTImportError(path: path + ".address", message: "expected AA:BB:CC:DD:EE:FF")
        }
        address = parsed
      }
      var database = GATTDatabase()
      for (s, service) in (peer["services"]?.array ?? []).enumerated() {
        let path = "\(path).services[\(s)]"
        if service["start"] != nil {
          database.add(
            GATTService(
              start: try handle(service, "start", path), end: try handle(service, "end", path),
              uuid: try uuid(service, "uuid", path), primary: service["primary"]?.bool ?? true))
        }
        for (i, include) in (service["includes"]?.array ?? []).enumerated() {
          let path = "\(path).includes[\(i)]"
          database.add(
            GATTInclude(
              handle: try handle(include, "handle", path), start: try handle(include, "start", path),
              end: try handle(include, "end", path),
              uuid: include["uuid"] == nil ? nil : try uuid(include, "uuid", path)))
        }
        for (c, characteristic) in (service["characteristics"]?.array ?? []).enumerated() {
          let path = "\(path).characteristics[\(c)]"
          guard let properties = characteristic["properties"]?.number, (0...255).contains(properties) else {
            throw GATTImportError(path: path + ".properties", message: "expected a number 0–255")
          }
          database.add(
            GATTCharacteristic(
              declaration: try handle(characteristic, "declaration", path), properties: UInt8(properties),
              value: try handle(characteristic, "value", path), uuid: try uuid(characteristic, "uuid", path)))
          for (d, descriptor) in (characteristic["descriptors"]?.array ?? []).enumerated() {
            let path = "\(path).descriptors[\(d)]"
            database.addInformation(
              handle: try handle(descriptor, "handle", path), uuid: try uuid(descriptor, "uuid", path))
          }
        }
      }
      result.append((address, database))
    }
    return result
  }

  private static func handle(_ object: JSONValue, _ key: String, _ path: String) throws(GATTImportError) -> UInt16 {
    guard let value = object[key]?.number, value == value.rounded(), (1...0xFFFF).contains(value) else {
      throw GATTImportError(path: "\(path).\(key)", message: "expected a handle 1–65535")
    }
    return UInt16(value)
  }

  private static func uuid(_ object: JSONValue, _ key: String, _ path: String) throws(GATTImportError)
    -> BluetoothUUID
  {
    guard let text = object[key]?.string, let uuid = BluetoothUUID(text) else {
      throw GATTImportError(path: "\(path).\(key)", message: "expected a UUID such as \"2a37\"")
    }
    return uuid
  }
}
