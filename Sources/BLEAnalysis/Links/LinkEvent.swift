import BLECapture
import BLEDissect

/// An HCI command or event that analysis acts on, read once per record from the fixed
/// offsets the HCI tables give its parameters (`LinkEvent+Table.swift`), with no field
/// tree and no names: every tracker switches over this instead of the HCI codes.
///
/// Connection handles are as sent (the flag bits cleared). Times, intervals and sizes
/// keep their units in types where the rest of the analysis has one.
public enum LinkEvent: Sendable, Hashable {
  // MARK: Commands (host → controller)

  /// LE Create Connection, LE Extended Create Connection [v1]/[v2], or BR/EDR Create
  /// Connection.
  case createConnection(CreateConnection)
  /// LE Create Connection Cancel (`le`), or Create Connection Cancel for `peer`.
  case createConnectionCancel(le: Bool, peer: DeviceAddress?)
  /// LE Add Device To / Remove Device From / Clear Filter Accept List.
  case acceptList(AcceptListChange)
  /// LE Set (Extended) Scan Parameters: the first PHY's, for the extended one.
  case scanParameters(ScanParameters)
  /// LE Set (Extended) Scan Enable.
  case scanEnable(extended: Bool, enable: Bool, filterDuplicates: Bool?)
  /// Disconnect.
  case disconnect(handle: UInt16, reason: UInt8)
  /// LE Enable Encryption: the central starts encryption.
  case enableEncryption(handle: UInt16)
  /// Read RSSI.
  case readRSSI(handle: UInt16)

  // MARK: Events (controller → host)

  /// Command Status.
  case commandStatus(opcode: UInt16, status: UInt8)
  /// Command Complete, with what analysis reads of its return parameters.
  case commandComplete(opcode: UInt16, status: UInt8, returned: CommandReturn)
  /// Connection Complete, LE Connection Complete, LE Enhanced Connection Complete [v1]/[v2].
  case connectionComplete(ConnectionComplete)
  /// Disconnection Complete.
  case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)
  /// Encryption Change [v1]/[v2] (`keyRefresh` false) or Encryption Key Refresh Complete.
  case encryptionChange(status: UInt8, handle: UInt16, enabled: Bool, keyRefresh: Bool)
  /// LE Long Term Key Request: the peripheral's side of encryption starting.
  case longTermKeyRequest(handle: UInt16)
  /// Read Remote Version Information Complete.
  case remoteVersion(status: UInt8, handle: UInt16, version: UInt8, company: UInt16)
  /// LE Read Remote Features Page 0 Complete.
  case remoteFeatures(status: UInt8, handle: UInt16)
  /// LE Connection Update Complete; parameters when it succeeded.
  case connectionUpdate(status: UInt8, handle: UInt16, parameters: ConnectionParameters?)
  /// LE Remote Connection Parameter Request.
  case remoteConnectionParameterRequest(handle: UInt16)
  /// LE Data Length Change.
  case dataLengthChange(handle: UInt16, DataLength)
  /// LE PHY Update Complete.
  case phyUpdate(status: UInt8, handle: UInt16, tx: UInt8, rx: UInt8)
  /// Number Of Completed Packets: `handles` entries, read with `completedPackets(in:)`.
  case completedPackets(handles: UInt8)

  // MARK: On air (sniffer captures)

  /// An LL Control PDU of a connection heard on air.
  case air(AirControl)

  /// What an LL Control PDU does to its link (Core 6.0, Vol 6, Part B, 2.4.2).
  public enum AirControl: Sendable, Hashable {
    /// LL_CONNECTION_UPDATE_IND: the parameters from its instant on.
    case connectionUpdate(ConnectionParameters)
    /// LL_CONNECTION_PARAM_REQ.
    case connectionParameterRequest
    /// LL_TERMINATE_IND and its ErrorCode.
    case terminate(reason: UInt8)
    /// LL_ENC_REQ: the central starts encryption.
    case encryptionRequest
    /// LL_START_ENC_REQ: the last step in the clear.
    case startEncryption
    /// LL_VERSION_IND.
    case version(version: UInt8, company: UInt16)
    /// LL_FEATURE_RSP.
    case featureResponse
    /// LL_LENGTH_RSP: the data length both sides now use.
    case dataLength(DataLength)
    /// LL_PHY_UPDATE_IND: the PHY bits per direction (0: unchanged).
    case phyUpdate(centralToPeripheral: UInt8, peripheralToCentral: UInt8)
  }

  public struct CreateConnection: Sendable, Hashable {
    public var le: Bool
    /// Peer_Address (BD_ADDR for BR/EDR); LE commands name one even when they connect
    /// to the filter accept list, where it is ignored (`usesAcceptList`).
    public var peer: DeviceAddress?
    public var peerType: UInt8?
    /// Initiator_Filter_Policy other than 0: connect to whichever device of the filter
    /// accept list advertises first, not to `peer`.
    public var usesAcceptList: Bool
    /// LE_Scan_Interval and LE_Scan_Window (the first PHY's, for the extended command), in
    /// 0.625 ms units.
    public var scanInterval: UInt16?
    public var scanWindow: UInt16?
  }

  public struct AcceptListChange: Sendable, Hashable {
    public enum Operation: Sendable, Hashable { case add, remove, clear }
    public var operation: Operation
    /// Address and Address_Type; nil for clear.
    public var address: DeviceAddress?
    public var addressType: UInt8?
  }

  public struct ScanParameters: Sendable, Hashable {
    public var extended: Bool
    /// LE_Scan_Type (Scan_Type): 1 active.
    public var active: Bool?
    /// In 0.625 ms units.
    public var interval: UInt16?
    public var window: UInt16?
  }

  /// What analysis reads from a Command Complete's return parameters.
  public enum CommandReturn: Sendable, Hashable {
    case none
    /// Read BD_ADDR: the local controller's public address.
    case localAddress(DeviceAddress)
    /// LE Read Buffer Size [v1]/[v2] (`le`) or Read Buffer Size: the controller's ACL
    /// data buffers, their count and each one's size.
    case bufferSize(le: Bool, packets: UInt16, length: UInt16)
    /// Read RSSI.
    case rssi(handle: UInt16, value: Int8)
    /// Read Encryption Key Size.
    case keySize(handle: UInt16, size: UInt8)
  }

  public struct ConnectionComplete: Sendable, Hashable {
    public var le: Bool
    public var status: UInt8
    public var handle: UInt16
    /// 0 central, 1 peripheral; nil for BR/EDR.
    public var role: UInt8?
    /// Peer_Address (BD_ADDR for BR/EDR).
    public var peer: DeviceAddress?
    public var peerType: UInt8?
    /// LE only.
    public var parameters: ConnectionParameters?
  }

  /// LE Data Length Change: the maximum payload octets and air time per direction.
  public struct DataLength: Sendable, Hashable {
    public var maxTXOctets: UInt16
    /// In µs.
    public var maxTXTime: UInt16
    public var maxRXOctets: UInt16
    public var maxRXTime: UInt16
  }

  /// The connection handle the event or command is about, when it names one.
  public var handle: UInt16? {
    switch self {
    case .disconnect(let handle, _), .enableEncryption(let handle), .readRSSI(let handle),
      .disconnectionComplete(_, let handle, _), .encryptionChange(_, let handle, _, _), .longTermKeyRequest(let handle),
      .remoteVersion(_, let handle, _, _), .remoteFeatures(_, let handle), .connectionUpdate(_, let handle, _),
      .remoteConnectionParameterRequest(let handle), .dataLengthChange(let handle, _), .phyUpdate(_, let handle, _, _):
      handle
    case .connectionComplete(let complete): complete.handle
    case .commandComplete(_, _, .rssi(let handle, _)), .commandComplete(_, _, .keySize(let handle, _)): handle
    default: nil
    }
  }

  /// The command a Command Complete or Command Status answers, and its status.
  public var answeredCommand: (opcode: UInt16, status: UInt8)? {
    switch self {
    case .commandStatus(let opcode, let status), .commandComplete(let opcode, let status, _): (opcode, status)
    default: nil
    }
  }
}
