import BLECapture
import BLEDissect

/// Everything heard from one advertiser: `devices` of the data contract.
public struct Device: Sendable {
  public var address: DeviceAddress
  /// The Address_Type of its first report (`public`, `random`…), or of the identity.
  public var addressType: AdvertisingAddressType
  /// Local names (Complete, Shortened, Broadcast_Name) in the order first heard.
  public var names: [String] = []
  /// Complete reports per PDU type name (`ADV_IND`, `SCAN_RSP`, `EXT_ADV`…); a report
  /// reassembled from fragments counts once.
  public var reports: [String: Int] = [:]
  public var rssiMin: Int?
  public var rssiMax: Int?
  var rssiSum = 0
  var rssiCount = 0
  /// Service UUIDs from UUID lists and service data, normalized, in order first heard.
  public var services: [BluetoothUUID] = []
  /// Manufacturer data per Company Identifier, in order first heard; the data is the
  /// latest heard.
  public var manufacturer: [(company: UInt16, data: [UInt8])] = []
  /// The Tx Power Level AD type's value, in dBm (the latest heard).
  public var txPower: Int8?
  public var appearance: UInt16?
  /// The Advertising Interval AD type's value, when advertised.
  public var advertisedInterval: AdvertisingInterval?
  /// The latest beacon of each kind heard, in order first heard.
  public var beacons: [Beacon] = []
  public var firstFrame: Int
  public var lastFrame: Int
  public var firstTime: Int64
  public var lastTime: Int64
  /// When the address was resolved with an IRK: the key, and every address merged.
  public var resolvedBy: IdentityKey?
  public var addresses: [DeviceAddress] = []
  /// Gaps between successive advertising PDUs (scan responses left out), in µs.
  var gaps: [Int64] = []
  var lastAdvertisingTime: Int64?

  static let maxNames = 8
  static let maxServices = 64
  static let maxCompanies = 8
  static let maxGaps = 512
  /// Gaps shorter than this (µs) are one advertising event heard on several channels
  /// (air sniffers hear each channel's copy); no advertising interval is below 20 ms.
  static let minimumGap: Int64 = 10_000
  /// The mean of advDelay, in ms.
  static let meanAdvDelay = 5.0

  init(address: DeviceAddress, addressType: AdvertisingAddressType, frame: Int, time: Int64) {
    self.address = address
    self.addressType = addressType
    firstFrame = frame
    lastFrame = frame
    firstTime = time
    lastTime = time
  }

  /// The mean RSSI in dBm, nil when no report carried one.
  public var rssiMean: Double? { rssiCount == 0 ? nil : Double(rssiSum) / Double(rssiCount) }

  /// The beacon shown first: the first kind heard (its latest value).
  public var beacon: Beacon? { beacons.first }

  /// An estimate of the advertising interval in ms, from the gaps between advertising
  /// PDUs heard: the median of the gaps within 1.5 times the 10th-percentile gap, less
  /// the 5 ms that the pseudo-random advDelay (0-10 ms, Core 6.0, Vol 6, Part B,
  /// 4.4.2.2.1) adds to each event on average. A scanner misses events (scan window,
  /// channel), so most gaps are multiples of the interval plus delays; the shortest
  /// cluster is one interval. Nil with fewer than 3 gaps.
  public var intervalEstimate: Double? {
    let sorted = gaps.filter { $0 >= Self.minimumGap }.sorted()
    guard sorted.count >= 3 else { return nil }
    let low = sorted[sorted.count / 10]
    let cluster = sorted.filter { $0 >= low && Double($0) <= Double(low) * 1.5 }
    return max(0, Double(cluster[cluster.count / 2]) / 1000 - Self.meanAdvDelay)
  }

  /// Whether a report's PDU type counts for the interval (advertising, not answers).
  static func isAdvertising(_ pduType: String) -> Bool {
    pduType != "SCAN_RSP" && pduType != "EXT_SCAN_RSP"
  }

  mutating func add(_ report: AdvertisingReport, bytes: UnsafeRawBufferPointer, frame: Int, time: Int64) {
    reports[report.pduType, default: 0] += 1
    lastFrame = frame
    lastTime = time
    if let rssi = report.rssi {
      rssiMin = min(rssiMin ?? Int(rssi), Int(rssi))
      rssiMax = max(rssiMax ?? Int(rssi), Int(rssi))
      rssiSum += Int(rssi)
      rssiCount += 1
    }
    if Self.isAdvertising(report.pduType) {
      if let last = lastAdvertisingTime, gaps.count < Self.maxGaps { gaps.append(time - last) }
      lastAdvertisingTime = time
    }
    for structure in report.structures { add(structure.value, bytes) }
    if let beacon = report.beacon {
      if let index = beacons.firstIndex(where: { $0.kind == beacon.kind }) {
        beacons[index] = beacon
      } else {
        beacons.append(beacon)
      }
    }
  }

  private mutating func add(_ value: ADValue, _ bytes: UnsafeRawBufferPointer) {
    switch value {
    case .name(let name):
      if !name.isEmpty, names.count < Self.maxNames, !names.contains(name) { names.append(name) }
    case .serviceUUIDs(let uuids, _):
      for uuid in uuids { addService(uuid) }
    case .serviceData(let uuid, _):
      addService(uuid)
    case .manufacturerData(let company, let range):
      let end = min(bytes.count, range.start + range.count)
      let data = Array(bytes[min(range.start, end)..<end])
      if let index = manufacturer.firstIndex(where: { $0.company == company }) {
        manufacturer[index].data = data
      } else if manufacturer.count < Self.maxCompanies {
        manufacturer.append((company, data))
      }
    case .txPower(let power): txPower = power
    case .appearance(let value): appearance = value
    case .advertisingInterval(let interval): advertisedInterval = interval
    default: break
    }
  }

  private mutating func addService(_ uuid: BluetoothUUID) {
    let normalized = uuid.normalized
    if services.count < Self.maxServices, !services.contains(normalized) { services.append(normalized) }
  }

  /// Takes in what another row of the same identity heard.
  mutating func merge(_ other: Device) {
    for (type, count) in other.reports { reports[type, default: 0] += count }
    if let low = other.rssiMin { rssiMin = min(rssiMin ?? low, low) }
    if let high = other.rssiMax { rssiMax = max(rssiMax ?? high, high) }
    rssiSum += other.rssiSum
    rssiCount += other.rssiCount
    for name in other.names where names.count < Self.maxNames && !names.contains(name) { names.append(name) }
    for uuid in other.services { addService(uuid) }
    for entry in other.manufacturer where !manufacturer.contains(where: { $0.company == entry.company }) {
      manufacturer.append(entry)
    }
    for beacon in other.beacons where !beacons.contains(where: { $0.kind == beacon.kind }) { beacons.append(beacon) }
    txPower = txPower ?? other.txPower
    appearance = appearance ?? other.appearance
    advertisedInterval = advertisedInterval ?? other.advertisedInterval
    gaps += other.gaps.prefix(max(0, Self.maxGaps - gaps.count))
    if other.firstFrame < firstFrame {
      firstFrame = other.firstFrame
      firstTime = other.firstTime
    }
    if other.lastFrame > lastFrame {
      lastFrame = other.lastFrame
      lastTime = other.lastTime
    }
    for address in other.addresses where !addresses.contains(address) { addresses.append(address) }
  }
}

/// Accumulates every advertiser of a capture, one row per address (public and
/// random addresses apart), bounded to `limit` rows. At the end, rows whose
/// resolvable private addresses one IRK resolves become one row for the identity.
public struct DeviceTable {
  struct Key: Hashable {
    var address: DeviceAddress
    var random: Bool
  }

  private var index: [Key: Int] = [:]
  private var rows: [Device] = []
  public let limit: Int
  /// Reports not counted because the table was full.
  public private(set) var droppedReports = 0
  /// Reports without an advertiser address: anonymous extended advertising, and
  /// periodic reports whose sync was established before the capture began.
  public private(set) var unattributedReports = 0
  /// Learns IRKs from the capture as records go by.
  public var resolver: AddressResolver

  public init(limit: Int = 100_000, resolver: AddressResolver = AddressResolver()) {
    self.limit = limit
    self.resolver = resolver
  }

  public var count: Int { rows.count }

  public mutating func add(_ record: Record, _ decoded: DecodedRecord) {
    resolver.observe(record, decoded)
    guard let reports = decoded.advertising else { return }
    let time = record.timestamp.unixMicroseconds
    for report in reports where !report.isFragment {
      guard let address = report.address, let type = report.addressType else {
        unattributedReports += 1
        continue
      }
      let key = Key(address: address, random: type.isRandom)
      var position = index[key]
      if position == nil {
        guard rows.count < limit else {
          droppedReports += 1
          continue
        }
        position = rows.count
        index[key] = rows.count
        var device = Device(address: address, addressType: type, frame: record.frame, time: time)
        device.addresses = [address]
        rows.append(device)
      }
      report.withDataBytes(record) { bytes in
        rows[position!].add(report, bytes: bytes, frame: record.frame, time: time)
      }
    }
  }

  /// The devices in the order first heard, resolvable private addresses merged per
  /// identity when a key resolves them.
  public mutating func devices() -> [Device] {
    var result: [Device] = []
    var byIdentity: [Int: Int] = [:]
    var byAddress: [Key: Int] = [:]
    for device in rows {
      if let key = resolver.resolve(device.address, isRandom: device.addressType.isRandom),
        let keyIndex = resolver.keys.firstIndex(of: key)
      {
        if let at = byIdentity[keyIndex] {
          result[at].merge(device)
          continue
        }
        var identity = device
        identity.resolvedBy = key
        if let address = key.identity {
          identity.address = address
          identity.addressType = key.identityType == 1 ? .randomIdentity : .publicIdentity
          // The identity may have advertised under its own address too.
          let identityKey = Key(address: address, random: key.identityType == 1)
          if let at = byAddress[identityKey] {
            result[at].merge(identity)
            result[at].resolvedBy = key
            byIdentity[keyIndex] = at
            continue
          }
          byAddress[identityKey] = result.count
        }
        byIdentity[keyIndex] = result.count
        result.append(identity)
        continue
      }
      let plain = Key(address: device.address, random: device.addressType.isRandom)
      if let at = byAddress[plain] {
        // An identity that advertised under its own address after its RPAs.
        result[at].merge(device)
        continue
      }
      byAddress[plain] = result.count
      result.append(device)
    }
    return result
  }
}
