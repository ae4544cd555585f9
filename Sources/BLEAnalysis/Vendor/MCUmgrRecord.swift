import BLEDissect

/// What a record says in mcumgr: a whole message (on the record that completes it),
/// a fragment of one, or, on a disconnection, where an unfinished transfer stopped.
public struct MCUmgrRecord: Sendable {
  /// The whole message, on the record whose PDU completes it.
  public var message: MCUmgrMessage?
  /// A PDU that carries part of a message still under way.
  public var fragment: Fragment?
  /// The frames of every PDU the message took, when it took several.
  public var frames: [Int] = []
  /// On a response: the request of the same sequence number.
  public var request: VendorExchange?
  /// On an upload's (or download's) response, and on the disconnection that cut it short.
  public var progress: TransferProgress?

  public struct Fragment: Hashable, Sendable {
    /// 1 for the PDU that starts the message.
    public var index: Int
    /// Bytes of the message so far, header included.
    public var received: Int
    /// The message's size (header and Data Length), once its header is in.
    public var length: Int?
  }

  /// `read`, `read_rsp`, `write`, `write_rsp` (after Zephyr's `MGMT_OP_*`).
  public static func opName(_ op: MCUmgrOp) -> String {
    switch op.rawValue {
    case 0: "read"
    case 1: "read_rsp"
    case 2: "write"
    case 3: "write_rsp"
    default: "op_\(op.rawValue)"
    }
  }

  static let table: VendorFieldTable = {
    let p = "mcumgr"
    let m: @Sendable (VendorRecord) -> MCUmgrMessage? = { $0.mcumgr?.message }
    let r: @Sendable (VendorRecord) -> MCUmgrRecord? = { $0.mcumgr }
    return VendorFieldTable(
      name: p,
      description:
        "An mcumgr message (Zephyr's Simple Management Protocol) on characteristic DA2E7828-…, on the record whose ATT PDU completes it; a fragment of one still under way; or, on a Disconnection Complete, the upload it cut short.",
      fields: [
        VendorField("version", "Version", .integer, of: p, m) { .int($0.header.version) },
        VendorField("op", "Operation", .string, of: p, m) { .string(opName($0.header.op)) },
        VendorField("op_id", "OP", .integer, of: p, m) { .int($0.header.op.rawValue) },
        VendorField("flag_bits", "Flags", .integer, of: p, m) { .int($0.header.flags) },
        VendorField("length", "Data Length", .integer, of: p, m) { .int($0.header.length) },
        VendorField("group", "Group", .string, of: p, m) { .string($0.header.group.name) },
        VendorField("group_id", "Group ID", .integer, of: p, m) { .int($0.header.group.rawValue) },
        VendorField("sequence", "Sequence Number", .integer, of: p, m) { .int($0.header.sequence) },
        VendorField("command", "Command", .string, of: p, m) { .string($0.header.commandName) },
        VendorField("command_id", "Command ID", .integer, of: p, m) { .int($0.header.command) },
        VendorField("rc", "rc", .integer, of: p, m) { .int($0.rc?.rawValue) },
        VendorField("rc_name", "rc Name", .string, of: p, m) { .text($0.rc?.name) },
        VendorField("err_group", "err Group", .string, of: p, m) { .text($0.groupError?.group.name) },
        VendorField("err_rc", "err rc", .integer, of: p, m) { .int($0.groupError?.rc) },
        VendorField("err_name", "err Name", .string, of: p, m) { message in
          message.groupError.map { .string($0.group.errorName($0.rc) ?? "rc \($0.rc)") }
        },
        VendorField("body", "Data", .cbor, filter: false, of: p, m) { $0.body.map { .cbor($0) } },
        VendorField("frames", "Frames", .integers, as: "frame", of: p, r) {
          $0.frames.isEmpty ? nil : .integers($0.frames.map(Int64.init))
        },
        VendorField("request_frame", "Request In Frame", .integer, of: p, r) { .int($0.request?.frame) },
        VendorField("latency_ms", "Latency", .decimal, of: p, r) { .milliseconds($0.request?.latencyMicroseconds) },
        VendorField("fragment.index", "Fragment", .integer, of: p, r) { .int($0.fragment?.index) },
        VendorField("fragment.received", "Received", .integer, of: p, r) { .int($0.fragment?.received) },
        VendorField("fragment.length", "Message Length", .integer, of: p, r) { .int($0.fragment?.length) },
      ] + TransferProgress.fields(of: p) { $0.mcumgr?.progress })
  }()
}
