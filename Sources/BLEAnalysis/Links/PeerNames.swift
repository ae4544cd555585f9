import BLECapture
import BLEDissect

/// A peer's name as the capture shows it. Immutable and shared: every record of a
/// connection holds the same instance, unowned (the tracker keeps it alive).
public final class PeerName: Sendable {
  public let name: String
  /// Where the name came from.
  public let source: Source

  public enum Source: Sendable {
    /// A Complete or Shortened Local Name the address advertised.
    case advertised
    /// A GAP Device Name (0x2A00) value read on the connection.
    case deviceName
  }

  init(_ name: String, source: Source) {
    self.name = name
    self.source = source
  }
}

/// Names the peer of each connection: the Device Name read on it, else the Local
/// Name its address advertised (Complete over Shortened), as far as the records so far
/// tell.
struct PeerNameTracker {
  private var advertised: [DeviceAddress: (name: PeerName, complete: Bool)] = [:]
  private var read: [Int: PeerName] = [:]
  /// Every name handed out: records hold them unowned, so none is freed before the
  /// tracker. A capture that names more peers than this keeps its first names.
  private var kept: [PeerName] = []
  static let maxNames = 4_096
  /// Changes whenever a name is learned, so the last answer can be kept.
  private var version = 0
  /// The names of recent connections (nil: none known), as of `version`.
  private var recent = RecentByConnection<Unmanaged<PeerName>?>()
  static let deviceName = BluetoothUUID(uuid16: 0x2A00)

  func advertisedName(of address: DeviceAddress) -> String? { advertised[address]?.name.name }

  mutating func analyze(_ record: Record, _ analyzed: inout AnalyzedRecord) {
    if analyzed.decoded.extrasID != 0, let reports = analyzed.decoded.advertising {
      learnAdvertised(reports, record, analyzed.decoded)
    }
    guard let id = analyzed.conn?.id else { return }
    if let opcode = analyzed.decoded.att?.opcode, opcode == .readResponse || opcode == .readByTypeResponse {
      learnDeviceName(analyzed.decoded.att!, record, analyzed, conn: id)
    }
    // Most records belong to a connection of the last few, whose name is already known.
    if let known = recent.value(for: id, version: version) {
      analyzed.peerNameReference = known
      return
    }
    let name = read[id] ?? analyzed.conn?.peer.flatMap { advertised[$0]?.name }
    recent.set(name.map { Unmanaged.passUnretained($0) }, for: id, version: version)
    analyzed.peerName = name
  }

  private mutating func learnAdvertised(
    _ reports: [AdvertisingReport], _ record: Record, _ decoded: DecodedRecord
  ) {
    for report in reports {
      guard let address = report.address else { continue }
      for structure in report.structures {
        let complete = structure.type == .completeLocalName
        guard complete || structure.type == .shortenedLocalName, case .name(let name) = structure.value,
          !name.isEmpty
        else { continue }
        if let known = advertised[address], known.name.name == name || (known.complete && !complete) { continue }
        guard let kept = keep(PeerName(name, source: .advertised)) else { return }
        advertised[address] = (kept, complete)
      }
    }
  }

  /// A Read Response of the Device Name characteristic, or a Read By Type Response to a
  /// read of 0x2A00 by type.
  private mutating func learnDeviceName(_ att: ATTPDU, _ record: Record, _ analyzed: AnalyzedRecord, conn: Int) {
    var value: ByteRange?
    switch att.parameters {
    case .attributeDataList(let length, let list) where analyzed.exchange?.requestType == Self.deviceName:
      guard length > 2, list.count >= Int(length) else { return }
      value = ByteRange(start: list.start + 2, count: Int(length) - 2)
    default:
      guard analyzed.attribute?.uuid == Self.deviceName, let range = att.value else { return }
      value = range
    }
    guard let value else { return }
    let name: String? = analyzed.decoded.withPayloadBytes(record) { bytes in
      let end = min(bytes.count, value.start + value.count)
      let start = min(value.start, end)
      guard start < end else { return nil }
      return String(validating: bytes[start..<end], as: UTF8.self)
    }
    guard let name, !name.isEmpty, read[conn]?.name != name else { return }
    read[conn] = keep(PeerName(name, source: .deviceName)) ?? read[conn]
  }

  /// `name`, kept alive for as long as the tracker; nil past `maxNames`.
  private mutating func keep(_ name: PeerName) -> PeerName? {
    guard kept.count < Self.maxNames else { return nil }
    kept.append(name)
    version += 1
    return name
  }
}
