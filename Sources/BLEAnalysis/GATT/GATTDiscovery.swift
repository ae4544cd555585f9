import BLEDissect

/// One entry of a discovery response, read with the type its request asked for
/// (Core 6.0, Vol 3, Part G, 4.4–4.7).
public enum GATTDiscovered: Hashable, Sendable {
  /// Read By Group Type Response to a «Primary Service» or «Secondary Service» request,
  /// or Find By Type Value Response to one (the UUID is the value searched for).
  case service(GATTService)
  /// Read By Type Response to a «Characteristic» request.
  case characteristic(GATTCharacteristic)
  /// Read By Type Response to an «Include» request.
  case include(GATTInclude)
  /// Find Information Response: a handle and its type.
  case descriptor(handle: UInt16, uuid: BluetoothUUID)
  /// Find By Type Value Response whose request type is not a service: a handle range.
  case range(start: UInt16, end: UInt16)

  /// Calls `body` with each entry of a discovery response, in order. `exchange` is what
  /// the response answers; a Read By Type Response to another type lists no entries.
  public static func forEach(
    in att: ATTPDU, _ bytes: UnsafeRawBufferPointer, _ exchange: ATTExchange?, _ body: (GATTDiscovered) -> Void
  ) {
    let type = exchange?.requestType?.shortValue
    switch att.parameters {
    case .attributeDataList(let length, let list) where att.opcode == .readByGroupTypeResponse:
      guard type == 0x2800 || type == 0x2801 else { return }
      for offset in entries(bytes, list, size: Int(length)) {
        guard let start = bytes.littleEndianUInt16(at: offset), let end = bytes.littleEndianUInt16(at: offset + 2),
          let uuid = bytes.bluetoothUUID(at: offset + 4, width: Int(length) - 4)
        else { continue }
        body(.service(GATTService(start: start, end: end, uuid: uuid, primary: type == 0x2800)))
      }
    case .attributeDataList(let length, let list) where type == 0x2803:
      for offset in entries(bytes, list, size: Int(length)) {
        guard length >= 7, let declaration = bytes.littleEndianUInt16(at: offset),
          let value = bytes.littleEndianUInt16(at: offset + 3),
          let uuid = bytes.bluetoothUUID(at: offset + 5, width: Int(length) - 5)
        else { continue }
        body(
          .characteristic(
            GATTCharacteristic(declaration: declaration, properties: bytes[offset + 2], value: value, uuid: uuid)))
      }
    case .attributeDataList(let length, let list) where type == 0x2802:
      for offset in entries(bytes, list, size: Int(length)) {
        guard length >= 6, let handle = bytes.littleEndianUInt16(at: offset),
          let start = bytes.littleEndianUInt16(at: offset + 2), let end = bytes.littleEndianUInt16(at: offset + 4)
        else { continue }
        let uuid = length == 8 ? bytes.bluetoothUUID(at: offset + 6, width: 2) : nil
        body(.include(GATTInclude(handle: handle, start: start, end: end, uuid: uuid)))
      }
    case .findInformation(let format, let list):
      guard let size = ATTParameters.findInformationEntrySize(format: format) else { return }
      for offset in entries(bytes, list, size: size) {
        guard let handle = bytes.littleEndianUInt16(at: offset),
          let uuid = bytes.bluetoothUUID(at: offset + 2, width: size - 2)
        else { continue }
        body(.descriptor(handle: handle, uuid: uuid))
      }
    case .handlesInformationList(let list):
      let service = (type == 0x2800 || type == 0x2801) ? exchange?.requestValueUUID : nil
      for offset in entries(bytes, list, size: 4) {
        guard let start = bytes.littleEndianUInt16(at: offset), let end = bytes.littleEndianUInt16(at: offset + 2)
        else { continue }
        if let service {
          body(.service(GATTService(start: start, end: end, uuid: service, primary: type == 0x2800)))
        } else {
          body(.range(start: start, end: end))
        }
      }
    default:
      break
    }
  }

  /// Whether `att` is a response `forEach` reads entries from.
  public static func isDiscoveryResponse(_ att: ATTPDU) -> Bool {
    switch att.opcode {
    case .readByGroupTypeResponse, .readByTypeResponse, .findInformationResponse, .findByTypeValueResponse: true
    default: false
    }
  }

  /// The offsets of the whole `size`-byte entries of `list`.
  private static func entries(_ bytes: UnsafeRawBufferPointer, _ list: ByteRange, size: Int) -> StrideTo<Int> {
    let span = bytes.bounds(of: list)
    guard size > 0 else { return stride(from: 0, to: 0, by: 1) }
    return stride(from: span.lowerBound, to: span.upperBound - size + 1, by: size)
  }
}
