import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Memory stays bounded however much a capture announces: reassembly buffers have caps
/// (`acl.reassembly.limit`), so 20,000 L2CAP PDUs that each announce 64 KiB cost no more
/// than a few.
@Suite("Memory bounds")
struct MemoryBoundTests {
  static let pduCount = 20_000
  /// Handles 0x001 to 0x800, both directions: 4,096 PDUs under way at once.
  static let handles = 2_048
  static let continuations = 3
  static let fragmentSize = 251

  /// A btsnoop H4 capture: in blocks of 4,096 PDUs, every start fragment (L2CAP length
  /// 65535 on the ATT channel, 247 of its bytes), then three rounds of 251-byte
  /// continuation fragments. No PDU completes.
  static func announcingCapture() -> Data {
    var data = Data("btsnoop\0".utf8)
    appendBigEndian(&data, UInt32(1), UInt32(1002))
    var time = UInt64(0x00DC_DDB3_0F2F_8000) + 1_700_000_000_000_000
    func record(_ handle: Int, _ received: Bool, pb: UInt8, _ payload: [UInt8]) {
      let length = UInt32(1 + 4 + payload.count)
      appendBigEndian(&data, length, length, UInt32(received ? 1 : 0), UInt32(0))
      appendBigEndian(&data, time)
      time += 100
      data.append(contentsOf: [0x02, UInt8(handle & 0xFF), UInt8(handle >> 8) | pb << 4])
      data.append(contentsOf: [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)])
      data.append(contentsOf: payload)
    }
    let startPayload = [0xFF, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0x52, count: fragmentSize - 4)
    let continuationPayload = [UInt8](repeating: 0xA5, count: fragmentSize)
    let block = 2 * handles
    for blockStart in stride(from: 0, to: pduCount, by: block) {
      let pdus = blockStart..<min(pduCount, blockStart + block)
      for pdu in pdus { record(1 + pdu % handles, (pdu / handles) % 2 == 1, pb: 0b10, startPayload) }
      for _ in 0..<continuations {
        for pdu in pdus { record(1 + pdu % handles, (pdu / handles) % 2 == 1, pb: 0b01, continuationPayload) }
      }
    }
    return data
  }

  static func appendBigEndian(_ data: inout Data, _ values: UInt32...) {
    for value in values { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
  }

  static func appendBigEndian(_ data: inout Data, _ value: UInt64) {
    withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
  }

  static let capture: URL = {
    let url = Paths.scratchFile("announcing.btsnoop")
    try? announcingCapture().write(to: url)
    return url
  }()

  /// `.ci/sanitize` sets BLEANALYZE_SANITIZED: AddressSanitizer's shadow memory and
  /// quarantine make resident memory several times larger, so the bound means nothing there.
  static let sanitized = ProcessInfo.processInfo.environment["BLEANALYZE_SANITIZED"] != nil

  @Test(
    .disabled(if: sanitized, "resident memory under a sanitizer is not the program's"),
    arguments: [
      ["show", "--format", "ndjson"], ["timeline", "--format", "json"], ["stats", "--format", "json"],
      ["throughput", "--format", "json"],
    ])
  func twentyThousandAnnouncedPDUs(_ command: [String]) throws {
    let output = Paths.scratchFile("announcing.out")
    defer { try? FileManager.default.removeItem(at: output) }
    let run = try #require(PeakMemoryRun(Paths.binary.path, command + [Self.capture.path], stdout: output.path))
    #expect(run.status == 0)
    #expect(run.peakKiB > 1024, "no VmHWM was read")
    let megabytes = Double(run.peakKiB) / 1024
    #expect(megabytes < 100, "peak RSS \(megabytes) MB")
    print("memory bound: \(command.joined(separator: " ")): peak RSS \(Int(megabytes)) MB")
    if command[0] == "show" {
      let text = try Data(contentsOf: output)
      #expect(text.range(of: Data("acl.reassembly.limit".utf8)) != nil)
      var lines = 0
      for byte in text where byte == 0x0A { lines += 1 }
      #expect(lines == Self.pduCount * (1 + Self.continuations))
    }
  }
}

/// Runs a program to its end and follows its peak resident memory, the kernel's VmHWM,
/// read from /proc every 2 ms while it runs. (wait4's ru_maxrss would not do: a spawned
/// child's count starts from the parent's peak, the test runner's own 60 MB.) VmHWM only
/// grows, so the last reading misses at most the final 2 ms.
struct PeakMemoryRun {
  var status: Int32
  var peakKiB = 0

  init?(_ path: String, _ arguments: [String], stdout: String) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return nil }
    var waitStatus: Int32 = 0
    while true {
      if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
      {
        peakKiB = max(peakKiB, kib)
      }
      let done = waitpid(pid, &waitStatus, WNOHANG)
      if done == pid { break }
      if done < 0 && errno != EINTR { return nil }
      usleep(2_000)
    }
    // WIFEXITED and WEXITSTATUS: a normal exit leaves the low seven bits zero.
    status = waitStatus & 0x7F == 0 ? (waitStatus >> 8) & 0xFF : -(waitStatus & 0x7F)
  }
}
