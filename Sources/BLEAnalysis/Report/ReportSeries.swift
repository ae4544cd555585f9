import BLECapture
import BLEDissect

/// A value over time, thinned to a bounded count: when `capacity` samples are held,
/// every second one goes and from then on only every other new one is kept, so a
/// series of any length keeps an even spread of at most `capacity` samples.
public struct ThinnedSeries<Value: Sendable>: Sendable {
  public struct Sample: Sendable {
    /// Unix µs.
    public var time: Int64
    public var value: Value
  }

  public private(set) var samples: [Sample] = []
  /// Samples seen, kept or not.
  public private(set) var count = 0
  private var stride = 1
  let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  mutating func add(time: Int64, _ value: Value) {
    defer { count += 1 }
    guard count % stride == 0 else { return }
    if samples.count == capacity {
      samples = samples.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
      stride *= 2
      guard count % stride == 0 else { return }
    }
    samples.append(Sample(time: time, value: value))
  }
}

/// The RSSI of each advertiser's reports over time, for `report`'s chart: one series per
/// address (public and random apart), as `DeviceTable` keys its rows.
public struct AdvertiserRSSI: Sendable {
  struct Key: Hashable {
    var address: DeviceAddress
    var random: Bool
  }

  private var index: [Key: Int] = [:]
  private var series: [ThinnedSeries<Int8>] = []
  /// Samples kept per address.
  static let capacity = 2048
  /// Addresses followed, as many as `devices` lists.
  static let limit = 100_000

  init() {}

  mutating func add(_ record: Record, _ decoded: DecodedRecord) {
    guard let reports = decoded.advertising else { return }
    let time = record.timestamp.unixMicroseconds
    for report in reports where !report.isFragment {
      guard let address = report.address, let type = report.addressType, let rssi = report.rssi else { continue }
      let key = Key(address: address, random: type.isRandom)
      let position: Int
      if let known = index[key] {
        position = known
      } else {
        guard series.count < Self.limit else { continue }
        position = series.count
        index[key] = position
        series.append(ThinnedSeries(capacity: Self.capacity))
      }
      series[position].add(time: time, rssi)
    }
  }

  /// The RSSI of a row of `devices`: the reports of all its addresses, in time order.
  public func samples(of device: Device) -> [ThinnedSeries<Int8>.Sample] {
    let random = device.addressType.isRandom || device.resolvedBy != nil
    var samples: [ThinnedSeries<Int8>.Sample] = []
    for address in device.addresses.isEmpty ? [device.address] : device.addresses {
      for key in [Key(address: address, random: random), Key(address: address, random: !random)] {
        if let position = index[key] { samples += series[position].samples }
      }
    }
    return samples.sorted { $0.time < $1.time }
  }
}

/// When each payload PDU went and how many bytes it carried, per connection, attribute
/// (or CoC channel), operation and direction: the rate over time of `report`'s transfers.
public struct PayloadTimes: Sendable {
  struct Key: Hashable {
    var conn: Int
    var handle: UInt16
    var operation: PayloadOperation
    var direction: PayloadDirection
  }

  struct PDU {
    var frame: Int
    var time: Int64
    var bytes: Int
  }

  private var pdus: [Key: [PDU]] = [:]
  private var held = 0
  /// PDUs kept in all; later ones are not (the rates of the transfers they belong to end early).
  static let limit = 1_000_000

  init() {}

  mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    guard held < Self.limit, let conn = analyzed.conn, let pdu = PayloadPDU(record, analyzed) else { return }
    let key = Key(conn: conn.id, handle: pdu.handle, operation: pdu.operation, direction: pdu.direction)
    pdus[key, default: []].append(PDU(frame: record.frame, time: record.timestamp.unixMicroseconds, bytes: pdu.bytes))
    held += 1
  }

  /// The transfer's payload bytes per second in `bins` equal spans from its first PDU to
  /// its last: `start` of each span (Unix µs) and its rate.
  public func rate(of transfer: Transfer, bins: Int) -> [(start: Int64, bytesPerSecond: Double)] {
    let key = Key(
      conn: transfer.conn.id, handle: transfer.subject.handle, operation: transfer.operation,
      direction: transfer.direction)
    guard let all = pdus[key], bins > 0 else { return [] }
    let first = transfer.first
    let span = max(first.microseconds(to: transfer.last), 1)
    let width = max(span / Int64(bins), 1)
    let count = Int((span + width - 1) / width)
    var bytes = [Int](repeating: 0, count: count)
    var low = 0
    var high = all.count
    while low < high {
      let middle = (low + high) / 2
      if all[middle].frame < first.frame { low = middle + 1 } else { high = middle }
    }
    for pdu in all[low...] {
      guard pdu.frame <= transfer.last.frame else { break }
      bytes[min(count - 1, Int((pdu.time - first.timestamp) / width))] += pdu.bytes
    }
    return bytes.enumerated().map {
      (first.timestamp + Int64($0.offset) * width, Double($0.element) * 1e6 / Double(width))
    }
  }
}
