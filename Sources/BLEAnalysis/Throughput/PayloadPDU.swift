import BLECapture
import BLEDissect

/// How payload bytes travel: the ATT operations that carry an attribute's value, and SDUs of
/// an L2CAP credit-based channel.
public enum PayloadOperation: String, Hashable, Sendable, CaseIterable, Comparable {
  /// Write Command (and Signed Write Command): no answer.
  case writeCommand = "write_cmd"
  /// Write Request, answered by Write Response.
  case writeRequest = "write_req"
  /// Prepare Write Requests of a long (or reliable) write, each answered.
  case writeLong = "write_long"
  /// Handle Value Notification: no answer.
  case notify
  /// Handle Value Indication, confirmed.
  case indicate
  /// Read Response and Read Blob Response: the value a read request asked for.
  case read
  /// SDUs of an LE credit-based channel (L2CAP CoC).
  case coc

  /// Whether each PDU waits for its answer before the next can go.
  public var isAcknowledged: Bool {
    switch self {
    case .writeRequest, .writeLong, .indicate, .read: true
    case .writeCommand, .notify, .coc: false
    }
  }

  /// Octets each PDU carries besides the value: the ATT header (opcode and handle; with
  /// the offset for Prepare Write; the opcode alone for a read's answer) and the L2CAP basic
  /// header (4), or the SDU Length (2) and the header for CoC.
  public var headerOctets: Int {
    switch self {
    case .writeCommand, .writeRequest, .notify, .indicate: 3 + 4
    case .writeLong: 5 + 4
    case .read: 1 + 4
    case .coc: 2 + 4
    }
  }

  /// The ATT opcodes of the operation's value-carrying PDU (none for CoC).
  public var opcodes: [ATTOpcode] {
    switch self {
    case .writeCommand: [.writeCommand, .signedWriteCommand]
    case .writeRequest: [.writeRequest]
    case .writeLong: [.prepareWriteRequest]
    case .notify: [.handleValueNotification]
    case .indicate: [.handleValueIndication]
    case .read: [.readResponse, .readBlobResponse]
    case .coc: []
    }
  }

  /// The operation whose PDUs carry values with `opcode`, if any.
  public static func of(_ opcode: ATTOpcode) -> Self? {
    byOpcode[opcode.rawValue]
  }

  private static let byOpcode: [UInt8: Self] = {
    var table: [UInt8: Self] = [:]
    for operation in allCases { for opcode in operation.opcodes { table[opcode.rawValue] = operation } }
    return table
  }()

  public static func < (a: Self, b: Self) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// Host to controller (`tx`) or controller to host (`rx`): which way the payload went.
public enum PayloadDirection: String, Hashable, Sendable {
  case tx, rx
}

/// One PDU that carries payload: an attribute's value, or a CoC SDU.
public struct PayloadPDU: Hashable, Sendable {
  public var operation: PayloadOperation
  public var direction: PayloadDirection
  /// The attribute handle (ATT), or the channel's CID as this side sees it (CoC).
  public var handle: UInt16
  /// ATT value bytes, or SDU bytes.
  public var bytes: Int
  /// The ACL fragments it came in.
  public var fragments: Int

  /// The payload `analyzed` carries, if any: ATT Write Command, Signed Write Command, Write
  /// Request, Prepare Write Request, Handle Value Notification and Indication, Read and Read
  /// Blob Response (about the handle its request named), and complete SDUs of a
  /// credit-based channel that does not carry ATT.
  public init?(_ record: Record, _ analyzed: AnalyzedRecord) {
    guard let direction = record.direction, direction == .sent || direction == .received,
      let l2cap = analyzed.decoded.l2cap
    else { return nil }
    self.direction = direction == .sent ? .tx : .rx
    fragments = max(l2cap.fragments, 1)
    if let att = analyzed.decoded.att {
      guard let operation = PayloadOperation.of(att.opcode), let value = att.value, let handle = analyzed.attHandle
      else { return nil }
      self.operation = operation
      self.handle = handle
      bytes = value.count
      return
    }
    switch analyzed.decoded.reassembly {
    case .first, .part: return nil
    default: break
    }
    guard l2cap.channelMTU != nil, analyzed.decoded.smp == nil, analyzed.decoded.signaling == nil else { return nil }
    operation = .coc
    handle = l2cap.cid
    bytes = l2cap.payload.count
  }
}
