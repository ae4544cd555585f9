import BLECapture
import BLEDissect

/// What a fleet table says about a whole capture beyond the timeline: the peers' Device
/// Information strings (the cohort keys of a peer's firmware) and how the host's ACL data
/// was cut into fragments (what a controller's buffer size leads to).
public struct CaptureFacts: Sendable {
  /// The Device Information Service strings one peer returned to reads (Device
  /// Information Service 1.1, 3.2–3.7).
  public struct DeviceInformation: Sendable, Hashable {
    public var peer: DeviceAddress?
    public var manufacturer: String?
    public var model: String?
    public var hardware: String?
    public var firmware: String?
    public var software: String?
  }

  /// ACL data of one direction: L2CAP PDUs, the ACL packets they took, those cut into
  /// more than one packet, and the largest ACL payload seen.
  public struct Fragmentation: Sendable, Hashable {
    public var pdus = 0
    public var aclPackets = 0
    public var fragmentedPDUs = 0
    public var largestFragment = 0
  }

  /// In the order the peers first answered a read of one of these strings.
  public private(set) var deviceInformation: [DeviceInformation] = []
  public private(set) var sent = Fragmentation()
  public private(set) var received = Fragmentation()

  /// At most this many peers are remembered (a capture of a fleet of peripherals keeps
  /// its memory bounded).
  public static let maxPeers = 64

  /// The Device Information characteristics and the field each fills (immutable, so
  /// safe to share although key paths are not Sendable).
  nonisolated(unsafe) static let characteristics:
    [(uuid: BluetoothUUID, field: WritableKeyPath<DeviceInformation, String?>)] = [
      (BluetoothUUID(uuid16: 0x2A29), \.manufacturer),
      (BluetoothUUID(uuid16: 0x2A24), \.model),
      (BluetoothUUID(uuid16: 0x2A27), \.hardware),
      (BluetoothUUID(uuid16: 0x2A26), \.firmware),
      (BluetoothUUID(uuid16: 0x2A28), \.software),
    ]

  public init() {}

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    if let acl = analyzed.decoded.acl {
      count(acl, analyzed.decoded.reassembly, sent: record.direction == .sent)
    }
    guard let att = analyzed.decoded.att, att.opcode == .readResponse, let uuid = analyzed.attribute?.uuid,
      let field = Self.characteristics.first(where: { $0.uuid == uuid })?.field, let range = att.value
    else { return }
    let text: String? = analyzed.decoded.withPayloadBytes(record) { bytes in
      let end = min(bytes.count, range.start + range.count)
      let start = min(range.start, end)
      guard start < end else { return nil }
      // Strings are often padded with NULs to a fixed size.
      let trimmed = bytes[start..<end].prefix { $0 != 0 }
      return String(validating: trimmed, as: UTF8.self)
    }
    guard let text, !text.isEmpty else { return }
    let peer = analyzed.conn?.peer
    if let index = deviceInformation.firstIndex(where: { $0.peer == peer }) {
      deviceInformation[index][keyPath: field] = text
    } else if deviceInformation.count < Self.maxPeers {
      var information = DeviceInformation(peer: peer)
      information[keyPath: field] = text
      deviceInformation.append(information)
    }
  }

  private mutating func count(_ acl: ACLLayer, _ role: ReassemblyRole, sent: Bool) {
    var counts = sent ? self.sent : received
    counts.aclPackets += 1
    counts.largestFragment = max(counts.largestFragment, Int(acl.length))
    switch role {
    case .whole: counts.pdus += 1
    case .last:
      counts.pdus += 1
      counts.fragmentedPDUs += 1
    case .first, .part: break
    }
    if sent { self.sent = counts } else { received = counts }
  }
}

/// The keys a fleet groups captures by that the phone itself tells: its platform, model,
/// OS version and build, from an Android bugreport's properties or an iOS sysdiagnose's
/// name (`sysdiagnose_…_iPhone-OS_iPhone_21F79`).
public struct CaptureCohort: Sendable, Hashable {
  public var platform: String?
  public var phoneModel: String?
  public var osVersion: String?
  public var buildID: String?
  public var buildFingerprint: String?

  public init() {}

  /// What the phone archive at `path` says about the phone; empty for a plain capture
  /// (or an archive that cannot be read again).
  public init(archive path: String) {
    guard let opened = try? PhoneLog.open(path) else { return }
    let (archive, log) = opened
    platform = archive.platform.rawValue
    if let build = log?.build {
      phoneModel = build.model
      osVersion = build.release
      buildID = build.id
      buildFingerprint = build.fingerprint
    }
    if archive.platform == .iOS, let named = Self.iOSArchiveName(path) {
      phoneModel = phoneModel ?? named.model
      buildID = buildID ?? named.build
    }
  }

  /// `…_iPhone-OS_iPhone_21F79…`: the device and the build in a sysdiagnose's name.
  static func iOSArchiveName(_ path: String) -> (model: String, build: String?)? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let marker = name.firstRange(of: "_iPhone-OS_") ?? name.firstRange(of: "_iOS_") else { return nil }
    let parts = name[marker.upperBound...].split(separator: "_")
    guard parts.count >= 2 else { return nil }
    let build = parts[1].prefix { $0.isLetter || $0.isNumber }
    return (String(parts[0]), build.isEmpty ? nil : String(build))
  }
}
