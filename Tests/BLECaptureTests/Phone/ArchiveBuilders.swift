import CZlib
import Foundation
import Testing

@testable import BLECapture

/// Builds small zip, tar and gzip archives in memory for tests: stored or deflated
/// entries, with the sizes the entry's headers should claim.
struct TestZip {
  struct Entry {
    var name: String
    var data: [UInt8]
    var deflate = false
  }

  var entries: [Entry] = []

  mutating func add(_ name: String, _ data: [UInt8], deflate: Bool = false) {
    entries.append(Entry(name: name, data: data, deflate: deflate))
  }

  /// The archive, and where each entry's local header and data start.
  func build() -> (bytes: [UInt8], localHeaders: [Int], dataStarts: [Int], centralDirectory: Int) {
    var out: [UInt8] = []
    var central: [UInt8] = []
    var locals: [Int] = []
    var starts: [Int] = []
    for entry in entries {
      let stored = entry.deflate ? rawDeflate(entry.data) : entry.data
      let name = Array(entry.name.utf8)
      locals.append(out.count)
      let method: UInt16 = entry.deflate ? 8 : 0
      central +=
        le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(method) + le32(0) + le32(0)
        + le32(UInt32(stored.count)) + le32(UInt32(entry.data.count)) + le16(UInt16(name.count)) + le16(0) + le16(0)
        + le16(0) + le16(0) + le32(0) + le32(UInt32(out.count)) + name
      out +=
        le32(0x0403_4B50) + le16(20) + le16(0) + le16(method) + le32(0) + le32(0)
        + le32(UInt32(stored.count)) + le32(UInt32(entry.data.count)) + le16(UInt16(name.count)) + le16(0) + name
      starts.append(out.count)
      out += stored
    }
    let directory = out.count
    out += central
    out +=
      le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
      + le32(UInt32(central.count)) + le32(UInt32(directory)) + le16(0)
    return (out, locals, starts, directory)
  }
}

/// A POSIX ustar archive of `files`; names over 100 bytes get a GNU long-name entry.
func tarArchive(_ files: [(name: String, data: [UInt8])]) -> [UInt8] {
  var out: [UInt8] = []
  func header(_ name: String, size: Int, type: UInt8) -> [UInt8] {
    var block = [UInt8](repeating: 0, count: 512)
    let nameBytes = Array(name.utf8.prefix(100))
    block.replaceSubrange(0..<nameBytes.count, with: nameBytes)
    func octal(_ value: Int, _ at: Int, _ width: Int) {
      let digits = Array(String(value, radix: 8).utf8)
      let padded = [UInt8](repeating: 0x30, count: width - 1 - digits.count) + digits
      block.replaceSubrange(at..<at + width - 1, with: padded)
    }
    octal(0o644, 100, 8)
    octal(size, 124, 12)
    octal(1_715_679_000, 136, 12)
    block[156] = type
    block.replaceSubrange(257..<263, with: Array("ustar\0".utf8))
    block.replaceSubrange(263..<265, with: Array("00".utf8))
    block.replaceSubrange(148..<156, with: [UInt8](repeating: 0x20, count: 8))
    let sum = block.reduce(0) { $0 + Int($1) }
    octal(sum, 148, 7)
    return block
  }
  func padded(_ data: [UInt8]) -> [UInt8] { data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512) }
  for file in files {
    if file.name.utf8.count > 100 {
      let long = Array(file.name.utf8) + [0]
      out += header("././@LongLink", size: long.count, type: UInt8(ascii: "L")) + padded(long)
    }
    out += header(file.name, size: file.data.count, type: UInt8(ascii: "0")) + padded(file.data)
  }
  return out + [UInt8](repeating: 0, count: 1024)
}

func rawDeflate(_ data: [UInt8]) -> [UInt8] { deflate(data, windowBits: -MAX_WBITS) }
func gzip(_ data: [UInt8]) -> [UInt8] { deflate(data, windowBits: MAX_WBITS + 16) }

private func deflate(_ data: [UInt8], windowBits: Int32) -> [UInt8] {
  var stream = z_stream()
  guard
    deflateInit2_(
      &stream, Z_BEST_COMPRESSION, Z_DEFLATED, windowBits, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
      Int32(MemoryLayout<z_stream>.size)) == Z_OK
  else { return [] }
  defer { deflateEnd(&stream) }
  var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
  var input = data
  let produced = input.withUnsafeMutableBufferPointer { inBuffer in
    output.withUnsafeMutableBufferPointer { outBuffer in
      stream.next_in = inBuffer.baseAddress
      stream.avail_in = UInt32(inBuffer.count)
      stream.next_out = outBuffer.baseAddress
      stream.avail_out = UInt32(outBuffer.count)
      _ = CZlib.deflate(&stream, Z_FINISH)
      return outBuffer.count - Int(stream.avail_out)
    }
  }
  return Array(output.prefix(produced))
}

func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

/// A btsnoop H4 file (datalink 1002) of `records`' bytes, with their times and directions.
func btsnoopFile(_ records: [RecordSnapshot]) -> [UInt8] {
  func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  var out = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
  for record in records {
    guard case .hci(let type) = record.kind else { continue }
    let body = [type] + record.bytes
    let command = type == 0x01 || type == 0x04
    let flags: UInt32 = (record.direction == .received ? 1 : 0) | (command ? 2 : 0)
    out += be32(UInt32(record.originalLength + 1)) + be32(UInt32(body.count)) + be32(flags) + be32(0)
    out += be64(UInt64(bitPattern: record.timestamp.unixMicroseconds + Timestamp.btsnoopEpochOffset)) + body
  }
  return out
}

/// The folder `../shared/captures/` of the package, nil (with a message) when it is absent.
func sharedCaptures(_ folder: String) -> String? {
  let path = URL(fileURLWithPath: samplePath("")).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/captures/\(folder)").path
  guard FileManager.default.fileExists(atPath: path) else {
    print("skipped: \(path) is absent (the shared test assets)")
    return nil
  }
  return path
}

/// A fresh temporary folder, removed after `body`.
func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("BLECaptureTests-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

/// Runs `tool` with `arguments` in `directory`; false (with a message) when it is not installed or fails.
func run(_ tool: String, _ arguments: [String], in directory: String) -> Bool {
  guard
    let found = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map({ $0 + tool }).first(where: {
      FileManager.default.isExecutableFile(atPath: $0)
    })
  else {
    print("skipped: \(tool) is not installed")
    return false
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: found)
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  guard (try? process.run()) != nil else { return false }
  process.waitUntilExit()
  return process.terminationStatus == 0
}
