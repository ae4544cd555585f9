import BLECapture
import BLEDissect
import Foundation
import Testing

@testable import BLEAnalysis

/// Runs ATT PDUs over one LE link (handle 0x0040, CID 0x0004, no Connection Complete,
/// so the peer is unknown) through the Analyzer; `sent` PDUs go host → controller.
func analyzeATT(_ pdus: [(sent: Bool, hex: String)], imported: [(address: DeviceAddress?, database: GATTDatabase)] = [])
  -> (records: [AnalyzedRecord], gatt: GATTTracker)
{
  var analyzer = Analyzer(importedDatabases: imported)
  var records: [AnalyzedRecord] = []
  forEachATTRecord(pdus) { records.append(analyzer.analyze($0)) }
  return (records, analyzer.gatt)
}

/// Calls `body` with each ATT PDU as an ACL record on handle 0x0040, CID 0x0004, 1 ms apart.
func forEachATTRecord(_ pdus: [(sent: Bool, hex: String)], _ body: (Record) -> Void) {
  for (index, pdu) in pdus.enumerated() {
    let att = hexBytes(pdu.hex)
    let l2cap = [UInt8(att.count & 0xFF), UInt8(att.count >> 8), 0x04, 0x00] + att
    let acl = [0x40, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
    acl.withUnsafeBufferPointer { bytes in
      body(
        Record(
          frame: index + 1, timestamp: Timestamp(unixMicroseconds: Int64(index) * 1000),
          direction: pdu.sent ? .sent : .received, adapter: nil, kind: .hci(0x02), bytes: bytes,
          originalLength: bytes.count, fileOffset: 0))
    }
  }
}

func hexBytes(_ text: String) -> [UInt8] {
  let digits = Array(text.filter(\.isHexDigit))
  return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

@Suite struct GATTTrackerTests {
  /// A Heart Rate service discovered the usual way, then used.
  static let discovery: [(sent: Bool, hex: String)] = [
    // Read By Group Type Request 0x0001-0xffff, Primary Service
    (true, "10 0100 ffff 0028"),
    // Read By Group Type Response, length 6: 0x0001-0x0005 1801, 0x0006-0x000a 180d
    (false, "11 06 0100 0500 0118 0600 0a00 0d18"),
    // Read By Type Request 0x0001-0x000a, Characteristic
    (true, "08 0100 0a00 0328"),
    // Read By Type Response, length 7: 0x0002 Indicate → 0x0003 2a05; 0x0007 Notify → 0x0008 2a37
    (false, "09 07 0200 20 0300 052a 0700 10 0800 372a"),
    // Find Information Request 0x0009-0x000a
    (true, "04 0900 0a00"),
    // Find Information Response, 16-bit: 0x0009 2902, 0x000a 2901
    (false, "05 01 0900 0229 0a00 0129"),
    // Write Request 0x0009 (CCCD) 0100, Write Response
    (true, "12 0900 0100"),
    (false, "13"),
    // Handle Value Notification 0x0008 (Heart Rate Measurement)
    (false, "1b 0800 0648"),
  ]

  @Test func discoveryBuildsTheDatabase() throws {
    let (records, gatt) = analyzeATT(Self.discovery)
    let server = try #require(gatt.servers.first)
    #expect(gatt.servers.count == 1 && !server.key.isLocal)
    let database = server.database
    #expect(database.services.count == 2)
    #expect(database.services[6] == GATTService(start: 6, end: 10, uuid: BluetoothUUID(uuid16: 0x180D), primary: true))
    #expect(database.characteristics[7]?.uuid == BluetoothUUID(uuid16: 0x2A37))
    #expect(database.characteristics[7]?.propertyNames == ["Notify"])
    #expect(database.descriptors == [9: BluetoothUUID(uuid16: 0x2902), 10: BluetoothUUID(uuid16: 0x2901)])
    let write = try #require(records[6].attribute)
    #expect(write.kind == .descriptor && write.uuid == BluetoothUUID(uuid16: 0x2902))
    #expect(write.characteristic == BluetoothUUID(uuid16: 0x2A37) && write.service == BluetoothUUID(uuid16: 0x180D))
    #expect(records[7].attribute == write, "the Write Response names its request's handle")
    let notification = try #require(records[8].attribute)
    #expect(notification.kind == .value && notification.uuid == BluetoothUUID(uuid16: 0x2A37))
  }

  @Test(arguments: [
    (UInt16(1), GATTAttribute.Kind.service, "2800"),
    (2, .characteristic, "2803"),
    (3, .value, "2a05"),
    (7, .characteristic, "2803"),
    (8, .value, "2a37"),
    (10, .descriptor, "2901"),
  ])
  func attributeAt(handle: UInt16, kind: GATTAttribute.Kind, uuid: String) throws {
    let database = try #require(analyzeATT(Self.discovery).gatt.servers.first?.database)
    let attribute = try #require(database.attribute(at: handle))
    #expect(attribute.kind == kind)
    #expect(attribute.uuid?.description == uuid)
  }

  @Test(arguments: [UInt16(11), 0x0100])
  func handlesOutsideEveryServiceHaveNoAttribute(handle: UInt16) throws {
    let database = try #require(analyzeATT(Self.discovery).gatt.servers.first?.database)
    #expect(database.attribute(at: handle) == nil)
  }

  @Test func serviceChangedForgetsItsRange() throws {
    // Handle Value Indication on 0x0003 (Service Changed): 0x0006-0x000a changed
    let (records, gatt) = analyzeATT(Self.discovery + [(false, "1d 0300 0600 0a00"), (false, "1b 0800 0648")])
    let database = try #require(gatt.servers.first?.database)
    #expect(database.services.keys.sorted() == [1])
    #expect(database.characteristics.keys.sorted() == [2])
    #expect(records.last?.attribute == nil)
  }

  @Test func serverOnTheHostSide() throws {
    // The host answers: it is the GATT server (a capture on the peripheral's side).
    let (_, gatt) = analyzeATT([(false, "10 0100 ffff 0028"), (true, "11 06 0100 0500 0d18")])
    #expect(gatt.servers.count == 1 && gatt.servers[0].key.isLocal)
    #expect(gatt.servers[0].database.services[1]?.uuid == BluetoothUUID(uuid16: 0x180D))
  }

  @Test func findByTypeValueDiscoversAServiceByUUID() throws {
    // Find By Type Value Request 0x0001-0xffff, Primary Service, value 180d; Response 0x0010-0x0020
    let (_, gatt) = analyzeATT([(true, "06 0100 ffff 0028 0d18"), (false, "07 1000 2000")])
    #expect(
      gatt.servers.first?.database.services[0x10]
        == GATTService(start: 0x10, end: 0x20, uuid: BluetoothUUID(uuid16: 0x180D), primary: true))
  }

  @Test func longReadIsAssembled() throws {
    // ATT_MTU 23: a Read Response of 22 octets may continue; the Read Blob Response of 5 ends it.
    let first = String(repeating: "11", count: 22)
    let (records, _) = analyzeATT(
      Self.discovery + [
        (true, "0a 0a00"), (false, "0b" + first), (true, "0c 0a00 1600"), (false, "0d 2233445566"),
      ])
    #expect(records[records.count - 3].assembled.isEmpty)
    let value = try #require(records.last?.assembled.first)
    #expect(value.handle == 10 && value.value == hexBytes(first + "2233445566"))
    #expect(value.frames == [records.count - 2, records.count])
    #expect(value.attribute?.uuid == BluetoothUUID(uuid16: 0x2901))
  }

  @Test func preparedWritesAreAssembledAtExecute() throws {
    let (records, _) = analyzeATT([
      (true, "16 0a00 0000 6162"), (false, "17 0a00 0000 6162"),
      (true, "16 0a00 0200 6364"), (false, "17 0a00 0200 6364"),
      (true, "18 01"),
    ])
    let value = try #require(records.last?.assembled.first)
    #expect(value.handle == 10 && value.value == Array("abcd".utf8) && value.frames == [1, 3])
  }

  @Test func cancelledPreparedWritesAssembleNothing() throws {
    let (records, _) = analyzeATT([(true, "16 0a00 0000 6162"), (true, "18 00"), (true, "18 01")])
    #expect(records.allSatisfy { $0.assembled.isEmpty })
  }

  @Test func importedDatabaseNamesHandlesWithoutDiscovery() throws {
    let database = try #require(analyzeATT(Self.discovery).gatt.servers.first?.database)
    let peer = DeviceAddress("D4:36:39:67:A2:61")!
    let (records, gatt) = analyzeATT([(false, "1b 0800 0648")], imported: [(peer, database)])
    #expect(records[0].attribute?.uuid == BluetoothUUID(uuid16: 0x2A37))
    #expect(gatt.servers.first?.key.address == peer, "the only imported peer serves a link whose peer is unknown")
  }
}

@Suite struct GATTTrackerResolutionTests {
  /// LE Connection Complete, handle 0x0040, central, peer `peer` (random), then `pdus`
  /// on that link, then Disconnection Complete; once per peer address.
  static func connections(_ peers: [String], pdus: [String], keys: [IdentityKey]) -> GATTTracker {
    var analyzer = Analyzer(identityKeys: keys)
    var frame = 0
    func feed(_ bytes: [UInt8], _ type: UInt8, sent: Bool) {
      frame += 1
      bytes.withUnsafeBufferPointer { buffer in
        let record = Record(
          frame: frame, timestamp: Timestamp(unixMicroseconds: Int64(frame) * 1000),
          direction: sent ? .sent : .received, adapter: nil, kind: .hci(type), bytes: buffer,
          originalLength: buffer.count, fileOffset: 0)
        _ = analyzer.analyze(record)
      }
    }
    for peer in peers {
      // LE Meta: Connection Complete, Status 0, handle 0x0040, Role Central, Peer_Address_Type random
      let address = hexBytes(peer)
      feed(
        [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01] + address + [0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00], 0x04,
        sent: false)
      for (index, pdu) in pdus.enumerated() {
        let att = hexBytes(pdu)
        let l2cap = [UInt8(att.count), 0x00, 0x04, 0x00] + att
        feed([0x40, 0x20, UInt8(l2cap.count), 0x00] + l2cap, 0x02, sent: index % 2 == 0)
      }
      // Disconnection Complete, Status 0, handle 0x0040, reason 0x13
      feed([0x05, 0x04, 0x00, 0x40, 0x00, 0x13], 0x04, sent: false)
    }
    return analyzer.gatt
  }

  /// Two private addresses, both resolvable with the IRK of Core 6.0, Vol 3, Part H, D.7:
  /// its sample 70:81:94:0D:FB:AA and another made with prand 0x412345.
  @Test func privateAddressesOfOneIRKShareADatabase() throws {
    let irk = hexBytes("ec0234a357c8ad05341010a60a397d9b")
    let key = IdentityKey(irk: irk, source: .commandLine)
    let hash = AES128.ah(irk: irk, prand: 0x41_2345)
    let second = String(format: "412345%06x", hash)  // prand, then hash, most significant first
    let secondLE = hexBytes(second).reversed().map { String(format: "%02x", $0) }.joined()
    let first = "aafb0d948170"  // 70:81:94:0D:FB:AA little-endian
    let discovery = ["10 0100 ffff 0028", "11 06 0100 0500 0d18"]
    let resolved = Self.connections([first, secondLE], pdus: discovery, keys: [key])
    #expect(resolved.servers.count == 1, "both addresses are one device")
    #expect(resolved.servers.first?.key.address == DeviceAddress("70:81:94:0D:FB:AA"))
    let unresolved = Self.connections([first, secondLE], pdus: discovery, keys: [])
    #expect(unresolved.servers.count == 2, "without the IRK they are two servers")
  }
}
