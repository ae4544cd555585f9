/// An HCI event code (Core 6.0, Vol 4, Part E, 7.7). Unknown values survive as they
/// are.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Connection Complete
  public static let connectionComplete = Self(rawValue: 0x03)
  /// Disconnection Complete
  public static let disconnectionComplete = Self(rawValue: 0x05)
  /// Encryption Change [v1]
  public static let encryptionChangeV1 = Self(rawValue: 0x08)
  /// Read Remote Version Information Complete
  public static let readRemoteVersionInformationComplete = Self(rawValue: 0x0C)
  /// Command Complete
  public static let commandComplete = Self(rawValue: 0x0E)
  /// Command Status
  public static let commandStatus = Self(rawValue: 0x0F)
  /// Number Of Completed Packets
  public static let numberOfCompletedPackets = Self(rawValue: 0x13)
  /// Encryption Key Refresh Complete
  public static let encryptionKeyRefreshComplete = Self(rawValue: 0x30)
  /// LE Meta
  public static let leMeta = Self(rawValue: 0x3E)
  /// Encryption Change [v2]
  public static let encryptionChangeV2 = Self(rawValue: 0x59)
  /// Vendor Specific
  public static let vendorSpecific = Self(rawValue: 0xFF)

  /// The spec's name: `Disconnection Complete`, `Vendor Specific`, `Unknown (0x5a)`.
  public var name: String {
    HCIEventTable.eventNames[Int(rawValue)] ?? "Unknown (0x" + hex(rawValue) + ")"
  }
}

/// An LE Meta event's subevent code (Core 6.0, Vol 4, Part E, 7.7.65). Unknown values
/// survive as they are.
public struct LESubeventCode: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// LE Connection Complete
  public static let connectionComplete = Self(rawValue: 0x01)
  /// LE Advertising Report
  public static let advertisingReport = Self(rawValue: 0x02)
  /// LE Connection Update Complete
  public static let connectionUpdateComplete = Self(rawValue: 0x03)
  /// LE Read Remote Features Page 0 Complete
  public static let readRemoteFeaturesPage0Complete = Self(rawValue: 0x04)
  /// LE Long Term Key Request
  public static let longTermKeyRequest = Self(rawValue: 0x05)
  /// LE Remote Connection Parameter Request
  public static let remoteConnectionParameterRequest = Self(rawValue: 0x06)
  /// LE Data Length Change
  public static let dataLengthChange = Self(rawValue: 0x07)
  /// LE Enhanced Connection Complete [v1]
  public static let enhancedConnectionCompleteV1 = Self(rawValue: 0x0A)
  /// LE Directed Advertising Report
  public static let directedAdvertisingReport = Self(rawValue: 0x0B)
  /// LE PHY Update Complete
  public static let phyUpdateComplete = Self(rawValue: 0x0C)
  /// LE Extended Advertising Report
  public static let extendedAdvertisingReport = Self(rawValue: 0x0D)
  /// LE Enhanced Connection Complete [v2]
  public static let enhancedConnectionCompleteV2 = Self(rawValue: 0x29)

  /// The spec's name: `LE Connection Complete`, `Unknown (0x36)`.
  public var name: String {
    HCIEventTable.subeventNames[Int(rawValue)] ?? "Unknown (0x" + hex(rawValue) + ")"
  }
}
