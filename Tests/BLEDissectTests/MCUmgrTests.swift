import Testing

@testable import BLEDissect

/// The bytes of `text`: hex digits, spaces and newlines ignored.
func vendorBytes(_ text: String) -> [UInt8] {
  let digits = text.filter(\.isHexDigit)
  var bytes: [UInt8] = []
  var index = digits.startIndex
  while index < digits.endIndex, let next = digits.index(index, offsetBy: 2, limitedBy: digits.endIndex) {
    bytes.append(UInt8(digits[index..<next], radix: 16)!)
    index = next
  }
  return bytes
}

/// mcumgr (Zephyr SMP Protocol Specification and SMP Groups): every group and command
/// of the table, every SMP error and every group error, each with a fixture built by
/// Python's `smp` package (header) and `cbor2` (body): a request with an empty map
/// body, `{"rc": n}` or SMP v2 `{"err": {"group": g, "rc": n}}`.
@Suite struct MCUmgrTests {
  static let commandRows: [(hex: String, group: String, command: String)] = [
    // OS_MANAGEMENT, ECHO
    ("0a00000100000700a0", "os", "echo"),
    // OS_MANAGEMENT, ECHO_CONTROL
    ("0a00000100000701a0", "os", "console_echo"),
    // OS_MANAGEMENT, TASK_STATS
    ("0a00000100000702a0", "os", "taskstat"),
    // OS_MANAGEMENT, MEMORY_POOL_STATS
    ("0a00000100000703a0", "os", "mpstat"),
    // OS_MANAGEMENT, DATETIME_STRING
    ("0a00000100000704a0", "os", "datetime"),
    // OS_MANAGEMENT, RESET
    ("0a00000100000705a0", "os", "reset"),
    // OS_MANAGEMENT, MCUMGR_PARAMETERS
    ("0a00000100000706a0", "os", "params"),
    // OS_MANAGEMENT, OS_APPLICATION_INFO
    ("0a00000100000707a0", "os", "info"),
    // OS_MANAGEMENT, BOOTLOADER_INFO
    ("0a00000100000708a0", "os", "bootloader_info"),
    // IMAGE_MANAGEMENT, STATE
    ("0a00000100010700a0", "image", "state"),
    // IMAGE_MANAGEMENT, UPLOAD
    ("0a00000100010701a0", "image", "upload"),
    // IMAGE_MANAGEMENT, FILE
    ("0a00000100010702a0", "image", "file"),
    // IMAGE_MANAGEMENT, CORELIST
    ("0a00000100010703a0", "image", "corelist"),
    // IMAGE_MANAGEMENT, CORELOAD
    ("0a00000100010704a0", "image", "coreload"),
    // IMAGE_MANAGEMENT, ERASE
    ("0a00000100010705a0", "image", "erase"),
    // IMAGE_MANAGEMENT, -
    ("0a00000100010706a0", "image", "slot_info"),
    // STATISTICS_MANAGEMENT, GROUP_DATA
    ("0a00000100020700a0", "stats", "show"),
    // STATISTICS_MANAGEMENT, LIST_OF_GROUPS
    ("0a00000100020701a0", "stats", "list"),
    // SETTINGS_MANAGEMENT, READ_WRITE_SETTING
    ("0a00000100030700a0", "settings", "read_write"),
    // SETTINGS_MANAGEMENT, DELETE_SETTING
    ("0a00000100030701a0", "settings", "delete"),
    // SETTINGS_MANAGEMENT, COMMIT_SETTINGS
    ("0a00000100030702a0", "settings", "commit"),
    // SETTINGS_MANAGEMENT, LOAD_SAVE_SETTINGS
    ("0a00000100030703a0", "settings", "load_save"),
    // LOG_MANAGEMENT, -
    ("0a00000100040700a0", "log", "show"),
    // LOG_MANAGEMENT, -
    ("0a00000100040701a0", "log", "clear"),
    // LOG_MANAGEMENT, -
    ("0a00000100040702a0", "log", "append"),
    // LOG_MANAGEMENT, -
    ("0a00000100040703a0", "log", "module_list"),
    // LOG_MANAGEMENT, -
    ("0a00000100040704a0", "log", "level_list"),
    // LOG_MANAGEMENT, -
    ("0a00000100040705a0", "log", "logs_list"),
    // TEST_CRASH, -
    ("0a00000100070700a0", "run", "test"),
    // TEST_CRASH, -
    ("0a00000100070701a0", "run", "list"),
    // FILE_MANAGEMENT, FILE_DOWNLOAD_UPLOAD
    ("0a00000100080700a0", "fs", "file"),
    // FILE_MANAGEMENT, FILE_STATUS
    ("0a00000100080701a0", "fs", "status"),
    // FILE_MANAGEMENT, FILE_HASH_CHECKSUM
    ("0a00000100080702a0", "fs", "hash"),
    // FILE_MANAGEMENT, SUPPORTED_FILE_HASH_CHECKSUM_TYPES
    ("0a00000100080703a0", "fs", "supported_hashes"),
    // FILE_MANAGEMENT, FILE_CLOSE
    ("0a00000100080704a0", "fs", "close"),
    // SHELL_MANAGEMENT, EXECUTE
    ("0a00000100090700a0", "shell", "exec"),
    // ENUM_MANAGEMENT, GROUP_COUNT
    ("0a000001000a0700a0", "enum", "count"),
    // ENUM_MANAGEMENT, LIST_OF_GROUPS
    ("0a000001000a0701a0", "enum", "list"),
    // ENUM_MANAGEMENT, GROUP_ID
    ("0a000001000a0702a0", "enum", "single"),
    // ENUM_MANAGEMENT, GROUP_DETAILS
    ("0a000001000a0703a0", "enum", "details"),
    // ZEPHYR_MANAGEMENT, ERASE_STORAGE
    ("0a000001003f0700a0", "zephyr", "erase_storage"),
  ]
  static let errorRows: [(hex: String, rc: Int64, name: String)] = [
    ("0b00000500010701a162726300", 0, "MGMT_ERR_EOK"),
    ("0b00000500010701a162726301", 1, "MGMT_ERR_EUNKNOWN"),
    ("0b00000500010701a162726302", 2, "MGMT_ERR_ENOMEM"),
    ("0b00000500010701a162726303", 3, "MGMT_ERR_EINVAL"),
    ("0b00000500010701a162726304", 4, "MGMT_ERR_ETIMEOUT"),
    ("0b00000500010701a162726305", 5, "MGMT_ERR_ENOENT"),
    ("0b00000500010701a162726306", 6, "MGMT_ERR_EBADSTATE"),
    ("0b00000500010701a162726307", 7, "MGMT_ERR_EMSGSIZE"),
    ("0b00000500010701a162726308", 8, "MGMT_ERR_ENOTSUP"),
    ("0b00000500010701a162726309", 9, "MGMT_ERR_ECORRUPT"),
    ("0b00000500010701a16272630a", 10, "MGMT_ERR_EBUSY"),
    ("0b00000500010701a16272630b", 11, "MGMT_ERR_EACCESSDENIED"),
    ("0b00000500010701a16272630c", 12, "MGMT_ERR_UNSUPPORTED_TOO_OLD"),
    ("0b00000500010701a16272630d", 13, "MGMT_ERR_UNSUPPORTED_TOO_NEW"),
  ]
  static let groupErrorRows: [(hex: String, name: String)] = [
    ("0b00001100000700a163657272a26567726f75700062726300", "OS_MGMT_ERR_OK"),
    ("0b00001100000700a163657272a26567726f75700062726301", "OS_MGMT_ERR_UNKNOWN"),
    ("0b00001100000700a163657272a26567726f75700062726302", "OS_MGMT_ERR_INVALID_FORMAT"),
    ("0b00001100000700a163657272a26567726f75700062726303", "OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER"),
    ("0b00001100000700a163657272a26567726f75700062726304", "OS_MGMT_ERR_RTC_NOT_SET"),
    ("0b00001100000700a163657272a26567726f75700062726305", "OS_MGMT_ERR_RTC_COMMAND_FAILED"),
    ("0b00001100000700a163657272a26567726f75700062726306", "OS_MGMT_ERR_QUERY_RESPONSE_VALUE_NOT_VALID"),
    ("0b00001100010700a163657272a26567726f75700162726300", "IMG_MGMT_ERR_OK"),
    ("0b00001100010700a163657272a26567726f75700162726301", "IMG_MGMT_ERR_UNKNOWN"),
    ("0b00001100010700a163657272a26567726f75700162726302", "IMG_MGMT_ERR_FLASH_CONFIG_QUERY_FAIL"),
    ("0b00001100010700a163657272a26567726f75700162726303", "IMG_MGMT_ERR_NO_IMAGE"),
    ("0b00001100010700a163657272a26567726f75700162726304", "IMG_MGMT_ERR_NO_TLVS"),
    ("0b00001100010700a163657272a26567726f75700162726305", "IMG_MGMT_ERR_INVALID_TLV"),
    ("0b00001100010700a163657272a26567726f75700162726306", "IMG_MGMT_ERR_TLV_MULTIPLE_HASHES_FOUND"),
    ("0b00001100010700a163657272a26567726f75700162726307", "IMG_MGMT_ERR_TLV_INVALID_SIZE"),
    ("0b00001100010700a163657272a26567726f75700162726308", "IMG_MGMT_ERR_HASH_NOT_FOUND"),
    ("0b00001100010700a163657272a26567726f75700162726309", "IMG_MGMT_ERR_NO_FREE_SLOT"),
    ("0b00001100010700a163657272a26567726f7570016272630a", "IMG_MGMT_ERR_FLASH_OPEN_FAILED"),
    ("0b00001100010700a163657272a26567726f7570016272630b", "IMG_MGMT_ERR_FLASH_READ_FAILED"),
    ("0b00001100010700a163657272a26567726f7570016272630c", "IMG_MGMT_ERR_FLASH_WRITE_FAILED"),
    ("0b00001100010700a163657272a26567726f7570016272630d", "IMG_MGMT_ERR_FLASH_ERASE_FAILED"),
    ("0b00001100010700a163657272a26567726f7570016272630e", "IMG_MGMT_ERR_INVALID_SLOT"),
    ("0b00001100010700a163657272a26567726f7570016272630f", "IMG_MGMT_ERR_NO_FREE_MEMORY"),
    ("0b00001100010700a163657272a26567726f75700162726310", "IMG_MGMT_ERR_FLASH_CONTEXT_ALREADY_SET"),
    ("0b00001100010700a163657272a26567726f75700162726311", "IMG_MGMT_ERR_FLASH_CONTEXT_NOT_SET"),
    ("0b00001100010700a163657272a26567726f75700162726312", "IMG_MGMT_ERR_FLASH_AREA_DEVICE_NULL"),
    ("0b00001100010700a163657272a26567726f75700162726313", "IMG_MGMT_ERR_INVALID_PAGE_OFFSET"),
    ("0b00001100010700a163657272a26567726f75700162726314", "IMG_MGMT_ERR_INVALID_OFFSET"),
    ("0b00001100010700a163657272a26567726f75700162726315", "IMG_MGMT_ERR_INVALID_LENGTH"),
    ("0b00001100010700a163657272a26567726f75700162726316", "IMG_MGMT_ERR_INVALID_IMAGE_HEADER"),
    ("0b00001100010700a163657272a26567726f75700162726317", "IMG_MGMT_ERR_INVALID_IMAGE_HEADER_MAGIC"),
    ("0b00001200010700a163657272a26567726f7570016272631818", "IMG_MGMT_ERR_INVALID_HASH"),
    ("0b00001200010700a163657272a26567726f7570016272631819", "IMG_MGMT_ERR_INVALID_FLASH_ADDRESS"),
    ("0b00001200010700a163657272a26567726f757001627263181a", "IMG_MGMT_ERR_VERSION_GET_FAILED"),
    ("0b00001200010700a163657272a26567726f757001627263181b", "IMG_MGMT_ERR_CURRENT_VERSION_IS_NEWER"),
    ("0b00001200010700a163657272a26567726f757001627263181c", "IMG_MGMT_ERR_IMAGE_ALREADY_PENDING"),
    ("0b00001200010700a163657272a26567726f757001627263181d", "IMG_MGMT_ERR_INVALID_IMAGE_VECTOR_TABLE"),
    ("0b00001200010700a163657272a26567726f757001627263181e", "IMG_MGMT_ERR_INVALID_IMAGE_TOO_LARGE"),
    ("0b00001200010700a163657272a26567726f757001627263181f", "IMG_MGMT_ERR_INVALID_IMAGE_DATA_OVERRUN"),
    ("0b00001200010700a163657272a26567726f7570016272631820", "IMG_MGMT_ERR_IMAGE_CONFIRMATION_DENIED"),
    ("0b00001200010700a163657272a26567726f7570016272631821", "IMG_MGMT_ERR_IMAGE_SETTING_TEST_TO_ACTIVE_DENIED"),
    ("0b00001200010700a163657272a26567726f7570016272631822", "IMG_MGMT_ERR_ACTIVE_SLOT_NOT_KNOWN"),
    ("0b00001100020700a163657272a26567726f75700262726300", "STAT_MGMT_ERR_OK"),
    ("0b00001100020700a163657272a26567726f75700262726301", "STAT_MGMT_ERR_UNKNOWN"),
    ("0b00001100020700a163657272a26567726f75700262726302", "STAT_MGMT_ERR_INVALID_GROUP"),
    ("0b00001100020700a163657272a26567726f75700262726303", "STAT_MGMT_ERR_INVALID_STAT_NAME"),
    ("0b00001100020700a163657272a26567726f75700262726304", "STAT_MGMT_ERR_INVALID_STAT_SIZE"),
    ("0b00001100020700a163657272a26567726f75700262726305", "STAT_MGMT_ERR_WALK_ABORTED"),
    ("0b00001100030700a163657272a26567726f75700362726300", "SETTINGS_MGMT_ERR_OK"),
    ("0b00001100030700a163657272a26567726f75700362726301", "SETTINGS_MGMT_ERR_UNKNOWN"),
    ("0b00001100030700a163657272a26567726f75700362726302", "SETTINGS_MGMT_ERR_KEY_TOO_LONG"),
    ("0b00001100030700a163657272a26567726f75700362726303", "SETTINGS_MGMT_ERR_KEY_NOT_FOUND"),
    ("0b00001100030700a163657272a26567726f75700362726304", "SETTINGS_MGMT_ERR_READ_NOT_SUPPORTED"),
    ("0b00001100030700a163657272a26567726f75700362726305", "SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND"),
    ("0b00001100030700a163657272a26567726f75700362726306", "SETTINGS_MGMT_ERR_WRITE_NOT_SUPPORTED"),
    ("0b00001100030700a163657272a26567726f75700362726307", "SETTINGS_MGMT_ERR_DELETE_NOT_SUPPORTED"),
    // Zephyr settings_mgmt.h, newer than the smp package
    ("0b00001100030700a163657272a26567726f75700362726308", "SETTINGS_MGMT_ERR_SAVE_NOT_SUPPORTED"),
    ("0b00001100080700a163657272a26567726f75700862726300", "FS_MGMT_ERR_OK"),
    ("0b00001100080700a163657272a26567726f75700862726301", "FS_MGMT_ERR_UNKNOWN"),
    ("0b00001100080700a163657272a26567726f75700862726302", "FS_MGMT_ERR_FILE_INVALID_NAME"),
    ("0b00001100080700a163657272a26567726f75700862726303", "FS_MGMT_ERR_FILE_NOT_FOUND"),
    ("0b00001100080700a163657272a26567726f75700862726304", "FS_MGMT_ERR_FILE_IS_DIRECTORY"),
    ("0b00001100080700a163657272a26567726f75700862726305", "FS_MGMT_ERR_FILE_OPEN_FAILED"),
    ("0b00001100080700a163657272a26567726f75700862726306", "FS_MGMT_ERR_FILE_SEEK_FAILED"),
    ("0b00001100080700a163657272a26567726f75700862726307", "FS_MGMT_ERR_FILE_READ_FAILED"),
    ("0b00001100080700a163657272a26567726f75700862726308", "FS_MGMT_ERR_FILE_TRUNCATE_FAILED"),
    ("0b00001100080700a163657272a26567726f75700862726309", "FS_MGMT_ERR_FILE_DELETE_FAILED"),
    ("0b00001100080700a163657272a26567726f7570086272630a", "FS_MGMT_ERR_FILE_WRITE_FAILED"),
    ("0b00001100080700a163657272a26567726f7570086272630b", "FS_MGMT_ERR_FILE_OFFSET_NOT_VALID"),
    ("0b00001100080700a163657272a26567726f7570086272630c", "FS_MGMT_ERR_FILE_OFFSET_LARGER_THAN_FILE"),
    ("0b00001100080700a163657272a26567726f7570086272630d", "FS_MGMT_ERR_CHECKSUM_HASH_NOT_FOUND"),
    ("0b00001100080700a163657272a26567726f7570086272630e", "FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND"),
    ("0b00001100080700a163657272a26567726f7570086272630f", "FS_MGMT_ERR_READ_ONLY_FILESYSTEM"),
    ("0b00001100080700a163657272a26567726f75700862726310", "FS_MGMT_ERR_FILE_EMPTY"),
    ("0b00001100090700a163657272a26567726f75700962726300", "SHELL_MGMT_ERR_OK"),
    ("0b00001100090700a163657272a26567726f75700962726301", "SHELL_MGMT_ERR_UNKNOWN"),
    ("0b00001100090700a163657272a26567726f75700962726302", "SHELL_MGMT_ERR_COMMAND_TOO_LONG"),
    ("0b00001100090700a163657272a26567726f75700962726303", "SHELL_MGMT_ERR_EMPTY_COMMAND"),
    ("0b000011000a0700a163657272a26567726f75700a62726300", "ENUM_MGMT_ERR_OK"),
    ("0b000011000a0700a163657272a26567726f75700a62726301", "ENUM_MGMT_ERR_UNKNOWN"),
    ("0b000011000a0700a163657272a26567726f75700a62726302", "ENUM_MGMT_ERR_TOO_MANY_GROUP_ENTRIES"),
    ("0b000011000a0700a163657272a26567726f75700a62726303", "ENUM_MGMT_ERR_INSUFFICIENT_HEAP_FOR_ENTRIES"),
    ("0b000011000a0700a163657272a26567726f75700a62726304", "ENUM_MGMT_ERR_INDEX_TOO_LARGE"),
    ("0b000012003f0700a163657272a26567726f7570183f62726300", "ZEPHYRBASIC_MGMT_ERR_OK"),
    ("0b000012003f0700a163657272a26567726f7570183f62726301", "ZEPHYRBASIC_MGMT_ERR_UNKNOWN"),
    ("0b000012003f0700a163657272a26567726f7570183f62726302", "ZEPHYRBASIC_MGMT_ERR_FLASH_OPEN_FAILED"),
    ("0b000012003f0700a163657272a26567726f7570183f62726303", "ZEPHYRBASIC_MGMT_ERR_FLASH_CONFIG_QUERY_FAIL"),
    ("0b000012003f0700a163657272a26567726f7570183f62726304", "ZEPHYRBASIC_MGMT_ERR_FLASH_ERASE_FAILED"),
  ]

  @Test(arguments: commandRows)
  func commandRow(_ row: (hex: String, group: String, command: String)) throws {
    let message = try MCUmgrMessage(parsing: vendorBytes(row.hex))
    #expect(message.header.op == .write)
    #expect(message.header.version == 1)
    #expect(message.header.sequence == 7)
    #expect(message.header.length == 1)
    #expect(message.header.group.name == row.group)
    #expect(message.header.commandName == row.command)
    #expect(message.body == .map([]))
  }

  @Test func everyCommandOfTheTableHasARow() {
    let rows = Set(Self.commandRows.map { "\($0.group) \($0.command)" })
    let table = MCUmgrGroup.table.flatMap { group in group.commands.map { "\(group.name) \($0.name)" } }
    #expect(Set(table) == rows)
    #expect(table.count == rows.count, "command names are unique in their group")
  }

  @Test(arguments: errorRows)
  func errorRow(_ row: (hex: String, rc: Int64, name: String)) throws {
    let message = try MCUmgrMessage(parsing: vendorBytes(row.hex))
    #expect(message.header.op == .writeResponse)
    #expect(message.rc == MCUmgrError(rawValue: row.rc))
    #expect(message.rc?.name == row.name)
  }

  @Test(arguments: groupErrorRows)
  func groupErrorRow(_ row: (hex: String, name: String)) throws {
    let message = try MCUmgrMessage(parsing: vendorBytes(row.hex))
    let err = try #require(message.groupError)
    #expect(err.group == message.header.group)
    #expect(err.group.errorName(err.rc) == row.name)
  }

  @Test func everyGroupErrorOfTheTableHasARow() {
    let table = MCUmgrGroup.table.flatMap { $0.errors.map(\.description) }
    #expect(Set(table) == Set(Self.groupErrorRows.map(\.name)))
    #expect(table.count == Self.groupErrorRows.count)
  }

  @Test func userErrorsAndUnknownGroups() {
    #expect(MCUmgrError(rawValue: 258).name == "MGMT_ERR_EPERUSER + 2")
    #expect(MCUmgrError(rawValue: 14).name == "Unknown (14)")
    #expect(MCUmgrGroup(rawValue: 64).name == "user 64")
    #expect(MCUmgrGroup(rawValue: 42).name == "group 42")
    #expect(MCUmgrGroup.image.commandName(9) == "command 9")
    #expect(MCUmgrGroup.image.errorName(35) == nil)
  }

  /// An echo from vendor.btsnoop's truth (frame 333):
  ///   Res 0, Ver 1 (SMP v2), OP 2 Write, Flags 0, Data Length 9, Group 0 (os), Seq 47, Command 0 (echo)
  ///   {"d": "hello"}
  @Test func echoRequest() throws {
    let message = try MCUmgrMessage(parsing: vendorBytes("0a000009 0000 2f 00 a1 6164 6568656c6c6f"))
    #expect(message.header == MCUmgrHeader(op: .write, length: 9, group: .os, sequence: 47, command: 0))
    #expect(message.body?["d"]?.text == "hello")
    #expect(message.extra == 0)
  }

  /// The first byte holds 3 reserved bits, the version and the OP; Data Length and Group
  /// ID are big-endian.
  ///   Res 0b101, Ver 0 (SMP v1), OP 3, Flags 0x80, Data Length 0x0102, Group 0x4142, Seq 255, Command 254
  @Test func headerBitsAndByteOrder() throws {
    let header = try MCUmgrHeader(parsing: vendorBytes("a3 80 0102 4142 ff fe"))
    #expect(header.reserved == 0b101)
    #expect(header.version == 0)
    #expect(header.op == .writeResponse)
    #expect(header.flags == 0x80)
    #expect(header.length == 0x0102)
    #expect(header.group.rawValue == 0x4142)
    #expect(header.sequence == 255)
    #expect(header.command == 254)
    #expect(header.messageSize == 8 + 0x0102)
  }

  @Test func shortHeader() {
    // 7 of the 8 header bytes
    let error = #expect(throws: DecodeError.self) { try MCUmgrHeader(parsing: vendorBytes("0a00000900002f")) }
    #expect(error?.kind == .truncated(needed: 8, available: 7))
    #expect(error?.layer == .mcumgr)
  }

  @Test func messageShorterThanItsDataLength() {
    // Data Length 9, 3 bytes of data
    let error = #expect(throws: DecodeError.self) {
      try MCUmgrMessage(parsing: vendorBytes("0a000009 0000 2f 00 a16164"))
    }
    #expect(error?.offset == 11)
  }

  @Test func bytesAfterTheMessage() throws {
    // Data Length 1 ({}), then 2 more bytes
    let message = try MCUmgrMessage(parsing: vendorBytes("0a000001 0000 01 00 a0 ffff"))
    #expect(message.extra == 2)
    #expect(message.body == .map([]))
  }

  /// Data that is not CBOR: the header decodes, the body error names the message offset.
  ///   Data Length 3: a map of 1 entry (offset 8) whose key (offset 9) claims 24 bytes of text
  @Test func bodyThatIsNotCBOR() throws {
    let message = try MCUmgrMessage(parsing: vendorBytes("0a000003 0000 01 00 a1 7818"))
    #expect(message.body == nil)
    #expect(message.bodyError?.layer == .cbor)
    #expect(message.bodyError?.offset == 9)
  }
}
