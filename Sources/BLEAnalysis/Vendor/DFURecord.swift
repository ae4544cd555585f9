import BLEDissect

/// What a record says in Nordic DFU: a control point request or response, a write to
/// the packet characteristic, and what the tracker checked or learned from them.
public struct DFURecord: Sendable {
  public var message: DFUMessage?
  /// A write to the packet characteristic.
  public var packet: Packet?
  /// On a response: the request it answers.
  public var request: VendorExchange?
  /// On a Calculate Checksum or Select response: the CRC-32 of the bytes the capture
  /// shows written up to the response's offset, when it shows them all.
  public var crc: CRCCheck?
  /// An unsolicited checksum: a packet receipt notification.
  public var receipt = false
  /// On the Execute response of a command object: the init packet it held.
  public var initPacket: DFUInitPacket?
  /// Legacy: the image sizes written after Start DFU (SoftDevice, bootloader, application).
  public var imageSizes: [UInt32]?
  public var progress: TransferProgress?

  public struct Packet: Hashable, Sendable {
    /// Secure DFU: `command` or `data`; legacy: `image sizes`, `init packet`, `firmware`.
    public var object: String?
    /// Where the bytes go: bytes of that object type (or of that legacy phase) written before.
    public var offset: Int
    public var length: Int
  }

  public struct CRCCheck: Hashable, Sendable {
    public var computed: UInt32
    public var matches: Bool
  }

  /// `0x0F41CB29`.
  public static func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
  }

  static let table: VendorFieldTable = {
    let p = "dfu"
    let m: @Sendable (VendorRecord) -> DFUMessage? = { $0.dfu?.message }
    let q: @Sendable (VendorRecord) -> DFUParameters? = { $0.dfu?.message?.parameters }
    let r: @Sendable (VendorRecord) -> DFURecord? = { $0.dfu }
    let i: @Sendable (VendorRecord) -> DFUInitPacket? = { $0.dfu?.initPacket }
    return VendorFieldTable(
      name: p,
      description:
        "A Nordic DFU message: Secure DFU (0xFE59) control point request or response, a packet characteristic write, Buttonless DFU, or legacy DFU (00001530-…); on a Disconnection Complete, the firmware transfer it cut short.",
      fields: [
        VendorField("service", "Service", .string, of: p, m) { .string($0.service.rawValue) },
        VendorField("opcode", "Opcode", .integer, of: p, m) { .int($0.opcode) },
        VendorField("name", "Name", .string, of: p, m) { .string($0.name) },
        VendorField("request_opcode", "Request Opcode", .integer, of: p, m) { .int($0.requestOpcode) },
        VendorField("request", "Request", .string, of: p, m) { .text($0.requestName) },
        VendorField("result_code", "Result", .integer, of: p, m) { .int($0.result) },
        VendorField("result_name", "Result Name", .string, of: p, m) { .text($0.resultName) },
        VendorField("extended_error", "Extended Error", .integer, of: p, q) { .int($0.extendedError) },
        VendorField("extended_error_name", "Extended Error Name", .string, of: p, q) { .text($0.extendedErrorName) },
        VendorField("object_type", "Object Type", .string, of: p, q) { .text($0.objectTypeName) },
        VendorField("size", "Size", .integer, of: p, q) { .int($0.size) },
        VendorField("prn", "PRN", .integer, of: p, q) { .int($0.prn) },
        VendorField("offset", "Offset", .integer, of: p, q) { .int($0.offset) },
        VendorField("crc32", "CRC-32", .string, of: p, q) { $0.crc32.map { .string(hex32($0)) } },
        VendorField("max_size", "Max Size", .integer, of: p, q) { .int($0.maxSize) },
        VendorField("mtu", "MTU", .integer, of: p, q) { .int($0.mtu) },
        VendorField("ping_id", "Ping ID", .integer, of: p, q) { .int($0.pingID) },
        VendorField("protocol_version", "Protocol Version", .integer, of: p, q) { .int($0.protocolVersion) },
        VendorField("hardware", "Part, Variant, ROM, RAM, ROM Page", .integers, of: p, q) {
          $0.hardware.map { .integers($0.map(Int64.init)) }
        },
        VendorField("image", "Image", .integer, of: p, q) { .int($0.image) },
        VendorField("firmware.type", "Firmware Type", .integer, of: p, q) { .int($0.firmware?.type) },
        VendorField("firmware.version", "Firmware Version", .integer, of: p, q) { .int($0.firmware?.version) },
        VendorField("firmware.memory_address", "Firmware Address", .integer, of: p, q) { .int($0.firmware?.address) },
        VendorField("firmware.length", "Firmware Length", .integer, of: p, q) { .int($0.firmware?.length) },
        VendorField("adv_name", "Advertisement Name", .string, of: p, q) { .text($0.advertisementName) },
        VendorField("image_type", "Image Type", .strings, of: p, q) { $0.imageTypeNames.flatMap { .list($0) } },
        VendorField("init_packet", "Init Packet", .integer, of: p, q) { .int($0.initPacket) },
        VendorField("bytes_received", "Bytes Received", .integer, of: p, q) { .int($0.bytesReceived) },
        VendorField("packet.object", "Packet Object", .string, of: p, r) { .text($0.packet?.object) },
        VendorField("packet.offset", "Packet Offset", .integer, of: p, r) { .int($0.packet?.offset) },
        VendorField("packet.length", "Packet Length", .integer, of: p, r) { .int($0.packet?.length) },
        VendorField("receipt", "Packet Receipt Notification", .bool, of: p, r) { $0.receipt ? .bool(true) : nil },
        VendorField("crc_check.computed", "CRC-32 Of Bytes Written", .string, of: p, r) {
          $0.crc.map { .string(hex32($0.computed)) }
        },
        VendorField("crc_check.match", "CRC-32 Matches", .bool, of: p, r) { $0.crc.map { .bool($0.matches) } },
        VendorField("init.type", "Init Packet Firmware Type", .string, of: p, i) { .text($0.typeName) },
        VendorField("init.firmware_size", "Init Packet Firmware Size", .integer, of: p, i) { .int($0.firmwareSize) },
        VendorField("init.fw_version", "Init Packet fw_version", .integer, of: p, i) { .int($0.firmwareVersion) },
        VendorField("init.hw_version", "Init Packet hw_version", .integer, of: p, i) { .int($0.hardwareVersion) },
        VendorField("init.signed", "Init Packet Signed", .bool, of: p, i) { .bool($0.signed) },
        VendorField("image_sizes", "Image Sizes (SD, BL, App)", .integers, of: p, r) {
          $0.imageSizes.map { .integers($0.map(Int64.init)) }
        },
        VendorField("request_frame", "Request In Frame", .integer, of: p, r) { .int($0.request?.frame) },
        VendorField("latency_ms", "Latency", .decimal, of: p, r) { .milliseconds($0.request?.latencyMicroseconds) },
      ] + TransferProgress.fields(of: p) { $0.dfu?.progress })
  }()
}
