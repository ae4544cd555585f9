import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

private func interval(milliseconds: Double) -> ConnectionInterval {
  ConnectionInterval(units: UInt16((milliseconds / 1.25).rounded()))
}

/// The ceiling model (ThroughputModel) against the figures published for it, each with
/// its source, and against the terms of the link model the synthetic `transfer` capture
/// states (`link_model` in its truth).
@Suite("throughput model")
struct ThroughputModelTests {
  /// One slot, term by term (Core 6.0, Vol 6, Part B): T_IFS 150 µs (4.1.1), the PDU with 14
  /// octets of overhead (2.1, 2.4), T_IFS, and an empty PDU of 10 octets; 8 µs per octet on
  /// LE 1M, 4 on LE 2M. The truth's `slot_us`: 150 + (octets + 14)·8/phy + 150 + 80/phy.
  static let slots: [(octets: Int, phy: LEPHY, microseconds: Int64)] = [
    (27, .le1M, 150 + 41 * 8 + 150 + 80),
    (251, .le1M, 150 + 265 * 8 + 150 + 80),
    (27, .le2M, 150 + 41 * 4 + 150 + 40),
    (251, .le2M, 150 + 265 * 4 + 150 + 40),
  ]

  @Test(arguments: slots)
  func slot(octets: Int, phy: LEPHY, microseconds: Int64) {
    #expect(ThroughputModel.slot(octets: octets, phy: phy) == microseconds)
  }

  /// About 128 kbps on LE 1M without data length extension at 7.5 ms, 6 PDUs per event:
  /// 6 × 20 bytes (ATT_MTU 23) per 7.5 ms. Source: Punch Through, "Maximizing BLE
  /// Throughput on iOS and Android" (Android: 6 packets per 7.5 ms connection interval,
  /// 20 bytes each, 128 kbps).
  @Test func oneMegabitWithoutDataLengthExtension() {
    let packing = ThroughputModel.unacknowledged(
      value: 20, header: PayloadOperation.writeCommand.headerOctets, phy: .le1M, dataLength: 27,
      interval: interval(milliseconds: 7.5))
    #expect(packing.pdusPerEvent == 6)
    #expect(packing.limitedBy == .count)
    #expect(abs(packing.bytesPerSecond.kilobitsPerSecond - 128) < 0.5, "\(packing.bytesPerSecond.kilobitsPerSecond)")
  }

  /// About 1.4 Mbps on LE 2M with 251-octet PDUs: one 244-byte value per 1400 µs slot is
  /// 1.394 Mbps on the air. Source: Punch Through, "Maximizing BLE Throughput Part 4:
  /// Everything You Need to Know" (LE 2M PHY with data length extension: about 1.4 Mbps).
  /// A 7.5 ms event ends 400 µs before the next anchor and holds 5 such slots, so the
  /// model's ceiling at 7.5 ms is 5 × 244 bytes per event, 1.30 Mbps: within 10 % below it.
  @Test func twoMegabitWithFullPDUs() {
    let airtime = ThroughputModel.airtime(
      value: 244, header: PayloadOperation.writeCommand.headerOctets, phy: .le2M, dataLength: 251)
    #expect(abs(airtime.kilobitsPerSecond / 1400 - 1) < 0.01, "\(airtime.kilobitsPerSecond) kbps")
    let packing = ThroughputModel.unacknowledged(
      value: 244, header: PayloadOperation.writeCommand.headerOctets, phy: .le2M, dataLength: 251,
      interval: interval(milliseconds: 7.5))
    #expect(packing.pdusPerEvent == 5)
    #expect(packing.limitedBy == .airtime)
    #expect(abs(packing.bytesPerSecond.value - 5 * 244 / 0.0075) < 1)
    #expect(packing.bytesPerSecond.kilobitsPerSecond < 1400)
    #expect(packing.bytesPerSecond.kilobitsPerSecond > 1400 * 0.9)
  }

  /// Acknowledged writes at 7.5 ms with ATT_MTU 247: one 244-byte write per two intervals,
  /// 16.27 kB/s (130 kbps). Source: Silicon Labs, "Throughput with Bluetooth Low Energy
  /// Technology" (acknowledged transfer: one GATT operation takes two connection intervals).
  @Test func acknowledgedWritesAtSevenAndAHalfMilliseconds() {
    let ceiling = ThroughputModel.acknowledged(value: 247 - 3, interval: interval(milliseconds: 7.5))
    #expect(abs(ceiling.value - 244 / 0.015) < 0.1, "\(ceiling.value)")
    #expect(abs(ceiling.kilobitsPerSecond - 130.1) < 0.1)
  }

  /// A 244-byte value cut into 27-octet PDUs (no data length extension) takes 10 of them.
  @Test func fragmentedSDUs() {
    let packing = ThroughputModel.unacknowledged(
      value: 244, header: 7, phy: .le1M, dataLength: 27, interval: interval(milliseconds: 30))
    #expect(packing.pdusPerSDU == 10)
    #expect(packing.pdusPerEvent == 6)
    // 6 PDUs per 30 ms event, 10 per SDU: 3 SDUs every 5 events.
    #expect(abs(packing.bytesPerSecond.value - 3 * 244 / (5 * 0.03)) < 0.1, "\(packing.bytesPerSecond.value)")
  }

  /// Host buffers: 4 buffers back after 15 ms each carry 4 × 244 bytes per 15 ms.
  @Test func hostBuffers() throws {
    let ceiling = try #require(
      ThroughputModel.hostBuffers(buffers: 4, bufferOctets: 251, value: 244, header: 7, cycleMicroseconds: 15_000))
    #expect(abs(ceiling.value - 4 * 244 / 0.015) < 0.1)
    // 27-octet buffers: each SDU takes 10 of them.
    let small = try #require(
      ThroughputModel.hostBuffers(buffers: 4, bufferOctets: 27, value: 244, header: 7, cycleMicroseconds: 15_000))
    #expect(abs(small.value - 0.4 * 244 / 0.015) < 0.1)
    #expect(ThroughputModel.hostBuffers(buffers: 0, bufferOctets: 27, value: 1, header: 7, cycleMicroseconds: 1) == nil)
  }

  /// The factor behind the link's ceiling.
  @Test(arguments: [
    // 1M, 27-octet PDUs, ATT_MTU 23, 20-byte values: full PDUs, the count binds (transfer a).
    (LEPHY.le1M, 27, UInt16(23), 20, 30.0, ThroughputBinding.pdusPerEvent),
    // 2M, 251 octets, full values: air time (transfer b).
    (.le2M, 251, 247, 244, 7.5, .phy),
    // 244-byte values in 27-octet PDUs: the data length.
    (.le1M, 27, 247, 244, 30, .dataLength),
    // ATT_MTU 23 with 251-octet PDUs: full values leave the PDUs mostly empty.
    (.le1M, 251, 23, 20, 30, .mtu),
    // Small values below the MTU: the count.
    (.le1M, 251, 247, 20, 30, .pdusPerEvent),
  ])
  func linkFactor(
    phy: LEPHY, dataLength: Int, mtu: UInt16, value: Int, milliseconds: Double, expected: ThroughputBinding
  ) {
    var link = LinkInForce()
    link.phyTX = phy
    link.dataLength.maxTXOctets = UInt16(dataLength)
    link.mtu = mtu
    let packing = ThroughputModel.unacknowledged(
      value: value, header: 7, phy: phy, dataLength: dataLength, interval: interval(milliseconds: milliseconds))
    #expect(
      ThroughputVerdict.linkFactor(packing, operation: .writeCommand, value: value, link: link, direction: .tx)
        == expected)
  }

  /// Each operation's value-carrying opcodes lead back to it.
  @Test(arguments: PayloadOperation.allCases)
  func operationTable(operation: PayloadOperation) {
    for opcode in operation.opcodes { #expect(PayloadOperation.of(opcode) == operation) }
    #expect(operation.opcodes.isEmpty == (operation == .coc))
  }
}

/// A compliant request: 15–45 ms, latency 0, 6 s.
private let compliant = ParameterRequest(intervalMin: 12, intervalMax: 36, latency: 0, timeout: 600)

/// Apple's connection parameter rules, one test per rule: the compliant request keeps it and
/// a request that breaks only it breaks it.
@Suite("platform rules")
struct PlatformRuleTests {
  @Test func compliantRequestBreaksNone() {
    #expect(AppleConnectionRule.broken(by: compliant).isEmpty)
    // Interval Min == Interval Max == 15 ms is allowed.
    #expect(
      AppleConnectionRule.broken(by: ParameterRequest(intervalMin: 12, intervalMax: 12, latency: 0, timeout: 200))
        .isEmpty)
  }

  /// A request for each rule that breaks it, and every rule it breaks: below 15 ms an
  /// Interval Min cannot be a multiple of 15 ms, and above 2 s Interval Max × (Peripheral
  /// Latency + 1) times 3 is over the 6 s a timeout may take.
  static let breaking: [(AppleConnectionRule, ParameterRequest, Set<AppleConnectionRule>)] = [
    // 15–30 ms, Peripheral Latency 31: 30 ms × 32 = 0.96 s, × 3 < 6 s.
    (
      .peripheralLatency, ParameterRequest(intervalMin: 12, intervalMax: 24, latency: 31, timeout: 600),
      [.peripheralLatency]
    ),
    // Supervision Timeout 1.9 s.
    (
      .supervisionTimeoutRange, ParameterRequest(intervalMin: 12, intervalMax: 24, latency: 0, timeout: 190),
      [.supervisionTimeoutRange]
    ),
    // Interval Min 20 ms, Interval Max 45 ms.
    (
      .intervalMinMultiple, ParameterRequest(intervalMin: 16, intervalMax: 36, latency: 0, timeout: 600),
      [.intervalMinMultiple]
    ),
    // Interval Min 7.5 ms.
    (
      .intervalMinFloor, ParameterRequest(intervalMin: 6, intervalMax: 24, latency: 0, timeout: 600),
      [.intervalMinMultiple, .intervalMinFloor]
    ),
    // 45–45 ms: Interval Max is not 15 ms above Interval Min (transfer.btsnoop asks for it).
    (
      .intervalSpread, ParameterRequest(intervalMin: 36, intervalMax: 36, latency: 0, timeout: 600),
      [.intervalSpread]
    ),
    // Interval Max 1 s × (latency 2 + 1) = 3 s.
    (
      .effectiveInterval, ParameterRequest(intervalMin: 12, intervalMax: 800, latency: 2, timeout: 600),
      [.effectiveInterval, .timeoutMargin]
    ),
    // Interval Max 690 ms × (latency 1 + 1) = 1.38 s, × 3 = 4.14 s ≥ a 4 s timeout.
    (
      .timeoutMargin, ParameterRequest(intervalMin: 12, intervalMax: 552, latency: 1, timeout: 400),
      [.timeoutMargin]
    ),
  ]

  @Test(arguments: breaking)
  func ruleBroken(rule: AppleConnectionRule, request: ParameterRequest, broken: Set<AppleConnectionRule>) {
    #expect(rule.holds(for: compliant))
    #expect(!rule.holds(for: request))
    #expect(Set(AppleConnectionRule.broken(by: request)) == broken, "\(request)")
  }

  @Test func everyRuleHasATest() {
    #expect(Set(Self.breaking.map(\.0)) == Set(AppleConnectionRule.allCases))
  }

  /// Android's connection priority bands, one test per band: both ends inside, one unit
  /// beyond each end outside.
  @Test(arguments: AndroidConnectionPriority.allCases)
  func androidBand(priority: AndroidConnectionPriority) {
    let band = priority.units
    #expect(AndroidConnectionPriority.band(of: ConnectionInterval(units: band.lowerBound)) == priority)
    #expect(AndroidConnectionPriority.band(of: ConnectionInterval(units: band.upperBound)) == priority)
    #expect(AndroidConnectionPriority.band(of: ConnectionInterval(units: band.lowerBound - 1)) == nil)
    #expect(AndroidConnectionPriority.band(of: ConnectionInterval(units: band.upperBound + 1)) == nil)
  }

  /// The bands in milliseconds, as Android documents them.
  @Test func androidBandsInMilliseconds() {
    let bands = AndroidConnectionPriority.allCases.map {
      (
        ConnectionInterval(units: $0.units.lowerBound).milliseconds,
        ConnectionInterval(units: $0.units.upperBound).milliseconds
      )
    }
    #expect(bands.map(\.0) == [11.25, 30, 100])
    #expect(bands.map(\.1) == [15, 50, 125])
  }
}

/// The controller's buffers as `ThroughputBuilder` (and the app's stall counting) follow
/// them.
@Suite("controller buffers")
struct ControllerBuffersTests {
  @Test func waitsAndCompletions() {
    var buffers = ControllerBuffers()
    buffers.bufferSize(adapter: nil, le: false, packets: 8, length: 1021)
    buffers.bufferSize(adapter: nil, le: true, packets: 2, length: 251)
    #expect(buffers.pools[nil]?.total == 2)
    #expect(buffers.pools[nil]?.dedicated == true)
    let first = buffers.sent(adapter: nil, handle: 0x40, at: FrameTime(frame: 1, timestamp: 0), tag: 7)
    #expect(first.inFlight == 1 && first.waited == nil)
    _ = buffers.sent(adapter: nil, handle: 0x40, at: FrameTime(frame: 2, timestamp: 100))
    buffers.tagLast(1, adapter: nil, handle: 0x40, tag: 8)
    // Full at 100 µs; the completion of the first frees one at 10 ms; the host sends 0.5 ms later.
    let done = buffers.completed(adapter: nil, [(0x40, 1)], at: FrameTime(frame: 3, timestamp: 10_000))
    #expect(done.count == 1)
    #expect(done.first?.tag == 7)
    #expect(done.first?.latency == 10_000)
    let next = buffers.sent(adapter: nil, handle: 0x40, at: FrameTime(frame: 4, timestamp: 10_500))
    #expect(next.waited == 9_900)
    #expect(next.inFlight == 2)
    let rest = buffers.completed(adapter: nil, [(0x40, 5)], at: FrameTime(frame: 5, timestamp: 20_000))
    #expect(rest.map(\.tag) == [8, 0])
    #expect(buffers.pools[nil]?.inFlightCount == 0)
  }

  /// LE Read Buffer Size with 0 packets: the LE links share the ACL buffers.
  @Test func sharedBuffers() {
    var buffers = ControllerBuffers()
    buffers.bufferSize(adapter: 1, le: false, packets: 6, length: 1024)
    buffers.bufferSize(adapter: 1, le: true, packets: 0, length: 0)
    #expect(buffers.pools[1]?.total == 6)
    #expect(buffers.pools[1]?.octets == 1024)
    #expect(buffers.pools[1]?.dedicated == false)
  }

  /// A handle whose packets never complete keeps at most `maxInFlight` of them.
  @Test func bounded() {
    var buffers = ControllerBuffers()
    for i in 0..<(ControllerBuffers.maxInFlight + 50) {
      _ = buffers.sent(adapter: nil, handle: 1, at: FrameTime(frame: i + 1, timestamp: Int64(i)))
    }
    #expect(buffers.pools[nil]?.inFlightCount == ControllerBuffers.maxInFlight)
    buffers.disconnected(adapter: nil, handle: 1)
    #expect(buffers.pools[nil]?.inFlightCount == 0)
  }
}
