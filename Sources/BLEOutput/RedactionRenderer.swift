import BLEAnalysis
import BLEDissect

/// What `redact` tells: the disclosure summary on stderr, and the mapping file.
public enum RedactionRenderer {
  /// The lines of the disclosure summary, without the `bleanalyze: ` prefix:
  ///
  ///     replaced 12 addresses (47 fields: HCI Peer_Address 9, …), 2 names (4 fields: …), …
  ///     left as is: ll.encrypted 340 frames (1100-1440), …
  public static func disclosure(_ plan: RedactionPlan, frameLimit: Int = 10) -> [String] {
    var lines: [String] = []
    let distinct: [RedactionKind.Category: Int] = [
      .address: plan.addresses.count, .name: plan.names.count, .identityKey: plan.identityKeys.count,
      .identifier: plan.identifiers.count,
    ]
    for category in RedactionKind.Category.allCases {
      let kinds = plan.counts.filter { $0.key.category == category && $0.value > 0 }.sorted { $0.key < $1.key }
      let fields = kinds.reduce(0) { $0 + $1.value }
      let detail = kinds.map { "\($0.key.name) \($0.value)" }.joined(separator: ", ")
      switch category {
      case .address, .name, .identityKey:
        let count = distinct[category] ?? 0
        let noun = category == .address ? "address" : category == .name ? "name" : "identity key"
        var line = "pseudonymised \(count) \(plural(noun, count))"
        if category == .name { line = "renamed \(count) \(plural(noun, count))" }
        if category == .identityKey { line = "replaced \(count) \(plural(noun, count)) (IRKs)" }
        lines.append(line + (fields > 0 ? " in \(fields) \(plural("field", fields)): \(detail)" : ""))
      case .secret:
        lines.append(
          "filled \(fields) \(plural("secret", fields)) (keys, pairing values, passkeys, OOB data)"
            + (fields > 0 ? ": \(detail)" : ""))
      case .identifier:
        let count = distinct[category] ?? 0
        let what = plan.options.strict ? "serial numbers, revision strings" : "serial numbers"
        lines.append(
          fields == 0
            ? "replaced 0 identifiers (\(what))"
            : "replaced \(fields) identifying \(plural("value", fields)) (\(what)) with \(count) \(plural("pseudonym", count)): \(detail)"
        )
      }
    }
    lines += values(plan)
    lines += damaged(plan)
    if plan.unparsed.isEmpty {
      lines.append("left as is: nothing (every record was parsed)")
    } else {
      let total = Set(plan.unparsed.flatMap(\.frames)).count
      lines.append("left as is (not parsed, swept for the values above only): \(total) \(plural("frame", total))")
      for (reason, frames) in plan.unparsed {
        let ranges = frameRanges(frames)
        var text = ranges.prefix(frameLimit).joined(separator: ", ")
        if ranges.count > frameLimit { text += ", … (--map lists them all)" }
        lines.append("  \(reason): \(frames.count) \(plural("frame", frames.count)): \(text)")
      }
    }
    return lines
  }

  /// The values that stayed, known to be safe or not, and those blanked: one line per
  /// characteristic with its count and octets, the most values first.
  static func values(_ plan: RedactionPlan) -> [String] {
    guard !plan.values.isEmpty else { return ["values: none read or written"] }
    var lines: [String] = []
    for safe in [true, false] {
      let rows = plan.values.filter { $0.value.safe == safe }.sorted {
        ($0.value.count, $1.key) > ($1.value.count, $0.key)
      }
      let count = rows.reduce(0) { $0 + $1.value.count }
      let octets = rows.reduce(0) { $0 + $1.value.octets }
      let totals =
        "\(rows.count) \(plural("characteristic", rows.count)), \(count) \(plural("value", count)), \(octets) \(plural("byte", octets))"
      if safe {
        guard !rows.isEmpty else { continue }
        lines.append("kept values known to be safe (swept for addresses, names and serial numbers): \(totals)")
      } else if plan.options.keepValues {
        guard !rows.isEmpty else { continue }
        lines.append(
          "warning: kept values not known to be safe (--keep-values; swept for addresses, names and serial numbers): \(totals)"
        )
      } else {
        guard !rows.isEmpty else {
          lines.append("blanked values not known to be safe: none")
          continue
        }
        lines.append("blanked values not known to be safe (--keep-values keeps them): \(totals)")
      }
      for (label, tally) in rows {
        lines.append(
          "  \(label): \(tally.count) \(plural("value", tally.count)), \(tally.octets) \(plural("byte", tally.octets))")
      }
    }
    return lines
  }

  /// Air packets received with a bad CRC.
  static func damaged(_ plan: RedactionPlan) -> [String] {
    let damaged = plan.damaged
    guard damaged.packets > 0 else { return [] }
    let packets = "\(damaged.packets) air \(plural("packet", damaged.packets)) with a bad CRC"
    if plan.options.keepDamaged {
      return [
        "warning: kept \(packets) as they were but for the fields that parse (--keep-damaged): "
          + "damaged copies of addresses and names in them are not replaced"
      ]
    }
    return [
      "\(packets): address fields pseudonymised, \(damaged.blanked) other \(plural("byte", damaged.blanked)) "
        + "blanked (--keep-damaged keeps them)"
    ]
  }

  /// The mapping for the capture's owner: original → replacement of every address,
  /// IRK and name, and every frame left as is. It goes to its own file, never into
  /// the redacted capture.
  public static func mapping(_ plan: RedactionPlan, input: String, output: String, into out: inout OutputBuffer) {
    out.appendDocumentHeader(.redactMap)
    out.append(",\"input\":")
    out.appendJSONString(input)
    out.append(",\"output\":")
    out.appendJSONString(output)
    let addresses = plan.addresses.map { ($0.original.description, $0.redacted.description) }
    pairs(",\"addresses\":[", addresses, into: &out)
    pairs(",\"identity_keys\":[", plan.identityKeys.map { (hexText($0.original), hexText($0.redacted)) }, into: &out)
    pairs(",\"names\":[", plan.names.map { (String(decoding: $0.original, as: UTF8.self), $0.redacted) }, into: &out)
    out.append(",\"identifiers\":[")
    for (index, identifier) in plan.identifiers.enumerated() {
      out.append(index == 0 ? "\n{\"kind\":" : ",\n{\"kind\":")
      out.appendJSONString(identifier.kind.rawValue)
      out.append(",\"original\":")
      out.appendJSONString(String(decoding: identifier.original, as: UTF8.self))
      out.append(",\"redacted\":")
      out.appendJSONString(identifier.redacted)
      out.append("}")
    }
    out.append("],\"values\":[")
    for (index, (label, tally)) in plan.values.sorted(by: { $0.key < $1.key }).enumerated() {
      out.append(index == 0 ? "\n{\"characteristic\":" : ",\n{\"characteristic\":")
      out.appendJSONString(label)
      out.append(tally.safe ? ",\"safe\":true" : ",\"safe\":false")
      out.append(",\"action\":")
      out.appendJSONString(tally.safe || plan.options.keepValues ? "kept" : "blanked")
      out.append(",\"count\":")
      out.appendDecimal(tally.count)
      out.append(",\"bytes\":")
      out.appendDecimal(tally.octets)
      out.append("}")
    }
    out.append("],\"damaged\":{\"packets\":")
    out.appendDecimal(plan.damaged.packets)
    out.append(",\"blanked_bytes\":")
    out.appendDecimal(plan.damaged.blanked)
    out.append(plan.options.keepDamaged ? ",\"kept\":true}" : ",\"kept\":false}")
    let swept = RedactionKind.Category.allCases.compactMap { category in
      plan.swept[category].map { (category.rawValue, $0) }
    }
    frameLists(",\"found_elsewhere\":[", "category", swept, into: &out)
    frameLists(",\"left_as_is\":[", "reason", plan.unparsed.map { ($0.reason, $0.frames) }, into: &out)
    out.append("}\n")
  }

  /// `key` and a list of `{"original":…,"redacted":…}`, one per line.
  private static func pairs(_ key: StaticString, _ items: [(String, String)], into out: inout OutputBuffer) {
    out.append(key)
    for (index, (original, redacted)) in items.enumerated() {
      out.append(index == 0 ? "\n{\"original\":" : ",\n{\"original\":")
      out.appendJSONString(original)
      out.append(",\"redacted\":")
      out.appendJSONString(redacted)
      out.append("}")
    }
    out.append("]")
  }

  /// `key` and a list of `{"<label>":…,"frames":[…]}`, one per line.
  private static func frameLists(
    _ key: StaticString, _ label: StaticString, _ items: [(String, [Int])], into out: inout OutputBuffer
  ) {
    out.append(key)
    for (index, (name, frames)) in items.enumerated() {
      out.append(index == 0 ? "\n{\"" : ",\n{\"")
      out.append(label)
      out.append("\":")
      out.appendJSONString(name)
      out.append(",\"frames\":[")
      out.append(string: frames.map(String.init).joined(separator: ","))
      out.append("]}")
    }
    out.append("]")
  }

  /// `3, 7-9, 12`: runs of consecutive frames.
  static func frameRanges(_ frames: [Int]) -> [String] {
    var ranges: [String] = []
    var index = 0
    let sorted = frames.sorted()
    while index < sorted.count {
      var end = index
      while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
      ranges.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
      index = end + 1
    }
    return ranges
  }

  static func hexText(_ octets: [UInt8]) -> String {
    octets.map { hex($0) }.joined()
  }

  static func plural(_ noun: String, _ count: Int) -> String {
    count == 1 ? noun : noun.hasSuffix("s") ? noun + "es" : noun + "s"
  }
}
