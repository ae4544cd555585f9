/// The code of an L2CAP signaling command. Unknown codes survive as they are.
///
/// Core 6.0, Vol 3, Part A, 4 (Table 4.2). Codes 0x0C–0x11 served AMP, withdrawn
/// in Core 5.3; they keep their names so that old captures still read well.
public struct L2CAPSignalingCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Command Reject
  public static let commandReject = Self(rawValue: 0x01)
  /// Connection Request (BR/EDR)
  public static let connectionRequest = Self(rawValue: 0x02)
  /// Connection Response (BR/EDR)
  public static let connectionResponse = Self(rawValue: 0x03)
  /// Configuration Request (BR/EDR)
  public static let configurationRequest = Self(rawValue: 0x04)
  /// Configuration Response (BR/EDR)
  public static let configurationResponse = Self(rawValue: 0x05)
  /// Disconnection Request
  public static let disconnectionRequest = Self(rawValue: 0x06)
  /// Disconnection Response
  public static let disconnectionResponse = Self(rawValue: 0x07)
  /// Echo Request (BR/EDR)
  public static let echoRequest = Self(rawValue: 0x08)
  /// Echo Response (BR/EDR)
  public static let echoResponse = Self(rawValue: 0x09)
  /// Information Request (BR/EDR)
  public static let informationRequest = Self(rawValue: 0x0A)
  /// Information Response (BR/EDR)
  public static let informationResponse = Self(rawValue: 0x0B)
  /// Create Channel Request (AMP)
  public static let createChannelRequest = Self(rawValue: 0x0C)
  /// Create Channel Response (AMP)
  public static let createChannelResponse = Self(rawValue: 0x0D)
  /// Move Channel Request (AMP)
  public static let moveChannelRequest = Self(rawValue: 0x0E)
  /// Move Channel Response (AMP)
  public static let moveChannelResponse = Self(rawValue: 0x0F)
  /// Move Channel Confirmation Request (AMP)
  public static let moveChannelConfirmationRequest = Self(rawValue: 0x10)
  /// Move Channel Confirmation Response (AMP)
  public static let moveChannelConfirmationResponse = Self(rawValue: 0x11)
  /// Connection Parameter Update Request (LE)
  public static let connectionParameterUpdateRequest = Self(rawValue: 0x12)
  /// Connection Parameter Update Response (LE)
  public static let connectionParameterUpdateResponse = Self(rawValue: 0x13)
  /// LE Credit Based Connection Request
  public static let leCreditBasedConnectionRequest = Self(rawValue: 0x14)
  /// LE Credit Based Connection Response
  public static let leCreditBasedConnectionResponse = Self(rawValue: 0x15)
  /// Flow Control Credit Indication (LE Flow Control Credit before Core 5.2)
  public static let flowControlCreditIndication = Self(rawValue: 0x16)
  /// Credit Based Connection Request (enhanced credit based mode, up to 5 channels)
  public static let creditBasedConnectionRequest = Self(rawValue: 0x17)
  /// Credit Based Connection Response
  public static let creditBasedConnectionResponse = Self(rawValue: 0x18)
  /// Credit Based Reconfigure Request
  public static let creditBasedReconfigureRequest = Self(rawValue: 0x19)
  /// Credit Based Reconfigure Response
  public static let creditBasedReconfigureResponse = Self(rawValue: 0x1A)

  /// The table row of a known code.
  var row: Row? {
    let index = Int(rawValue) - 1
    guard index >= 0, index < Self.table.count else { return nil }
    return Self.table[index]
  }

  /// The spec name, or `Unknown (0x7f)`.
  public var name: String { row?.name ?? "Unknown (0x\(hex(rawValue)))" }

  public var description: String { name }

  /// The response that answers this request, if it is one.
  public var response: L2CAPSignalingCode? { row?.response.map(Self.init(rawValue:)) }

  /// The request this response answers, if it is one.
  public var request: L2CAPSignalingCode? {
    Self.table.first { $0.response == rawValue }.map { Self(rawValue: $0.code) }
  }

  /// The spec name of a Result value of this command (`Connection refused - PSM not
  /// supported`), nil when the command has no Result or the value is unknown.
  public func resultName(_ result: UInt16) -> String? {
    row?.layout.lazy.compactMap { item -> [UInt16: String]? in
      if case .named(let names) = item.kind, item.name == "Result" { return names }
      return nil
    }.first?[result]
  }
}

extension L2CAPSignalingCode {
  /// How many data bytes a command has (the Length field of its header).
  enum LengthRule: Hashable, Sendable {
    case exactly(Int)
    case atLeast(Int)
    /// `fixed` bytes, then 2 bytes for each of `minCount`…5 CIDs.
    case cidList(fixed: Int, minCount: Int)

    var minimum: Int {
      switch self {
      case .exactly(let n), .atLeast(let n): n
      case .cidList(let fixed, let minCount): fixed + 2 * minCount
      }
    }

    func allows(_ length: Int) -> Bool {
      switch self {
      case .exactly(let n): length == n
      case .atLeast(let n): length >= n
      case .cidList(let fixed, let minCount):
        length >= fixed + 2 * minCount && length <= fixed + 10 && (length - fixed) % 2 == 0
      }
    }

    /// `8`, `at least 4`, `8 + 2 per CID (1 to 5 CIDs)`, for diagnostics.
    var text: String {
      switch self {
      case .exactly(let n): "\(n)"
      case .atLeast(let n): "at least \(n)"
      case .cidList(let fixed, let minCount): "\(fixed) + 2 per CID (\(minCount) to 5 CIDs)"
      }
    }
  }

  /// One parameter of a command as the field tree shows it.
  struct Item: Sendable {
    enum Kind: Sendable {
      /// A channel endpoint, hex.
      case cid
      /// A PSM or SPSM with its protocol name.
      case psm
      /// A plain decimal u16 (MTU, MPS, credits, latency).
      case count
      case uint8
      /// A u16 code with the names of its values (Result, Reason, InfoType, Status).
      case named([UInt16: String])
      case flags
      /// A u16 in units of `scale` milliseconds.
      case milliseconds(scale: Double)
      /// Command Reject's data, which depends on the Reason before it.
      case rejectData
      /// Information Response's data, which depends on the InfoType.
      case informationData
      /// The rest as CIDs, named `name[0]`, `name[1]`…
      case cidList
      /// The rest as bytes (shown only when there are some).
      case rest
    }

    var name: String
    var kind: Kind

    init(_ name: String, _ kind: Kind) {
      self.name = name
      self.kind = kind
    }
  }

  /// One command: its name, length rule, pairing, parameters and how to decode them.
  struct Row: Sendable {
    typealias Parse = @Sendable (inout ByteCursor) throws(DecodeError) -> L2CAPSignalingParameters

    var code: UInt8
    var name: String
    var length: LengthRule
    var response: UInt8?
    var layout: [Item]
    var parse: Parse

    init(
      _ code: UInt8, _ name: String, _ length: LengthRule, response: UInt8? = nil, _ layout: [Item],
      _ parse: @escaping Parse
    ) {
      self.code = code
      self.name = name
      self.length = length
      self.response = response
      self.layout = layout
      self.parse = parse
    }
  }
}
