import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// The link event of one HCI packet (H4 `type`, `hex` after the H4 byte).
private func linkEvent(_ type: UInt8, _ hex: String) -> LinkEvent? {
  let bytes = hexBytes(hex)
  return bytes.withUnsafeBufferPointer { buffer in
    let record = Record(
      frame: 1, timestamp: Timestamp(unixMicroseconds: 0), direction: type == 0x01 ? .sent : .received, adapter: nil,
      kind: .hci(type), bytes: buffer, originalLength: buffer.count, fileOffset: 0)
    var analyzer = Analyzer()
    return analyzer.analyze(record).link
  }
}

private let peer = DeviceAddress("D4:36:39:67:A2:61")!
private let parameters = ConnectionParameters(
  interval: ConnectionInterval(units: 0x18), latency: 0, supervisionTimeout: SupervisionTimeout(units: 0x48))

@Suite("link events")
struct LinkEventTests {
  /// Every parameter a link event reads is where the HCI tables place it, with the size
  /// it is read with: a renamed or moved parameter fails here, not silently.
  @Test func everyParameterIsPlacedByTheTables() {
    #expect(LinkEventTable.shared.problems.isEmpty, "\(LinkEventTable.shared.problems)")
  }

  /// One fixture per case, written as btmon shows the packet.
  @Test(arguments: [
    // LE Create Connection: scan 96/48 slots, filter policy 0, public D4:36:39:67:A2:61.
    (
      UInt8(0x01), "0d20 19 6000 3000 00 00 61a2673936d4 00 1800 1800 0000 4800 0000 0000",
      LinkEvent.createConnection(
        .init(le: true, peer: peer, peerType: 0, usesAcceptList: false, scanInterval: 0x60, scanWindow: 0x30))
    ),
    // LE Extended Create Connection [v1]: filter accept list, 1M: scan 0x0060/0x0030.
    (
      0x01, "4320 1a 01 00 00 000000000000 01 6000 3000 1800 1800 0000 4800 0000 0000",
      .createConnection(
        .init(
          le: true, peer: DeviceAddress(rawValue: 0), peerType: 0, usesAcceptList: true, scanInterval: 0x60,
          scanWindow: 0x30))
    ),
    // Create Connection (BR/EDR) to 00:1B:DC:07:32:2C.
    (
      0x01, "0504 0d 2c3207dc1b00 18cc 01 00 0000 01",
      .createConnection(
        .init(
          le: false, peer: DeviceAddress("00:1B:DC:07:32:2C"), peerType: nil, usesAcceptList: false,
          scanInterval: nil, scanWindow: nil))
    ),
    (0x01, "0e20 00", .createConnectionCancel(le: true, peer: nil)),
    (0x01, "0804 06 2c3207dc1b00", .createConnectionCancel(le: false, peer: DeviceAddress("00:1B:DC:07:32:2C"))),
    // LE Add Device To Filter Accept List: public D4:36:39:67:A2:61.
    (0x01, "1120 07 00 61a2673936d4", .acceptList(.init(operation: .add, address: peer, addressType: 0))),
    (0x01, "1220 07 01 61a2673936d4", .acceptList(.init(operation: .remove, address: peer, addressType: 1))),
    (0x01, "1020 00", .acceptList(.init(operation: .clear, address: nil, addressType: nil))),
    // LE Set Scan Parameters: active, 0x0012/0x0012, own public, accept all.
    (
      0x01, "0b20 07 01 1200 1200 00 00",
      .scanParameters(.init(extended: false, active: true, interval: 0x12, window: 0x12))
    ),
    // LE Set Extended Scan Parameters: own public, accept all, 1M: passive 0x00a0/0x0050.
    (
      0x01, "4120 08 00 00 01 00 a000 5000",
      .scanParameters(.init(extended: true, active: false, interval: 0xA0, window: 0x50))
    ),
    (0x01, "0c20 02 01 01", .scanEnable(extended: false, enable: true, filterDuplicates: true)),
    (0x01, "4220 06 00 00 0000 0000", .scanEnable(extended: true, enable: false, filterDuplicates: false)),
    // Disconnect handle 0x0040, Remote User Terminated Connection.
    (0x01, "0604 03 4000 13", .disconnect(handle: 0x40, reason: 0x13)),
    (0x01, "1920 1c 4000 0000000000000000 0000 00000000000000000000000000000000", .enableEncryption(handle: 0x40)),
    (0x01, "0514 02 4000", .readRSSI(handle: 0x40)),
    // Command Status: Connection Already Exists, LE Create Connection.
    (0x04, "0f 04 0b 01 0d20", .commandStatus(opcode: 0x200D, status: 0x0B)),
    (0x04, "0e 04 01 0e20 00", .commandComplete(opcode: 0x200E, status: 0, returned: .none)),
    (
      0x04, "0e 0a 01 0910 00 c52b42b699f0",
      .commandComplete(opcode: 0x1009, status: 0, returned: .localAddress(DeviceAddress("F0:99:B6:42:2B:C5")!))
    ),
    (
      0x04, "0e 07 01 0220 00 fb00 0f",
      .commandComplete(opcode: 0x2002, status: 0, returned: .bufferSize(le: true, packets: 15, length: 251))
    ),
    (
      0x04, "0e 0a 01 6020 00 1b00 08 0000 00",
      .commandComplete(opcode: 0x2060, status: 0, returned: .bufferSize(le: true, packets: 8, length: 27))
    ),
    (
      0x04, "0e 0b 01 0510 00 fd03 40 0800 0100",
      .commandComplete(opcode: 0x1005, status: 0, returned: .bufferSize(le: false, packets: 8, length: 1021))
    ),
    (
      0x04, "0e 07 01 0514 00 4000 c4",
      .commandComplete(opcode: 0x1405, status: 0, returned: .rssi(handle: 0x40, value: -60))
    ),
    (
      0x04, "0e 07 01 0814 00 4000 10",
      .commandComplete(opcode: 0x1408, status: 0, returned: .keySize(handle: 0x40, size: 16))
    ),
    // A failed Read RSSI returns nothing analysis reads.
    (0x04, "0e 07 01 0514 02 4000 00", .commandComplete(opcode: 0x1405, status: 0x02, returned: .none)),
    // LE Connection Complete: success, handle 0x0040, central, public D4:36:39:67:A2:61, 30 ms.
    (
      0x04, "3e 13 01 00 4000 00 00 61a2673936d4 1800 0000 4800 00",
      .connectionComplete(
        .init(le: true, status: 0, handle: 0x40, role: 0, peer: peer, peerType: 0, parameters: parameters))
    ),
    // LE Enhanced Connection Complete [v1]: peripheral, random peer, local/peer RPAs zero.
    (
      0x04, "3e 1f 0a 00 4100 01 01 61a2673936d4 000000000000 000000000000 1800 0000 4800 00",
      .connectionComplete(
        .init(le: true, status: 0, handle: 0x41, role: 1, peer: peer, peerType: 1, parameters: parameters))
    ),
    // LE Enhanced Connection Complete [v2]: failed to be established (0x3e).
    (
      0x04, "3e 22 29 3e 4000 00 00 61a2673936d4 000000000000 000000000000 1800 0000 4800 00 ff ffff",
      .connectionComplete(
        .init(le: true, status: 0x3E, handle: 0x40, role: 0, peer: peer, peerType: 0, parameters: parameters))
    ),
    // Connection Complete (BR/EDR): handle 0x000b, ACL, not encrypted.
    (
      0x04, "03 0b 00 0b00 2c3207dc1b00 01 00",
      .connectionComplete(
        .init(
          le: false, status: 0, handle: 0x0B, role: nil, peer: DeviceAddress("00:1B:DC:07:32:2C"), peerType: nil,
          parameters: nil))
    ),
    (0x04, "05 04 00 4000 16", .disconnectionComplete(status: 0, handle: 0x40, reason: 0x16)),
    (0x04, "08 04 00 4000 01", .encryptionChange(status: 0, handle: 0x40, enabled: true, keyRefresh: false)),
    (0x04, "59 05 06 4000 00 00", .encryptionChange(status: 6, handle: 0x40, enabled: false, keyRefresh: false)),
    (0x04, "30 03 00 4000", .encryptionChange(status: 0, handle: 0x40, enabled: true, keyRefresh: true)),
    (0x04, "3e 0d 05 4000 0000000000000000 0000", .longTermKeyRequest(handle: 0x40)),
    (
      0x04, "0c 08 00 4000 09 5900 0100",
      .remoteVersion(status: 0, handle: 0x40, version: 9, company: 0x59)
    ),
    (0x04, "3e 0c 04 00 4000 0000000000000000", .remoteFeatures(status: 0, handle: 0x40)),
    (
      0x04, "3e 0a 03 00 4000 1800 0000 4800",
      .connectionUpdate(status: 0, handle: 0x40, parameters: parameters)
    ),
    (0x04, "3e 0a 03 3b 4000 1800 0000 4800", .connectionUpdate(status: 0x3B, handle: 0x40, parameters: nil)),
    (0x04, "3e 0b 06 4000 0600 0c00 0000 c800", .remoteConnectionParameterRequest(handle: 0x40)),
    (
      0x04, "3e 0b 07 4000 fb00 4808 fb00 4808",
      .dataLengthChange(
        handle: 0x40, .init(maxTXOctets: 251, maxTXTime: 2120, maxRXOctets: 251, maxRXTime: 2120))
    ),
    (0x04, "3e 06 0c 00 4000 02 02", .phyUpdate(status: 0, handle: 0x40, tx: 2, rx: 2)),
    (0x04, "13 09 02 4000 0300 4100 0100", .completedPackets(handles: 2)),
  ])
  func eachCase(_ type: UInt8, _ hex: String, _ expected: LinkEvent) {
    #expect(linkEvent(type, hex) == expected)
  }

  /// Commands and events analysis does not act on have none (Reset, Hardware Error).
  @Test(arguments: [(UInt8(0x01), "030c 00"), (0x04, "10 01 00")])
  func othersHaveNone(_ type: UInt8, _ hex: String) {
    #expect(linkEvent(type, hex) == nil)
  }

  /// A parameter block cut short: what it still holds, never a read past its end.
  @Test func cutParametersReadNoFurther() {
    // LE Connection Complete cut after the peer address: no parameters.
    let event = linkEvent(0x04, "3e 0e 01 00 4000 00 00 61a2673936d4")
    #expect(
      event
        == .connectionComplete(
          .init(le: true, status: 0, handle: 0x40, role: 0, peer: peer, peerType: 0, parameters: nil))
    )
    #expect(linkEvent(0x04, "05 01 00") == nil, "no Connection_Handle")
  }

  /// An LL Control PDU as the link-layer decoder gives it: one field per parameter of its
  /// table row, in order, here with the values `values` (in order, by row).
  private static func control(_ opcode: LLControlOpcode, _ values: [UInt64]) -> LLControlPDU {
    let row = opcode.row?.parameters ?? []
    return LLControlPDU(
      opcode: opcode,
      parameters: zip(row, values).map { Field($0.name, .unsigned($1, hexDigits: 0)) })
  }

  @Test(arguments: [
    // LL_CONNECTION_UPDATE_IND: WinSize 1, WinOffset 0, Interval 24, Latency 0, Timeout 72, Instant 100.
    (control(.connectionUpdateInd, [1, 0, 0x18, 0, 0x48, 100]), LinkEvent.air(.connectionUpdate(parameters))),
    (control(.terminateInd, [0x13]), .air(.terminate(reason: 0x13))),
    (control(.encReq, [0, 0, 0, 0]), .air(.encryptionRequest)),
    (control(.startEncReq, []), .air(.startEncryption)),
    (control(.versionInd, [9, 0x1D, 0x02BE]), .air(.version(version: 9, company: 0x1D))),
    (control(.featureRsp, [0]), .air(.featureResponse)),
    (
      control(.lengthRsp, [251, 2120, 27, 328]),
      .air(.dataLength(.init(maxTXOctets: 27, maxTXTime: 328, maxRXOctets: 251, maxRXTime: 2120)))
    ),
    (control(.phyUpdateInd, [2, 2, 0x40]), .air(.phyUpdate(centralToPeripheral: 2, peripheralToCentral: 2))),
  ])
  func eachAirCase(_ control: LLControlPDU, _ expected: LinkEvent) {
    #expect(LinkEvent(air: control) == expected)
  }

  @Test func completedPacketsEntries() {
    let bytes = hexBytes("13 09 02 4020 0300 4100 0100")
    let entries = bytes.withUnsafeBufferPointer { buffer in
      LinkEvent.completedPackets(
        in: Record(
          frame: 1, timestamp: Timestamp(unixMicroseconds: 0), direction: .received, adapter: nil, kind: .hci(0x04),
          bytes: buffer, originalLength: buffer.count, fileOffset: 0))
    }
    #expect(entries.map(\.handle) == [0x40, 0x41] && entries.map(\.count) == [3, 1], "flag bits cleared")
  }
}
