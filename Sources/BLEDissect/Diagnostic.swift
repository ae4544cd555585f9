/// Something worth telling about a record: a malformed PDU, a record cut by the
/// capture source. Ids are dotted and stable (users filter on them).
public struct Diagnostic: Hashable, Sendable {
  public enum Severity: String, Hashable, Sendable {
    case info, warning, error
  }

  public var id: String
  public var severity: Severity
  public var message: String

  public init(id: String, severity: Severity, _ message: String) {
    self.id = id
    self.severity = severity
    self.message = message
  }

  /// Every diagnostic id bleanalyze emits, with what it means (for README and tests).
  public static let catalog: [(id: String, meaning: String)] =
    base + HCIParameters.diagnosticIDs + ACLReassembler.diagnosticIDs + L2CAPSignalingPDU.diagnosticIDs
    + SDUReassembler.diagnosticIDs
    + ATTPDU.diagnosticIDs + SMPPDU.diagnosticIDs + AdvertisingDecoder.diagnosticIDs + DecodeResult.diagnosticIDs
    + LinkLayerDecoder.diagnosticIDs + analysis + VendorDiagnostics.ids

  /// Ids of the record framing and HCI headers.
  static let base: [(id: String, meaning: String)] = [
    ("capture.cut", "the capture source kept fewer bytes than the packet had (Android filtered log, btsnooz, snaplen)"),
    (
      "capture.prohibited",
      "the capture source replaced the L2CAP payload with \"PROHIBITED\" (Android snoop log profile filter); it is not decoded"
    ),
    (
      "capture.dropped",
      "records were lost right before this one: the kernel dropped them because `live`'s monitor socket receive buffer was full, or a btsnoop file's cumulative drop count grew; the message gives the count"
    ),
    ("hci.truncated", "an HCI packet ends inside its header or a field"),
    ("acl.truncated", "an ACL packet ends inside its header"),
    ("hci.length.mismatch", "an HCI header's length field disagrees with the packet's size before any cut"),
    ("l2cap.truncated", "an L2CAP PDU ends inside its basic header"),
    (
      "l2cap.channels.limit",
      "65,536 credit-based channel endpoints are open at once; a further channel's K-frames are not reassembled"
    ),
  ]

  /// Ids that BLEAnalysis emits, from what it follows across records.
  static let analysis: [(id: String, meaning: String)] = [
    (
      "att.mtu.exceeded",
      "an ATT PDU is larger than its bearer's ATT_MTU (agreed by Exchange MTU, or an EATT channel's MTU)"
    ),
    (
      "att.lookahead.limit",
      "`show` holds at most 20,000 records (16 MiB) back while a request waits for its answer; past that the request is shown without it"
    ),
    (
      "conn.limit",
      "more than 16,384 connections are open at once; records of further ones are decoded but not followed (no ATT pairing, GATT or timeline)"
    ),
    (
      "gatt.queue.limit",
      "a prepared write queue holds 4,096 Prepare Write Requests; further ones are not assembled"
    ),
    (
      "devices.limit",
      "`devices` tracks at most 100,000 advertisers; reports of further ones are not counted (a note on stderr)"
    ),
  ]
}
