import BLEAnalysis
import BLECapture
import BLEDissect

/// The tables of `bleanalyze tables`, one NDJSON file each (`captures.ndjson`…).
///
/// Every row carries `capture`, the id of the capture it came from (the path it was
/// read by), and is the item the single-capture command prints for the same thing,
/// rendered by the same code: a `connections` row is a timeline `connection`, a `calls`
/// row an app call, a `transfers` row a throughput `transfer`, an `advertisers` row a
/// devices `device`, a `gatt` row a gatt peer. `captures` has one row per capture, even
/// one that could not be read (its `error` says why); `disconnections` has one row per
/// connection that ended, flattened from its `disconnect` for grouping.
public enum FleetTable: String, CaseIterable, Sendable {
  case captures, connections, attempts, calls, transactions, pairs, disconnections, advertisers, transfers, gatt

  /// `connections.ndjson`.
  public var fileName: String { rawValue + ".ndjson" }
}

/// Everything one capture's analysis made, for its table rows.
public struct FleetCapture {
  public var id: String
  public var file: String
  public var hash: String?
  /// Why the capture could not be read at all; nil when it was read (perhaps damaged).
  public var error: String?
  public var info: CaptureInfo?
  public var cohort = CaptureCohort()
  public var timeline: Timeline?
  public var story: AppStory?
  public var throughput: ThroughputReport?
  public var buffers = ControllerBuffers()
  public var devices: [Device] = []
  public var servers: [GATTServer] = []
  public var facts = CaptureFacts()

  public init(id: String, file: String) {
    self.id = id
    self.file = file
  }
}

/// The rows of one capture, table by table, ready to append to the tables' files.
public struct FleetRows: Sendable {
  public private(set) var tables: [FleetTable: [UInt8]] = [:]
  public private(set) var counts: [FleetTable: Int] = [:]

  /// Renders every row of `capture`.
  public init(_ capture: FleetCapture, names: DissectorLibrary) {
    let id = capture.id
    if let timeline = capture.timeline {
      let index = ConnectionIndex(timeline)
      add(.connections, timeline.connections) { TimelineJSON.appendConnection($0, file: nil, into: &$1) }
      add(.attempts, timeline.attempts) { TimelineJSON.appendAttempt($0, file: nil, index, into: &$1) }
      add(.transactions, timeline.transactions) { TimelineJSON.appendTransaction($0, file: nil, index, into: &$1) }
      add(.pairs, timeline.pairs) { TimelineJSON.appendPair($0, file: nil, index, into: &$1) }
      add(.disconnections, timeline.connections.filter { $0.disconnect != nil }) {
        FleetJSON.appendDisconnection($0, into: &$1)
      }
    }
    if let story = capture.story, let info = capture.info {
      // The app's own renderer: its NDJSON lines are the rows.
      var lines = OutputBuffer(fd: -1)
      var renderer = AppRenderer(format: .ndjson, api: .gatt, verbose: false, multipleFiles: false)
      renderer.render(path: capture.file, story, capture: info, into: &lines)
      // Read in place: a capture's calls can make megabytes.
      lines.withUnsafeBytes { bytes in
        add(.calls, bytes.split(separator: UInt8(ascii: "\n"))) { row, out in
          out.append(contentsOf: UnsafeRawBufferPointer(rebasing: row))
        }
      }
    }
    if let throughput = capture.throughput {
      add(.transfers, throughput.transfers) { ThroughputJSON.appendTransfer($0, file: nil, tagged: false, into: &$1) }
    }
    add(.advertisers, capture.devices) { DevicesJSON.append($0, file: nil, into: &$1) }
    add(.gatt, capture.servers.filter { !$0.database.isEmpty }) {
      GATTRenderer.appendJSON(GATTRenderer.Peer(server: $0, file: nil), names, into: &$1)
    }
    let counted = counts
    add(.captures, [capture]) { FleetJSON.appendCapture($0, counts: counted, into: &$1) }

    /// One row per item: `{"capture":ID,` then the item's own keys.
    func add<T>(_ table: FleetTable, _ items: some Sequence<T>, _ render: (T, inout OutputBuffer) -> Void) {
      var out = OutputBuffer(fd: -1, flushThreshold: 1 << 12)
      var count = 0
      for item in items {
        out.append("{\"capture\":")
        out.appendJSONString(id)
        let mark = out.count
        render(item, &out)
        // The item's opening brace becomes the comma after `capture`.
        if out.count > mark + 2 { out.overwrite(at: mark, with: UInt8(ascii: ",")) } else { out.truncate(to: mark) }
        if out.count == mark { out.append("}") }
        out.append("\n")
        count += 1
      }
      out.withUnsafeBytes { tables[table, default: []].append(contentsOf: $0) }
      counts[table, default: 0] += count
    }
  }
}

enum FleetJSON {
  /// `"AA:BB:CC:DD:EE:FF"`, or null.
  static func appendAddress(_ address: DeviceAddress?, into out: inout OutputBuffer) {
    guard let address else { return out.append("null") }
    out.append("\"")
    out.appendAddress(address)
    out.append("\"")
  }

  /// A `disconnections` row: the connection, when and why it ended, who ended it and how
  /// soon the same peer came back.
  static func appendDisconnection(_ c: ConnectionTimeline, into out: inout OutputBuffer) {
    guard let disconnect = c.disconnect else { return out.append("{}") }
    var k = JSONKeys()
    out.append("{")
    k.key("conn", into: &out)
    out.appendConnJSON(c.ref, peerName: c.peerName)
    // Flat, to group by without reaching into `conn`.
    k.key("peer_address", into: &out)
    appendAddress(c.ref.peer, into: &out)
    k.string("peer_name", c.peerName, into: &out)
    k.integer("frame", disconnect.complete.frame, into: &out)
    k.key("ts", into: &out)
    JSONRecord.appendSeconds(disconnect.complete.timestamp, into: &out)
    k.integer("reason", disconnect.reason, into: &out)
    k.string("reason_name", disconnect.reasonName, into: &out)
    k.string("initiator", disconnect.initiator.rawValue, into: &out)
    k.integer("command_frame", disconnect.command?.frame, into: &out)
    k.integer("command_reason", disconnect.commandReason, into: &out)
    k.milliseconds("connected_ms", c.complete.map { $0.microseconds(to: disconnect.complete) }, into: &out)
    k.milliseconds("reconnect_gap_ms", c.reconnectGapMicroseconds, into: &out)
    k.integer("reconnected_as", c.reconnectedAs, into: &out)
    out.append("}")
  }

  /// A `captures` row: the capture (`captures` of every document), its hash, the error
  /// that kept it from being read, its cohort keys, the controller's buffers, the
  /// fragmentation of its ACL data and its rows per table.
  static func appendCapture(_ capture: FleetCapture, counts: [FleetTable: Int], into out: inout OutputBuffer) {
    var k = JSONKeys()
    out.append("{")
    if let info = capture.info {
      info.appendFields(&k, into: &out)
    } else {
      k.string("file", capture.file, into: &out)
      k.string("format", nil, into: &out)
      k.integer("record_count", Int?.none, into: &out)
      for key in ["first_ts", "last_ts", "damage"] {
        k.key(named: key, into: &out)
        out.append("null")
      }
      k.key("sources", into: &out)
      out.append("[]")
    }
    k.string("hash", capture.hash, into: &out)
    k.string("open_error", capture.error, into: &out)
    let cohort = capture.cohort
    k.string("platform", cohort.platform, into: &out)
    k.string("phone_model", cohort.phoneModel, into: &out)
    k.string("os_version", cohort.osVersion, into: &out)
    k.string("build_id", cohort.buildID, into: &out)
    k.string("build_fingerprint", cohort.buildFingerprint, into: &out)
    // The first peer that told its Device Information is the capture's cohort peer;
    // `device_information` lists them all.
    let peer = capture.facts.deviceInformation.first
    k.string("peer_manufacturer", peer?.manufacturer, into: &out)
    k.string("peer_model", peer?.model, into: &out)
    k.string("peer_hardware", peer?.hardware, into: &out)
    k.string("peer_firmware", peer?.firmware, into: &out)
    k.string("peer_software", peer?.software, into: &out)
    k.key("device_information", into: &out)
    TimelineJSON.appendArray(capture.facts.deviceInformation, into: &out) { information, out in
      var d = JSONKeys()
      d.key("address", into: &out)
      appendAddress(information.peer, into: &out)
      d.string("manufacturer_name", information.manufacturer, into: &out)
      d.string("model_number", information.model, into: &out)
      d.string("hardware_revision", information.hardware, into: &out)
      d.string("firmware_revision", information.firmware, into: &out)
      d.string("software_revision", information.software, into: &out)
    }
    k.key("controller_buffers", into: &out)
    let pools = capture.buffers.pools.sorted { ($0.key ?? 0) < ($1.key ?? 0) }
    TimelineJSON.appendArray(pools, into: &out) { pool, out in
      var b = JSONKeys()
      b.integer("adapter", pool.key, into: &out)
      b.integer("le_packets", pool.value.leTotal, into: &out)
      b.integer("le_octets", pool.value.leOctets, into: &out)
      b.integer("acl_packets", pool.value.sharedTotal, into: &out)
      b.integer("acl_octets", pool.value.sharedOctets, into: &out)
    }
    k.key("acl_fragmentation", into: &out)
    out.append("{")
    var f = JSONKeys()
    for (key, counts) in [("host_to_controller", capture.facts.sent), ("controller_to_host", capture.facts.received)] {
      f.key(named: key, into: &out)
      var c = JSONKeys()
      out.append("{")
      c.integer("pdus", counts.pdus, into: &out)
      c.integer("acl_packets", counts.aclPackets, into: &out)
      c.integer("fragmented_pdus", counts.fragmentedPDUs, into: &out)
      c.integer("largest_fragment", counts.aclPackets > 0 ? counts.largestFragment : nil, into: &out)
      out.append("}")
    }
    out.append("}")
    k.key("row_counts", into: &out)
    out.append("{")
    var r = JSONKeys()
    for table in FleetTable.allCases where table != .captures {
      r.key(named: table.rawValue, into: &out)
      out.appendDecimal(counts[table] ?? 0)
    }
    out.append("}}")
  }
}
