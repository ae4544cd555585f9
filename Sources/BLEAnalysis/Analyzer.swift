import BLECapture
import BLEDissect

/// The whole per-record pipeline of one capture: decode, follow links, resolve private
/// addresses, rebuild GATT.
public struct Analyzer {
  public private(set) var gatt: GATTTracker
  private var decoder = RecordDecoder()
  private var links = LinkTracker()
  private var resolver: AddressResolver
  private var peerNames = PeerNameTracker()
  private var vendor = VendorTracker()

  /// `library` names attributes and decodes their values. `identityKeys` (`--irk`) join the IRKs the capture's SMP distributes in resolving
  /// private peer addresses to identities.
  public init(
    importedDatabases: [(address: DeviceAddress?, database: GATTDatabase)] = [], peers: PeerAssignments = .init(),
    identityKeys: [IdentityKey] = [], library: DissectorLibrary = .builtin
  ) {
    gatt = GATTTracker(imported: importedDatabases, peers: peers, library: library)
    resolver = AddressResolver(keys: identityKeys)
  }

  public mutating func analyze(_ record: Record) -> AnalyzedRecord {
    var record = record
    return analyze(&record)
  }

  /// Also gives an air packet the direction its link layer decode found
  /// (central→peripheral `sent`, as if the capture were the central's).
  public mutating func analyze(_ record: inout Record) -> AnalyzedRecord {
    var analyzed = AnalyzedRecord(decoded: DecodedRecord())
    analyze(&record, into: &analyzed)
    return analyzed
  }

  /// The same, into `analyzed` (which starts over): the pipeline analyzes each record
  /// where it will wait for its answer, so that it is never copied.
  public mutating func analyze(_ record: inout Record, into analyzed: inout AnalyzedRecord) {
    analyzed = AnalyzedRecord(decoded: DecodedRecord())
    decoder.decode(record, into: &analyzed.decoded)
    links.analyze(record, &analyzed)
    if record.droppedBefore > 0 { analyzed.decoded.add([.dropped(record.droppedBefore)]) }
    // The record's kind first: a getter on the decoded record would copy it whole.
    if case .linkLayer = record.kind, let direction = analyzed.decoded.ll?.direction {
      record.direction = direction.hostDirection
    }
    resolver.observe(record, analyzed.decoded)
    gatt.analyze(record, &analyzed, resolver: &resolver)
    vendor.analyze(record, &analyzed)
    peerNames.analyze(record, &analyzed)
  }

  /// Names a held PDU's attribute from what discovery taught since it was analyzed
  /// (`AnalyzedRecord.awaitsName`); false while nothing names it yet.
  public mutating func name(_ held: inout ResponseLookahead.Held) -> Bool {
    gatt.name(held.record, &held.analyzed, resolver: &resolver)
  }

  /// Decodes `record` into `analyzed` (which starts over), without the analysis: no
  /// connections, transactions or GATT.
  public mutating func decode(_ record: Record, into analyzed: inout AnalyzedRecord) {
    analyzed = AnalyzedRecord(decoded: DecodedRecord())
    decoder.decode(record, into: &analyzed.decoded)
  }

  /// The Local Name `address` advertised, when the capture showed one.
  public func advertisedName(of address: DeviceAddress) -> String? { peerNames.advertisedName(of: address) }

  /// Ends the capture: the requests and indications still waiting for an answer.
  public mutating func finish() -> [UnansweredRequest] {
    links.finish()
  }
}
