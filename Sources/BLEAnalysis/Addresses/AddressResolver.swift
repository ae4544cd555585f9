import BLECapture
import BLEDissect

/// An Identity Resolving Key and the identity it stands for.
public struct IdentityKey: Hashable, Sendable {
  public enum Source: Hashable, Sendable {
    /// SMP Identity Information in the capture, at this frame.
    case capture(frame: Int)
    /// Given on the command line (`--irk`).
    case commandLine
  }

  /// The IRK, most significant octet first (as `e` takes its key, and as Android and
  /// BlueZ print it).
  public var irk: [UInt8]
  /// The identity address from SMP Identity Address Information, when it was seen.
  public var identity: DeviceAddress?
  /// 0x00 public, 0x01 static random (SMP AddrType).
  public var identityType: UInt8?
  public var source: Source

  public init(irk: [UInt8], identity: DeviceAddress? = nil, identityType: UInt8? = nil, source: Source) {
    self.irk = irk
    self.identity = identity
    self.identityType = identityType
    self.source = source
  }

  /// Reads an IRK written as 32 hex digits, most significant octet first; `0x`,
  /// colons, hyphens and spaces are allowed. Nil for anything else.
  public static func parseIRK(_ text: String) -> [UInt8]? {
    var digits = Substring(text)
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    let hex = Array(digits.filter { $0 != ":" && $0 != "-" && $0 != " " })
    guard hex.count == 32 else { return nil }
    var irk: [UInt8] = []
    for index in stride(from: 0, to: 32, by: 2) {
      guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
      irk.append(byte)
    }
    return irk
  }
}

/// Resolves resolvable private addresses to identities with IRKs: those given on the
/// command line and those the capture distributes (SMP Identity Information, with
/// the Identity Address Information that follows it on the same link). Any command
/// can feed it records and ask it about addresses.
public struct AddressResolver: Sendable {
  public private(set) var keys: [IdentityKey] = [] {
    didSet { version += 1 }
  }
  /// Changes whenever `keys` does: what was resolved before may resolve otherwise.
  public private(set) var version = 0
  /// Resolutions already computed: the index of the key, or nil when none resolves.
  private var cache: [DeviceAddress: Int?] = [:]
  /// An IRK seen on a link whose identity address has not come yet: the key's index.
  private var awaitingAddress: [LinkSide: Int] = [:]

  struct LinkSide: Hashable {
    var adapter: UInt16?
    var handle: UInt16
    var direction: Direction?
  }

  static let maxCached = 1 << 16

  public init(keys: [IdentityKey] = []) {
    for key in keys { add(key) }
  }

  /// Adds a key; a known IRK keeps its entry and takes an identity it lacked.
  @discardableResult
  public mutating func add(_ key: IdentityKey) -> Int {
    cache.removeAll()
    if let index = keys.firstIndex(where: { $0.irk == key.irk }) {
      if keys[index].identity == nil, key.identity != nil {
        keys[index].identity = key.identity
        keys[index].identityType = key.identityType
      }
      return index
    }
    keys.append(key)
    return keys.count - 1
  }

  /// Learns IRKs and identity addresses from a record's SMP PDU.
  public mutating func observe(_ record: Record, _ decoded: DecodedRecord) {
    guard let smp = decoded.smp, let acl = decoded.acl else { return }
    let side = LinkSide(adapter: record.adapter, handle: acl.handle, direction: record.direction)
    if smp.code == .identityInformation, case .value(let range) = smp.parameters, range.count == 16 {
      let irk: [UInt8] = decoded.withPayloadBytes(record) { bytes in
        guard range.start + 16 <= bytes.count else { return [] }
        // SMP carries the key least significant octet first.
        return bytes[range.start..<range.start + 16].reversed()
      }
      guard irk.count == 16, irk.contains(where: { $0 != 0 }) else { return }
      awaitingAddress[side] = add(IdentityKey(irk: irk, source: .capture(frame: record.frame)))
    } else if let identity = smp.identityAddress, let index = awaitingAddress.removeValue(forKey: side) {
      if keys[index].identity == nil {
        keys[index].identity = identity.address
        keys[index].identityType = identity.type
        cache.removeAll()
      }
    }
  }

  /// The key that resolves `address`, nil when it is not a resolvable private
  /// address or no key resolves it. The caller says whether the address is random.
  public mutating func resolve(_ address: DeviceAddress, isRandom: Bool) -> IdentityKey? {
    guard isRandom, address.randomKind == .resolvable, !keys.isEmpty else { return nil }
    if let cached = cache[address] { return cached.map { keys[$0] } }
    let index = keys.firstIndex { AES128.resolves(address, irk: $0.irk) }
    if cache.count >= Self.maxCached { cache.removeAll() }
    cache[address] = .some(index)
    return index.map { keys[$0] }
  }
}
