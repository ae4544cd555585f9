import BLECapture

/// Turns advertising report events into `AdvertisingReport`s, keeping what that
/// needs across records: extended and periodic data arriving in several reports
/// (Data_Status "incomplete, more data to come"), and which advertiser each
/// periodic sync handle follows.
///
/// Reassembly is per adapter, advertiser address, Advertising_SID and scan response
/// bit (per sync handle for periodic reports). The whole data belongs to the report
/// that completes it, as an L2CAP PDU belongs to its last fragment.
public struct AdvertisingDecoder {
  /// Which chain of reports a report's data continues: per adapter, advertiser,
  /// Advertising_SID and scan response bit, or per sync handle for periodic reports.
  public struct FragmentKey: Hashable, Sendable {
    var adapter: UInt16?
    var address: DeviceAddress?
    var addressType: UInt8?
    var sid: UInt8?
    var scanResponse: Bool
    var syncHandle: UInt16?

    public init(_ report: AdvertisingReport, adapter: UInt16?) {
      self.adapter = adapter
      address = report.address
      addressType = report.addressType?.rawValue
      sid = report.sid
      scanResponse = ExtendedEventType(rawValue: report.eventType).contains(.scanResponse) && report.kind == .extended
      syncHandle = report.kind == .periodic ? report.syncHandle : nil
    }
  }

  struct SyncKey: Hashable {
    var adapter: UInt16?
    var handle: UInt16
  }

  private var pending: [FragmentKey: (data: [UInt8], fragments: Int)] = [:]
  private var syncs: [SyncKey: (address: DeviceAddress, type: AdvertisingAddressType)] = [:]

  /// Chains under way at once, and the most data one may hold (the largest extended
  /// advertising data is 1650 octets; Core 6.0, Vol 4, Part E, 7.8.54).
  static let maxPending = 64
  static let maxDataLength = 1650
  /// Periodic syncs remembered at once.
  static let maxSyncs = 1024

  public init() {}

  /// Every diagnostic id advertising decoding emits, with what it means.
  public static let diagnosticIDs: [(id: String, meaning: String)] =
    ADStructure.diagnosticIDs + [
      (
        "adv.reassembly.limit",
        "extended or periodic advertising data in several reports grew past 1650 octets, or too many were under way; it is dropped"
      ),
      ("adv.data.truncated", "the controller reports advertising data as incomplete and truncated (Data_Status 0b10)"),
    ]

  /// LE Meta subevents this decoder reads: the four report kinds (periodic in both
  /// versions), and the sync events that tie a periodic sync to its advertiser.
  public static let subevents: Set<UInt8> = [0x02, 0x0B, 0x0D, 0x0F, 0x25, 0x0E, 0x24, 0x10, 0x18, 0x26]

  /// Decodes an LE Meta event's reports into `decoded.advertising`. `parameters`
  /// are the event's decoded parameters (for the sync events).
  public mutating func decode(_ record: Record, subevent: UInt8, parameters: [Field], into decoded: inout DecodedRecord)
  {
    switch subevent {
    case 0x0E, 0x24, 0x18, 0x26:
      rememberSync(record, parameters)
      return
    case 0x10:
      if let handle = parameters.lookup("Sync_Handle")?.value.integer {
        syncs[SyncKey(adapter: record.adapter, handle: UInt16(truncatingIfNeeded: handle))] = nil
      }
      return
    default: break
    }
    // Event code, parameter length and subevent code come first.
    guard record.bytes.count > 3 else { return }
    let raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(record.bytes)[3...])
    var c = ByteCursor(raw.bytes, base: 3, layer: .hci)
    var reports = Self.parseReports(subevent: subevent, &c)
    let isCutBySource = record.isCutBySource
    for index in reports.indices {
      if reports[index].kind == .periodic, let handle = reports[index].syncHandle,
        let sync = syncs[SyncKey(adapter: record.adapter, handle: handle)]
      {
        reports[index].address = sync.address
        reports[index].addressType = sync.type
      }
      reports[index].isCut = reports[index].isCut || isCutBySource
      if reports[index].kind == .extended || reports[index].kind == .periodic {
        reassemble(&reports[index], record, diagnostics: &decoded.diagnostics)
      }
      if !reports[index].isFragment {
        let report = reports[index]
        var diagnostics: [Diagnostic] = []
        let (structures, beacon) = report.withDataBytes(record) { bytes in
          let region = UnsafeRawBufferPointer(
            rebasing: bytes[report.data.start..<report.data.start + report.data.count])
          var ad = ByteCursor(region.bytes, base: report.data.start, layer: .adv)
          let structures = ADStructure.parseAll(&ad, isCut: report.isCut, diagnostics: &diagnostics)
          return (structures, Beacon.recognise(structures, in: bytes))
        }
        reports[index].structures = structures
        reports[index].beacon = beacon
        decoded.add(diagnostics)
      }
      if reports[index].dataStatus == .truncated {
        decoded.diagnostics.append(
          Diagnostic(
            id: "adv.data.truncated", severity: .info,
            "the controller truncated the advertising data of \(reports[index].address?.description ?? "an advertiser") after \(reports[index].data.count) octets"
          ))
      }
    }
    if !reports.isEmpty { decoded.advertising = reports }
  }

  private mutating func rememberSync(_ record: Record, _ parameters: [Field]) {
    guard parameters.lookup("Status")?.value.integer == 0,
      let handle = parameters.lookup("Sync_Handle")?.value.integer,
      case .address(let address)? = parameters.lookup("Advertiser_Address")?.value
    else { return }
    let type = (parameters.lookup("Advertiser_Address_Type")?.value.integer).map {
      AdvertisingAddressType(rawValue: UInt8(truncatingIfNeeded: $0))
    }
    if syncs.count >= Self.maxSyncs { syncs.removeAll() }
    syncs[SyncKey(adapter: record.adapter, handle: UInt16(truncatingIfNeeded: handle))] = (address, type ?? .public)
  }

  /// Adds a fragment to its chain; the report that completes it gets the whole data.
  private mutating func reassemble(_ report: inout AdvertisingReport, _ record: Record, diagnostics: inout [Diagnostic])
  {
    let key = FragmentKey(report, adapter: record.adapter)
    guard report.isFragment || pending[key] != nil else { return }
    let bytes = UnsafeRawBufferPointer(record.bytes)
    let end = min(bytes.count, report.data.start + report.data.count)
    let piece = bytes[min(report.data.start, end)..<end]
    var chain = pending.removeValue(forKey: key) ?? (data: [], fragments: 0)
    chain.data += piece
    chain.fragments += 1
    if chain.data.count > Self.maxDataLength {
      diagnostics.append(
        Diagnostic(
          id: "adv.reassembly.limit", severity: .warning,
          "advertising data in \(chain.fragments) reports reached \(chain.data.count) octets, more than \(Self.maxDataLength); dropped"
        ))
      return
    }
    if report.isFragment {
      if pending.count >= Self.maxPending {
        diagnostics.append(
          Diagnostic(
            id: "adv.reassembly.limit", severity: .warning,
            "\(Self.maxPending) advertising data chains under way; the oldest is dropped"))
        pending.remove(at: pending.startIndex)
      }
      pending[key] = chain
      report.fragments = chain.fragments
      return
    }
    report.reassembled = chain.data
    report.piece = report.data
    report.data = ByteRange(start: 0, count: chain.data.count)
    report.fragments = chain.fragments
  }

  // MARK: - Parsing

  /// Reads every report of the event whose parameters (after Subevent_Code) `c`
  /// holds. Reading stops at the first report the bytes do not hold in full (the
  /// HCI parameter decoder reports that); the data of a last report cut short is
  /// kept as far as it goes, marked `isCut`.
  static func parseReports(subevent: UInt8, _ c: inout ByteCursor) -> [AdvertisingReport] {
    var reports: [AdvertisingReport] = []
    do throws(DecodeError) {
      switch subevent {
      case 0x02, 0x0B, 0x0D:
        let count = Int(try c.readUInt8())
        reports.reserveCapacity(min(count, 32))
        for _ in 0..<count {
          switch subevent {
          case 0x02: reports.append(try legacy(&c))
          case 0x0B: reports.append(try directed(&c))
          default: reports.append(try extended(&c))
          }
          if reports.last?.isCut == true { break }
        }
      case 0x0F, 0x25:
        reports.append(try periodic(&c, v2: subevent == 0x25))
      default: break
      }
    } catch {
      // Keep the whole reports read before the cut.
    }
    return reports
  }

  /// LE Advertising Report: Event_Type, Address_Type, Address, Data_Length, Data, RSSI.
  static func legacy(_ c: inout ByteCursor) throws(DecodeError) -> AdvertisingReport {
    let eventType = try c.readUInt8()
    let addressType = try c.readUInt8()
    let addressOffset = c.offset
    let address = try c.readAddress()
    let (data, isCut) = try readData(&c)
    var report = AdvertisingReport(kind: .legacy, eventType: UInt16(eventType), data: data)
    report.addressType = AdvertisingAddressType(rawValue: addressType)
    report.address = address
    report.addressOffset = addressOffset
    report.isCut = isCut
    if !isCut { report.rssi = rssi(try? c.readInt8()) }
    return report
  }

  /// LE Directed Advertising Report: Event_Type, Address_Type, Address,
  /// Direct_Address_Type, Direct_Address, RSSI; no data.
  static func directed(_ c: inout ByteCursor) throws(DecodeError) -> AdvertisingReport {
    let eventType = try c.readUInt8()
    let addressType = try c.readUInt8()
    let addressOffset = c.offset
    let address = try c.readAddress()
    let directType = try c.readUInt8()
    let directOffset = c.offset
    let direct = try c.readAddress()
    let rssi = try c.readInt8()
    var report = AdvertisingReport(
      kind: .directed, eventType: UInt16(eventType), data: ByteRange(start: c.offset, count: 0))
    report.addressType = AdvertisingAddressType(rawValue: addressType)
    report.address = address
    report.addressOffset = addressOffset
    report.directAddressType = AdvertisingAddressType(rawValue: directType)
    report.directAddress = direct
    report.directAddressOffset = directOffset
    report.rssi = Self.rssi(rssi)
    return report
  }

  /// LE Extended Advertising Report: Event_Type (2), Address_Type, Address,
  /// Primary_PHY, Secondary_PHY, Advertising_SID, TX_Power, RSSI,
  /// Periodic_Advertising_Interval (2), Direct_Address_Type, Direct_Address,
  /// Data_Length, Data.
  static func extended(_ c: inout ByteCursor) throws(DecodeError) -> AdvertisingReport {
    let eventType = try c.readUInt16()
    let addressType = AdvertisingAddressType(rawValue: try c.readUInt8())
    let addressOffset = c.offset
    let address = try c.readAddress()
    let primaryPHY = try c.readUInt8()
    let secondaryPHY = try c.readUInt8()
    let sid = try c.readUInt8()
    let txPower = try c.readInt8()
    let rssi = try c.readInt8()
    let interval = try c.readUInt16()
    let directType = try c.readUInt8()
    let directOffset = c.offset
    let direct = try c.readAddress()
    let (data, isCut) = try readData(&c)
    var report = AdvertisingReport(kind: .extended, eventType: eventType, data: data)
    report.addressOffset = addressOffset
    report.directAddressOffset = directOffset
    if addressType != .anonymous {
      report.addressType = addressType
      report.address = address
    }
    report.primaryPHY = primaryPHY
    report.secondaryPHY = secondaryPHY
    report.sid = sid == 0xFF ? nil : sid
    report.txPower = txPower == 127 ? nil : txPower
    report.rssi = Self.rssi(rssi)
    report.periodicInterval = interval
    let bits = ExtendedEventType(rawValue: eventType)
    if bits.contains(.directed) {
      report.directAddressType = AdvertisingAddressType(rawValue: directType)
      report.directAddress = direct
    }
    // Legacy PDUs are never fragmented; their Data_Status bits are 0.
    report.dataStatus = bits.dataStatus
    report.isCut = isCut
    return report
  }

  /// LE Periodic Advertising Report [v1]: Sync_Handle, TX_Power, RSSI, CTE_Type,
  /// Data_Status, Data_Length, Data; [v2] adds Periodic_Event_Counter and Subevent
  /// after CTE_Type.
  static func periodic(_ c: inout ByteCursor, v2: Bool) throws(DecodeError) -> AdvertisingReport {
    let handle = try c.readHandle()
    let txPower = try c.readInt8()
    let rssi = try c.readInt8()
    _ = try c.readUInt8()
    if v2 {
      _ = try c.readUInt16()
      _ = try c.readUInt8()
    }
    let status = try c.readUInt8()
    let (data, isCut) = try readData(&c)
    var report = AdvertisingReport(kind: .periodic, eventType: 0, data: data)
    report.syncHandle = handle & 0x0FFF
    report.txPower = txPower == 127 ? nil : txPower
    report.rssi = Self.rssi(rssi)
    report.dataStatus = AdvertisingDataStatus(rawValue: status)
    report.isCut = isCut
    return report
  }

  /// Data_Length and Data: the data as far as the bytes go, and whether it was cut.
  static func readData(_ c: inout ByteCursor) throws(DecodeError) -> (ByteRange, Bool) {
    let length = Int(try c.readUInt8())
    if length > c.remaining { return (c.readRemainingRange(), true) }
    return (try c.readRange(length), false)
  }

  /// RSSI in dBm, nil for 127 (not available).
  static func rssi(_ value: Int8?) -> Int8? {
    guard let value, value != 127 else { return nil }
    return value
  }
}
