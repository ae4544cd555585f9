import BLECapture
import BLEDissect

/// Everything `report` shows about one capture: the models `app`, `timeline`, `stats`,
/// `devices`, `gatt` and `throughput` render, made in one pass over the records, and the
/// series its charts draw.
public struct CaptureReport {
  public var story: AppStory
  public var timeline: Timeline
  public var statistics: Statistics
  public var devices: [Device]
  public var servers: [GATTServer]
  public var throughput: ThroughputReport
  public var rssi: AdvertiserRSSI
  public var payload: PayloadTimes
}

/// Feeds each analyzed record to every builder a report needs; the timeline itself is
/// the pipeline's (`finish` takes it).
public struct CaptureReportBuilder {
  private var app = AppBuilder()
  private var transfers = ThroughputBuilder()
  private var statistics = Statistics()
  private var devices: DeviceTable
  private var rssi = AdvertiserRSSI()
  private var payload = PayloadTimes()

  /// `identityKeys` resolve advertisers' private addresses, as `devices --irk` does.
  public init(identityKeys: [IdentityKey]) {
    devices = DeviceTable(resolver: AddressResolver(keys: identityKeys))
  }

  public mutating func add(_ record: Record, _ analyzed: AnalyzedRecord) {
    app.add(record, analyzed)
    transfers.add(record, analyzed)
    statistics.add(record, analyzed)
    devices.add(record, analyzed.decoded)
    rssi.add(record, analyzed.decoded)
    payload.add(record, analyzed)
  }

  /// Ends the capture with what the analysis ends with: the timeline, the requests still
  /// waiting and the GATT databases.
  public consuming func finish(_ unanswered: [UnansweredRequest], timeline: Timeline, gatt: GATTTracker)
    -> CaptureReport
  {
    statistics.finish(timeline)
    return CaptureReport(
      story: app.finish(unanswered, timeline: timeline, gatt: gatt), timeline: timeline, statistics: statistics,
      devices: devices.devices(), servers: gatt.servers.filter { !$0.database.isEmpty },
      throughput: transfers.finish(), rssi: rssi, payload: payload)
  }
}
