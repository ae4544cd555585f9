import BLEDissect
import Testing

@testable import BLEAnalysis

/// The vendor trackers on values built here: mcumgr reassembly in any split, pairing,
/// upload progress and stalls; DFU checksums and progress; Nordic UART lines; HID
/// reports without their Report Reference.
@Suite struct VendorTrackerTests {
  static let connection = ConnectionRef(id: 1, adapter: nil, handle: 0x40, generation: 1, isLE: true)

  static func attribute(_ uuid: BluetoothUUID, service: UInt16 = 10, value: UInt16 = 12) -> GATTAttribute {
    GATTAttribute(
      kind: .value, uuid: uuid, service: GATTService(start: service, end: service + 20, uuid: uuid, primary: true),
      characteristic: GATTCharacteristic(declaration: value - 1, properties: 0x1C, value: value, uuid: uuid),
      names: .builtin)
  }

  static let mcumgrUUID = BluetoothUUID(uuid128: 0xDA2E_7828_FBCE_4E01_AE9E_2611_7499_7C48)

  /// A PDU on `role`'s characteristic at `frame`, `time` µs.
  static func pdu(
    _ role: VendorCharacteristic, _ value: [UInt8], fromClient: Bool, frame: Int, time: Int64 = 0,
    attribute: GATTAttribute
  ) -> VendorPDU {
    VendorPDU(
      role: role, value: value, fromClient: fromClient, frame: frame, time: time, connection: connection,
      attribute: attribute, frames: [])
  }

  /// `{"off": off, "data": 200 bytes}`, plus `"len": 1000` at offset 0, as an image
  /// upload request (Write, group 1, command 1) of sequence `seq`.
  static func uploadRequest(seq: UInt8, off: Int) -> [UInt8] {
    var body: [UInt8] = [off == 0 ? 0xA3 : 0xA2, 0x63, 0x6F, 0x66, 0x66, 0x19, UInt8(off >> 8), UInt8(off & 0xFF)]
    if off == 0 { body += [0x63, 0x6C, 0x65, 0x6E, 0x19, 0x03, 0xE8] }
    body += [0x64, 0x64, 0x61, 0x74, 0x61, 0x58, 200] + [UInt8](repeating: UInt8(seq), count: 200)
    return [0x0A, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x00, 0x01, seq, 0x01] + body
  }

  /// `{"off": off}` as the response of sequence `seq`.
  static func uploadResponse(seq: UInt8, off: Int) -> [UInt8] {
    [
      0x0B, 0x00, 0x00, 0x08, 0x00, 0x01, seq, 0x01, 0xA1, 0x63, 0x6F, 0x66, 0x66, 0x19, UInt8(off >> 8),
      UInt8(off & 0xFF),
    ]
  }

  /// The same message whole, and split in two at every offset, and in three: decoded
  /// once, on its last part, to the same message; the parts before say they are parts.
  @Test(arguments: [[Int]()] + (1..<230).map { [$0] } + [[20, 40], [3, 9], [1, 229], [1, 2, 3, 100]])
  func mcumgrReassemblyInAnySplit(_ cuts: [Int]) throws {
    let whole = Self.uploadRequest(seq: 3, off: 0)
    #expect(whole.count == 230)
    let attribute = Self.attribute(Self.mcumgrUUID)
    var tracker = MCUmgrTracker()
    let bounds = [0] + cuts + [whole.count]
    var outcomes: [VendorOutcome] = []
    for index in 0..<bounds.count - 1 {
      let part = Array(whole[bounds[index]..<bounds[index + 1]])
      outcomes.append(
        tracker.analyze(Self.pdu(.mcumgr, part, fromClient: true, frame: 10 + index, attribute: attribute)))
    }
    for (index, outcome) in outcomes.dropLast().enumerated() {
      #expect(outcome.record?.mcumgr?.message == nil)
      #expect(outcome.record?.mcumgr?.fragment?.index == index + 1)
      #expect(outcome.record?.mcumgr?.fragment?.received == bounds[index + 1])
    }
    let last = try #require(outcomes.last?.record?.mcumgr)
    #expect(last.message == (try MCUmgrMessage(parsing: whole)))
    #expect(last.frames == (cuts.isEmpty ? [] : Array(10..<10 + cuts.count + 1)))
    #expect(outcomes.allSatisfy { $0.diagnostics.isEmpty })
  }

  /// A fragment is lost: the next whole message starts over, with a diagnostic.
  @Test func mcumgrLostFragment() throws {
    let attribute = Self.attribute(Self.mcumgrUUID)
    var tracker = MCUmgrTracker()
    let first = Self.uploadRequest(seq: 1, off: 0)
    _ = tracker.analyze(Self.pdu(.mcumgr, Array(first.prefix(100)), fromClient: true, frame: 1, attribute: attribute))
    let echo = vendorBytes("0a000009 0000 2f 00 a1 6164 6568656c6c6f")
    let outcome = tracker.analyze(Self.pdu(.mcumgr, echo, fromClient: true, frame: 2, attribute: attribute))
    #expect(outcome.diagnostics.map(\.id) == ["mcumgr.truncated"])
    #expect(outcome.record?.mcumgr?.message?.header.sequence == 47)
  }

  /// Responses pair by sequence number; each direction reassembles apart.
  @Test func mcumgrPairsAndTimesResponses() throws {
    let attribute = Self.attribute(Self.mcumgrUUID)
    var tracker = MCUmgrTracker()
    _ = tracker.analyze(
      Self.pdu(
        .mcumgr, vendorBytes("08000001 0000 05 06 a0"), fromClient: true, frame: 5, time: 1_000, attribute: attribute))
    let other = tracker.analyze(
      Self.pdu(
        .mcumgr, vendorBytes("09000001 0000 06 06 a0"), fromClient: false, frame: 6, time: 2_000, attribute: attribute))
    #expect(other.record?.mcumgr?.request == nil)
    let answer = tracker.analyze(
      Self.pdu(
        .mcumgr, vendorBytes("09000001 0000 05 06 a0"), fromClient: false, frame: 7, time: 58_500, attribute: attribute)
    )
    #expect(answer.record?.mcumgr?.request == VendorExchange(frame: 5, latencyMicroseconds: 57_500))
    // An error response: rc 8 (MGMT_ERR_ENOTSUP), then SMP v2's err {group 1, rc 9}.
    let rc = tracker.analyze(
      Self.pdu(
        .mcumgr, vendorBytes("0b000005 0001 09 01 a1 627263 08"), fromClient: false, frame: 8, attribute: attribute))
    #expect(rc.diagnostics.first?.message == "rc 8 (MGMT_ERR_ENOTSUP)")
    let err = tracker.analyze(
      Self.pdu(
        .mcumgr, vendorBytes("0b000011 0001 0a 01 a163657272a26567726f7570016272630 9"), fromClient: false, frame: 9,
        attribute: attribute))
    #expect(err.diagnostics.first?.message == "image rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT)")
  }

  /// An upload of 1000 bytes: 20% after the first response, then a 4.2 s wait at
  /// offset 200 before the next; the link goes down at 40%, 3 s later.
  @Test func uploadProgressAndStalls() throws {
    let attribute = Self.attribute(Self.mcumgrUUID)
    var tracker = MCUmgrTracker()
    func send(_ value: [UInt8], client: Bool, _ frame: Int, _ time: Int64) -> VendorOutcome {
      tracker.analyze(Self.pdu(.mcumgr, value, fromClient: client, frame: frame, time: time, attribute: attribute))
    }
    _ = send(Self.uploadRequest(seq: 1, off: 0), client: true, 1, 0)
    let first = try #require(
      send(Self.uploadResponse(seq: 1, off: 200), client: false, 2, 100_000).record?.mcumgr?.progress)
    #expect(first.offset == 200 && first.total == 1000 && first.percent == 20)
    #expect(first.bytesPerSecond == 2_000 && first.stall == nil)
    _ = send(Self.uploadRequest(seq: 2, off: 200), client: true, 3, 110_000)
    let late = send(Self.uploadResponse(seq: 2, off: 400), client: false, 4, 4_300_000)
    let progress = try #require(late.record?.mcumgr?.progress)
    #expect(progress.stall == TransferProgress.Stall(microseconds: 4_200_000, offset: 200))
    #expect(late.diagnostics.map(\.id) == ["mcumgr.upload.stalled"])
    #expect(late.diagnostics.first?.message == "image upload made no progress for 4.2 s at offset 200")
    let ended = try #require(tracker.ended(1, at: 7_300_000).record?.mcumgr?.progress)
    #expect(ended.ended && ended.offset == 400 && ended.percent == 40)
    #expect(ended.stall == TransferProgress.Stall(microseconds: 3_000_000, offset: 400))
    #expect(tracker.ended(1, at: 8_000_000).record == nil, "the connection's state is gone")
  }

  static let control = attribute(BluetoothUUID(uuid128: 0x8EC9_0001_F315_4F60_9FB8_8388_30DA_EA50), value: 16)
  static let packet = attribute(BluetoothUUID(uuid128: 0x8EC9_0002_F315_4F60_9FB8_8388_30DA_EA50), value: 19)

  /// Select data, Create 8 bytes, two packets, a receipt whose CRC matches, a requested
  /// checksum whose CRC does not, Execute.
  @Test func secureDFUChecksums() throws {
    var tracker = DFUTracker()
    var frame = 0
    func cp(_ hex: String, client: Bool = true) -> VendorOutcome {
      frame += 1
      return tracker.analyze(
        Self.pdu(
          .secureDFUControlPoint, vendorBytes(hex), fromClient: client, frame: frame, time: Int64(frame) * 1_000,
          attribute: Self.control))
    }
    _ = cp("06 02")
    _ = cp("60 06 01 00100000 00000000 00000000", client: false)
    _ = cp("01 02 08000000")
    frame += 1
    let write = tracker.analyze(
      Self.pdu(.secureDFUPacket, Array("1234".utf8), fromClient: true, frame: frame, attribute: Self.packet))
    #expect(write.record?.dfu?.packet == DFURecord.Packet(object: "data", offset: 0, length: 4))
    _ = tracker.analyze(
      Self.pdu(.secureDFUPacket, Array("5678".utf8), fromClient: true, frame: 9, attribute: Self.packet))
    // CRC-32 of "1234" is 0x9BE3E0A3: a packet receipt notification for 4 bytes.
    let receipt = try #require(cp("60 03 01 04000000 a3e0e39b", client: false).record?.dfu)
    #expect(receipt.receipt && receipt.crc == DFURecord.CRCCheck(computed: 0x9BE3_E0A3, matches: true))
    _ = cp("03")
    let wrong = cp("60 03 01 08000000 00000000", client: false)
    #expect(wrong.diagnostics.map(\.id) == ["dfu.crc.mismatch"])
    #expect(wrong.record?.dfu?.crc?.matches == false && wrong.record?.dfu?.request != nil)
    _ = cp("04")
    let executed = try #require(cp("60 04 01", client: false).record?.dfu?.progress)
    #expect(executed.offset == 8 && executed.source == "execute")
    let failed = cp("60 04 0b 0c", client: false)
    #expect(failed.diagnostics.first?.message == "Execute answered Extended Error, Verification Failed")
  }

  /// Legacy DFU: Start DFU (application), the image sizes, Receive Firmware Image, data,
  /// a packet receipt notification at 4 of 8 bytes.
  @Test func legacyDFUProgress() throws {
    var tracker = DFUTracker()
    let control = Self.attribute(BluetoothUUID(uuid128: 0x0000_1531_1212_EFDE_1523_785F_EABC_D123), value: 16)
    let packet = Self.attribute(BluetoothUUID(uuid128: 0x0000_1532_1212_EFDE_1523_785F_EABC_D123), value: 19)
    _ = tracker.analyze(Self.pdu(.legacyDFUControlPoint, [0x01, 0x04], fromClient: true, frame: 1, attribute: control))
    let sizes = tracker.analyze(
      Self.pdu(
        .legacyDFUPacket, vendorBytes("00000000 00000000 08000000"), fromClient: true, frame: 2, attribute: packet))
    #expect(sizes.record?.dfu?.imageSizes == [0, 0, 8])
    _ = tracker.analyze(
      Self.pdu(.legacyDFUControlPoint, [0x03], fromClient: true, frame: 3, time: 0, attribute: control))
    let data = tracker.analyze(Self.pdu(.legacyDFUPacket, [1, 2, 3, 4], fromClient: true, frame: 4, attribute: packet))
    #expect(data.record?.dfu?.packet == DFURecord.Packet(object: "firmware", offset: 0, length: 4))
    let receipt = tracker.analyze(
      Self.pdu(
        .legacyDFUControlPoint, vendorBytes("11 04000000"), fromClient: false, frame: 5, time: 1_000, attribute: control
      ))
    let progress = try #require(receipt.record?.dfu?.progress)
    #expect(progress.offset == 4 && progress.total == 8 && progress.percent == 50 && progress.source == "prn")
  }

  /// Found by fuzzing (pipeline): three image sizes of 0xFFFFFFFF overflowed their UInt32 sum.
  @Test func legacyDFUImageSizesAddUpPastUInt32() throws {
    var tracker = DFUTracker()
    let control = Self.attribute(BluetoothUUID(uuid128: 0x0000_1531_1212_EFDE_1523_785F_EABC_D123), value: 16)
    let packet = Self.attribute(BluetoothUUID(uuid128: 0x0000_1532_1212_EFDE_1523_785F_EABC_D123), value: 19)
    _ = tracker.analyze(Self.pdu(.legacyDFUControlPoint, [0x01, 0x07], fromClient: true, frame: 1, attribute: control))
    let sizes = tracker.analyze(
      Self.pdu(
        .legacyDFUPacket, vendorBytes("ffffffff ffffffff ffffffff"), fromClient: true, frame: 2, attribute: packet))
    #expect(sizes.record?.dfu?.imageSizes == [0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF])
  }

  static let tx = attribute(BluetoothUUID(uuid128: 0x6E40_0003_B5A3_F393_E0A9_E50E_24DC_CA9E))

  /// Lines across PDUs, several in one, CR LF split between two, and bytes that are not text.
  @Test func nordicUARTLines() throws {
    var tracker = NUSTracker()
    func send(_ text: [UInt8], _ frame: Int) -> NUSRecord? {
      tracker.analyze(Self.pdu(.nusTX, text, fromClient: false, frame: frame, attribute: Self.tx)).record?.nus
    }
    #expect(send(Array("upt".utf8), 1)?.partial == "upt")
    let line = try #require(send(Array("ime: 5 s\r\nok".utf8), 2))
    #expect(line.lines == ["uptime: 5 s"] && line.text == "uptime: 5 s\r\n" && line.pdus == 2 && line.frames == [1, 2])
    #expect(line.partial == "ok" && line.channel == "tx")
    #expect(send(Array("\ra\rb\r".utf8), 3)?.lines == ["ok", "a", "b"])
    // The LF after the CR that ended the last line is no empty line.
    #expect(send(Array("\nc\n".utf8), 4)?.lines == ["c"])
    #expect(send([0x00, 0x01, 0xFF], 5)?.data == [0x00, 0x01, 0xFF])
    let long = tracker.analyze(
      Self.pdu(.nusTX, [UInt8](repeating: 0x41, count: 5_000), fromClient: false, frame: 6, attribute: Self.tx))
    #expect(long.diagnostics.map(\.id) == ["nus.line.limit"])
    #expect(long.record?.nus?.lines.first?.count == 5_000)
  }

  /// A Report Map with two input reports of different sizes, and notifications on a
  /// Report characteristic whose Report Reference the capture never read.
  @Test func hidReportsByLength() throws {
    var tracker = HIDTracker()
    let report = BluetoothUUID(uuid16: 0x2A4D)
    let map = Self.attribute(BluetoothUUID(uuid16: 0x2A4B), value: 14)
    let input = Self.attribute(report, value: 20)
    let descriptor = vendorBytes(
      """
      05010906a1018501050719e029e71500250175019508810295017508810195067508150025650507190029658100c0
      050c0901a1018503150026ff0319002aff03751095018100c0
      """)
    let parsed = tracker.analyze(Self.pdu(.hidReportMap, descriptor, fromClient: false, frame: 1, attribute: map))
    #expect(parsed.record?.hid?.map?.reports.count == 2 && parsed.diagnostics.isEmpty)
    let key = try #require(
      tracker.analyze(
        Self.pdu(.hidReport, vendorBytes("0000 0b 0000000000"), fromClient: false, frame: 2, attribute: input)
      )
      .record?.hid)
    #expect(key.reportID == 1 && key.reportSource == "length" && key.values?.keyNames == ["h"] && key.pressed == ["h"])
    let volume = try #require(
      tracker.analyze(Self.pdu(.hidReport, vendorBytes("e900"), fromClient: false, frame: 3, attribute: input)).record?
        .hid)
    #expect(volume.reportID == 3 && volume.values?.consumerNames == ["Volume Increment"])
    let up = try #require(
      tracker.analyze(
        Self.pdu(.hidReport, vendorBytes("0000000000000000"), fromClient: false, frame: 4, attribute: input)
      )
      .record?.hid)
    #expect(up.released == ["h"] && up.pressed.isEmpty)
    // A Report Map that is no report descriptor: a diagnostic, and the record says what it is.
    let bad = tracker.analyze(Self.pdu(.hidReportMap, [0xC0], fromClient: false, frame: 5, attribute: map))
    #expect(bad.diagnostics.map(\.id) == ["hid.report_map.invalid"] && bad.record?.hid?.kind == "report_map")
  }
}

/// The bytes of `text`: hex digits, spaces and newlines ignored.
func vendorBytes(_ text: String) -> [UInt8] {
  let digits = Array(text.filter(\.isHexDigit))
  return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
