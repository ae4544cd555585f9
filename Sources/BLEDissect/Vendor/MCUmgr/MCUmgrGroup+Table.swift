/// One mcumgr management group: its id, its short name (what output and filters use,
/// after the mcumgr command-line tool), the constant Zephyr's headers give it, its
/// commands and the error codes it returns in SMP v2's `err` {`group`, `rc`}.
///
/// Zephyr Project documentation, "SMP Groups" (one page per group) and the headers
/// `mgmt_defines.h`, `os_mgmt.h`, `img_mgmt.h`, `stat_mgmt.h`, `settings_mgmt.h`,
/// `fs_mgmt.h`, `shell_mgmt.h`, `enum_mgmt.h`, `zephyr_basic.h`.
struct MCUmgrGroupRow: Sendable {
  let id: UInt16
  let name: StaticString
  let constant: StaticString
  /// Command id → name, in id order.
  let commands: [(id: UInt8, name: StaticString)]
  /// The group's `rc` in SMP v2 `err`, named by its constant, from 0.
  let errors: [StaticString]
}

/// A Group ID (open: user groups start at 64).
public struct MCUmgrGroup: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// MGMT_GROUP_ID_OS: Default/OS Management Group.
  public static let os = Self(rawValue: 0)
  /// MGMT_GROUP_ID_IMAGE: Application/software image management.
  public static let image = Self(rawValue: 1)
  /// MGMT_GROUP_ID_STAT: Statistics management.
  public static let stats = Self(rawValue: 2)
  /// MGMT_GROUP_ID_SETTINGS: Settings (config) management.
  public static let settings = Self(rawValue: 3)
  /// MGMT_GROUP_ID_FS: File management.
  public static let fs = Self(rawValue: 8)
  /// MGMT_GROUP_ID_SHELL: Shell management.
  public static let shell = Self(rawValue: 9)

  static let table: [MCUmgrGroupRow] = [
    .init(
      id: 0, name: "os", constant: "MGMT_GROUP_ID_OS",
      commands: [
        (0, "echo"), (1, "console_echo"), (2, "taskstat"), (3, "mpstat"), (4, "datetime"), (5, "reset"),
        (6, "params"), (7, "info"), (8, "bootloader_info"),
      ],
      errors: [
        "OS_MGMT_ERR_OK", "OS_MGMT_ERR_UNKNOWN", "OS_MGMT_ERR_INVALID_FORMAT", "OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER",
        "OS_MGMT_ERR_RTC_NOT_SET", "OS_MGMT_ERR_RTC_COMMAND_FAILED", "OS_MGMT_ERR_QUERY_RESPONSE_VALUE_NOT_VALID",
      ]),
    .init(
      id: 1, name: "image", constant: "MGMT_GROUP_ID_IMAGE",
      commands: [
        (0, "state"), (1, "upload"), (2, "file"), (3, "corelist"), (4, "coreload"), (5, "erase"), (6, "slot_info"),
      ],
      errors: [
        "IMG_MGMT_ERR_OK", "IMG_MGMT_ERR_UNKNOWN", "IMG_MGMT_ERR_FLASH_CONFIG_QUERY_FAIL", "IMG_MGMT_ERR_NO_IMAGE",
        "IMG_MGMT_ERR_NO_TLVS", "IMG_MGMT_ERR_INVALID_TLV", "IMG_MGMT_ERR_TLV_MULTIPLE_HASHES_FOUND",
        "IMG_MGMT_ERR_TLV_INVALID_SIZE", "IMG_MGMT_ERR_HASH_NOT_FOUND", "IMG_MGMT_ERR_NO_FREE_SLOT",
        "IMG_MGMT_ERR_FLASH_OPEN_FAILED", "IMG_MGMT_ERR_FLASH_READ_FAILED", "IMG_MGMT_ERR_FLASH_WRITE_FAILED",
        "IMG_MGMT_ERR_FLASH_ERASE_FAILED", "IMG_MGMT_ERR_INVALID_SLOT", "IMG_MGMT_ERR_NO_FREE_MEMORY",
        "IMG_MGMT_ERR_FLASH_CONTEXT_ALREADY_SET", "IMG_MGMT_ERR_FLASH_CONTEXT_NOT_SET",
        "IMG_MGMT_ERR_FLASH_AREA_DEVICE_NULL", "IMG_MGMT_ERR_INVALID_PAGE_OFFSET", "IMG_MGMT_ERR_INVALID_OFFSET",
        "IMG_MGMT_ERR_INVALID_LENGTH", "IMG_MGMT_ERR_INVALID_IMAGE_HEADER",
        "IMG_MGMT_ERR_INVALID_IMAGE_HEADER_MAGIC", "IMG_MGMT_ERR_INVALID_HASH",
        "IMG_MGMT_ERR_INVALID_FLASH_ADDRESS", "IMG_MGMT_ERR_VERSION_GET_FAILED",
        "IMG_MGMT_ERR_CURRENT_VERSION_IS_NEWER", "IMG_MGMT_ERR_IMAGE_ALREADY_PENDING",
        "IMG_MGMT_ERR_INVALID_IMAGE_VECTOR_TABLE", "IMG_MGMT_ERR_INVALID_IMAGE_TOO_LARGE",
        "IMG_MGMT_ERR_INVALID_IMAGE_DATA_OVERRUN", "IMG_MGMT_ERR_IMAGE_CONFIRMATION_DENIED",
        "IMG_MGMT_ERR_IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", "IMG_MGMT_ERR_ACTIVE_SLOT_NOT_KNOWN",
      ]),
    .init(
      id: 2, name: "stats", constant: "MGMT_GROUP_ID_STAT", commands: [(0, "show"), (1, "list")],
      errors: [
        "STAT_MGMT_ERR_OK", "STAT_MGMT_ERR_UNKNOWN", "STAT_MGMT_ERR_INVALID_GROUP", "STAT_MGMT_ERR_INVALID_STAT_NAME",
        "STAT_MGMT_ERR_INVALID_STAT_SIZE", "STAT_MGMT_ERR_WALK_ABORTED",
      ]),
    .init(
      id: 3, name: "settings", constant: "MGMT_GROUP_ID_SETTINGS",
      commands: [(0, "read_write"), (1, "delete"), (2, "commit"), (3, "load_save")],
      errors: [
        "SETTINGS_MGMT_ERR_OK", "SETTINGS_MGMT_ERR_UNKNOWN", "SETTINGS_MGMT_ERR_KEY_TOO_LONG",
        "SETTINGS_MGMT_ERR_KEY_NOT_FOUND", "SETTINGS_MGMT_ERR_READ_NOT_SUPPORTED",
        "SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND", "SETTINGS_MGMT_ERR_WRITE_NOT_SUPPORTED",
        "SETTINGS_MGMT_ERR_DELETE_NOT_SUPPORTED", "SETTINGS_MGMT_ERR_SAVE_NOT_SUPPORTED",
      ]),
    .init(
      id: 4, name: "log", constant: "MGMT_GROUP_ID_LOG",
      commands: [(0, "show"), (1, "clear"), (2, "append"), (3, "module_list"), (4, "level_list"), (5, "logs_list")],
      errors: []),
    .init(id: 5, name: "crash", constant: "MGMT_GROUP_ID_CRASH", commands: [], errors: []),
    .init(id: 6, name: "split", constant: "MGMT_GROUP_ID_SPLIT", commands: [], errors: []),
    .init(id: 7, name: "run", constant: "MGMT_GROUP_ID_RUN", commands: [(0, "test"), (1, "list")], errors: []),
    .init(
      id: 8, name: "fs", constant: "MGMT_GROUP_ID_FS",
      commands: [(0, "file"), (1, "status"), (2, "hash"), (3, "supported_hashes"), (4, "close")],
      errors: [
        "FS_MGMT_ERR_OK", "FS_MGMT_ERR_UNKNOWN", "FS_MGMT_ERR_FILE_INVALID_NAME", "FS_MGMT_ERR_FILE_NOT_FOUND",
        "FS_MGMT_ERR_FILE_IS_DIRECTORY", "FS_MGMT_ERR_FILE_OPEN_FAILED", "FS_MGMT_ERR_FILE_SEEK_FAILED",
        "FS_MGMT_ERR_FILE_READ_FAILED", "FS_MGMT_ERR_FILE_TRUNCATE_FAILED", "FS_MGMT_ERR_FILE_DELETE_FAILED",
        "FS_MGMT_ERR_FILE_WRITE_FAILED", "FS_MGMT_ERR_FILE_OFFSET_NOT_VALID",
        "FS_MGMT_ERR_FILE_OFFSET_LARGER_THAN_FILE", "FS_MGMT_ERR_CHECKSUM_HASH_NOT_FOUND",
        "FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND", "FS_MGMT_ERR_READ_ONLY_FILESYSTEM", "FS_MGMT_ERR_FILE_EMPTY",
      ]),
    .init(
      id: 9, name: "shell", constant: "MGMT_GROUP_ID_SHELL", commands: [(0, "exec")],
      errors: [
        "SHELL_MGMT_ERR_OK", "SHELL_MGMT_ERR_UNKNOWN", "SHELL_MGMT_ERR_COMMAND_TOO_LONG",
        "SHELL_MGMT_ERR_EMPTY_COMMAND",
      ]),
    .init(
      id: 10, name: "enum", constant: "MGMT_GROUP_ID_ENUM",
      commands: [(0, "count"), (1, "list"), (2, "single"), (3, "details")],
      errors: [
        "ENUM_MGMT_ERR_OK", "ENUM_MGMT_ERR_UNKNOWN", "ENUM_MGMT_ERR_TOO_MANY_GROUP_ENTRIES",
        "ENUM_MGMT_ERR_INSUFFICIENT_HEAP_FOR_ENTRIES", "ENUM_MGMT_ERR_INDEX_TOO_LARGE",
      ]),
    .init(
      id: 63, name: "zephyr", constant: "ZEPHYR_MGMT_GRP_BASIC", commands: [(0, "erase_storage")],
      errors: [
        "ZEPHYRBASIC_MGMT_ERR_OK", "ZEPHYRBASIC_MGMT_ERR_UNKNOWN", "ZEPHYRBASIC_MGMT_ERR_FLASH_OPEN_FAILED",
        "ZEPHYRBASIC_MGMT_ERR_FLASH_CONFIG_QUERY_FAIL", "ZEPHYRBASIC_MGMT_ERR_FLASH_ERASE_FAILED",
      ]),
  ]

  var row: MCUmgrGroupRow? {
    // The ids run 0…10, then 63: the table's index is the id below 11.
    if rawValue < 11 { return Self.table[Int(rawValue)] }
    return rawValue == 63 ? Self.table.last : nil
  }

  /// The group's short name (`image`), `user 64` for user groups, else `group 42`.
  public var name: String {
    if let row { return row.name.description }
    return rawValue >= 64 ? "user \(rawValue)" : "group \(rawValue)"
  }

  /// The constant Zephyr's headers give the group (`MGMT_GROUP_ID_IMAGE`).
  public var constant: String? { row?.constant.description }

  /// The command's short name in this group (`upload`), or `command 9`.
  public func commandName(_ id: UInt8) -> String {
    guard let name = row?.commands.first(where: { $0.id == id })?.name else { return "command \(id)" }
    return name.description
  }

  /// The name of a group error code (SMP v2 `err.rc`), or nil when the group has no
  /// such code.
  public func errorName(_ rc: Int64) -> String? {
    guard let errors = row?.errors, rc >= 0, rc < errors.count else { return nil }
    return errors[Int(rc)].description
  }
}

/// The SMP error of a response's `rc` (`enum mcumgr_err_t`, `mgmt_defines.h`).
public struct MCUmgrError: RawRepresentable, Hashable, Sendable {
  public var rawValue: Int64
  public init(rawValue: Int64) { self.rawValue = rawValue }

  /// MGMT_ERR_EOK: no error.
  public static let ok = Self(rawValue: 0)

  static let names: [StaticString] = [
    "MGMT_ERR_EOK", "MGMT_ERR_EUNKNOWN", "MGMT_ERR_ENOMEM", "MGMT_ERR_EINVAL", "MGMT_ERR_ETIMEOUT", "MGMT_ERR_ENOENT",
    "MGMT_ERR_EBADSTATE", "MGMT_ERR_EMSGSIZE", "MGMT_ERR_ENOTSUP", "MGMT_ERR_ECORRUPT", "MGMT_ERR_EBUSY",
    "MGMT_ERR_EACCESSDENIED", "MGMT_ERR_UNSUPPORTED_TOO_OLD", "MGMT_ERR_UNSUPPORTED_TOO_NEW",
  ]

  /// `MGMT_ERR_EINVAL`; user errors from 256 are `MGMT_ERR_EPERUSER + n`.
  public var name: String {
    if rawValue >= 0 && rawValue < Self.names.count { return Self.names[Int(rawValue)].description }
    if rawValue >= 256 { return "MGMT_ERR_EPERUSER + \(rawValue - 256)" }
    return "Unknown (\(rawValue))"
  }
}
