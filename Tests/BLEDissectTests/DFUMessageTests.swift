import Testing

@testable import BLEDissect

/// Nordic DFU (nRF5 SDK 17.1 "DFU protocol" and "Buttonless Secure DFU Service"; nRF5
/// SDK 11 legacy DFU): a request and a successful response per opcode, each result code
/// and extended error, and values that do not fit.
@Suite struct DFUMessageTests {
  /// Secure DFU: request → response, with what each carries.
  static let secureRows: [(request: String, response: String, name: String, check: @Sendable (DFUMessage) -> Bool)] =
    [
      // Protocol Version → version 2
      ("00", "60 00 01 02", "Protocol Version", { $0.parameters.protocolVersion == 2 }),
      // Create, Object Type 0x02 (data), Object Size 4096 → (nothing)
      ("01 02 00100000", "60 01 01", "Create", { $0.parameters == DFUParameters() }),
      // Set PRN 12
      ("02 0c00", "60 02 01", "Set PRN", { $0.parameters.prn == nil }),
      // Calculate Checksum → Offset 131, CRC 0x0F41CB29
      (
        "03", "60 03 01 83000000 29cb410f", "Calculate Checksum",
        {
          $0.parameters.offset == 131 && $0.parameters.crc32 == 0x0F41_CB29
        }
      ),
      // Execute
      ("04", "60 04 01", "Execute", { $0.parameters == DFUParameters() }),
      // Select, Object Type 0x01 (command) → Max Size 512, Offset 0, CRC 0
      (
        "06 01", "60 06 01 00020000 00000000 00000000", "Select",
        {
          $0.parameters.maxSize == 512 && $0.parameters.offset == 0 && $0.parameters.crc32 == 0
        }
      ),
      // Get MTU → 244
      ("07", "60 07 01 f400", "Get MTU", { $0.parameters.mtu == 244 }),
      // Write (the serial transport's data)
      ("08 0102", "60 08 01", "Write", { $0.result == 1 }),
      // Ping 42 → 42
      ("09 2a", "60 09 01 2a", "Ping", { $0.parameters.pingID == 42 }),
      // Get Hardware Version → part 0x52832, variant 'AAE0', ROM 512 KiB, RAM 64 KiB, page 4 KiB
      (
        "0a", "60 0a 01 32280500 30454141 00000800 00000100 00100000", "Get Hardware Version",
        {
          $0.parameters.hardware == [0x52832, 0x4141_4530, 0x80000, 0x10000, 0x1000]
        }
      ),
      // Get Firmware Version, image 1 → type 1 (application), version 260, address 0x21000, length 0x1234
      (
        "0b 01", "60 0b 01 01 04010000 00100200 34120000", "Get Firmware Version",
        {
          $0.parameters.firmware == DFUFirmwareVersion(type: 1, version: 260, address: 0x21000, length: 0x1234)
        }
      ),
      // Abort
      ("0c", "60 0c 01", "Abort", { $0.result == 1 }),
    ]

  @Test(arguments: secureRows)
  func secureRow(
    _ row: (request: String, response: String, name: String, check: @Sendable (DFUMessage) -> Bool)
  ) throws {
    let request = try DFUMessage(parsing: vendorBytes(row.request), service: .secure, fromClient: true)
    #expect(request.name == row.name)
    #expect(!request.isResponse)
    let response = try DFUMessage(parsing: vendorBytes(row.response), service: .secure, fromClient: false)
    #expect(response.name == "Response")
    #expect(response.requestName == row.name)
    #expect(response.resultName == "Success")
    #expect(row.check(response), "\(row.name) response parameters")
  }

  @Test func requestParameters() throws {
    let create = try DFUMessage(parsing: vendorBytes("01 02 00100000"), service: .secure, fromClient: true)
    #expect(create.parameters.objectType == 2 && create.parameters.size == 4096)
    let prn = try DFUMessage(parsing: vendorBytes("02 0c00"), service: .secure, fromClient: true)
    #expect(prn.parameters.prn == 12)
    let select = try DFUMessage(parsing: vendorBytes("06 01"), service: .secure, fromClient: true)
    #expect(select.parameters.objectTypeName == "command")
    let version = try DFUMessage(parsing: vendorBytes("0b 01"), service: .secure, fromClient: true)
    #expect(version.parameters.image == 1)
  }

  @Test func everySecureOpcodeHasARow() {
    let names = Set(Self.secureRows.map(\.name) + ["Response"])
    #expect(Set(DFUMessage.secureTable.map(\.name.description)) == names)
  }

  static let results: [(code: UInt8, name: String)] = [
    (0x00, "Invalid Code"), (0x01, "Success"), (0x02, "Op Code Not Supported"), (0x03, "Invalid Parameter"),
    (0x04, "Insufficient Resources"), (0x05, "Invalid Object"), (0x07, "Unsupported Type"),
    (0x08, "Operation Not Permitted"), (0x0A, "Operation Failed"), (0x0B, "Extended Error"),
  ]

  /// Create answered with each result: `60 01 <result>`.
  @Test(arguments: results)
  func resultRow(_ row: (code: UInt8, name: String)) throws {
    let response = try DFUMessage(parsing: [0x60, 0x01, row.code], service: .secure, fromClient: false)
    #expect(response.result == row.code)
    #expect(response.resultName == row.name)
    #expect(response.succeeded == (row.code == 1))
  }

  static let extendedErrors: [(code: UInt8, name: String)] = [
    (0x00, "No Error"), (0x01, "Invalid Error Code"), (0x02, "Wrong Command Format"), (0x03, "Unknown Command"),
    (0x04, "Init Command Invalid"), (0x05, "FW Version Failure"), (0x06, "HW Version Failure"),
    (0x07, "SD Version Failure"), (0x08, "Signature Missing"), (0x09, "Wrong Hash Type"), (0x0A, "Hash Failed"),
    (0x0B, "Wrong Signature Type"), (0x0C, "Verification Failed"), (0x0D, "Insufficient Space"),
  ]

  /// Execute answered with Extended Error (0x0B) and each extended error: `60 04 0b <error>`.
  @Test(arguments: extendedErrors)
  func extendedErrorRow(_ row: (code: UInt8, name: String)) throws {
    let response = try DFUMessage(parsing: [0x60, 0x04, 0x0B, row.code], service: .secure, fromClient: false)
    #expect(response.resultName == "Extended Error")
    #expect(response.parameters.extendedErrorName == row.name)
  }

  @Test func extendedErrorTableIsCovered() {
    #expect(DFUMessage.extendedErrors.map(\.description) == Self.extendedErrors.map(\.name))
    #expect(DFUMessage.results.map(\.name.description) == Self.results.map(\.name))
  }

  /// Buttonless DFU: Enter Bootloader (`01`) → `20 01 01`; Set Advertisement Name
  /// `02 07 "DfuTarg"` → `20 02 01`.
  @Test func buttonlessRows() throws {
    let enter = try DFUMessage(parsing: vendorBytes("01"), service: .buttonless, fromClient: true)
    #expect(enter.name == "Enter Bootloader")
    let name = try DFUMessage(parsing: vendorBytes("02 07 446675546172 67"), service: .buttonless, fromClient: true)
    #expect(name.name == "Set Advertisement Name" && name.parameters.advertisementName == "DfuTarg")
    let response = try DFUMessage(parsing: vendorBytes("20 01 01"), service: .buttonless, fromClient: false)
    #expect(response.name == "Response" && response.requestName == "Enter Bootloader")
    #expect(response.resultName == "Success")
    #expect(
      Set(DFUMessage.buttonlessTable.map(\.name.description)) == [
        "Enter Bootloader", "Set Advertisement Name", "Response",
      ])
  }

  static let buttonlessResults: [(code: UInt8, name: String)] = [
    (0x00, "Invalid"), (0x01, "Success"), (0x02, "Op Code Not Supported"), (0x04, "Operation Failed"),
    (0x05, "Invalid Adv Name"), (0x06, "Busy"), (0x07, "Not Bonded"),
  ]

  @Test(arguments: buttonlessResults)
  func buttonlessResultRow(_ row: (code: UInt8, name: String)) throws {
    let response = try DFUMessage(parsing: [0x20, 0x02, row.code], service: .buttonless, fromClient: false)
    #expect(response.resultName == row.name)
  }

  /// Legacy DFU (nRF5 SDK 11): each control point opcode.
  static let legacyRows: [(hex: String, fromClient: Bool, name: String, check: @Sendable (DFUMessage) -> Bool)] = [
    // Start DFU, image type 0x04 (application)
    ("01 04", true, "Start DFU", { $0.parameters.imageTypeNames == ["Application"] }),
    // Start DFU without an image type (SDK ≤ 6)
    ("01", true, "Start DFU", { $0.parameters.imageType == nil }),
    // Initialize DFU Parameters: receive init packet; init packet complete
    ("02 00", true, "Initialize DFU Parameters", { $0.parameters.initPacket == 0 }),
    ("02 01", true, "Initialize DFU Parameters", { $0.parameters.initPacket == 1 }),
    ("03", true, "Receive Firmware Image", { _ in true }),
    ("04", true, "Validate Firmware", { _ in true }),
    ("05", true, "Activate Image and Reset", { _ in true }),
    ("06", true, "Reset System", { _ in true }),
    ("07", true, "Report Received Image Size", { _ in true }),
    // Packet Receipt Notification Request: every 10 packets
    ("08 0a00", true, "Packet Receipt Notification Request", { $0.parameters.prn == 10 }),
    // Response Code: Report Received Image Size, Success, 4096 bytes
    (
      "10 07 01 00100000", false, "Response Code",
      {
        $0.requestName == "Report Received Image Size" && $0.parameters.bytesReceived == 4096
      }
    ),
    // Packet Receipt Notification: 1024 bytes received
    ("11 00040000", false, "Packet Receipt Notification", { $0.parameters.bytesReceived == 1024 }),
  ]

  @Test(arguments: legacyRows)
  func legacyRow(_ row: (hex: String, fromClient: Bool, name: String, check: @Sendable (DFUMessage) -> Bool)) throws {
    let message = try DFUMessage(parsing: vendorBytes(row.hex), service: .legacy, fromClient: row.fromClient)
    #expect(message.name == row.name)
    #expect(row.check(message), "\(row.name)")
  }

  @Test func everyLegacyOpcodeHasARow() {
    #expect(Set(DFUMessage.legacyTable.map(\.name.description)) == Set(Self.legacyRows.map(\.name)))
  }

  static let legacyResults: [(code: UInt8, name: String)] = [
    (0x01, "Success"), (0x02, "Invalid State"), (0x03, "Not Supported"), (0x04, "Data Size Exceeds Limit"),
    (0x05, "CRC Error"), (0x06, "Operation Failed"),
  ]

  @Test(arguments: legacyResults)
  func legacyResultRow(_ row: (code: UInt8, name: String)) throws {
    let response = try DFUMessage(parsing: [0x10, 0x04, row.code], service: .legacy, fromClient: false)
    #expect(response.requestName == "Validate Firmware")
    #expect(response.resultName == row.name)
  }

  /// Values that do not fit: a typed error at the offset at fault.
  static let invalid: [(hex: String, service: DFUMessage.Service, fromClient: Bool, offset: Int)] = [
    // An opcode Secure DFU does not define.
    ("05", .secure, true, 0),
    // Create with 3 parameter bytes of 5.
    ("01 02 0010", .secure, true, 1),
    // Calculate Checksum's response cut inside the CRC.
    ("60 03 01 83000000 29cb", .secure, false, 3),
    // Nothing.
    ("", .secure, true, 0),
    // A Response cut before its result.
    ("60 03", .secure, false, 2),
    // Set Advertisement Name of 9 bytes with 1.
    ("02 09 41", .buttonless, true, 2),
    // Packet Receipt Notification Request with 1 byte of 2.
    ("08 0a", .legacy, true, 1),
  ]

  @Test(arguments: invalid)
  func invalidValue(_ row: (hex: String, service: DFUMessage.Service, fromClient: Bool, offset: Int)) {
    let error = #expect(throws: DecodeError.self) {
      try DFUMessage(parsing: vendorBytes(row.hex), service: row.service, fromClient: row.fromClient)
    }
    #expect(error?.offset == row.offset)
    #expect(error?.layer == .dfu)
  }

  /// CRC-32 check value (ISO 3309): "123456789" → 0xCBF43926.
  @Test func crc32() {
    var crc = CRC32()
    crc.update(Array("12345".utf8))
    crc.update(Array("6789".utf8))
    #expect(crc.value == 0xCBF4_3926)
    #expect(CRC32().value == 0)
  }

  /// dfu-cc.proto `Packet{command: Command{op_code: INIT, init: InitCommand{fw_version 1,
  /// hw_version 52, sd_req [0x0100], type APPLICATION, sd_size 0, bl_size 0, app_size
  /// 12425, hash {SHA256, 00…1f}, is_debug false}}}`, and the same signed.
  @Test(arguments: [
    (
      "0a3d08011239080110341a028002200028003000388961422408031220000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f4800",
      false
    ),
    (
      "1283010a3d08011239080110341a028002200028003000388961422408031220000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f480010011a40"
        + String(repeating: "00", count: 64), true
    ),
  ])
  func initPacket(_ hex: String, signed: Bool) throws {
    let packet = try DFUInitPacket(parsing: vendorBytes(hex))
    #expect(packet.firmwareVersion == 1)
    #expect(packet.hardwareVersion == 52)
    #expect(packet.typeName == "application")
    #expect(packet.applicationSize == 12425)
    #expect(packet.firmwareSize == 12425)
    #expect(packet.signed == signed)
  }

  /// vendor.btsnoop's init packet (frame 907) numbers InitCommand from field 8 on one
  /// off the schema: `app_size` is 0 and field 8 (`hash`) comes as a varint.
  @Test func initPacketOffTheSchema() {
    let bytes = vendorBytes(
      """
      0a3d0801123908840210341880022000300038004089614a2408031220c831d2aa6e923e759f5595028705b5148d476413db251224c3
      21de9618f7459e500110011a4013ed36254db2e63c7f06b80919538254d70e85b0f1fee1785e99008ac1c82086027cbbc5d733d649f4
      ec337214551e09fa861cba2870056e0ceb098e5a3a2977
      """)
    #expect(bytes.count == 131)
    let error = #expect(throws: DecodeError.self) { try DFUInitPacket(parsing: bytes) }
    #expect(error?.offset == 20)
  }

  @Test(arguments: [
    // Not a protocol buffer: wire type 7.
    ("0f", 0),
    // A length of 127 with 1 byte after it (its content would start at 2).
    ("0a 7f 00", 2),
    // A varint longer than 10 bytes: refused after the tenth.
    ("08 ffffffffffffffffffffff01", 11),
    // A Command without an InitCommand.
    ("0a 02 0801", 0),
  ])
  func initPacketHostile(_ hex: String, offset: Int) {
    let error = #expect(throws: DecodeError.self) { try DFUInitPacket(parsing: vendorBytes(hex)) }
    #expect(error?.offset == offset)
  }
}
