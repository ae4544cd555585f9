/// The Error Code of an ATT Error Response (Core 6.0, Vol 3, Part F, 3.4.1.1,
/// Table 3.4), with the application range 0x80–0x9F and the common profile and
/// service error codes 0xE0–0xFF (Core Specification Supplement, Part B).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Invalid Handle
  public static let invalidHandle = Self(rawValue: 0x01)
  /// Read Not Permitted
  public static let readNotPermitted = Self(rawValue: 0x02)
  /// Write Not Permitted
  public static let writeNotPermitted = Self(rawValue: 0x03)
  /// Invalid PDU
  public static let invalidPDU = Self(rawValue: 0x04)
  /// Insufficient Authentication
  public static let insufficientAuthentication = Self(rawValue: 0x05)
  /// Request Not Supported
  public static let requestNotSupported = Self(rawValue: 0x06)
  /// Invalid Offset
  public static let invalidOffset = Self(rawValue: 0x07)
  /// Insufficient Authorization
  public static let insufficientAuthorization = Self(rawValue: 0x08)
  /// Prepare Queue Full
  public static let prepareQueueFull = Self(rawValue: 0x09)
  /// Attribute Not Found
  public static let attributeNotFound = Self(rawValue: 0x0A)
  /// Attribute Not Long
  public static let attributeNotLong = Self(rawValue: 0x0B)
  /// Encryption Key Size Too Short (formerly Insufficient Encryption Key Size)
  public static let encryptionKeySizeTooShort = Self(rawValue: 0x0C)
  /// Invalid Attribute Value Length
  public static let invalidAttributeValueLength = Self(rawValue: 0x0D)
  /// Unlikely Error
  public static let unlikelyError = Self(rawValue: 0x0E)
  /// Insufficient Encryption
  public static let insufficientEncryption = Self(rawValue: 0x0F)
  /// Unsupported Group Type
  public static let unsupportedGroupType = Self(rawValue: 0x10)
  /// Insufficient Resources
  public static let insufficientResources = Self(rawValue: 0x11)
  /// Database Out Of Sync
  public static let databaseOutOfSync = Self(rawValue: 0x12)
  /// Value Not Allowed
  public static let valueNotAllowed = Self(rawValue: 0x13)
  /// Write Request Rejected
  public static let writeRequestRejected = Self(rawValue: 0xFC)
  /// Client Characteristic Configuration Descriptor Improperly Configured
  public static let cccdImproperlyConfigured = Self(rawValue: 0xFD)
  /// Procedure Already in Progress
  public static let procedureAlreadyInProgress = Self(rawValue: 0xFE)
  /// Out of Range
  public static let outOfRange = Self(rawValue: 0xFF)

  /// Names of 0x01–0x13, indexed by code.
  private static let coreNames: [String] = [
    "", "Invalid Handle", "Read Not Permitted", "Write Not Permitted", "Invalid PDU",
    "Insufficient Authentication", "Request Not Supported", "Invalid Offset", "Insufficient Authorization",
    "Prepare Queue Full", "Attribute Not Found", "Attribute Not Long", "Encryption Key Size Too Short",
    "Invalid Attribute Value Length", "Unlikely Error", "Insufficient Encryption", "Unsupported Group Type",
    "Insufficient Resources", "Database Out Of Sync", "Value Not Allowed",
  ]

  /// The spec name; `Application Error (0x80)` for the application range,
  /// `Unknown (0x20)` for reserved codes.
  public var name: String {
    switch rawValue {
    case 0x01...0x13: Self.coreNames[Int(rawValue)]
    case 0x80...0x9F: "Application Error (0x" + hex(rawValue) + ")"
    case 0xFC: "Write Request Rejected"
    case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
    case 0xFE: "Procedure Already in Progress"
    case 0xFF: "Out of Range"
    default: "Unknown (0x" + hex(rawValue) + ")"
    }
  }

  /// 0x80–0x9F: defined by the higher-layer application.
  public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

  /// 0xE0–0xFF: defined by the Core Specification Supplement.
  public var isCommonProfileError: Bool { rawValue >= 0xE0 }

  public var description: String { name }
}
