/// mcumgr: the Simple Management Protocol of Zephyr's MCUmgr (and Apache Mynewt's
/// newtmgr), carried over GATT. Called mcumgr in every output, because "SMP" is the
/// Security Manager Protocol there.
///
/// Zephyr Project documentation, "SMP Protocol Specification" (frame, header, minimal
/// response) and "SMP Transport Specification" (Bluetooth: service
/// 8D53DC1D-1DB7-4CD3-868B-8A527460AA84, characteristic DA2E7828-FBCE-4E01-AE9E-261174997C48,
/// requests written without response, responses notified, a message split over as many
/// ATT PDUs as it needs); "SMP Groups" for the group and command ids.
///
///     0        1        2        4        6        7        8
///     +--------+--------+--------+--------+--------+--------+--------------+
///     |Res|Ver|OP| Flags | Data Length | Group ID | Seq Num | Command | data (CBOR) |
///     +--------+--------+--------+--------+--------+--------+--------------+
///     byte 0: bits 7–5 reserved, 4–3 version (0 = v1, 1 = v2), 2–0 operation
///
/// Multi-byte fields are big-endian ("network") on every transport.
public struct MCUmgrHeader: Hashable, Sendable {
  /// The header's size, before the data.
  public static let size = 8

  /// The operation (OP): read, read response, write, write response.
  public var op: MCUmgrOp
  /// 0 for the original protocol (SMP v1), 1 for SMP v2 (group errors in `err`).
  public var version: UInt8
  /// The reserved bits 7–5 of byte 0 (0 on the wire).
  public var reserved: UInt8
  public var flags: UInt8
  /// Data Length: the bytes of CBOR after the header.
  public var length: UInt16
  public var group: MCUmgrGroup
  public var sequence: UInt8
  public var command: UInt8

  public init(
    op: MCUmgrOp, version: UInt8 = 1, reserved: UInt8 = 0, flags: UInt8 = 0, length: UInt16, group: MCUmgrGroup,
    sequence: UInt8, command: UInt8
  ) {
    self.op = op
    self.version = version
    self.reserved = reserved
    self.flags = flags
    self.length = length
    self.group = group
    self.sequence = sequence
    self.command = command
  }

  /// Reads the 8 header bytes at the start of `bytes`.
  public init(parsing bytes: [UInt8]) throws(DecodeError) {
    guard bytes.count >= Self.size else {
      throw DecodeError(.truncated(needed: Self.size, available: bytes.count), at: 0, layer: .mcumgr)
    }
    op = MCUmgrOp(rawValue: bytes[0] & 0x07)
    version = bytes[0] >> 3 & 0x03
    reserved = bytes[0] >> 5
    flags = bytes[1]
    length = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    group = MCUmgrGroup(rawValue: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
    sequence = bytes[6]
    command = bytes[7]
  }

  /// The whole message's size: header and data.
  public var messageSize: Int { Self.size + Int(length) }

  /// The command's name in its group (`upload`), or `command 7`.
  public var commandName: String { group.commandName(command) }
}

/// The OP field of a header (SMP Protocol Specification, "OP").
public struct MCUmgrOp: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Read request.
  public static let read = Self(rawValue: 0)
  /// Read response.
  public static let readResponse = Self(rawValue: 1)
  /// Write request.
  public static let write = Self(rawValue: 2)
  /// Write response.
  public static let writeResponse = Self(rawValue: 3)

  /// A response (odd operations) answers the request of the same sequence number.
  public var isResponse: Bool { rawValue & 1 == 1 }
  /// `read` for read requests and responses, `write` for the others.
  public var isRead: Bool { rawValue < 2 }

  /// The spec's name: `Read`, `Read Response`, `Write`, `Write Response`, or `OP 5`.
  public var name: String {
    switch rawValue {
    case 0: "Read"
    case 1: "Read Response"
    case 2: "Write"
    case 3: "Write Response"
    default: "OP \(rawValue)"
    }
  }
}

/// One whole mcumgr message: its header and its data decoded as CBOR.
public struct MCUmgrMessage: Hashable, Sendable {
  public var header: MCUmgrHeader
  /// The data as CBOR (a map on every standard command), nil when there is none or it
  /// does not decode (then `bodyError` says why).
  public var body: CBORValue?
  public var bodyError: DecodeError?
  /// Bytes after the Data Length the header announces.
  public var extra: Int

  /// Decodes a whole message (the header and its data, as reassembled).
  public init(parsing bytes: [UInt8]) throws(DecodeError) {
    header = try MCUmgrHeader(parsing: bytes)
    let end = min(bytes.count, header.messageSize)
    extra = bytes.count - end
    guard bytes.count >= header.messageSize else {
      throw DecodeError(
        .truncated(needed: header.messageSize - bytes.count, available: 0), at: bytes.count, layer: .mcumgr)
    }
    guard header.length > 0 else { return }
    do {
      body = try CBORDecoder.decode(Array(bytes[MCUmgrHeader.size..<end]), base: MCUmgrHeader.size)
    } catch {
      bodyError = error
    }
  }

  /// `rc`: the SMP error (`mcumgr_err_t`) of a response, when the body has one.
  public var rc: MCUmgrError? {
    body?["rc"]?.integer.map { MCUmgrError(rawValue: $0) }
  }

  /// SMP v2 `err` {`group`, `rc`}: a group's own error code.
  public var groupError: (group: MCUmgrGroup, rc: Int64)? {
    guard let err = body?["err"], let group = err["group"]?.integer, let rc = err["rc"]?.integer,
      (0...Int64(UInt16.max)).contains(group)
    else { return nil }
    return (MCUmgrGroup(rawValue: UInt16(group)), rc)
  }
}
