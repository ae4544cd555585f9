import Foundation
import Testing

@testable import BLECapture

/// Bugreports and sysdiagnoses: every HCI log inside, merged in time order with no
/// record twice, gives exactly the capture they were made from.
@Suite struct PhoneArchiveTests {
  static let bugreports = [
    "bugreport-oriole-TQ3A.230901.001-2024-05-14-11-42-15.zip",
    "bugreport-panther-AP1A.240505.004-2024-05-14-03-04-34.zip",
  ]
  static let summaryOnly = "bugreport-oriole-TQ3A.230901.001-2024-05-14-12-20-20.zip"
  static let sysdiagnose = "sysdiagnose_2024.05.14_02-32-19-0700_iPhone-OS_iPhone_21F79.tar.gz"

  static func truth(_ path: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
  }

  /// The records of a capture read whole, each with its source index.
  static func read(_ path: String) throws -> (
    contents: CaptureContents, indexes: [UInt16], sources: [CaptureSourceFile]
  ) {
    let source = try CaptureFile.open(path)
    var indexes: [UInt16] = []
    var records: [RecordSnapshot] = []
    while let record = source.next() {
      indexes.append(record.sourceIndex)
      records.append(RecordSnapshot(record))
    }
    let contents = CaptureContents(
      records: records, fileOffsets: [], damage: source.damage, family: source.family, resolution: source.resolution,
      formatDescription: source.formatDescription, notes: source.notes)
    return (contents, indexes, source.sources)
  }

  @Test(arguments: bugreports)
  func fullLogsGiveTheOriginalCapture(_ name: String) throws {
    guard let folder = sharedCaptures("bugreport"), let synthetic = sharedCaptures("synthetic") else { return }
    let original = try readAll(path: synthetic + "/android-central.btsnoop")
    let (merged, indexes, sources) = try Self.read(folder + "/" + name)
    #expect(merged.damage == nil)
    // Same count, times, bytes, order and frame numbers: none missing, none twice.
    expectSameRecords(merged.records, original.records)
    let files = try #require(try Self.truth(folder + "/" + name + ".truth.json")["hci_files"] as? [[String: Any]])
    #expect(sources.map(\.path) == files.map { $0["path"] as? String })
    #expect(sources.map(\.records) == files.map { $0["records"] as? Int })
    #expect(sources.map(\.delivered) == files.map { $0["records"] as? Int })
    #expect(sources.allSatisfy { !$0.isSummary && $0.format == "btsnoop, datalink 1002 (H4)" })
    // Each record names its file: the frames each file covered.
    for (index, file) in files.enumerated() {
      let first = try #require(file["first_frame"] as? Int)
      let last = try #require(file["last_frame"] as? Int)
      #expect(indexes[(first - 1)...(last - 1)].allSatisfy { $0 == UInt16(index) })
      #expect(sources[index].first == original.records[first - 1].timestamp)
      #expect(sources[index].last == original.records[last - 1].timestamp)
    }
    #expect(merged.formatDescription.contains("Android bugreport zip, 2 HCI logs merged (431 records)"))
    #expect(merged.formatDescription.contains("btsnoop_hci.log.last (btsnoop, datalink 1002 (H4), 221 records"))
  }

  @Test func summaryOnlyZipSaysItIsASummary() throws {
    guard let folder = sharedCaptures("bugreport") else { return }
    let truth = try Self.truth(folder + "/" + Self.summaryOnly + ".truth.json")
    let argv = try #require((truth["generator"] as? [String: Any])?["argv"] as? [String])
    #expect(argv.contains("--no-full-log"))
    let source = try CaptureFile.open(folder + "/" + Self.summaryOnly)
    #expect(source.isSummaryOnly)
    #expect(source.formatDescription.contains("btsnooz summary only"))
    #expect(source.formatDescription.contains("data packets cut"))
    #expect(source.notes.contains { $0.contains("btsnooz summary only") })
    let contents = readAll(source)
    let snooz = try #require(truth["btsnooz"] as? [String: Any])
    #expect(contents.records.count == snooz["records"] as? Int)
    #expect(contents.records.filter(\.isCutBySource).count == snooz["records_cut"] as? Int)
  }

  @Test func fullLogZipIsNotASummary() throws {
    guard let folder = sharedCaptures("bugreport") else { return }
    #expect(!(try CaptureFile.open(folder + "/" + Self.bugreports[0])).isSummaryOnly)
  }

  /// A PacketLogger log starts with a note record (0xFC, text): notes stay records, as
  /// tshark counts them, and the HCI records are exactly the original's.
  @Test func sysdiagnoseGivesTheOriginalHCIRecords() throws {
    guard let folder = sharedCaptures("bugreport"), let synthetic = sharedCaptures("synthetic") else { return }
    let original = try readAll(path: synthetic + "/ios-central.btsnoop")
    let (merged, indexes, sources) = try Self.read(folder + "/" + Self.sysdiagnose)
    #expect(merged.damage == nil)
    let hci = merged.records.filter { if case .hci = $0.kind { true } else { false } }
    #expect(hci.count == original.records.count)
    for (read, expected) in zip(hci, original.records) {
      #expect(read.timestamp == expected.timestamp && read.kind == expected.kind && read.bytes == expected.bytes)
      #expect(read.direction == expected.direction)
    }
    let notes = merged.records.enumerated().filter { $0.element.kind == .packetLogger(0xFC) }
    #expect(notes.map(\.offset) == [0, 250])
    let truth = try Self.truth(folder + "/" + Self.sysdiagnose + ".truth.json")
    let files = try #require(truth["hci_files"] as? [[String: Any]])
    #expect(sources.map(\.path) == files.map { $0["path"] as? String })
    #expect(sources.map(\.records) == files.map { $0["records"] as? Int })
    #expect(indexes.prefix(250).allSatisfy { $0 == 0 } && indexes.dropFirst(250).allSatisfy { $0 == 1 })
    #expect(merged.formatDescription.hasPrefix("iOS sysdiagnose tar.gz, 2 HCI logs merged (406 records)"))
  }

  @Test(arguments: [bugreports[0], sysdiagnose])
  func folderFormReadsTheSame(_ name: String) throws {
    guard let folder = sharedCaptures("bugreport") else { return }
    let archive = folder + "/" + name
    let expected = try Self.read(archive)
    try withTemporaryFolder { directory in
      let unpacked =
        name.hasSuffix(".zip")
        ? run("unzip", ["-q", archive], in: directory) : run("tar", ["xzf", archive], in: directory)
      guard unpacked else { return }
      let fromFolder = try Self.read(directory)
      #expect(fromFolder.contents.damage == nil)
      expectSameRecords(fromFolder.contents.records, expected.contents.records)
      #expect(fromFolder.sources.map(\.path) == expected.sources.map(\.path))
      #expect(fromFolder.contents.formatDescription.contains("folder, 2 HCI logs merged"))
    }
  }

  // MARK: - Merging

  /// The original capture's records, for building archives.
  static func androidCentral() throws -> [RecordSnapshot]? {
    guard let synthetic = sharedCaptures("synthetic") else { return nil }
    return try readAll(path: synthetic + "/android-central.btsnoop").records
  }

  /// Rotated logs that overlap (records 100…150 in both): each record is read once.
  @Test func overlappingLogsGiveEachRecordOnce() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log", btsnoopFile(Array(records[99...])))
    zip.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", btsnoopFile(Array(records[..<150])))
    let source = try withTemporaryFile(zip.build().bytes) { try CaptureFile.open($0) }
    let contents = readAll(source)
    expectSameRecords(contents.records, records)
    // Listed oldest first, whatever the order in the zip.
    #expect(source.sources.map(\.path).last == "FS/data/misc/bluetooth/logs/btsnoop_hci.log")
    #expect(source.sources.map(\.records) == [150, records.count - 99])
    #expect(source.sources.map(\.delivered) == [150, records.count - 150])
    #expect(source.notes.contains("51 records found in two HCI logs (rotated logs overlap) were read once"))
  }

  /// Copies within one file are the file's: kept; a copy in another file is not.
  @Test func copiesWithinOneFileAreKept() throws {
    guard let records = try Self.androidCentral() else { return }
    let twice = [records[0], records[1], records[1], records[2]]
    var zip = TestZip()
    zip.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", btsnoopFile(twice))
    zip.add("FS/data/log/bt/btsnoop_hci.log", btsnoopFile([records[1], records[2], records[3]]))
    let contents = try readAll(bytes: zip.build().bytes)
    #expect(contents.records.map(\.bytes) == [records[0], records[1], records[1], records[2], records[3]].map(\.bytes))
    #expect(contents.records.map(\.frame) == [1, 2, 3, 4, 5])
  }

  /// Filtered logs are used only when no full log is there.
  @Test func fullLogsWinOverFilteredOnes() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log.filtered", btsnoopFile(Array(records[..<10])))
    zip.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log", btsnoopFile(Array(records[..<20])))
    let archive = try withTemporaryFile(zip.build().bytes) { try PhoneArchive(path: $0) }
    #expect(archive.hciLogs.map(\.path) == ["FS/data/misc/bluetooth/logs/btsnoop_hci.log"])
    #expect(archive.unusedHCILogs.map(\.tier) == [.filtered])
    #expect(readAll(try archive.recordSource()).records.count == 20)
  }

  // MARK: - Hostile archives

  static let logLast = "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last"
  static let log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"

  /// An entry that inflates far beyond its size (a zip bomb) stops at the limit, is
  /// named in the damage, and the other log is still read.
  @Test func zipBombStopsAtTheLimit() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add(Self.logLast, btsnoopFile(Array(records[..<50])))
    zip.add(Self.log, btsnoopFile(Array(records[50..<60])) + [UInt8](repeating: 0, count: 4 << 20), deflate: true)
    var limits = PhoneArchive.Limits()
    limits.ratio = 100
    limits.ratioFloor = 64 << 10
    let archive = try withTemporaryFile(zip.build().bytes) { try PhoneArchive(path: $0, limits: limits) }
    let damage = try #require(archive.damage)
    #expect(damage.message.contains("zip entry \(Self.log): inflated size exceeds the limit of"))
    let source = try archive.recordSource()
    let contents = readAll(source)
    #expect(contents.records.count >= 60)
    expectSameRecords(Array(contents.records.prefix(60)), Array(records[..<60]))
    #expect(source.damage != nil)
  }

  @Test func entriesClimbingOutAreNotUsed() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add("../../" + Self.log, btsnoopFile(Array(records[..<5])))
    zip.add("/" + Self.logLast, btsnoopFile(Array(records[..<5])))
    zip.add(Self.logLast, btsnoopFile(Array(records[..<7])))
    let archive = try withTemporaryFile(zip.build().bytes) { try PhoneArchive(path: $0) }
    #expect(archive.hciLogs.map(\.path) == [Self.logLast])
    #expect(archive.notes.filter { $0.contains("climbs out of the archive") }.count == 2)
    #expect(archive.damage == nil)
    #expect(readAll(try archive.recordSource()).records.count == 7)
  }

  /// A zip cut inside its second log: the directory is gone, the local headers give the
  /// first log whole and the second up to the cut.
  @Test func truncatedZipReadsWhatItHolds() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add(Self.logLast, btsnoopFile(Array(records[..<100])))
    zip.add(Self.log, btsnoopFile(Array(records[100..<200])))
    let built = zip.build()
    let cut = Array(built.bytes.prefix(built.dataStarts[1] + 24 * 50))
    let source = try withTemporaryFile(cut) { try CaptureFile.open($0) }
    let contents = readAll(source)
    let damage = try #require(contents.damage)
    #expect(damage.message.contains("end of central directory not found"))
    #expect(contents.records.count > 100 && contents.records.count < 200)
    expectSameRecords(Array(contents.records.prefix(100)), Array(records[..<100]))
  }

  @Test func damagedCentralDirectoryFallsBackToLocalHeaders() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add(Self.logLast, btsnoopFile(Array(records[..<30])), deflate: true)
    zip.add(Self.log, btsnoopFile(Array(records[30..<40])), deflate: true)
    var built = zip.build()
    built.bytes.replaceSubrange(built.centralDirectory..<built.centralDirectory + 4, with: [0xEE, 0xEE, 0xEE, 0xEE])
    let source = try withTemporaryFile(built.bytes) { try CaptureFile.open($0) }
    let contents = readAll(source)
    #expect(contents.damage?.message.contains("central directory damaged") == true)
    expectSameRecords(contents.records, Array(records[..<40]))
  }

  /// An HCI log that is not a capture: named in a note and the damage; the other is read.
  @Test func entryThatIsNotACaptureIsNamed() throws {
    guard let records = try Self.androidCentral() else { return }
    var zip = TestZip()
    zip.add(Self.logLast, btsnoopFile(Array(records[..<12])))
    zip.add(Self.log, Array("not a capture at all".utf8))
    let source = try withTemporaryFile(zip.build().bytes) { try CaptureFile.open($0) }
    #expect(source.notes.contains { $0.hasPrefix("\(Self.log): not read: not a capture file") })
    #expect(readAll(source).records.count == 12)
    #expect(source.sources.map(\.path) == [Self.logLast])
  }

  /// A log that cannot be read at all leaves the summary of the text to read.
  @Test func unreadableLogFallsBackToTheSummary() throws {
    var zip = TestZip()
    zip.add(Self.log, Array("not a capture at all".utf8))
    zip.add("main_entry.txt", Array("bugreport-x.txt".utf8))
    let text = try Data(contentsOf: URL(fileURLWithPath: samplePath("bugreport-hr-sensor.txt")))
    zip.add("bugreport-x.txt", [UInt8](text))
    let source = try withTemporaryFile(zip.build().bytes) { try CaptureFile.open($0) }
    #expect(source.isSummaryOnly)
    #expect(source.notes.contains { $0.hasPrefix("no HCI log could be read") })
    #expect(readAll(source).records.count == 49)
  }

  @Test func zipWithNeitherLogNorTextIsUnsupported() throws {
    var zip = TestZip()
    zip.add("version.txt", Array("2.0".utf8))
    let error = try openError(zip.build().bytes)
    #expect(error?.reason.unsupportedText?.contains("holds no HCI log") == true)
  }

  // MARK: - Tar

  static let pklgOld = "sysdiagnose_x/logs/Bluetooth/bluetoothd-hci-2024-05-14_02-30-00.pklg"
  static let pklgLatest = "sysdiagnose_x/logs/Bluetooth/bluetoothd-hci-latest.pklg"

  /// Two PacketLogger logs of one record each (an HCI Reset command, big-endian).
  static func pklg(seconds: UInt32) -> [UInt8] {
    func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    return be32(12) + be32(seconds) + be32(0) + [0x00, 0x03, 0x0C, 0x00]
  }

  @Test func tarGzipWithLongNamesAndOrderByTime() throws {
    let long = "sysdiagnose_" + String(repeating: "y", count: 120) + "/logs/Bluetooth/bluetoothd-hci-latest.pklg"
    let tar = tarArchive([
      (long, Self.pklg(seconds: 1_715_679_010)), ("sysdiagnose.log", Array("log".utf8)),
      (Self.pklgOld, Self.pklg(seconds: 1_715_679_000)),
    ])
    let source = try withTemporaryFile(gzip(tar)) { try CaptureFile.open($0) }
    #expect(source.sources.map(\.path) == [Self.pklgOld, long])
    let contents = readAll(source)
    #expect(contents.records.map(\.timestamp.unixMicroseconds) == [1_715_679_000_000_000, 1_715_679_010_000_000])
    #expect(contents.damage == nil)
  }

  @Test func truncatedTarGzipKeepsTheEntriesBeforeTheCut() throws {
    let tar = tarArchive([
      (Self.pklgOld, Self.pklg(seconds: 1_715_679_000)), ("padding.bin", [UInt8](repeating: 7, count: 20_000)),
      (Self.pklgLatest, Self.pklg(seconds: 1_715_679_010)),
    ])
    let compressed = gzip(tar)
    let source = try withTemporaryFile(Array(compressed.prefix(compressed.count - 40))) { try CaptureFile.open($0) }
    let contents = readAll(source)
    #expect(contents.records.count == 1)
    #expect(contents.damage?.message.contains("cut off") == true)
  }

  @Test func gzipBombStopsAtTheRatio() throws {
    let tar = tarArchive([
      (Self.pklgOld, Self.pklg(seconds: 1_715_679_000)), ("bomb.bin", [UInt8](repeating: 0, count: 8 << 20)),
      (Self.pklgLatest, Self.pklg(seconds: 1_715_679_010)),
    ])
    var limits = PhoneArchive.Limits()
    limits.ratio = 100
    limits.ratioFloor = 1 << 20
    let archive = try withTemporaryFile(gzip(tar)) { try PhoneArchive(path: $0, limits: limits) }
    #expect(archive.damage?.message.contains("a decompression bomb") == true)
    #expect(archive.hciLogs.map(\.path) == [Self.pklgOld])
    #expect(readAll(try archive.recordSource()).records.count == 1)
  }

  @Test func tarEntriesClimbingOutAreNotUsed() throws {
    let tar = tarArchive([
      ("../" + Self.pklgOld, Self.pklg(seconds: 1_715_679_000)), (Self.pklgLatest, Self.pklg(seconds: 1_715_679_010)),
    ])
    let archive = try withTemporaryFile(gzip(tar)) { try PhoneArchive(path: $0) }
    #expect(archive.hciLogs.map(\.path) == [Self.pklgLatest])
    #expect(archive.notes.contains { $0.contains("climbs out") })
  }

  @Test func gzipOfSomethingElseIsUnsupported() throws {
    let error = try openError(gzip(Array(repeating: 0x41, count: 2000)))
    #expect(error?.reason.unsupportedText?.contains("gzip file that holds no tar archive") == true)
  }

  @Test func tarChecksumIsChecked() {
    var header = tarArchive([("a.txt", [1])]).prefix(512).map { $0 }
    #expect(TarArchive.checksumMatches(header))
    header[0] ^= 1
    #expect(!TarArchive.checksumMatches(header))
  }

  @Test(arguments: [("0000644\0", 420), ("   17 \0", 15), ("\u{80}\0\0\0\0\0\0\u{1}", 1)])
  func tarNumbers(_ field: String, _ value: Int) {
    #expect(TarArchive.number(ArraySlice(field.unicodeScalars.map { UInt8($0.value) })) == value)
  }

  @Test(arguments: [
    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", PhoneArchive.Tier.full),
    ("FS/data/log/bt/btsnoop_hci.log.last", .full),
    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log.filtered", .filtered),
    ("FS/data/misc/bluetooth/logs/btsnooz_hci.log", .cut),
    ("x/logs/Bluetooth/bluetoothd-hci-latest.pklg", .full),
  ])
  func hciLogNames(_ name: String, _ tier: PhoneArchive.Tier) {
    #expect(PhoneArchive.classify(name)?.tier == tier)
  }

  @Test func namesThatAreNotHCILogs() {
    #expect(PhoneArchive.classify("FS/data/misc/bluetooth/logs/btsnoop_hci.log.bak") == nil)
    #expect(PhoneArchive.classify("xdata/misc/bluetooth/logs/btsnoop_hci.log") == nil)
    #expect(PhoneArchive.classify("logs/Bluetooth/other.pklg") == nil)
  }
}

@Suite struct RecordLayoutTests {
  /// The record stays a small plain value: the source index sits in padding.
  @Test func recordIsSmallAndPlain() {
    #expect(_isPOD(Record.self))
    #expect(MemoryLayout<Record>.size == 72)
    #expect(MemoryLayout<Record>.stride == 72)
  }
}

@Suite struct ZoneInfoTests {
  /// The tz database reader agrees with Foundation's TimeZone (ICU) hour by hour around
  /// both daylight saving changes of 2024, and at other times of the year.
  @Test(arguments: ["Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"])
  func agreesWithFoundation(_ name: String) throws {
    guard let zone = ZoneInfo.named(name) else {
      print("skipped: no tz database file for \(name)")
      return
    }
    let reference = try #require(TimeZone(identifier: name))
    var instants: [Int64] = []
    for start in [1_711_846_800 - 86_400 * 30, 1_729_994_400 - 86_400 * 30, 1_704_067_200, 4_102_444_800] {
      instants += (0..<24 * 70).map { Int64(start + $0 * 1800) }
    }
    for instant in instants {
      let expected = reference.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
      #expect(zone.offset(atUnixSeconds: instant) == expected, "\(name) at \(instant)")
    }
  }

  @Test func localTimeToUnix() throws {
    guard let berlin = ZoneInfo.named("Europe/Berlin"), let la = ZoneInfo.named("America/Los_Angeles") else {
      print("skipped: no tz database")
      return
    }
    // 2024-05-14 11:30:00.719487 CEST = 09:30:00.719487 UTC
    let local = CivilTime(year: 2024, month: 5, day: 14, hour: 11, minute: 30, second: 0, microsecond: 719_487)
    #expect(berlin.unixMicroseconds(local: local) == 1_715_679_000_719_487)
    // 2024-01-10 12:00 PST = 20:00 UTC
    #expect(la.unixMicroseconds(local: CivilTime(year: 2024, month: 1, day: 10, hour: 12)) == 1_704_916_800_000_000)
  }

  /// A slim TZif file has no transitions for the future: its footer rule decides.
  @Test func footerRule() throws {
    let rule = try #require(ZoneInfo.Rule("CET-1CEST,M3.5.0,M10.5.0/3"))
    let zone = ZoneInfo(name: "slim", transitions: [], offsets: [], initialOffset: 3600, rule: rule)
    #expect(zone.offset(atUnixSeconds: 1_711_846_799) == 3600)  // 2024-03-31 00:59:59 UTC
    #expect(zone.offset(atUnixSeconds: 1_711_846_800) == 7200)  // 01:00 UTC: 03:00 CEST
    #expect(zone.offset(atUnixSeconds: 1_729_990_799) == 7200)  // 2024-10-27 00:59:59 UTC
    #expect(zone.offset(atUnixSeconds: 1_729_990_800) == 3600)
    #expect(ZoneInfo.Rule("<+0530>-5:30")?.offset(atUnixSeconds: 0) == 19_800)
    #expect(ZoneInfo.Rule("nonsense,") == nil)
  }

  @Test func namesThatAreNotZones() {
    #expect(ZoneInfo.named("../../etc/passwd") == nil)
    #expect(ZoneInfo.named("/etc/localtime") == nil)
    #expect(ZoneInfo.named("Nowhere/Atlantis") == nil)
  }

  @Test(arguments: [
    (Int64(0), "1970-01-01 00:00:00.000000"), (1_715_679_000_000_036, "2024-05-14 09:30:00.000036"),
    (951_782_400_000_000, "2000-02-29 00:00:00.000000"), (-1, "1969-12-31 23:59:59.999999"),
  ])
  func civilTime(_ micros: Int64, _ text: String) {
    let civil = CivilTime(unixMicroseconds: micros)
    #expect(civil.description == text)
    #expect(civil.unixMicroseconds == micros)
  }
}
