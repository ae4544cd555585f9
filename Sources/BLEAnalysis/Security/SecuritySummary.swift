/// The security of a capture's connections summed up (`stats`): how many were
/// encrypted and how, the pairing methods, the levels reached, the ATT security errors
/// and what followed them, and the findings.
public struct SecuritySummary: Sendable {
  public var connections = 0
  /// Connections encrypted at some point; of those, with a key from a pairing on the
  /// connection, or with a stored key (a connection may have both).
  public var encrypted = 0
  public var afterPairing = 0
  public var storedKey = 0
  /// Pairings by their method's name (`LE Secure Connections Just Works`…), in
  /// first-seen order.
  public var methods: [(name: String, count: Int)] = []
  public var pairings = 0
  public var legacy = 0
  public var secureConnections = 0
  public var failed = 0
  public var incomplete = 0
  /// Connections by the level they reached (1 to 4); `uncertain` counts those whose
  /// level is a lower bound (a stored key from a pairing not in the capture).
  public var levels: [Int] = [0, 0, 0, 0]
  public var uncertain = 0
  /// ATT security errors, by what followed them (`pairing`, `encryption`, `disconnect`,
  /// `nothing`).
  public var attErrors = 0
  public var followedBy: [(what: String, count: Int)] = []
  /// Findings by severity and reason: how many, on how many connections.
  public var findings: [(severity: SecurityFinding.Severity, reason: String, count: Int, connections: Int)] {
    found.sorted { $0.severity < $1.severity }
  }
  /// The findings in first-seen order.
  private var found: [(severity: SecurityFinding.Severity, reason: String, count: Int, connections: Int)] = []
  private var methodIndex: [String: Int] = [:]
  private var followIndex: [String: Int] = [:]
  private var findingIndex: [String: Int] = [:]

  public init() {}

  /// Sums the summaries of `connections` (all of a capture's, nil for those with
  /// nothing to tell: level 1, never encrypted).
  public init(_ connections: [ConnectionSecurity?]) {
    for security in connections { add(security) }
  }

  /// Adds the summary of one more connection (nil for one with nothing to tell).
  public mutating func add(_ security: ConnectionSecurity?) {
    connections += 1
    guard let security else {
      levels[0] += 1
      return
    }
    levels[max(1, min(4, security.level)) - 1] += 1
    if !security.levelCertain { uncertain += 1 }
    if security.encrypted { encrypted += 1 }
    if security.encryptions.contains(where: { !$0.storedKey }) { afterPairing += 1 }
    if security.encryptions.contains(where: \.storedKey) { storedKey += 1 }
    for pairing in security.pairings {
      pairings += 1
      if pairing.method != nil { if pairing.secureConnections { secureConnections += 1 } else { legacy += 1 } }
      switch pairing.outcome {
      case .failed: failed += 1
      case .incomplete: incomplete += 1
      case .encrypted: break
      }
      let name = pairing.method?.name ?? "no Pairing Response"
      if let index = methodIndex[name] {
        methods[index].count += 1
      } else {
        methodIndex[name] = methods.count
        methods.append((name, 1))
      }
    }
    for error in security.attErrors {
      attErrors += 1
      let what = error.followedBy.name
      if let index = followIndex[what] {
        followedBy[index].count += 1
      } else {
        followIndex[what] = followedBy.count
        followedBy.append((what, 1))
      }
    }
    var seen: Set<String> = []
    for finding in security.findings {
      let key = finding.severity.rawValue + finding.reason
      let first = seen.insert(key).inserted
      if let index = findingIndex[key] {
        found[index].count += 1
        if first { found[index].connections += 1 }
      } else {
        findingIndex[key] = found.count
        found.append((finding.severity, finding.reason, 1, 1))
      }
    }
  }
}
