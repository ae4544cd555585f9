import BLEAnalysis
import BLEDissect

/// The text and JSON of a connection's security summary, for `timeline` (and any
/// command that shows a connection).
extension ConnectionSecurity {
  /// `level 2 (LE Secure Connections Just Works), encrypted after pairing #222; 1 finding`.
  public var headline: String {
    var text = "level \(level)" + (levelCertain ? "" : " or more")
    let completed = pairings.filter { if case .encrypted = $0.outcome { true } else { false } }
    if let method = completed.last?.method { text += " (" + method.name + ")" }
    if pairings.count > completed.count {
      let open = pairings.count - completed.count
      text += ", \(open) pairing\(open == 1 ? "" : "s") not completed"
    }
    if !securityRequests.isEmpty {
      text += ", \(securityRequests.count) Security Request\(securityRequests.count == 1 ? "" : "s") from the peer"
    }
    if encryptions.isEmpty {
      text += ", never encrypted"
    } else {
      text +=
        ", encrypted "
        + encryptions.map { $0.storedKey ? "with a stored key (#\($0.at.frame))" : "after pairing (#\($0.at.frame))" }
        .joined(separator: ", then ")
    }
    if !findings.isEmpty { text += "; \(findings.count) finding\(findings.count == 1 ? "" : "s")" }
    return text
  }

  /// One line per pairing, encryption, ATT security error and finding.
  public var detailLines: [String] {
    var lines: [String] = []
    for pairing in pairings {
      var text = "pairing #\(pairing.at.frame) " + (pairing.localInitiated ? "by this host" : "by the peer") + ": "
      text += pairing.method?.name ?? (pairing.secureConnections ? "LE Secure Connections" : "LE legacy pairing")
      text += pairing.mitmRequested ? ", MITM requested" : ", no MITM"
      text += pairing.bonding ? ", bonding" : ", no bonding"
      if let size = pairing.keySize { text += ", key size \(size)" }
      text += "; keys: initiator " + Self.keys(pairing.initiatorKeys, pairing.initiatorKeysSeen)
      text += ", responder " + Self.keys(pairing.responderKeys, pairing.responderKeysSeen)
      switch pairing.outcome {
      case .encrypted(let at): text += "; encrypted #\(at.frame)"
      case .failed(let at, let reason): text += "; failed #\(at.frame): \(reason.name)"
      case .incomplete: text += "; not finished in the capture"
      }
      lines.append(text)
    }
    for start in encryptions {
      var text = "encryption #\(start.at.frame): "
      text += start.pairing.map { "key of pairing #\($0.frame)" } ?? "stored key"
      if let size = start.keySize { text += ", key size \(size)" }
      text += start.level.map { ", level \($0)" } ?? ", level of the bond's pairing unknown"
      lines.append(text)
    }
    for error in attErrors {
      var text = ATTOpcode(rawValue: error.opcode).name
      if let handle = error.handle { text += " 0x" + hex(handle) }
      text += " → " + ATTErrorCode(rawValue: error.code).name + " (#\(error.response.frame)): "
      text += error.followedBy.frame.map { "followed by \(error.followedBy.name) #\($0.frame)" } ?? "nothing followed"
      if let retry = error.retry { text += "; retried #\(retry.at.frame) " + (retry.ok ? "ok" : "and failed again") }
      lines.append(text)
    }
    for finding in findings {
      var text = "\(finding.severity.rawValue): \(finding.reason)"
      if let detail = finding.detail { text += " (\(detail))" }
      text += " " + finding.frames.prefix(8).map { "#\($0)" }.joined(separator: ", ")
      if finding.frames.count > 8 { text += ", …" }
      lines.append(text)
    }
    return lines
  }

  /// `IdKey (seen: Identity Information, Identity Address Information)`, `none`.
  static func keys(_ distribution: SMPKeyDistribution, _ seen: [SMPCode]) -> String {
    var text = distribution.names.isEmpty ? "none" : distribution.names.joined(separator: "+")
    if !seen.isEmpty { text += " (seen: " + seen.map(\.name).joined(separator: ", ") + ")" }
    return text
  }
}

extension OutputBuffer {
  /// The `security` object of a timeline connection (schema `connection.security`).
  mutating func appendSecurityJSON(_ security: ConnectionSecurity) {
    var k = JSONKeys()
    append("{")
    k.integer("level", security.level, into: &self)
    k.bool("level_certain", security.levelCertain, into: &self)
    k.bool("encrypted", security.encrypted, into: &self)
    k.key("pairings", into: &self)
    TimelineJSON.appendArray(security.pairings, into: &self) { pairing, out in
      var p = JSONKeys()
      p.integer("frame", pairing.at.frame, into: &out)
      p.integer("response_frame", pairing.response?.frame, into: &out)
      p.string("initiator", pairing.localInitiated ? "local" : "remote", into: &out)
      p.string("method", pairing.method?.name, into: &out)
      p.string("association", pairing.method?.method.rawValue, into: &out)
      p.bool("secure_connections", pairing.secureConnections, into: &out)
      p.bool("mitm", pairing.mitmRequested, into: &out)
      p.bool("authenticated", pairing.method?.isAuthenticated ?? false, into: &out)
      p.bool("bonding", pairing.bonding, into: &out)
      p.integer("key_size", pairing.keySize, into: &out)
      p.key("keys", into: &out)
      out.append("{\"by_initiator\":")
      out.appendStrings(pairing.initiatorKeys.names)
      out.append(",\"by_responder\":")
      out.appendStrings(pairing.responderKeys.names)
      out.append("}")
      p.key("keys_seen", into: &out)
      out.append("{\"by_initiator\":")
      out.appendStrings(pairing.initiatorKeysSeen.map(\.name))
      out.append(",\"by_responder\":")
      out.appendStrings(pairing.responderKeysSeen.map(\.name))
      out.append("}")
      p.string("outcome", pairing.outcomeName, into: &out)
      switch pairing.outcome {
      case .encrypted(let at): p.integer("outcome_frame", at.frame, into: &out)
      case .failed(let at, _): p.integer("outcome_frame", at.frame, into: &out)
      case .incomplete: p.integer("outcome_frame", Int?.none, into: &out)
      }
      if case .failed(_, let reason) = pairing.outcome {
        p.integer("failed_reason", reason.rawValue, into: &out)
        p.string("failed_reason_name", reason.name, into: &out)
      }
    }
    k.key("encryptions", into: &self)
    TimelineJSON.appendArray(security.encryptions, into: &self) { start, out in
      var e = JSONKeys()
      e.integer("frame", start.at.frame, into: &out)
      e.string("key", start.storedKey ? "stored" : "pairing", into: &out)
      e.integer("pairing_frame", start.pairing?.frame, into: &out)
      e.integer("key_size", start.keySize, into: &out)
      e.integer("level", start.level, into: &out)
    }
    k.key("security_request_frames", into: &self)
    append(string: "[" + security.securityRequests.map { String($0.frame) }.joined(separator: ",") + "]")
    k.key("att_errors", into: &self)
    TimelineJSON.appendArray(security.attErrors, into: &self) { error, out in
      var e = JSONKeys()
      e.integer("request_frame", error.request.frame, into: &out)
      e.integer("frame", error.response.frame, into: &out)
      e.integer("opcode", error.opcode, into: &out)
      e.integer("handle", error.handle, into: &out)
      e.integer("error", error.code, into: &out)
      e.string("error_name", ATTErrorCode(rawValue: error.code).name, into: &out)
      e.string("followed_by", error.followedBy.name, into: &out)
      e.integer("followed_by_frame", error.followedBy.frame?.frame, into: &out)
      e.integer("retry_frame", error.retry?.at.frame, into: &out)
      e.string("retry_outcome", error.retry.map { $0.ok ? "ok" : "error" }, into: &out)
    }
    k.key("findings", into: &self)
    TimelineJSON.appendArray(security.findings, into: &self) { finding, out in
      var f = JSONKeys()
      f.string("severity", finding.severity.rawValue, into: &out)
      f.string("title", finding.reason, into: &out)
      f.string("detail", finding.detail, into: &out)
      f.key("frames", into: &out)
      out.append(string: "[" + finding.frames.map(String.init).joined(separator: ",") + "]")
    }
    append("}")
  }

  /// `["a","b"]`.
  mutating func appendStrings(_ strings: [String]) {
    append("[")
    for (index, string) in strings.enumerated() {
      if index > 0 { append(",") }
      appendJSONString(string)
    }
    append("]")
  }
}

extension StatsJSON {
  /// The `security` object of a capture (and its NDJSON line), with the closing brace.
  static func appendSecurity(_ stats: Statistics, into out: inout OutputBuffer) {
    let summary = stats.security
    var k = JSONKeys()
    k.integer("connection_count", summary.connections, into: &out)
    k.integer("encrypted_count", summary.encrypted, into: &out)
    k.integer("after_pairing", summary.afterPairing, into: &out)
    k.integer("stored_key", summary.storedKey, into: &out)
    k.integer("never_encrypted", summary.connections - summary.encrypted, into: &out)
    k.integer("pairing_count", summary.pairings, into: &out)
    k.integer("legacy", summary.legacy, into: &out)
    k.integer("secure_connection_count", summary.secureConnections, into: &out)
    k.integer("failed", summary.failed, into: &out)
    k.integer("incomplete", summary.incomplete, into: &out)
    /// `[{"<label>":…,"count":…}]`.
    func counts(_ key: StaticString, _ label: StaticString, _ items: [(String, Int)]) {
      k.key(key, into: &out)
      TimelineJSON.appendArray(items, into: &out) { item, out in
        var c = JSONKeys()
        c.string(label, item.0, into: &out)
        c.integer("count", item.1, into: &out)
      }
    }
    counts("methods", "method", summary.methods.map { ($0.name, $0.count) })
    k.key("levels", into: &out)
    TimelineJSON.appendArray(Array(summary.levels.enumerated()), into: &out) { level, out in
      var l = JSONKeys()
      l.integer("level", level.offset + 1, into: &out)
      l.integer("connection_count", level.element, into: &out)
    }
    k.integer("levels_uncertain", summary.uncertain, into: &out)
    k.integer("att_error_count", summary.attErrors, into: &out)
    counts("followed_by_counts", "what", summary.followedBy.map { ($0.what, $0.count) })
    k.key("findings", into: &out)
    TimelineJSON.appendArray(summary.findings, into: &out) { finding, out in
      var f = JSONKeys()
      f.string("severity", finding.severity.rawValue, into: &out)
      f.string("title", finding.reason, into: &out)
      f.integer("count", finding.count, into: &out)
      f.integer("connection_count", finding.connections, into: &out)
    }
    out.append("}")
  }
}

extension StatsText {
  /// The Security block: nothing when no connection paired, encrypted or got an ATT
  /// security error.
  ///
  ///     Security
  ///       2 connections: 2 encrypted (1 after pairing, 1 with a stored key), 0 never
  ///       1 pairing: LE Secure Connections Just Works 1 (0 legacy, 1 LE Secure Connections; 0 failed, 0 not completed)
  ///       levels: 1: 0, 2: 2, 3: 0, 4: 0
  ///       1 ATT security error, followed by pairing 1
  ///       low: Just Works pairing: no protection against a man in the middle (1 on 1 connection)
  static func appendSecurity(_ summary: SecuritySummary, into out: inout OutputBuffer) {
    guard summary.encrypted > 0 || summary.pairings > 0 || summary.attErrors > 0 || !summary.findings.isEmpty
    else { return }
    func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
    out.append("\nSecurity\n")
    out.append(
      string:
        "  \(plural(summary.connections, "connection")): \(summary.encrypted) encrypted (\(summary.afterPairing) after "
        + "pairing, \(summary.storedKey) with a stored key), \(summary.connections - summary.encrypted) never\n")
    if summary.pairings > 0 {
      out.append(
        string: "  \(plural(summary.pairings, "pairing")): "
          + summary.methods.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
          + " (\(summary.legacy) legacy, \(summary.secureConnections) LE Secure Connections; \(summary.failed) failed, "
          + "\(summary.incomplete) not completed)\n")
    }
    out.append(
      string: "  levels: "
        + summary.levels.enumerated().map { "\($0.offset + 1): \($0.element)" }.joined(separator: ", ")
        + (summary.uncertain > 0 ? " (\(summary.uncertain) at least)" : "") + "\n")
    if summary.attErrors > 0 {
      out.append(
        string: "  \(plural(summary.attErrors, "ATT security error")), followed by "
          + summary.followedBy.map { "\($0.what) \($0.count)" }.joined(separator: ", ") + "\n")
    }
    for finding in summary.findings {
      out.append(
        string: "  \(finding.severity.rawValue): \(finding.reason) (\(finding.count) on "
          + plural(finding.connections, "connection") + ")\n")
    }
  }
}
