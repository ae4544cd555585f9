/// Nordic Semiconductor's Device Firmware Update over BLE: Secure DFU (service 0xFE59)
/// with its Buttonless DFU characteristic, and the legacy DFU service of nRF5 SDK ≤ 11.
///
/// nRF5 SDK 17.1 documentation, "DFU protocol" (control point opcodes, result codes,
/// extended errors, object types) and "BLE transport" (control point
/// 8EC90001-F315-4F60-9FB8-838830DAEA50 written with response and notified, packet
/// 8EC90002-… written without response); "Buttonless Secure DFU Service"
/// (8EC90003-… without bonds, 8EC90004-… with bonds: indications); nRF5 SDK 11.0,
/// "DFU BLE Service" (legacy: service 00001530-1212-EFDE-1523-785FEABCD123, control
/// point …1531…, packet …1532…, version …1534…).
///
/// A control point message starts with its opcode; a Secure DFU response is
///
///     0        1           2        3
///     +--------+-----------+--------+------------------------------+
///     | 0x60   | request   | result | response parameters (LE)     |
///     +--------+-----------+--------+------------------------------+
///
/// and carries its request's parameters only on Success (an Extended Error carries
/// the extended error code instead).
public struct DFUMessage: Hashable, Sendable {
  /// Which DFU characteristic the message is on.
  public enum Service: String, Hashable, Sendable {
    /// Secure DFU control point (8EC90001-…).
    case secure
    /// Buttonless Secure DFU (8EC90003-… or 8EC90004-…).
    case buttonless
    /// Legacy DFU control point (00001531-…).
    case legacy
  }

  public var service: Service
  /// The first byte: a request's opcode, or the response opcode.
  public var opcode: UInt8
  /// For a response: the opcode of the request it answers.
  public var requestOpcode: UInt8?
  /// For a response: its result code.
  public var result: UInt8?
  public var parameters = DFUParameters()

  public init(service: Service, opcode: UInt8, requestOpcode: UInt8? = nil, result: UInt8? = nil) {
    self.service = service
    self.opcode = opcode
    self.requestOpcode = requestOpcode
    self.result = result
  }

  public var isResponse: Bool { requestOpcode != nil }

  /// The spec's name of the opcode (`Create`, `Response`).
  public var name: String { Self.opcodeName(opcode, service) }
  /// The name of the request a response answers.
  public var requestName: String? { requestOpcode.map { Self.opcodeName($0, service) } }
  /// The name of the result code (`Success`).
  public var resultName: String? {
    result.map { code in
      let names =
        service == .legacy ? Self.legacyResults : service == .buttonless ? Self.buttonlessResults : Self.results
      return names.first { $0.code == code }?.name.description ?? "Unknown (0x\(hex(code)))"
    }
  }
  /// A successful response.
  public var succeeded: Bool { result == 0x01 }

  static func opcodeName(_ opcode: UInt8, _ service: Service) -> String {
    let table: [DFUOpcodeRow] =
      switch service {
      case .secure: secureTable
      case .buttonless: buttonlessTable
      case .legacy: legacyTable
      }
    return table.first { $0.code == opcode }?.name.description ?? "Unknown (0x\(hex(opcode)))"
  }
}

/// What DFU messages carry besides their opcode: each field is set by the messages
/// that have it.
public struct DFUParameters: Hashable, Sendable {
  /// Object Type of Create and Select: 0x01 command (init packet), 0x02 data (firmware).
  public var objectType: UInt8?
  /// Create: the object's size in bytes.
  public var size: UInt32?
  /// Set PRN: a checksum notification every this many packet writes (0 = off);
  /// legacy: Packet Receipt Notification Request.
  public var prn: UInt16?
  /// Calculate Checksum and Select responses: bytes received so far.
  public var offset: UInt32?
  /// Calculate Checksum and Select responses: the CRC-32 of those bytes.
  public var crc32: UInt32?
  /// Select response: the largest object of that type.
  public var maxSize: UInt32?
  /// Get MTU response.
  public var mtu: UInt16?
  /// Ping request and response.
  public var pingID: UInt8?
  /// Protocol Version response.
  public var protocolVersion: UInt8?
  /// Get Hardware Version response: part, variant, ROM size, RAM size, ROM page size.
  public var hardware: [UInt32]?
  /// Get Firmware Version request: the image number.
  public var image: UInt8?
  /// Get Firmware Version response: type, version, address, length.
  public var firmware: DFUFirmwareVersion?
  /// Extended Error response: the extended error code.
  public var extendedError: UInt8?
  /// Buttonless Set Advertisement Name.
  public var advertisementName: String?
  /// Legacy Start DFU: the image type bits (SoftDevice 0x01, bootloader 0x02, application 0x04).
  public var imageType: UInt8?
  /// Legacy Initialize DFU Parameters: 0x00 receive init packet, 0x01 init packet complete.
  public var initPacket: UInt8?
  /// Legacy Packet Receipt Notification and Report Received Image Size: bytes received.
  public var bytesReceived: UInt32?

  public init() {}

  /// `command` or `data`.
  public var objectTypeName: String? {
    objectType.map {
      switch $0 {
      case 0x01: "command"
      case 0x02: "data"
      default: "Unknown (0x\(hex($0)))"
      }
    }
  }

  /// The extended error's name (`Verification Failed`).
  public var extendedErrorName: String? {
    extendedError.map { code in
      code < DFUMessage.extendedErrors.count
        ? DFUMessage.extendedErrors[Int(code)].description : "Unknown (0x\(hex(code)))"
    }
  }

  /// The legacy image type bits by name: `SoftDevice`, `Bootloader`, `Application`.
  public var imageTypeNames: [String]? {
    imageType.map { bits in
      [(0x01, "SoftDevice"), (0x02, "Bootloader"), (0x04, "Application")].compactMap { bits & $0.0 != 0 ? $0.1 : nil }
    }
  }
}

/// Get Firmware Version's answer (nRF5 SDK 17.1, "DFU protocol").
public struct DFUFirmwareVersion: Hashable, Sendable {
  /// 0x00 SoftDevice, 0x01 application, 0x02 bootloader, 0xFF unknown.
  public var type: UInt8
  public var version: UInt32
  public var address: UInt32
  public var length: UInt32
}

/// One DFU opcode: the spec's name, and the length rule and reader of its request's
/// parameters and of its (successful) response's parameters.
struct DFUOpcodeRow: Sendable {
  typealias Parse = @Sendable (inout ByteCursor, inout DFUParameters) throws(DecodeError) -> Void

  let code: UInt8
  let name: StaticString
  let request: PDULength
  let parseRequest: Parse
  /// Nil for messages that are not requests (responses, notifications).
  let response: PDULength?
  let parseResponse: Parse

  init(
    _ code: UInt8, _ name: StaticString, _ request: PDULength, _ parseRequest: @escaping Parse = { _, _ in },
    response: PDULength? = .exactly(0), _ parseResponse: @escaping Parse = { _, _ in }
  ) {
    self.code = code
    self.name = name
    self.request = request
    self.parseRequest = parseRequest
    self.response = response
    self.parseResponse = parseResponse
  }
}

extension DFUMessage {
  /// The Secure DFU response opcode (NRF_DFU_OP_RESPONSE).
  public static let responseOpcode: UInt8 = 0x60
  /// The Buttonless DFU response opcode (DFU_OP_RESPONSE_CODE).
  public static let buttonlessResponseOpcode: UInt8 = 0x20
  /// The legacy DFU response and packet receipt notification opcodes.
  public static let legacyResponseOpcode: UInt8 = 0x10
  public static let legacyReceiptOpcode: UInt8 = 0x11

  /// Secure DFU control point opcodes (`nrf_dfu_op_t`), lengths after the opcode.
  static let secureTable: [DFUOpcodeRow] = [
    .init(0x00, "Protocol Version", .exactly(0), response: .exactly(1)) { c, p throws(DecodeError) in
      p.protocolVersion = try c.readUInt8()
    },
    .init(0x01, "Create", .exactly(5)) { c, p throws(DecodeError) in
      p.objectType = try c.readUInt8()
      p.size = try c.readUInt32()
    },
    .init(0x02, "Set PRN", .exactly(2)) { c, p throws(DecodeError) in p.prn = try c.readUInt16() },
    .init(0x03, "Calculate Checksum", .exactly(0), response: .exactly(8)) { c, p throws(DecodeError) in
      p.offset = try c.readUInt32()
      p.crc32 = try c.readUInt32()
    },
    .init(0x04, "Execute", .exactly(0)),
    .init(
      0x06, "Select", .exactly(1), { c, p throws(DecodeError) in p.objectType = try c.readUInt8() },
      response: .exactly(12)
    ) {
      c, p throws(DecodeError) in
      p.maxSize = try c.readUInt32()
      p.offset = try c.readUInt32()
      p.crc32 = try c.readUInt32()
    },
    .init(0x07, "Get MTU", .exactly(0), response: .exactly(2)) { c, p throws(DecodeError) in p.mtu = try c.readUInt16()
    },
    .init(0x08, "Write", .atLeast(0)),
    .init(
      0x09, "Ping", .exactly(1), { c, p throws(DecodeError) in p.pingID = try c.readUInt8() }, response: .exactly(1)
    ) {
      c, p throws(DecodeError) in p.pingID = try c.readUInt8()
    },
    .init(0x0A, "Get Hardware Version", .exactly(0), response: .exactly(20)) { c, p throws(DecodeError) in
      p.hardware = [try c.readUInt32(), try c.readUInt32(), try c.readUInt32(), try c.readUInt32(), try c.readUInt32()]
    },
    .init(
      0x0B, "Get Firmware Version", .exactly(1), { c, p throws(DecodeError) in p.image = try c.readUInt8() },
      response: .exactly(13)
    ) {
      c, p throws(DecodeError) in
      p.firmware = DFUFirmwareVersion(
        type: try c.readUInt8(), version: try c.readUInt32(), address: try c.readUInt32(), length: try c.readUInt32())
    },
    .init(0x0C, "Abort", .exactly(0)),
    .init(0x60, "Response", .atLeast(2), response: nil),
  ]

  /// Secure DFU result codes (`nrf_dfu_result_t`).
  static let results: [(code: UInt8, name: StaticString)] = [
    (0x00, "Invalid Code"), (0x01, "Success"), (0x02, "Op Code Not Supported"), (0x03, "Invalid Parameter"),
    (0x04, "Insufficient Resources"), (0x05, "Invalid Object"), (0x07, "Unsupported Type"),
    (0x08, "Operation Not Permitted"), (0x0A, "Operation Failed"), (0x0B, "Extended Error"),
  ]

  /// Extended error codes (`nrf_dfu_ext_error_code_t`), from 0x00.
  static let extendedErrors: [StaticString] = [
    "No Error", "Invalid Error Code", "Wrong Command Format", "Unknown Command", "Init Command Invalid",
    "FW Version Failure", "HW Version Failure", "SD Version Failure", "Signature Missing", "Wrong Hash Type",
    "Hash Failed", "Wrong Signature Type", "Verification Failed", "Insufficient Space",
  ]

  /// Buttonless DFU opcodes (`ble_dfu_buttonless_op_code_t`).
  static let buttonlessTable: [DFUOpcodeRow] = [
    .init(0x01, "Enter Bootloader", .exactly(0)),
    .init(0x02, "Set Advertisement Name", .atLeast(1)) { c, p throws(DecodeError) in
      let length = Int(try c.readUInt8())
      let start = c.offset
      let name = try c.readBytes(length)
      guard let text = String(validating: name, as: UTF8.self) else {
        throw DecodeError(.invalid("an advertisement name that is not UTF-8"), at: start, layer: .dfu)
      }
      p.advertisementName = text
    },
    .init(0x20, "Response", .exactly(2), response: nil),
  ]

  /// Buttonless DFU response codes (`ble_dfu_buttonless_rsp_code_t`).
  static let buttonlessResults: [(code: UInt8, name: StaticString)] = [
    (0x00, "Invalid"), (0x01, "Success"), (0x02, "Op Code Not Supported"), (0x04, "Operation Failed"),
    (0x05, "Invalid Adv Name"), (0x06, "Busy"), (0x07, "Not Bonded"),
  ]

  /// Legacy DFU control point opcodes (nRF5 SDK 11, `ble_dfu_procedure_t` and the
  /// opcodes of `ble_dfu.c`). Start DFU's image type and Initialize DFU Parameters'
  /// value are absent in the oldest bootloaders.
  static let legacyTable: [DFUOpcodeRow] = [
    .init(0x01, "Start DFU", .atLeast(0)) { c, p throws(DecodeError) in
      if !c.isAtEnd { p.imageType = try c.readUInt8() }
    },
    .init(0x02, "Initialize DFU Parameters", .atLeast(0)) { c, p throws(DecodeError) in
      if !c.isAtEnd { p.initPacket = try c.readUInt8() }
    },
    .init(0x03, "Receive Firmware Image", .exactly(0)),
    .init(0x04, "Validate Firmware", .exactly(0)),
    .init(0x05, "Activate Image and Reset", .exactly(0)),
    .init(0x06, "Reset System", .exactly(0)),
    .init(0x07, "Report Received Image Size", .exactly(0), response: .exactly(4)) { c, p throws(DecodeError) in
      p.bytesReceived = try c.readUInt32()
    },
    .init(0x08, "Packet Receipt Notification Request", .exactly(2)) { c, p throws(DecodeError) in
      p.prn = try c.readUInt16()
    },
    .init(0x10, "Response Code", .atLeast(2), response: nil),
    .init(
      0x11, "Packet Receipt Notification", .exactly(4),
      { c, p throws(DecodeError) in p.bytesReceived = try c.readUInt32() }, response: nil),
  ]

  /// Legacy DFU response values.
  static let legacyResults: [(code: UInt8, name: StaticString)] = [
    (0x01, "Success"), (0x02, "Invalid State"), (0x03, "Not Supported"), (0x04, "Data Size Exceeds Limit"),
    (0x05, "CRC Error"), (0x06, "Operation Failed"),
  ]

  static func row(_ code: UInt8, _ service: Service) -> DFUOpcodeRow? {
    switch service {
    case .secure: secureTable.first { $0.code == code }
    case .buttonless: buttonlessTable.first { $0.code == code }
    case .legacy: legacyTable.first { $0.code == code }
    }
  }

  /// The opcode that answers requests on `service`.
  static func responseCode(_ service: Service) -> UInt8 {
    switch service {
    case .secure: responseOpcode
    case .buttonless: buttonlessResponseOpcode
    case .legacy: legacyResponseOpcode
    }
  }

  /// Decodes one control point value. `fromClient` is true for a write (a request),
  /// false for a notification or indication (a response or receipt).
  public init(parsing bytes: [UInt8], service: Service, fromClient: Bool) throws(DecodeError) {
    var c = ByteCursor(bytes.span.bytes, layer: .dfu)
    let opcode = try c.readUInt8()
    self.init(service: service, opcode: opcode)
    let responseCode = Self.responseCode(service)
    guard opcode == responseCode, !fromClient else {
      // A request, or a legacy Packet Receipt Notification.
      guard let row = Self.row(opcode, service) else {
        throw DecodeError(.invalid("unknown opcode 0x\(hex(opcode))"), at: 0, layer: .dfu)
      }
      try Self.check(row.request, &c, row.name)
      try row.parseRequest(&c, &parameters)
      return
    }
    requestOpcode = try c.readUInt8()
    result = try c.readUInt8()
    guard succeeded else {
      if service == .secure && result == 0x0B, !c.isAtEnd { parameters.extendedError = try c.readUInt8() }
      return
    }
    guard let request = requestOpcode, let row = Self.row(request, service), let rule = row.response else { return }
    try Self.check(rule, &c, row.name)
    try row.parseResponse(&c, &parameters)
  }

  private static func check(_ rule: PDULength, _ c: inout ByteCursor, _ name: StaticString) throws(DecodeError) {
    guard rule.allows(c.remaining) else {
      throw DecodeError(
        .invalid("\(name) has \(c.remaining) parameter bytes, needs \(rule.text)"), at: c.offset, layer: .dfu)
    }
  }
}
