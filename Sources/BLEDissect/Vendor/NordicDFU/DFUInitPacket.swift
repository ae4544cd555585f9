/// The CRC-32 Secure DFU reports for the bytes written to an object type: ISO 3309 /
/// ITU-T V.42 (polynomial 0x04C11DB7 reflected, initial and final XOR 0xFFFFFFFF), as
/// zlib's `crc32` and nRF5 SDK's `crc32_compute` compute it.
public struct CRC32: Hashable, Sendable {
  /// The running register, before the final XOR.
  private var register: UInt32 = 0xFFFF_FFFF

  public init() {}

  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  public mutating func update(_ bytes: some Sequence<UInt8>) {
    for byte in bytes { register = Self.table[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8) }
  }

  /// The CRC of the bytes so far.
  public var value: UInt32 { register ^ 0xFFFF_FFFF }
}

/// What a Secure DFU init packet (the command object: a `dfu-cc` protocol buffer)
/// says about the firmware that follows.
///
/// nRF5 SDK 17.1, `dfu-cc.proto`: `Packet` {1 `command`, 2 `signed_command`},
/// `SignedCommand` {1 `command`, 2 `signature_type`, 3 `signature`}, `Command`
/// {1 `op_code`, 2 `init`}, `InitCommand` {1 `fw_version`, 2 `hw_version`, 3 `sd_req`,
/// 4 `type`, 5 `sd_size`, 6 `bl_size`, 7 `app_size`, 8 `hash`, 9 `is_debug`}. Some tools
/// send a `SignedCommand` without the `Packet` around it; both read the same here.
public struct DFUInitPacket: Hashable, Sendable {
  public var firmwareVersion: UInt32?
  public var hardwareVersion: UInt32?
  /// `FwType`: 0 application, 1 SoftDevice, 2 bootloader, 3 SoftDevice and bootloader,
  /// 4 external application.
  public var type: UInt32?
  public var softDeviceSize: UInt32 = 0
  public var bootloaderSize: UInt32 = 0
  public var applicationSize: UInt32 = 0
  /// The firmware's size: the sum of the three sizes, the bytes the data objects carry.
  public var firmwareSize: UInt32 { softDeviceSize &+ bootloaderSize &+ applicationSize }
  /// It carries a signature (`SignedCommand`).
  public var signed = false

  public var typeName: String? {
    type.map {
      switch $0 {
      case 0: "application"
      case 1: "SoftDevice"
      case 2: "bootloader"
      case 3: "SoftDevice and bootloader"
      case 4: "external application"
      default: "type \($0)"
      }
    }
  }

  /// Reads an init packet; throws when it is not a protocol buffer holding an
  /// `InitCommand`.
  public init(parsing bytes: [UInt8]) throws(DecodeError) {
    let top = try Self.fields(bytes, base: 0)
    var command = top.first { $0.number == 1 && $0.bytes != nil }
    if let signed = top.first(where: { $0.number == 2 && $0.bytes != nil }), let content = signed.bytes {
      command = try Self.fields(content, base: signed.offset).first { $0.number == 1 && $0.bytes != nil }
      self.signed = true
    } else if top.contains(where: { $0.number == 3 && $0.bytes != nil }) {
      self.signed = true
    }
    guard let command, let commandBytes = command.bytes,
      let initCommand = try Self.fields(commandBytes, base: command.offset).first(where: {
        $0.number == 2 && $0.bytes != nil
      }), let initBytes = initCommand.bytes
    else {
      throw DecodeError(.invalid("an init packet without an InitCommand"), at: 0, layer: .dfu)
    }
    for field in try Self.fields(initBytes, base: initCommand.offset) {
      // Every field but sd_req (3, packed or not), hash (8) and boot_validation (10) is a varint.
      let lengthDelimited: Bool? =
        switch field.number {
        case 1, 2, 4, 5, 6, 7, 9: false
        case 8, 10: true
        default: nil
        }
      if let lengthDelimited, lengthDelimited ? field.bytes == nil : field.varint == nil {
        let wire = field.bytes != nil ? "length-delimited" : field.varint != nil ? "a varint" : "fixed-size"
        throw DecodeError(
          .invalid(
            "InitCommand field \(field.number) is \(wire), dfu-cc.proto makes it \(lengthDelimited ? "length-delimited" : "a varint")"
          ), at: field.offset, layer: .dfu)
      }
      guard let value = field.varint.map({ UInt32(truncatingIfNeeded: $0) }) else { continue }
      switch field.number {
      case 1: firmwareVersion = value
      case 2: hardwareVersion = value
      case 4: type = value
      case 5: softDeviceSize = value
      case 6: bootloaderSize = value
      case 7: applicationSize = value
      default: break
      }
    }
  }

  /// One protocol buffer field: its number and its varint or length-delimited content.
  struct ProtobufField {
    var number: UInt64
    var varint: UInt64?
    var bytes: [UInt8]?
    /// Where its content starts in the init packet.
    var offset: Int
  }

  /// The fields of one message (wire types 0, 1, 2 and 5; groups are refused).
  static func fields(_ bytes: [UInt8], base: Int) throws(DecodeError) -> [ProtobufField] {
    var fields: [ProtobufField] = []
    var position = 0
    func varint() throws(DecodeError) -> UInt64 {
      var value: UInt64 = 0
      for shift in stride(from: 0, to: 70, by: 7) {
        guard position < bytes.count else {
          throw DecodeError(.truncated(needed: 1, available: 0), at: base + position, layer: .dfu)
        }
        let byte = bytes[position]
        position += 1
        if shift < 64 { value |= UInt64(byte & 0x7F) << UInt64(shift) }
        if byte & 0x80 == 0 { return value }
      }
      throw DecodeError(.invalid("a varint longer than 10 bytes"), at: base + position, layer: .dfu)
    }
    while position < bytes.count {
      let start = position
      let key = try varint()
      let number = key >> 3
      switch key & 7 {
      case 0: fields.append(ProtobufField(number: number, varint: try varint(), offset: base + start))
      case 1, 5:
        let size = key & 7 == 1 ? 8 : 4
        guard bytes.count - position >= size else {
          throw DecodeError(
            .truncated(needed: size, available: bytes.count - position), at: base + position, layer: .dfu)
        }
        fields.append(ProtobufField(number: number, offset: base + start))
        position += size
      case 2:
        let length = try varint()
        guard length <= UInt64(bytes.count - position) else {
          throw DecodeError(
            .truncated(needed: Int(clamping: length), available: bytes.count - position), at: base + position,
            layer: .dfu)
        }
        let content = Array(bytes[position..<position + Int(length)])
        fields.append(ProtobufField(number: number, bytes: content, offset: base + position))
        position += Int(length)
      default:
        throw DecodeError(.invalid("protocol buffer wire type \(key & 7)"), at: base + start, layer: .dfu)
      }
    }
    return fields
  }
}
