import BLEAnalysis
import BLECapture
import BLEDissect

/// Text and JSON of advertising reports, AD structures and beacons, shared by `show`
/// and `devices`.
enum AdvertisingText {
  /// Data longer than this many bytes is cut in one-line summaries.
  static let dataBytesShown = 8

  /// One report in a line: `ADV_IND D4:36:39:67:A2:61 -58 dBm "Mhealth2-5C54", UUIDs ff00,180d, tx 4 dBm`.
  static func appendReport(_ report: AdvertisingReport, _ record: Record, into out: inout OutputBuffer) {
    out.append(string: report.pduType)
    if let address = report.address {
      out.append(" ")
      out.appendAddress(address)
      if let type = report.addressType, type != .public {
        out.append(" (")
        out.append(string: type.name)
        if type == .random, address.randomKind != .static {
          out.append(address.randomKind == .resolvable ? ", RPA" : ", non-resolvable")
        }
        out.append(")")
      }
    } else if let handle = report.syncHandle {
      out.append(" sync ")
      out.appendHex(UInt64(handle), width: 4)
    } else {
      out.append(" anonymous")
    }
    if let direct = report.directAddress {
      out.append(" → ")
      out.appendAddress(direct)
    }
    if let rssi = report.rssi {
      out.append(" ")
      out.appendDecimal(Int(rssi))
      out.append(" dBm")
    }
    if report.isFragment {
      out.append(" [fragment ")
      out.appendDecimal(report.fragments)
      out.append(", ")
      out.appendDecimal(report.data.count)
      out.append(" bytes, more to come]")
      return
    }
    report.withDataBytes(record) { bytes in
      var first = true
      if let beacon = report.beacon {
        out.append(" ")
        appendBeacon(beacon, into: &out)
        first = false
      }
      for structure in report.structures where !isBeaconSource(structure, report.beacon) {
        // Flags say little about a device and are in nearly every report.
        if case .flags = structure.value { continue }
        out.append(first ? " " : ", ")
        appendSummary(structure, bytes, into: &out)
        first = false
      }
    }
    if report.fragments > 1 {
      out.append(" [")
      out.appendDecimal(report.fragments)
      out.append(" fragments]")
    }
  }

  /// Whether a structure is where the report's beacon was read from (not repeated).
  static func isBeaconSource(_ structure: ADStructure, _ beacon: Beacon?) -> Bool {
    guard let beacon else { return false }
    switch (beacon, structure.value) {
    case (.iBeacon, .manufacturerData(let company, _)): return company == 0x004C
    case (.exposureNotification, .serviceData(let uuid, _)): return uuid.shortValue == 0xFD6F
    case (_, .serviceData(let uuid, _)): return uuid.shortValue == 0xFEAA && beacon.kind.hasPrefix("Eddystone")
    default: return false
    }
  }

  /// A short text of one AD structure.
  static func appendSummary(_ structure: ADStructure, _ bytes: UnsafeRawBufferPointer, into out: inout OutputBuffer) {
    switch structure.value {
    case .flags(let flags):
      out.append("flags ")
      out.appendHex(UInt64(flags.rawValue), width: 2)
    case .name(let name):
      out.append("\"")
      out.append(string: name)
      out.append(structure.type == .shortenedLocalName ? "\"…" : "\"")
    case .serviceUUIDs(let uuids, _):
      out.append("UUIDs ")
      out.append(string: uuids.map(\.description).joined(separator: ","))
    case .solicitationUUIDs(let uuids):
      out.append("solicits ")
      out.append(string: uuids.map(\.description).joined(separator: ","))
    case .txPower(let power):
      out.append("tx ")
      out.appendDecimal(Int(power))
      out.append(" dBm")
    case .connectionIntervalRange(let range):
      out.append("conn interval ")
      appendInterval(range.minimum, into: &out)
      out.append("-")
      appendInterval(range.maximum, into: &out)
      out.append(" ms")
    case .serviceData(let uuid, let range):
      out.append("service data ")
      out.append(string: uuid.description)
      out.append(" ")
      appendData(bytes, range, into: &out)
    case .targetAddresses(let addresses):
      out.append("target ")
      out.append(string: addresses.map(\.description).joined(separator: ","))
    case .appearance(let value):
      out.append("appearance ")
      if let name = AssignedNumbers.appearance(value) {
        out.append(string: name)
      } else {
        out.appendHex(UInt64(value), width: 4)
      }
    case .advertisingInterval(let interval):
      out.append("interval ")
      out.appendMeasure(interval.milliseconds)
      out.append(" ms")
    case .deviceAddress(let address, let random):
      out.append("address ")
      out.appendAddress(address)
      if random { out.append(" (random)") }
    case .uri(let uri):
      out.append("URI ")
      out.append(string: uri)
    case .manufacturerData(let company, let range):
      if let name = AssignedNumbers.company(company) {
        out.append(string: name)
      } else {
        out.append("company ")
        out.appendHex(UInt64(company), width: 4)
      }
      out.append(" ")
      appendData(bytes, range, into: &out)
    case .leRole, .leSupportedFeatures, .bytes:
      out.append(string: structure.type.name)
    }
  }

  static func appendInterval(_ raw: UInt16, into out: inout OutputBuffer) {
    if let ms = ConnectionIntervalRange.milliseconds(raw) { out.appendMeasure(ms) } else { out.append("any") }
  }

  /// Up to `dataBytesShown` bytes as hex, `…` when there are more.
  static func appendData(_ bytes: UnsafeRawBufferPointer, _ range: ByteRange, into out: inout OutputBuffer) {
    let end = min(bytes.count, range.start + range.count)
    let start = min(range.start, end)
    if start == end { return out.append("(empty)") }
    out.appendHexBytes(bytes[start..<min(end, start + dataBytesShown)])
    if end - start > dataBytesShown { out.append("…") }
  }

  /// `iBeacon e2c56db5-… major 1 minor 450 power -59 dBm`, `Eddystone-URL https://ex.am/p0 tx -21 dBm`.
  static func appendBeacon(_ beacon: Beacon, into out: inout OutputBuffer) {
    out.append(string: beacon.kind)
    out.append(" ")
    switch beacon {
    case .iBeacon(let uuid, let major, let minor, let power):
      out.append(string: uuid.description)
      out.append(" major ")
      out.appendDecimal(Int(major))
      out.append(" minor ")
      out.appendDecimal(Int(minor))
      out.append(" power ")
      out.appendDecimal(Int(power))
      out.append(" dBm")
    case .eddystoneUID(let namespace, let instance, let power):
      out.appendHexBytes(namespace)
      out.append("/")
      out.appendHexBytes(instance)
      out.append(" tx ")
      out.appendDecimal(Int(power))
      out.append(" dBm")
    case .eddystoneURL(let url, let power):
      out.append(string: url)
      out.append(" tx ")
      out.appendDecimal(Int(power))
      out.append(" dBm")
    case .eddystoneTLM(let battery, let temperature, let count, let uptime):
      out.appendDecimal(Int(battery))
      out.append(" mV ")
      if let temperature {
        out.appendMeasure(temperature)
        out.append(" °C")
      } else {
        out.append("no temperature")
      }
      out.append(" count ")
      out.appendDecimal(UInt64(count))
      out.append(" uptime ")
      out.appendMeasure(Double(uptime) / 10)
      out.append(" s")
    case .eddystoneEID(let eid, let power):
      out.appendHexBytes(eid)
      out.append(" tx ")
      out.appendDecimal(Int(power))
      out.append(" dBm")
    case .exposureNotification(let rpi, _):
      out.append("RPI ")
      out.appendHexBytes(rpi)
    }
  }
}

enum AdvertisingJSON {
  /// `,"adv":{"reports":[…]}` of a `show` record.
  static func appendReports(_ reports: [AdvertisingReport], _ record: Record, into out: inout OutputBuffer) {
    out.append(",\"adv\":{\"reports\":[")
    for (index, report) in reports.enumerated() {
      if index > 0 { out.append(",") }
      appendReport(report, record, into: &out)
    }
    out.append("]}")
  }

  static func appendReport(_ report: AdvertisingReport, _ record: Record, into out: inout OutputBuffer) {
    out.append("{\"address\":")
    appendAddress(report.address, into: &out)
    out.append(",\"address_type\":")
    if let type = report.addressType { out.appendJSONString(type.name) } else { out.append("null") }
    if let address = report.address, report.addressType == .random {
      out.append(",\"random_kind\":\"")
      out.append(string: address.randomKind.rawValue)
      out.append("\"")
    }
    out.append(",\"event_type\":")
    out.appendJSONString(report.pduType)
    out.append(",\"event_type_raw\":")
    out.appendDecimal(Int(report.eventType))
    out.append(",\"rssi\":")
    if let rssi = report.rssi { out.appendDecimal(Int(rssi)) } else { out.append("null") }
    if let power = report.txPower {
      out.append(",\"tx_power\":")
      out.appendDecimal(Int(power))
    }
    if let sid = report.sid {
      out.append(",\"sid\":")
      out.appendDecimal(Int(sid))
    }
    if let handle = report.syncHandle {
      out.append(",\"sync_handle\":")
      out.appendDecimal(Int(handle))
    }
    if let direct = report.directAddress {
      out.append(",\"direct_address\":")
      appendAddress(direct, into: &out)
    }
    if report.kind == .extended || report.kind == .periodic {
      out.append(",\"data_status\":\"")
      out.append(string: report.dataStatus.name)
      out.append("\"")
    }
    if report.fragments > 1 {
      out.append(",\"fragments\":")
      out.appendDecimal(report.fragments)
    }
    report.withDataBytes(record) { bytes in
      if report.isFragment { return }
      out.append(",\"ad\":[")
      for (index, structure) in report.structures.enumerated() {
        if index > 0 { out.append(",") }
        appendStructure(structure, bytes, into: &out)
      }
      out.append("]")
    }
    if let beacon = report.beacon {
      out.append(",\"beacon\":")
      appendBeacon(beacon, into: &out)
    }
    out.append("}")
  }

  static func appendAddress(_ address: DeviceAddress?, into out: inout OutputBuffer) {
    guard let address else { return out.append("null") }
    out.append(UInt8(ascii: "\""))
    out.appendAddress(address)
    out.append(UInt8(ascii: "\""))
  }

  static func appendHex(_ bytes: UnsafeRawBufferPointer, _ range: ByteRange, into out: inout OutputBuffer) {
    let end = min(bytes.count, range.start + range.count)
    out.append("\"")
    out.appendHexBytes(bytes[min(range.start, end)..<end])
    out.append("\"")
  }

  static func appendStrings(_ values: [String], into out: inout OutputBuffer) {
    out.append("[")
    for (index, value) in values.enumerated() {
      if index > 0 { out.append(",") }
      out.appendJSONString(value)
    }
    out.append("]")
  }

  /// `{"type":9,"name":"Complete Local Name","data":"4d68…","text":"Mhealth2-5C54"}`:
  /// the raw data, and one or two keys with its decoded value.
  static func appendStructure(_ structure: ADStructure, _ bytes: UnsafeRawBufferPointer, into out: inout OutputBuffer) {
    out.append("{\"type\":")
    out.appendDecimal(Int(structure.type.rawValue))
    out.append(",\"name\":")
    out.appendJSONString(structure.type.name)
    out.append(",\"data\":")
    appendHex(bytes, structure.data, into: &out)
    switch structure.value {
    case .flags(let flags):
      out.append(",\"flags\":")
      appendStrings(flags.setNames, into: &out)
    case .serviceUUIDs(let uuids, _), .solicitationUUIDs(let uuids):
      out.append(",\"uuids\":")
      appendStrings(uuids.map(\.description), into: &out)
    case .name(let name):
      out.append(",\"text\":")
      out.appendJSONString(name)
    case .txPower(let power):
      out.append(",\"tx_power\":")
      out.appendDecimal(Int(power))
    case .connectionIntervalRange(let range):
      out.append(",\"min_ms\":")
      appendInterval(range.minimum, into: &out)
      out.append(",\"max_ms\":")
      appendInterval(range.maximum, into: &out)
    case .serviceData(let uuid, let range):
      out.append(",\"uuid\":")
      out.appendJSONString(uuid.description)
      out.append(",\"service_data\":")
      appendHex(bytes, range, into: &out)
    case .targetAddresses(let addresses):
      out.append(",\"addresses\":")
      appendStrings(addresses.map(\.description), into: &out)
    case .appearance(let value):
      out.append(",\"appearance\":")
      out.appendDecimal(Int(value))
      out.append(",\"appearance_name\":")
      if let name = AssignedNumbers.appearance(value) { out.appendJSONString(name) } else { out.append("null") }
    case .advertisingInterval(let interval):
      out.append(",\"interval_ms\":")
      out.appendMeasure(interval.milliseconds)
    case .deviceAddress(let address, let random):
      out.append(",\"address\":")
      appendAddress(address, into: &out)
      out.append(random ? ",\"random\":true" : ",\"random\":false")
    case .leRole(let role):
      out.append(",\"le_role\":")
      out.appendDecimal(Int(role))
    case .uri(let uri):
      out.append(",\"uri\":")
      out.appendJSONString(uri)
    case .manufacturerData(let company, let range):
      appendCompany(company, into: &out)
      out.append(",\"manufacturer_data\":")
      appendHex(bytes, range, into: &out)
    case .leSupportedFeatures, .bytes:
      break
    }
    out.append("}")
  }

  static func appendInterval(_ raw: UInt16, into out: inout OutputBuffer) {
    if let ms = ConnectionIntervalRange.milliseconds(raw) { out.appendMeasure(ms) } else { out.append("null") }
  }

  /// `,"company_id":76,"company":"Apple, Inc."` (null when not listed).
  static func appendCompany(_ company: UInt16, into out: inout OutputBuffer) {
    out.append(",\"company_id\":")
    out.appendDecimal(Int(company))
    out.append(",\"company\":")
    if let name = AssignedNumbers.company(company) { out.appendJSONString(name) } else { out.append("null") }
  }

  /// `{"type":"iBeacon","uuid":…,"major":1,"minor":450,"measured_power":-59}` and
  /// the like for each kind.
  static func appendBeacon(_ beacon: Beacon, into out: inout OutputBuffer) {
    func number(_ key: StaticString, _ value: Int) {
      out.append(key)
      out.appendDecimal(value)
    }
    func hex(_ key: StaticString, _ bytes: [UInt8]) {
      out.append(key)
      out.append("\"")
      out.appendHexBytes(bytes)
      out.append("\"")
    }
    out.append("{\"type\":")
    out.appendJSONString(beacon.kind)
    switch beacon {
    case .iBeacon(let uuid, let major, let minor, let power):
      out.append(",\"uuid\":")
      out.appendJSONString(uuid.description)
      number(",\"major\":", Int(major))
      number(",\"minor\":", Int(minor))
      number(",\"measured_power\":", Int(power))
    case .eddystoneUID(let namespace, let instance, let power):
      hex(",\"namespace\":", namespace)
      hex(",\"instance\":", instance)
      number(",\"tx_power\":", Int(power))
    case .eddystoneURL(let url, let power):
      out.append(",\"url\":")
      out.appendJSONString(url)
      number(",\"tx_power\":", Int(power))
    case .eddystoneTLM(let battery, let temperature, let count, let uptime):
      number(",\"battery_mv\":", Int(battery))
      out.append(",\"temperature_c\":")
      if let temperature { out.appendMeasure(temperature) } else { out.append("null") }
      number(",\"adv_count\":", Int(count))
      out.append(",\"uptime_s\":")
      out.appendMeasure(Double(uptime) / 10)
    case .eddystoneEID(let eid, let power):
      hex(",\"eid\":", eid)
      number(",\"tx_power\":", Int(power))
    case .exposureNotification(let rpi, let metadata):
      hex(",\"rpi\":", rpi)
      hex(",\"metadata\":", metadata)
    }
    out.append("}")
  }
}
