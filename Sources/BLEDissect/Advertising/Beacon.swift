/// A beacon format recognised in advertising data.
public enum Beacon: Hashable, Sendable {
  /// Apple iBeacon: manufacturer data of company 0x004C with type 0x02, length 0x15.
  ///
  ///     0      2      3      4                  20      22      24
  ///     +------+------+------+------------------+-------+-------+-------+
  ///     | 4c00 | 02   | 15   | proximity UUID   | major | minor | power |
  ///     +------+------+------+------------------+-------+-------+-------+
  ///
  /// UUID, major and minor are big-endian; power is the RSSI at 1 m in dBm.
  case iBeacon(uuid: BluetoothUUID, major: UInt16, minor: UInt16, measuredPower: Int8)
  /// Eddystone-UID (service data of 0xFEAA, frame type 0x00): 10-octet namespace,
  /// 6-octet instance; `txPower` is the calibrated power at 0 m in dBm.
  case eddystoneUID(namespace: [UInt8], instance: [UInt8], txPower: Int8)
  /// Eddystone-URL (frame type 0x10), the URL expanded.
  case eddystoneURL(url: String, txPower: Int8)
  /// Eddystone-TLM (frame type 0x20), unencrypted version 0x00: battery in mV (0 when
  /// not supported), temperature in °C (nil for 0x8000), PDUs sent since power-up, and
  /// time since power-up in 0.1 s.
  case eddystoneTLM(batteryMillivolts: UInt16, temperature: Double?, advertisingCount: UInt32, uptimeTenths: UInt32)
  /// Eddystone-EID (frame type 0x30): an 8-octet ephemeral identifier.
  case eddystoneEID(eid: [UInt8], txPower: Int8)
  /// Exposure Notification (service data of 0xFD6F): Rolling Proximity Identifier and
  /// Associated Encrypted Metadata.
  case exposureNotification(rpi: [UInt8], metadata: [UInt8])

  /// `iBeacon`, `Eddystone-UID`, `Eddystone-URL`, `Eddystone-TLM`, `Eddystone-EID`,
  /// `Exposure Notification`.
  public var kind: String {
    switch self {
    case .iBeacon: "iBeacon"
    case .eddystoneUID: "Eddystone-UID"
    case .eddystoneURL: "Eddystone-URL"
    case .eddystoneTLM: "Eddystone-TLM"
    case .eddystoneEID: "Eddystone-EID"
    case .exposureNotification: "Exposure Notification"
    }
  }

  static let apple: UInt16 = 0x004C
  static let eddystone: UInt16 = 0xFEAA
  static let exposureNotificationService: UInt16 = 0xFD6F

  /// The beacon the AD structures hold, if any. `bytes` is the buffer their ranges index.
  public static func recognise(_ structures: [ADStructure], in bytes: UnsafeRawBufferPointer) -> Beacon? {
    for structure in structures {
      switch structure.value {
      case .manufacturerData(let company, let range) where company == apple:
        if let beacon = iBeacon(slice(bytes, range)) { return beacon }
      case .serviceData(let uuid, let range) where uuid.width == .bits16:
        let short = uuid.shortValue
        if short == UInt32(eddystone), let beacon = eddystone(slice(bytes, range)) { return beacon }
        if short == UInt32(exposureNotificationService), range.count == 20 {
          let data = slice(bytes, range)
          return .exposureNotification(rpi: Array(data.prefix(16)), metadata: Array(data.suffix(4)))
        }
      default: continue
      }
    }
    return nil
  }

  static func slice(_ bytes: UnsafeRawBufferPointer, _ range: ByteRange) -> ArraySlice<UInt8> {
    let end = min(bytes.count, range.start + range.count)
    return Array(bytes[min(range.start, end)..<end])[...]
  }

  /// The manufacturer data after the company identifier.
  static func iBeacon(_ data: ArraySlice<UInt8>) -> Beacon? {
    let d = Array(data)
    guard d.count == 23, d[0] == 0x02, d[1] == 0x15 else { return nil }
    var uuid: UInt128 = 0
    for byte in d[2..<18] { uuid = uuid << 8 | UInt128(byte) }
    return .iBeacon(
      uuid: BluetoothUUID(uuid128: uuid), major: bigEndian(d[18], d[19]), minor: bigEndian(d[20], d[21]),
      measuredPower: Int8(bitPattern: d[22]))
  }

  /// The service data after the 0xFEAA UUID.
  static func eddystone(_ data: ArraySlice<UInt8>) -> Beacon? {
    let d = Array(data)
    guard let frame = d.first else { return nil }
    switch frame {
    case 0x00 where d.count >= 18:
      return .eddystoneUID(namespace: Array(d[2..<12]), instance: Array(d[12..<18]), txPower: Int8(bitPattern: d[1]))
    case 0x10 where d.count >= 3:
      guard let scheme = urlSchemes[d[2]] else { return nil }
      var url = scheme
      for byte in d[3...] {
        if let expansion = urlExpansions[byte] {
          url += expansion
        } else if (0x21...0x7E).contains(byte) {
          url.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
          return nil
        }
      }
      return .eddystoneURL(url: url, txPower: Int8(bitPattern: d[1]))
    case 0x20 where d.count >= 14 && d[1] == 0x00:
      let temperature = bigEndian(d[4], d[5])
      return .eddystoneTLM(
        batteryMillivolts: bigEndian(d[2], d[3]),
        temperature: temperature == 0x8000 ? nil : Double(Int16(bitPattern: temperature)) / 256,
        advertisingCount: UInt32(bigEndian(d[6], d[7])) << 16 | UInt32(bigEndian(d[8], d[9])),
        uptimeTenths: UInt32(bigEndian(d[10], d[11])) << 16 | UInt32(bigEndian(d[12], d[13])))
    case 0x30 where d.count >= 10:
      return .eddystoneEID(eid: Array(d[2..<10]), txPower: Int8(bitPattern: d[1]))
    default:
      return nil
    }
  }

  static func bigEndian(_ high: UInt8, _ low: UInt8) -> UInt16 { UInt16(high) << 8 | UInt16(low) }

  /// Eddystone-URL scheme prefixes.
  static let urlSchemes: [UInt8: String] = [
    0x00: "http://www.", 0x01: "https://www.", 0x02: "http://", 0x03: "https://",
  ]
  /// Eddystone-URL expansion codes 0x00-0x0D.
  static let urlExpansions: [UInt8: String] = [
    0x00: ".com/", 0x01: ".org/", 0x02: ".edu/", 0x03: ".net/", 0x04: ".info/", 0x05: ".biz/", 0x06: ".gov/",
    0x07: ".com", 0x08: ".org", 0x09: ".edu", 0x0A: ".net", 0x0B: ".info", 0x0C: ".biz", 0x0D: ".gov",
  ]
}
