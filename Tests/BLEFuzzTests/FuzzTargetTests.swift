import BLEFuzz
import Foundation
import Testing

/// The fuzz targets run over every sample (what the fuzzers start from), and every input
/// that once crashed a target runs again here. Serialized: the targets share one input file.
@Suite(.serialized) struct FuzzTargetTests {
  static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Samples")

  static let sampleFiles: [URL] =
    ((try? FileManager.default.contentsOfDirectory(at: samples, includingPropertiesForKeys: [.isRegularFileKey])) ?? [])
    .filter { !["py", "md", "dissector"].contains($0.pathExtension) }
    // Files only: Samples/fleet is a folder of SQL and Python.
    .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    .sorted { $0.lastPathComponent < $1.lastPathComponent }

  static func sample(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: samples.appending(path: name)))
  }

  @Test func samplesAreThere() {
    #expect(Self.sampleFiles.count >= 10)
  }

  /// Each target reads its format: the fuzzers are not spinning on inputs they reject.
  @Test(arguments: [
    (FuzzTarget.btsnoop, "hr-sensor.btsnoop", 49),
    (.btsnoop, "hr-sensor-monitor.btsnoop", 53),
    (.pcap, "hr-sensor.pcap", 49),
    (.pcap, "hr-sensor.pcapng", 49),
    (.packetLogger, "hr-sensor.pklg", 50),
    (.bugreportZip, "bugreport-hr-sensor.zip", 49),
    (.pipeline, "hr-sensor.btsnoop", 49),
    (.pipeline, "hr-sensor.pcapng", 49),
    (.pipeline, "hr-sensor.pklg", 50),
    (.pipeline, "bugreport-hr-sensor.zip", 49),
    (.pipeline, "bugreport-hr-sensor.txt", 49),
  ])
  func readsItsFormat(_ target: FuzzTarget, _ name: String, _ records: Int) throws {
    #expect(target.run(try Self.sample(name)) == records)
  }

  /// The phone targets read what a phone saves (../shared's bugreports, skipped when absent).
  @Test(arguments: [
    (FuzzTarget.sysdiagnose, "sysdiagnose_2024.05.14_02-32-19-0700_iPhone-OS_iPhone_21F79.tar.gz", 406),
    // 431 records, then the events of its log: at least the truth's 54 app_log lines
    (.bugreportZip, "bugreport-oriole-TQ3A.230901.001-2024-05-14-11-42-15.zip", 431 + 54),
  ])
  func readsWhatAPhoneSaves(_ target: FuzzTarget, _ name: String, _ atLeast: Int) throws {
    let folder = Self.samples.deletingLastPathComponent().deletingLastPathComponent()
      .appending(path: "shared/captures/bugreport")
    guard FileManager.default.fileExists(atPath: folder.path) else {
      print("skipped: \(folder.path) is absent (the shared test assets)")
      return
    }
    let count = target.run([UInt8](try Data(contentsOf: folder.appending(path: name))))
    #expect(count >= atLeast && count < atLeast + 100)
  }

  /// The phone-log target reads a bugreport text's logcat: lines, then events.
  @Test func phoneLogReadsLogcat() {
    let text = """
      == dumpstate: 2024-05-14 11:42:15
      ------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------
      05-14 11:30:01.629 10187 14023 14023 D BluetoothGatt: connect() - device: D4:36:39:67:A2:61, auto: false
      05-14 11:30:01.824 10187 14023 14061 D BluetoothGatt: onClientConnectionState() - status=0 clientIf=6 device=D4:36:39:67:A2:61
      05-14 11:30:01.900  1000  1523  1601 I PowerManagerService: Waking up
      ------ 1.322s was the duration of 'SYSTEM LOG' ------

      """
    #expect(FuzzTarget.phoneLog.run(Array(text.utf8)) == 3 + 2)
  }

  /// The stream target's first byte is the size of the chunks the stream arrives in.
  @Test(arguments: [0, 1, 7, 255])
  func streamInChunks(_ chunk: UInt8) throws {
    #expect(FuzzTarget.stream.run([chunk] + (try Self.sample("hr-sensor.btsnoop"))) == 49)
    #expect(FuzzTarget.stream.run([chunk] + (try Self.sample("hr-sensor.pcapng"))) == 49)
  }

  /// The btsnooz target takes the section's content after base64, records uncompressed.
  @Test func btsnoozContent() {
    // version 2, last timestamp 0x000618_66a5a2fee7 µs
    // len 4, orig 4, delta 0, OUT_CMD: HCI Reset (0x0c03)
    // len 7, orig 7, delta 4913, IN_EVT: Command Complete, Reset, status 0x00
    // len 11, orig 11, delta 312, OUT_CMD: LE Set Scan Parameters (0x200b)
    let content: [UInt8] = hex(
      """
      02 e7fea2a566180600
      0400 0400 00000000 20 030c00
      0700 0700 31130000 10 0e0401030c00
      0b00 0b00 38010000 20 0b200701600030000000
      """)
    #expect(FuzzTarget.btsnooz.run(content) == 3)
  }

  /// Inputs that crashed a target once. Each runs through its target again.
  @Test(arguments: [
    // btsnooz v1 whose last timestamp is 0x8000000001000000 (near Int64.min): the first
    // record's time, last − Σ deltas, overflowed (BtsnoozReader.parse).
    //   version 01, last timestamp 0000000100000080 (LE)
    //   len 4, delta 0x04000004, type 0x00 ... then 4 records' worth of bytes
    (FuzzTarget.btsnooz, "0100000001000000800400040000040004002003000201 03e7fee7fe103e"),
    // btsnoop H4 with two HCI Reset commands whose timestamps, less the btsnoop epoch,
    // are about +9.16e18 and Int64.min + 5 µs: `show` text's time since the first
    // record overflowed (TextShowRenderer). Timestamps are now kept within ±2^58 µs.
    //   "btsnoop\0" version 1, datalink 1002
    //   orig 4, incl 4, flags 2 (command), drops 0, ts 0x7fffffffffffffff: 01 03 0c 00
    //   orig 4, incl 4, flags 2 (command), drops 0, ts 0x80dcddb30f2f8005: 01 03 0c 00
    (
      .pipeline,
      """
      6274736e6f6f7000 00000001 000003ea
      00000004 00000004 00000002 00000000 7fffffffffffffff 01030c00
      00000004 00000004 00000002 00000000 80dcddb30f2f8005 01030c00
      """
    ),
  ])
  func crashRegression(_ target: FuzzTarget, _ input: String) {
    #expect(target.run(hex(input)) > 0, "the input still reaches the records")
  }

  /// Every target takes every sample and its prefixes without crashing.
  @Test(arguments: FuzzTarget.allCases)
  func everySample(_ target: FuzzTarget) throws {
    for file in Self.sampleFiles {
      let bytes = [UInt8](try Data(contentsOf: file))
      target.run(bytes)
      for cut in [0, 1, 7, 24, 40, bytes.count / 2] where cut < bytes.count {
        target.run(Array(bytes.prefix(cut)))
      }
    }
  }
}

/// Bytes from hex digits; spaces and newlines are ignored.
func hex(_ text: String) -> [UInt8] {
  let digits = text.compactMap(\.hexDigitValue)
  return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
}
