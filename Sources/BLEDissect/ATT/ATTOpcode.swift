/// An ATT opcode (Core 6.0, Vol 3, Part F, 3.3.1). Unknown values survive and
/// render as `Unknown (0x7f)`.
///
///     bit  7                  6             5…0
///     +--------------------+--------------+--------+
///     | authentication     | command flag | method |
///     | signature flag     |              |        |
///     +--------------------+--------------+--------+
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// What role a PDU plays and which opcode answers it (Core 6.0, Vol 3, Part F, 3.3).
  public enum Kind: Hashable, Sendable {
    /// A client request the server answers with `response` (or an Error Response).
    case request(response: UInt8)
    /// A server response to `request`.
    case response(request: UInt8)
    /// A client command: no response.
    case command
    /// A server notification: no confirmation.
    case notification
    /// A server indication the client confirms with `confirmation`.
    case indication(confirmation: UInt8)
    /// A client confirmation of an indication.
    case confirmation
    /// The Error Response, which answers any request.
    case error
    /// An opcode this decoder does not know.
    case unknown
  }

  /// Error Response
  public static let errorResponse = Self(rawValue: 0x01)
  /// Exchange MTU Request
  public static let exchangeMTURequest = Self(rawValue: 0x02)
  /// Exchange MTU Response
  public static let exchangeMTUResponse = Self(rawValue: 0x03)
  /// Find Information Request
  public static let findInformationRequest = Self(rawValue: 0x04)
  /// Find Information Response
  public static let findInformationResponse = Self(rawValue: 0x05)
  /// Find By Type Value Request
  public static let findByTypeValueRequest = Self(rawValue: 0x06)
  /// Find By Type Value Response
  public static let findByTypeValueResponse = Self(rawValue: 0x07)
  /// Read By Type Request
  public static let readByTypeRequest = Self(rawValue: 0x08)
  /// Read By Type Response
  public static let readByTypeResponse = Self(rawValue: 0x09)
  /// Read Request
  public static let readRequest = Self(rawValue: 0x0A)
  /// Read Response
  public static let readResponse = Self(rawValue: 0x0B)
  /// Read Blob Request
  public static let readBlobRequest = Self(rawValue: 0x0C)
  /// Read Blob Response
  public static let readBlobResponse = Self(rawValue: 0x0D)
  /// Read Multiple Request
  public static let readMultipleRequest = Self(rawValue: 0x0E)
  /// Read Multiple Response
  public static let readMultipleResponse = Self(rawValue: 0x0F)
  /// Read By Group Type Request
  public static let readByGroupTypeRequest = Self(rawValue: 0x10)
  /// Read By Group Type Response
  public static let readByGroupTypeResponse = Self(rawValue: 0x11)
  /// Write Request
  public static let writeRequest = Self(rawValue: 0x12)
  /// Write Response
  public static let writeResponse = Self(rawValue: 0x13)
  /// Prepare Write Request
  public static let prepareWriteRequest = Self(rawValue: 0x16)
  /// Prepare Write Response
  public static let prepareWriteResponse = Self(rawValue: 0x17)
  /// Execute Write Request
  public static let executeWriteRequest = Self(rawValue: 0x18)
  /// Execute Write Response
  public static let executeWriteResponse = Self(rawValue: 0x19)
  /// Read Multiple Variable Request
  public static let readMultipleVariableRequest = Self(rawValue: 0x20)
  /// Read Multiple Variable Response
  public static let readMultipleVariableResponse = Self(rawValue: 0x21)
  /// Multiple Handle Value Notification
  public static let multipleHandleValueNotification = Self(rawValue: 0x23)
  /// Handle Value Notification
  public static let handleValueNotification = Self(rawValue: 0x1B)
  /// Handle Value Indication
  public static let handleValueIndication = Self(rawValue: 0x1D)
  /// Handle Value Confirmation
  public static let handleValueConfirmation = Self(rawValue: 0x1E)
  /// Write Command
  public static let writeCommand = Self(rawValue: 0x52)
  /// Signed Write Command
  public static let signedWriteCommand = Self(rawValue: 0xD2)

  /// Where a known opcode's row is in the table. `name` and `kind` read one field of
  /// the row there: copying the whole row would retain its parser.
  var position: Int? {
    let index = Self.rowIndex[Int(rawValue)]
    return index < 0 ? nil : Int(index)
  }

  /// The table row of a known opcode.
  var row: ATTOpcodeRow? { position.map { Self.table[$0] } }

  /// Whether the table knows this opcode.
  public var isKnown: Bool { position != nil }

  /// The spec name (`Exchange MTU Request`), or `Unknown (0x7f)`.
  public var name: String { position.map { Self.names[$0] } ?? "Unknown (0x" + hex(rawValue) + ")" }

  /// The spec name of a known opcode, for output that appends it without a String.
  public var staticName: StaticString? { position.map { Self.table[$0].name } }

  public var description: String { name }

  public var kind: Kind { position.map { Self.table[$0].kind } ?? .unknown }

  /// Bits 0–5: the method.
  public var method: UInt8 { rawValue & 0x3F }

  /// Bit 6: a command, which gets no response (an unknown command is ignored).
  public var isCommand: Bool { rawValue & 0x40 != 0 }

  /// Bit 7: the PDU ends with a 12-byte Authentication Signature.
  public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

  /// The response that answers this request.
  public var response: ATTOpcode? {
    if case .request(let response) = kind { return ATTOpcode(rawValue: response) }
    return nil
  }

  /// The request this response answers.
  public var request: ATTOpcode? {
    if case .response(let request) = kind { return ATTOpcode(rawValue: request) }
    return nil
  }
}
