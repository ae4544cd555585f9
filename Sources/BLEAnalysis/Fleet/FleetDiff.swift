/// What a developer compares between two captures or two cohorts, gathered from the rows
/// of their tables (`bleanalyze tables`): so a capture and a directory of tables are
/// compared alike, by the facts the single-capture commands print.
public struct FleetProfile: Sendable {
  public var captures = 0
  /// The services of every GATT database, by UUID.
  public var services: Set<String> = []
  /// `service/characteristic` → its properties.
  public var characteristics: [String: String] = [:]
  /// Connection parameters, ATT_MTU, data length and PHY: each value seen, with its count.
  public var link: [String: [String: Int]] = [:]
  /// The security level reached and how (pairing method or a stored key).
  public var security: [String: [String: Int]] = [:]
  /// The controller's ACL buffers (LE Read Buffer Size, Read Buffer Size).
  public var controller: [String: [String: Int]] = [:]
  /// Host→controller ACL data: L2CAP PDUs, those cut into several packets, the packets.
  public var sentPDUs = 0
  public var fragmentedPDUs = 0
  public var sentACLPackets = 0
  public var largestFragment: Int?
  public var connectLatencies: [Double] = []
  public var attLatencies: [Double] = []
  public var attLatencyByCharacteristic: [String: [Double]] = [:]
  /// `Write Request → Insufficient Authentication`, `connect → Connection Failed to be Established`.
  public var errors: [String: Int] = [:]
  /// `Remote User Terminated Connection (remote)`.
  public var disconnects: [String: Int] = [:]
  /// `notify rx 2a37` → each transfer's achieved rate, bytes/s.
  public var transfers: [String: [Double]] = [:]

  public init() {}

  /// The profile of the rows of one or more captures, by table name.
  public init(rows: [String: [JSONValue]]) {
    captures = rows["captures"]?.count ?? 0
    for row in rows["gatt"] ?? [] {
      for service in row["services"]?.array ?? [] {
        let serviceUUID = service["uuid"]?.string ?? "?"
        services.insert(serviceUUID)
        for characteristic in service["characteristics"]?.array ?? [] {
          let key = serviceUUID + "/" + (characteristic["uuid"]?.string ?? "?")
          let properties = (characteristic["properties_names"]?.array ?? []).compactMap(\.string)
          characteristics[key] = properties.joined(separator: " ")
        }
      }
    }
    for row in rows["connections"] ?? [] {
      count(&link, "interval_ms", Self.text(row["interval_ms"]))
      count(&link, "peripheral_latency", Self.text(row["latency"]))
      count(&link, "supervision_timeout_ms", Self.text(row["supervision_timeout_ms"]))
      count(&link, "mtu", Self.text(row["mtu"]))
      count(&link, "data_length_tx_octets", Self.text(row["data_length"]?["max_tx_octets"]))
      count(&link, "data_length_rx_octets", Self.text(row["data_length"]?["max_rx_octets"]))
      count(&link, "phy_tx", Self.text(row["phy_update"]?["tx"]))
      count(&link, "phy_rx", Self.text(row["phy_update"]?["rx"]))
      count(&security, "level", Self.text(row["security"]?["level"]))
      count(&security, "method", Self.text(row["encryption"]?["method"]))
      if let latency = row["connect_latency_ms"]?.number { connectLatencies.append(latency) }
    }
    for row in rows["captures"] ?? [] {
      for pool in row["controller_buffers"]?.array ?? [] {
        if let octets = pool["le_octets"]?.number, let packets = pool["le_packets"]?.number {
          count(&controller, "le_buffers", "\(Int(packets)) × \(Int(octets)) octets")
        }
        if let octets = pool["acl_octets"]?.number, let packets = pool["acl_packets"]?.number {
          count(&controller, "acl_buffers", "\(Int(packets)) × \(Int(octets)) octets")
        }
      }
      let sent = row["acl_fragmentation"]?["host_to_controller"]
      sentPDUs += Int(sent?["pdus"]?.number ?? 0)
      fragmentedPDUs += Int(sent?["fragmented_pdus"]?.number ?? 0)
      sentACLPackets += Int(sent?["acl_packets"]?.number ?? 0)
      if let largest = sent?["largest_fragment"]?.number { largestFragment = max(largestFragment ?? 0, Int(largest)) }
    }
    for row in rows["transactions"] ?? [] {
      if let latency = row["latency_ms"]?.number {
        attLatencies.append(latency)
        if let characteristic = row["characteristic_uuid"]?.string {
          attLatencyByCharacteristic[characteristic, default: []].append(latency)
        }
      }
      let outcome = row["outcome"]?.string ?? "?"
      guard outcome != "ok" else { continue }
      let what = row["name"]?.string ?? "ATT"
      errors[what + " → " + (row["error_name"]?.string ?? outcome), default: 0] += 1
    }
    for row in rows["attempts"] ?? [] where row["outcome"]?.string != "connected" {
      let why = row["status_name"]?.string ?? row["outcome"]?.string ?? "?"
      errors["connect → " + why, default: 0] += 1
    }
    for row in rows["disconnections"] ?? [] {
      let reason = row["reason_name"]?.string ?? "?"
      disconnects[reason + " (" + (row["initiator"]?.string ?? "?") + ")", default: 0] += 1
    }
    for row in rows["transfers"] ?? [] {
      guard let rate = row["achieved_bytes_per_s"]?.number else { continue }
      let subject = row["characteristic_uuid"]?.string ?? Self.text(row["attr_handle"]) ?? Self.text(row["cid"]) ?? "?"
      let key = [row["op"]?.string ?? "?", row["direction"]?.string ?? "?", subject].joined(separator: " ")
      transfers[key, default: []].append(rate)
    }
  }

  private func count(_ table: inout [String: [String: Int]], _ field: String, _ value: String?) {
    guard let value else { return }
    table[field, default: [:]][value, default: 0] += 1
  }

  static func text(_ value: JSONValue?) -> String? {
    switch value {
    case .number(let number)?:
      number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .string(let text)?: text
    case .bool(let flag)?: flag ? "true" : "false"
    default: nil
    }
  }

  /// The `fraction` percentile, continuous (linear between ranks, as SQL's percentile_cont).
  public static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let position = fraction * Double(sorted.count - 1)
    let below = Int(position.rounded(.down))
    let above = min(below + 1, sorted.count - 1)
    return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
  }
}

/// What `--fail-on` counts as a regression: `latency:+20%` (a connect or ATT latency
/// percentile up by 20 % or more), `throughput:-20%` (a transfer's median rate down by
/// 20 % or more), `errors` (a new error or more of one), `disconnects` (a new reason or
/// more of one), `gatt`, `link`, `security` (any change).
public struct FleetFailOn: Sendable, Hashable {
  public var latency: Double?
  public var throughput: Double?
  public var categories: Set<FleetChange.Category> = []

  public struct ParseError: Error, CustomStringConvertible {
    public var description: String
  }

  public init() {}

  public init(parsing text: String) throws(ParseError) {
    for item in text.split(separator: ",").map({ $0.trimmingPrefix(" ") }) where !item.isEmpty {
      let parts = item.split(separator: ":", maxSplits: 1)
      guard let category = FleetChange.Category(rawValue: String(parts[0])) else {
        throw ParseError(
          description:
            "--fail-on '\(item)': not one of latency:+N%, throughput:-N%, errors, disconnects, gatt, link, security")
      }
      categories.insert(category)
      switch category {
      case .latency, .throughput:
        let sign: Character = category == .latency ? "+" : "-"
        let fallback = "\(sign)20%"
        var amount = Substring(parts.count > 1 ? parts[1] : Substring(fallback))
        if amount.first == sign { amount = amount.dropFirst() }
        guard amount.hasSuffix("%"), let percent = Double(amount.dropLast()), percent >= 0 else {
          throw ParseError(
            description: "--fail-on '\(item)': give the change as \(sign)N% (\(category.rawValue):\(fallback))")
        }
        if category == .latency { latency = percent / 100 } else { throughput = percent / 100 }
      default:
        guard parts.count == 1 else { throw ParseError(description: "--fail-on '\(item)': \(parts[0]) takes no value") }
      }
    }
  }
}

/// One difference between the two sides.
public struct FleetChange: Sendable {
  public enum Category: String, Sendable, Hashable, CaseIterable {
    case gatt, link, security, controller, fragmentation, latency, errors, disconnects, throughput
  }

  public var category: Category
  public var subject: String
  public var before: String
  public var after: String
  /// (after − before) / before, for numbers.
  public var relative: Double?
  /// `--fail-on` counts it as a regression.
  public var regression = false
}

/// The differences between profile `a` (before) and `b` (after). A latency or throughput
/// change smaller than `threshold` (a fraction) is not one.
public struct FleetDiff: Sendable {
  public var changes: [FleetChange] = []
  public var services: Int
  public var characteristics: Int
  public var gattUnchanged: Bool { !changes.contains { $0.category == .gatt } }
  public var regressions: [FleetChange] { changes.filter(\.regression) }

  public init(_ a: FleetProfile, _ b: FleetProfile, threshold: Double = 0.1, failOn: FleetFailOn = FleetFailOn()) {
    services = b.services.count
    characteristics = b.characteristics.count
    func add(_ category: FleetChange.Category, _ subject: String, _ before: String, _ after: String) {
      changes.append(
        FleetChange(
          category: category, subject: subject, before: before, after: after,
          regression: failOn.categories.contains(category)))
    }
    for service in a.services.subtracting(b.services).sorted() { add(.gatt, "service " + service, "present", "gone") }
    for service in b.services.subtracting(a.services).sorted() { add(.gatt, "service " + service, "absent", "added") }
    for key in Set(a.characteristics.keys).union(b.characteristics.keys).sorted() {
      let before = a.characteristics[key]
      let after = b.characteristics[key]
      guard before != after else { continue }
      add(
        .gatt, "characteristic " + key, before.map { "properties " + $0 } ?? "absent",
        after.map { "properties " + $0 } ?? "gone")
    }
    for (category, before, after) in [
      (FleetChange.Category.link, a.link, b.link), (.security, a.security, b.security),
      (.controller, a.controller, b.controller),
    ] {
      for field in Set(before.keys).union(after.keys).sorted() {
        let old = Self.values(before[field])
        let new = Self.values(after[field])
        if old != new { add(category, field, old, new) }
      }
    }
    let fragmentationBefore = Self.fragmentation(a)
    let fragmentationAfter = Self.fragmentation(b)
    if fragmentationBefore != fragmentationAfter {
      changes.append(
        FleetChange(
          category: .fragmentation, subject: "host→controller PDUs in several ACL packets",
          before: fragmentationBefore, after: fragmentationAfter))
    }
    // Percentiles: a rise is what `latency:+N%` fails on.
    let latencyFail = failOn.latency
    let shown = min(threshold, latencyFail ?? threshold)
    var latencies: [(String, [Double], [Double])] = [
      ("connect", a.connectLatencies, b.connectLatencies), ("att", a.attLatencies, b.attLatencies),
    ]
    for key in Set(a.attLatencyByCharacteristic.keys).intersection(b.attLatencyByCharacteristic.keys).sorted() {
      let before = a.attLatencyByCharacteristic[key] ?? []
      let after = b.attLatencyByCharacteristic[key] ?? []
      if before.count >= 5, after.count >= 5 { latencies.append(("att " + key, before, after)) }
    }
    for (name, before, after) in latencies {
      for (label, fraction) in [("p50", 0.5), ("p95", 0.95)] {
        guard let old = FleetProfile.percentile(before, fraction), let new = FleetProfile.percentile(after, fraction)
        else { continue }
        let relative = Self.relative(old, new)
        guard abs(relative) >= shown, old != new else { continue }
        changes.append(
          FleetChange(
            category: .latency, subject: "\(name) latency \(label)", before: Self.milliseconds(old),
            after: Self.milliseconds(new), relative: relative,
            regression: latencyFail.map { relative >= $0 } ?? false))
      }
    }
    for (category, before, after) in [
      (FleetChange.Category.errors, a.errors, b.errors), (.disconnects, a.disconnects, b.disconnects),
    ] {
      for key in Set(before.keys).union(after.keys).sorted() {
        let old = before[key] ?? 0
        let new = after[key] ?? 0
        // Per capture, so that cohorts of different sizes compare.
        let oldRate = Double(old) / Double(max(1, a.captures))
        let newRate = Double(new) / Double(max(1, b.captures))
        guard oldRate != newRate else { continue }
        changes.append(
          FleetChange(
            category: category, subject: key, before: "\(old)", after: "\(new)",
            relative: old > 0 ? Self.relative(oldRate, newRate) : nil,
            regression: failOn.categories.contains(category) && newRate > oldRate))
      }
    }
    for key in Set(a.transfers.keys).intersection(b.transfers.keys).sorted() {
      guard let old = FleetProfile.percentile(a.transfers[key] ?? [], 0.5),
        let new = FleetProfile.percentile(b.transfers[key] ?? [], 0.5)
      else { continue }
      let relative = Self.relative(old, new)
      guard abs(relative) >= min(threshold, failOn.throughput ?? threshold), old != new else { continue }
      changes.append(
        FleetChange(
          category: .throughput, subject: key + " median rate", before: Self.rate(old), after: Self.rate(new),
          relative: relative, regression: failOn.throughput.map { -relative >= $0 } ?? false))
    }
    for key in Set(a.transfers.keys).symmetricDifference(b.transfers.keys).sorted() {
      let inA = a.transfers[key] != nil
      changes.append(
        FleetChange(
          category: .throughput, subject: key, before: inA ? "\(a.transfers[key]!.count) transfers" : "none",
          after: inA ? "none" : "\(b.transfers[key]!.count) transfers"))
    }
  }

  static func relative(_ old: Double, _ new: Double) -> Double {
    old == 0 ? (new == 0 ? 0 : .infinity) : (new - old) / old
  }

  /// `30 ×2, 45` (each value, with its count when more than one).
  static func values(_ counts: [String: Int]?) -> String {
    guard let counts, !counts.isEmpty else { return "none" }
    let ordered = counts.keys.sorted { a, b in
      switch (Double(a), Double(b)) {
      case (let x?, let y?): x < y
      default: a < b
      }
    }
    return ordered.map { counts[$0]! > 1 ? "\($0) ×\(counts[$0]!)" : $0 }.joined(separator: ", ")
  }

  static func fragmentation(_ profile: FleetProfile) -> String {
    var text = "\(profile.fragmentedPDUs) of \(profile.sentPDUs) PDUs, \(profile.sentACLPackets) ACL packets"
    if let largest = profile.largestFragment { text += ", largest \(largest) octets" }
    return text
  }

  static func milliseconds(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return (rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)) + " ms"
  }

  static func rate(_ value: Double) -> String { String(Int64(value.rounded())) + " B/s" }
}
