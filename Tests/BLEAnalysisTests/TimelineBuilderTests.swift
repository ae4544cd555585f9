import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// One HCI packet for `buildTimeline`: H4 type, direction, bytes, time in ms.
struct Packet {
  var type: UInt8
  var sent: Bool
  var bytes: [UInt8]
  var ms: Int64

  static func command(_ hex: String, at ms: Int64) -> Self {
    Self(type: 0x01, sent: true, bytes: hexBytes(hex), ms: ms)
  }
  static func event(_ hex: String, at ms: Int64) -> Self { Self(type: 0x04, sent: false, bytes: hexBytes(hex), ms: ms) }
  /// An ATT PDU on handle 0x0040, CID 0x0004.
  static func att(_ hex: String, sent: Bool, at ms: Int64) -> Self {
    let att = hexBytes(hex)
    let l2cap = [UInt8(att.count & 0xFF), UInt8(att.count >> 8), 0x04, 0x00] + att
    let acl = [0x40, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
    return Self(type: 0x02, sent: sent, bytes: acl, ms: ms)
  }

  /// Calls `body` with the packet as the record of frame `frame`.
  func withRecord(frame: Int, _ body: (Record) -> Void) {
    bytes.withUnsafeBufferPointer { bytes in
      body(
        Record(
          frame: frame, timestamp: Timestamp(unixMicroseconds: ms * 1000), direction: sent ? .sent : .received,
          adapter: nil, kind: .hci(type), bytes: bytes, originalLength: bytes.count, fileOffset: 0))
    }
  }
}

func buildTimeline(_ packets: [Packet], rules: [PairRule] = []) -> Timeline {
  var analyzer = Analyzer()
  var builder = TimelineBuilder(rules: rules)
  for (index, packet) in packets.enumerated() {
    packet.withRecord(frame: index + 1) { builder.add($0, analyzer.analyze($0)) }
  }
  return builder.finish(analyzer.finish())
}

@Suite struct TimelineBuilderTests {
  // LE Create Connection: scan 0x0060/0x0030, filter policy 0, peer public D4:36:39:67:A2:61,
  // own public, interval 0x0018-0x0018 (30 ms), latency 0, timeout 0x0048 (720 ms), CE 0-0.
  static let create = Packet.command("0d20 19 6000 3000 00 00 61a2673936d4 00 1800 1800 0000 4800 0000 0000", at: 0)
  // LE Connection Complete: success, handle 0x0040, central, public D4:36:39:67:A2:61,
  // interval 0x0018, latency 0, timeout 0x0048, clock accuracy 0.
  static func complete(at ms: Int64, status: String = "00") -> Packet {
    .event("3e 13 01 \(status) 4000 00 00 61a2673936d4 1800 0000 4800 00", at: ms)
  }
  // Disconnect handle 0x0040, Remote User Terminated Connection.
  static let disconnect = Packet.command("0604 03 4000 13", at: 900)
  static func disconnected(_ reason: String, at ms: Int64) -> Packet { .event("05 04 00 4000 \(reason)", at: ms) }

  @Test func connectionFromCreateToDisconnect() throws {
    let timeline = buildTimeline([
      Self.create, .event("0f 04 00 01 0d20", at: 1), Self.complete(at: 20), Self.disconnect,
      Self.disconnected("16", at: 925), Self.create, Self.complete(at: 5000),
    ])
    #expect(timeline.connections.count == 2)
    let first = try #require(timeline.connections.first)
    #expect(first.attempt?.create.frame == 1 && first.complete?.frame == 3)
    #expect(first.connectLatencyMicroseconds == 20_000)
    #expect(first.ref.generation == 1 && first.ref.role == 0)
    #expect(first.ref.peer?.description == "D4:36:39:67:A2:61")
    #expect(first.parameters?.interval.milliseconds == 30 && first.parameters?.supervisionTimeout.milliseconds == 720)
    let disconnect = try #require(first.disconnect)
    #expect(disconnect.command?.frame == 4 && disconnect.commandReason == 0x13)
    #expect(disconnect.complete.frame == 5 && disconnect.reason == 0x16 && disconnect.initiator == .local)
    #expect(first.reconnectGapMicroseconds == 4_075_000 && first.reconnectedAs == 2)
    #expect(timeline.connections[1].ref.generation == 2, "the handle completed a second time")
    #expect(timeline.attempts.map(\.outcome) == [.connected, .connected])
  }

  @Test(arguments: [
    (UInt8(0x16), false, DisconnectInitiator.local),
    (0x13, false, .remote),
    (0x14, false, .remote),
    (0x08, false, .linkLoss),
    (0x22, false, .linkLoss),
    (0x3E, false, .linkLoss),
    (0x13, true, .local),
  ])
  func disconnectInitiator(reason: UInt8, localCommand: Bool, initiator: DisconnectInitiator) {
    #expect(DisconnectInitiator.of(reason: reason, localCommand: localCommand) == initiator)
  }

  /// 0x3E within the first twelve connection intervals is a connection that failed to
  /// establish; later, or with another reason, the link was lost.
  @Test(arguments: [
    // android-central #86: 6.1 intervals of 30 ms
    (UInt8(0x3E), Int64(183_294), DisconnectInitiator.failedToEstablish),
    (0x3E, 360_000, .failedToEstablish),  // exactly 12 intervals
    (0x3E, 360_001, .linkLoss),
    (0x3E, 5_000_000, .linkLoss),
    (0x08, 183_294, .linkLoss),
  ])
  func failedToEstablish(reason: UInt8, sinceComplete: Int64, initiator: DisconnectInitiator) {
    let interval = ConnectionInterval(units: 24)
    #expect(
      DisconnectInitiator.of(reason: reason, localCommand: false, sinceComplete: sinceComplete, interval: interval)
        == initiator)
  }

  @Test func cancelledAttempt() throws {
    // LE Create Connection Cancel, then LE Connection Complete with Unknown Connection Identifier.
    let timeline = buildTimeline([Self.create, .command("0e20 00", at: 3000), Self.complete(at: 3001, status: "02")])
    let attempt = try #require(timeline.attempts.first)
    #expect(attempt.outcome == .cancelled && attempt.cancel?.frame == 2 && attempt.result?.frame == 3)
    #expect(attempt.status == 0x02 && attempt.latencyMicroseconds == 3_001_000)
    #expect(timeline.connections.isEmpty)
  }

  @Test(arguments: [
    ("0f 04 0c 01 0d20", ConnectionAttempt.Outcome.failed),  // Command Status: Command Disallowed
    ("3e 13 01 3e 4000 00 00 61a2673936d4 1800 0000 4800 00", .timedOut),  // Connection Failed to be Established
  ])
  func refusedAttempt(result: String, outcome: ConnectionAttempt.Outcome) throws {
    let timeline = buildTimeline([Self.create, .event(result, at: 5)])
    #expect(timeline.attempts.first?.outcome == outcome)
    #expect(timeline.attempts.first?.result?.frame == 2)
  }

  @Test func pendingAttempt() {
    #expect(buildTimeline([Self.create]).attempts.first?.outcome == .pending)
  }

  @Test func transactionOutcomes() throws {
    let timeline = buildTimeline([
      Self.create, Self.complete(at: 10),
      .att("0a 0300", sent: true, at: 100), .att("0b 64", sent: false, at: 130),  // Read → Read Response
      .att("0a 0500", sent: true, at: 200), .att("01 0a 0500 02", sent: false, at: 260),  // → Read Not Permitted
      .att("0a 0700", sent: true, at: 300),  // no answer within 30 s
      .att("1b 0900 01", sent: false, at: 40_000),
      .att("0a 0800", sent: true, at: 41_000),  // replaced by the next request
      .att("0a 0900", sent: true, at: 41_100),  // unanswered at the disconnection
      Self.disconnected("13", at: 41_200),
    ])
    let transactions = try #require(timeline.connections.first?.transactions)
    #expect(transactions.map(\.outcome) == [.ok, .error, .timeout, .unanswered, .unanswered])
    #expect(transactions.map(\.request.frame) == [3, 5, 7, 9, 10])
    #expect(transactions[0].latencyMicroseconds == 30_000 && transactions[0].response?.frame == 4)
    #expect(transactions[1].errorCode == 0x02)
    #expect(timeline.connections.first?.disconnect?.initiator == .remote)
  }

  @Test func requestAndIndicationTheSameWayWaitApart() throws {
    let timeline = buildTimeline([
      Self.create, Self.complete(at: 10),
      .att("08 1500 1800 0328", sent: true, at: 100),  // this host's Read By Type Request
      .att("1d 0300 0100ffff", sent: true, at: 103),  // this host's Service Changed indication
      .att("09 07 1600 02 1700 372a", sent: false, at: 125),  // the peer's Read By Type Response
      .att("1e", sent: false, at: 130),  // the peer's confirmation
    ])
    let transactions = try #require(timeline.connections.first?.transactions)
    #expect(transactions.map(\.outcome) == [.ok, .ok])
    #expect(transactions.map(\.response?.frame) == [5, 6])
  }

  /// A vendor service 0x0001–0x0007: 0x0003 ff02 (write), 0x0005 ff01 (notify), 0x0006 its CCCD,
  /// then 0x0008–0x000a: 0x000a 2a19 (notify), discovered by this host.
  static let discovery: [Packet] = [
    .att("10 0100 ffff 0028", sent: true, at: 20), .att("11 06 0100 0700 00ff 0800 0a00 0f18", sent: false, at: 21),
    .att("08 0100 0a00 0328", sent: true, at: 22),
    .att("09 07 0200 0c 0300 02ff 0400 10 0500 01ff 0900 10 0a00 192a", sent: false, at: 23),
    .att("04 0600 0600", sent: true, at: 24), .att("05 01 0600 0229", sent: false, at: 25),
    .att("12 0600 0100", sent: true, at: 26), .att("13", sent: false, at: 27),
  ]

  @Test func discoveryAndSubscription() throws {
    let timeline = buildTimeline([Self.create, Self.complete(at: 10)] + Self.discovery)
    let connection = try #require(timeline.connections.first)
    let discovery = try #require(connection.discovery)
    #expect(discovery.start.frame == 3 && discovery.end.frame == 8 && discovery.requests == 3 && discovery.byLocal)
    let subscription = try #require(connection.subscriptions.first)
    #expect(subscription.handle == 6 && subscription.valueHandle == 5 && subscription.value == 1)
    #expect(subscription.characteristic == BluetoothUUID(uuid16: 0xFF01) && subscription.outcome == .ok)
  }

  @Test func writeAnsweredOnAnotherCharacteristicOfItsService() throws {
    let timeline = buildTimeline(
      [Self.create, Self.complete(at: 10)] + Self.discovery + [
        .att("52 0300 01", sent: true, at: 100),  // Write Command ff02
        .att("1b 0a00 55", sent: false, at: 110),  // Battery Level: another service
        .att("1b 0500 02", sent: false, at: 131),  // ff01: the answer
        .att("1b 0500 03", sent: false, at: 140),  // not an answer: already answered
        .att("52 0300 04", sent: true, at: 200),
        .att("1b 0500 05", sent: false, at: 2300),  // past the 2 s window
      ])
    let pairs = try #require(timeline.connections.first?.pairs)
    #expect(pairs.count == 1)
    #expect(pairs.first?.write.frame == 11 && pairs.first?.notify.frame == 13)
    #expect(pairs.first?.rttMicroseconds == 31_000 && pairs.first?.byRule == false)
  }

  @Test func pairRuleNamesTheAnswer() throws {
    let rule = try #require(PairRule(parsing: "ff02:0x000a"))
    let timeline = buildTimeline(
      [Self.create, Self.complete(at: 10)] + Self.discovery + [
        .att("52 0300 01", sent: true, at: 100),
        .att("1b 0500 02", sent: false, at: 131),  // ff01: not what the rule names
        .att("1b 0a00 55", sent: false, at: 150),  // 0x000a: the answer
      ], rules: [rule])
    let pair = try #require(timeline.connections.first?.pairs.first)
    #expect(pair.notify.frame == 13 && pair.notifyHandle == 0x000A && pair.byRule)
  }

  @Test(arguments: [
    ("ff02:ff01", true),
    ("0x0031:0x002d", true),
    ("6e400002-b5a3-f393-e0a9-e50e24dcca9e:0x003f", true),
    ("ff02", false),
    ("ff02:", false),
    ("0xzz:ff01", false),
    ("a:b:c", false),
  ])
  func pairRuleParsing(text: String, valid: Bool) {
    #expect((PairRule(parsing: text) != nil) == valid)
  }
}
