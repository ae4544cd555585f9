#if canImport(Glibc)
  import Glibc
#endif

/// What a phone saved for a bug report: an Android bugreport (a `.zip`, or the folder it
/// was unzipped into) or an iOS sysdiagnose (a `.tar.gz`, a `.tar`, or its folder). It
/// finds every HCI log inside, and the bugreport's main text (logcat, properties, the
/// btsnooz summary), which `BLEDissect.PhoneLog` parses.
///
/// HCI logs it looks for (`hciLogNames`), by the end of their path:
///
/// | path ends with | platform | tier |
/// | --- | --- | --- |
/// | `data/misc/bluetooth/logs/btsnoop_hci.log`, `.last` | Android (AOSP) | full |
/// | `data/log/bt/btsnoop_hci.log`, `.last` | Android (other vendors) | full |
/// | `…/btsnoop_hci.log.filtered`, `.filtered.last` (either folder) | Android | filtered |
/// | `…/btsnooz_hci.log`, `.last` (either folder) | Android | cut |
/// | `logs/Bluetooth/bluetoothd-hci-*.pklg` | iOS | full |
///
/// Only the best tier present is used (full logs, else filtered ones, else the cut
/// `btsnooz_hci.log`); with none, the btsnooz summary of the bugreport text is the
/// fallback (`RecordSource.isSummaryOnly`).
///
/// Bounded: an entry is taken out only when it is one of these files, at most
/// `Limits.entryBytes` of it, all of them together at most `Limits.totalBytes`, and a
/// compressed stream that expands more than `Limits.ratio` times (past
/// `Limits.ratioFloor`) is a decompression bomb and stops there. Entry names that are
/// absolute or climb with `..` are never used (a note says so); nothing is ever
/// written to disk.
public final class PhoneArchive {
  public enum Platform: String, Sendable, Hashable {
    case android
    case iOS = "ios"
  }

  public enum Form: String, Sendable, Hashable {
    case zip
    case tarGzip = "tar.gz"
    case tar
    case folder
  }

  /// How good an HCI log is: full logs hold every packet whole.
  public enum Tier: Int, Sendable, Hashable, Comparable {
    case full
    /// `btsnoop_hci.log.filtered`: data packets cut to their headers.
    case filtered
    /// `btsnooz_hci.log`: the GD stack's log when snoop logging is off; packets cut.
    case cut

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  }

  public struct Limits: Sendable, Hashable {
    /// Bytes taken out of one entry.
    public var entryBytes = 1 << 30
    /// Bytes taken out of all entries together (held in memory).
    public var totalBytes = 3 << 30
    /// Bytes a compressed tar stream may expand to while it is walked (most is skipped).
    public var streamBytes = 1 << 36
    /// Inflated bytes per compressed byte, checked once past `ratioFloor`.
    public var ratio = 200
    public var ratioFloor = 64 << 20
    /// Files and depth of a folder walk.
    public var folderEntries = 200_000
    public var folderDepth = 8

    public init() {}
  }

  /// One HCI log found.
  public struct HCILog: Sendable, Hashable {
    /// Path inside the archive or folder.
    public var path: String
    public var platform: Platform
    public var tier: Tier
  }

  /// The archive or folder given.
  public let path: String
  public let form: Form
  /// Android when it has a bugreport text or Android HCI logs, iOS when it has
  /// PacketLogger logs under `logs/Bluetooth/`.
  public let platform: Platform
  /// Every file the archive holds, by its path inside it.
  public let fileNames: [String]
  /// The HCI logs that give the records (the best tier found), in the order found.
  public let hciLogs: [HCILog]
  /// The logs of a lower tier, found but not used.
  public let unusedHCILogs: [HCILog]
  /// The bugreport's main text (named by `main_entry.txt`, else `bugreport*.txt` at the
  /// top), when there is one.
  public let mainTextPath: String?
  /// Problems met while reading the archive (names refused, entries cut at a limit,
  /// damaged entries); the rest was read.
  public private(set) var notes: [String]
  /// The first problem that lost data (a damaged or cut entry, a bomb, a damaged zip
  /// directory): reading went on with what was readable.
  public private(set) var damage: CaptureDamage?

  private var contents: [String: MappedFile] = [:]
  public let limits: Limits

  /// What the table above says, as data: path suffixes, platform and tier.
  public static let hciLogNames: [(suffix: String, platform: Platform, tier: Tier)] =
    ["data/misc/bluetooth/logs", "data/log/bt"].flatMap { folder in
      [
        ("btsnoop_hci.log", Tier.full), ("btsnoop_hci.log.last", .full), ("btsnoop_hci.log.filtered", .filtered),
        ("btsnoop_hci.log.filtered.last", .filtered), ("btsnooz_hci.log", .cut), ("btsnooz_hci.log.last", .cut),
      ].map { (folder + "/" + $0.0, Platform.android, $0.1) }
    }

  /// Whether `name` is an HCI log, and which. The path must sit where the phone puts it:
  /// from the top of the archive, or under one folder (an archive of the unzipped folder,
  /// the sysdiagnose's own top folder); Android's under `FS/` or not.
  public static func classify(_ name: String) -> (platform: Platform, tier: Tier)? {
    let parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    func placed(_ tail: Int, android: Bool) -> Bool {
      let leading = parts.dropLast(tail)
      switch leading.count {
      case 0: return true
      case 1: return true
      case 2: return android && leading.last == "FS"
      default: return false
      }
    }
    for row in hciLogNames {
      let suffix = row.suffix.split(separator: "/").map(String.init)
      if parts.count >= suffix.count, Array(parts.suffix(suffix.count)) == suffix, placed(suffix.count, android: true) {
        return (row.platform, row.tier)
      }
    }
    if parts.count >= 3, parts[parts.count - 3] == "logs", parts[parts.count - 2] == "Bluetooth",
      parts[parts.count - 1].hasPrefix("bluetoothd-hci-"), parts[parts.count - 1].hasSuffix(".pklg"),
      placed(3, android: false)
    {
      return (.iOS, .full)
    }
    return nil
  }

  /// A name that must not be used: absolute, with a drive letter, or climbing with `..`.
  public static func isUnsafe(_ name: String) -> Bool {
    let normal = name.replacingAll("\\", with: "/")
    if normal.hasPrefix("/") || (normal.utf8.count >= 2 && Array(normal.utf8)[1] == UInt8(ascii: ":")) { return true }
    return normal.split(separator: "/", omittingEmptySubsequences: false).contains("..")
  }

  /// A text entry that may be the bugreport's main text: `bugreport*.txt` at the top (or
  /// one folder down, for a zip of the unzipped folder).
  static func isMainTextCandidate(_ name: String) -> Bool {
    let parts = name.split(separator: "/")
    guard let last = parts.last, parts.count <= 2 else { return false }
    return last.hasPrefix("bugreport") && last.hasSuffix(".txt")
  }

  static func isMainEntryFile(_ name: String) -> Bool {
    let parts = name.split(separator: "/")
    return parts.count <= 2 && parts.last == "main_entry.txt"
  }

  /// Opens the archive or folder at `path` and takes out its HCI logs and main text.
  /// Throws when it is none of the forms, or holds neither an HCI log nor a bugreport text.
  public init(path: String, limits: Limits = Limits()) throws(CaptureError) {
    self.path = path
    self.limits = limits
    var notes: [String] = []
    var damage: CaptureDamage?
    var names: [String] = []
    var taken: [String: MappedFile] = [:]
    let form: Form
    var used = 0

    var refused = 0
    func refuse(_ name: String) -> Bool {
      guard Self.isUnsafe(name) else { return false }
      refused += 1
      if refused <= 10 {
        notes.append("entry \"\(name)\" not used: its path is absolute or climbs out of the archive with ..")
      }
      return true
    }
    func wanted(_ name: String) -> Bool {
      Self.classify(name) != nil || Self.isMainTextCandidate(name) || Self.isMainEntryFile(name)
    }
    func lose(_ offset: Int, _ message: String) {
      notes.append(message)
      if damage == nil { damage = CaptureDamage(offset: offset, message) }
    }

    if Self.isDirectory(path) {
      form = .folder
      let walk = Self.walkFolder(path, limits: limits)
      names = walk.names
      notes += walk.notes
      for name in names where wanted(name) {
        if let file = try? MappedFile(path: path + "/" + name) { taken[name] = file }
      }
    } else {
      let file = try MappedFile(path: path)
      let bytes = file.bytes
      guard bytes.count > 0 else { throw CaptureError(.empty, path: path) }
      if bytes.starts(with: ZipArchive.magic) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
        form = .zip
        let archive: ZipArchive
        do {
          archive = try ZipArchive(bytes)
        } catch {
          throw CaptureError(.damagedHeader(error.message), path: path)
        }
        if let listing = archive.damage { lose(listing.offset, "zip: \(listing.message)") }
        names = archive.entries.map(\.name)
        for entry in archive.entries where !refuse(entry.name) && wanted(entry.name) && taken[entry.name] == nil {
          let budget = min(limits.entryBytes, limits.totalBytes - used, Self.ratioLimit(entry.compressedSize, limits))
          do {
            let content = try archive.content(of: entry, limit: max(0, budget))
            used += content.count
            taken[entry.name] = MappedFile(path: entry.name, owned: OwnedBytes(content))
          } catch {
            lose(error.offset, "zip entry \(entry.name): \(error.message)")
            // What inflated before the damage is still read (a log cut short is a log).
            if !error.partial.isEmpty {
              used += error.partial.count
              taken[entry.name] = MappedFile(path: entry.name, owned: OwnedBytes(error.partial))
            }
          }
        }
      } else if bytes.starts(with: [0x1F, 0x8B])
        || (bytes.count >= 263 && bytes.starts(at: 257, with: Array("ustar".utf8)))
      {
        let compressed = bytes.starts(with: [0x1F, 0x8B])
        form = compressed ? .tarGzip : .tar
        let stream: SequentialBytes
        if compressed {
          do {
            stream = try GzipBytes(
              bytes, total: limits.streamBytes, ratio: limits.ratio, ratioFloor: limits.ratioFloor)
          } catch {
            throw CaptureError(.damagedHeader("gzip: \(error.message)"), path: path)
          }
        } else {
          stream = BufferBytes(bytes)
        }
        let walk = TarArchive.walk(stream) { entry in
          guard !refuse(entry.name), wanted(entry.name) else { return nil }
          let budget = min(limits.entryBytes, limits.totalBytes - used)
          used += min(entry.size, max(0, budget))
          return max(0, budget)
        }
        names = walk.names
        notes += walk.notes
        if let cut = walk.damage { lose(cut.offset, cut.message) }
        for (entry, content) in walk.kept where taken[entry.name] == nil {
          taken[entry.name] = MappedFile(path: entry.name, owned: OwnedBytes(content))
        }
        if names.isEmpty, let cut = walk.damage {
          // Not even a first header: some other file, gzipped.
          if cut.offset == 0, cut.message.hasPrefix("tar header") {
            throw CaptureError(
              .unsupported(
                "\(compressed ? "gzip file" : "file") that holds no tar archive; expected an iOS sysdiagnose "
                  + "(.tar.gz) or \(CaptureError.acceptedFormats)"),
              path: path)
          }
          throw CaptureError(.damagedHeader(cut.message), path: path)
        }
      } else {
        throw CaptureError(.notACapture, path: path)
      }
    }

    if refused > 10 { notes.append("\(refused - 10) more entries not used for the same reason") }
    // The HCI logs, best tier first; the main text.
    let found = taken.keys.sorted().compactMap { name in
      Self.classify(name).map { HCILog(path: name, platform: $0.platform, tier: $0.tier) }
    }
    let best = found.map { $0.tier }.min()
    hciLogs = found.filter { $0.tier == best }
    unusedHCILogs = found.filter { $0.tier != best }
    var main: String?
    if let entry = taken.keys.sorted().first(where: Self.isMainEntryFile), let file = taken[entry] {
      let named = String(decoding: file.bytes.prefix(4096), as: UTF8.self).trimmingWhitespace
      let folder = entry.split(separator: "/").dropLast().joined(separator: "/")
      let candidate = folder.isEmpty ? named : folder + "/" + named
      if taken[candidate] != nil { main = candidate }
    }
    // A folder is a bugreport's by its main_entry.txt or its HCI logs, not by a text
    // named bugreport*.txt lying among other files.
    if form != .folder || !found.isEmpty || taken.keys.contains(where: Self.isMainEntryFile) {
      main = main ?? taken.keys.sorted().first(where: Self.isMainTextCandidate)
    }
    mainTextPath = main
    fileNames = names
    self.form = form
    platform =
      hciLogs.contains { $0.platform == .iOS } || (main == nil && names.contains { $0.hasSuffix(".pklg") })
      ? .iOS : .android
    contents = taken
    self.notes = notes
    self.damage = damage
    guard !hciLogs.isEmpty || main != nil || !unusedHCILogs.isEmpty else {
      if let damage { throw CaptureError(.damagedHeader(damage.message), path: path) }
      if form == .folder {
        throw CaptureError(
          .cannotOpen(
            "is a directory, and not an Android bugreport or iOS sysdiagnose folder (no "
              + "FS/data/misc/bluetooth/logs/btsnoop_hci.log, logs/Bluetooth/bluetoothd-hci-*.pklg or bugreport*.txt)"),
          path: path)
      }
      throw CaptureError(
        .unsupported(
          "\(form == .folder ? "folder" : "archive") holds no HCI log (FS/data/misc/bluetooth/logs/btsnoop_hci.log, "
            + "logs/Bluetooth/bluetoothd-hci-*.pklg) and no bugreport text; expected \(CaptureError.acceptedFormats)"),
        path: path)
    }
  }

  /// The bytes of the bugreport's main text; valid while the archive lives.
  public var mainText: UnsafeBufferPointer<UInt8>? { mainTextPath.flatMap { contents[$0]?.bytes } }

  /// The bytes of a file taken out (an HCI log or the main text); valid while the
  /// archive lives.
  public func content(of name: String) -> UnsafeBufferPointer<UInt8>? { contents[name]?.bytes }

  /// What the archive is, for people: "Android bugreport zip".
  public var kindDescription: String {
    let what = platform == .android ? "Android bugreport" : "iOS sysdiagnose"
    return form == .folder ? "\(what) folder" : "\(what) \(form.rawValue)"
  }

  /// The records of every HCI log used, merged in time order with no record twice;
  /// without one, the btsnooz summary of the bugreport text. `sources` says which files
  /// were read and what each covered.
  public func recordSource() throws(CaptureError) -> any RecordSource {
    var members: [MergedRecordSource.Member] = []
    for log in hciLogs.prefix(256) {
      guard let file = contents[log.path] else { continue }
      let name = log.path
      let archivePath = path
      members.append(
        .init(path: name, isSummary: false) { () throws(CaptureError) -> any RecordSource in
          try Self.reader(file, name: name, archive: archivePath)
        })
    }
    var notes = notes
    if hciLogs.count > 256 { notes.append("more than 256 HCI logs: the first 256 by name are read") }
    let kind = kindDescription
    var failure: CaptureError?
    if !members.isEmpty {
      do {
        return try MergedRecordSource(
          members: members, describe: { Self.describe(kind, $0) }, notes: notes, damage: damage)
      } catch {
        // No HCI log could be read: the summary, when there is one, is better than nothing.
        failure = error
        failure?.path = path
        notes.append("no HCI log could be read (\(error)); the btsnooz summary of the text is read instead")
      }
    }
    guard let summary = summaryMember() else {
      throw failure
        ?? CaptureError(
          .unsupported(
            "\(kindDescription) holds no HCI log (FS/data/misc/bluetooth/logs/btsnoop_hci.log, "
              + "logs/Bluetooth/bluetoothd-hci-*.pklg) and its text no btsnooz section; expected "
              + CaptureError.acceptedFormats),
          path: path)
    }
    do {
      return try MergedRecordSource(
        members: [summary], describe: { Self.describe(kind, $0) }, notes: notes, damage: damage)
    } catch {
      var error = error
      error.path = path
      throw failure ?? error
    }
  }

  /// The btsnooz section of the bugreport text (or, when the main text is not found, of
  /// another text taken out), as a member of the merge.
  private func summaryMember() -> MergedRecordSource.Member? {
    let archivePath = path
    let texts =
      (mainTextPath.map { [$0] } ?? []) + contents.keys.sorted().filter { $0.hasSuffix(".txt") && $0 != mainTextPath }
    for name in texts {
      guard let file = contents[name], BtsnoozReader.contains(file.bytes) else { continue }
      return .init(path: name, isSummary: true) { () throws(CaptureError) -> any RecordSource in
        try BtsnoozReader(text: file.bytes, path: archivePath, origin: name)
      }
    }
    return nil
  }

  /// A reader for one HCI log, by its content.
  private static func reader(_ file: MappedFile, name: String, archive: String) throws(CaptureError)
    -> any RecordSource
  {
    let bytes = file.bytes
    guard bytes.count > 0 else { throw CaptureError(.empty, path: name) }
    if bytes.count >= 4, bytes.starts(with: Array(BtsnoopReader.magic.prefix(bytes.count))) {
      return try BtsnoopReader(file: file)
    }
    if let bigEndian = PacketLoggerReader.detectBigEndian(bytes) {
      return PacketLoggerReader(file: file, bigEndian: bigEndian)
    }
    throw CaptureError(.notACapture, path: name)
  }

  /// The header line: the archive, then each file with its format, records and times.
  static func describe(_ kind: String, _ sources: [CaptureSourceFile]) -> String {
    let total = sources.reduce(0) { $0 + $1.records }
    var text = kind
    if sources.allSatisfy(\.isSummary) {
      text += ", btsnooz summary only (no full HCI log inside: data packets cut to a few bytes, SCO and ISO left out)"
    } else if sources.count > 1 {
      text += ", \(sources.count) HCI logs merged (\(total) records)"
    }
    text += ": "
    text += sources.map { source in
      // A summary's format names its text again: once is enough.
      let format =
        source.format.hasSuffix(" (\(source.path))")
        ? String(source.format.dropLast(source.path.count + 3)) : source.format
      var part = "\(source.path) (\(format), \(source.records) records"
      if let first = source.first, let last = source.last {
        let from = CivilTime(unixMicroseconds: first.unixMicroseconds)
        let to = CivilTime(unixMicroseconds: last.unixMicroseconds)
        let end = to.description.split(separator: " ").last.map(String.init) ?? ""
        part +=
          ", \(from) → \(from.year == to.year && from.month == to.month && from.day == to.day ? end : to.description) UTC"
      }
      if source.damage != nil { part += ", damaged" }
      return part + ")"
    }.joined(separator: ", ")
    return text
  }

  /// Most bytes an entry of `compressed` bytes may inflate to (the bomb rule).
  static func ratioLimit(_ compressed: Int, _ limits: Limits) -> Int {
    max(limits.ratioFloor, min(Int.max / max(1, limits.ratio), compressed) * limits.ratio)
  }

  // MARK: - Folders

  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Every regular file under `root` (relative paths, sorted), symbolic links not
  /// followed, within the limits on files and depth.
  static func walkFolder(_ root: String, limits: Limits) -> (names: [String], notes: [String]) {
    var names: [String] = []
    var notes: [String] = []
    var pending: [(String, Int)] = [("", 0)]
    while let (relative, depth) = pending.popLast() {
      guard let directory = opendir(relative.isEmpty ? root : root + "/" + relative) else { continue }
      defer { closedir(directory) }
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard name != ".", name != ".." else { continue }
        let child = relative.isEmpty ? name : relative + "/" + name
        var info = stat()
        guard lstat(root + "/" + child, &info) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
          if depth + 1 < limits.folderDepth {
            pending.append((child, depth + 1))
          } else {
            notes.append("folder \(child) not read: deeper than \(limits.folderDepth) levels")
          }
        case S_IFREG:
          guard names.count < limits.folderEntries else {
            notes.append("more than \(limits.folderEntries) files in the folder: the rest is not looked at")
            return (names.sorted(), notes)
          }
          names.append(child)
        default: continue
        }
      }
    }
    return (names.sorted(), notes)
  }
}

extension String {
  fileprivate func replacingAll(_ target: Character, with replacement: Character) -> String {
    String(map { $0 == target ? replacement : $0 })
  }

  fileprivate var trimmingWhitespace: String {
    let scalars = unicodeScalars.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    var result = String(String.UnicodeScalarView(scalars))
    while let last = result.last, last == " " || last == "\n" || last == "\r" || last == "\t" { result.removeLast() }
    return result
  }
}
