import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Captures of every format, mutated deterministically (bit flips, corrupted length
/// fields, inserted and deleted bytes, truncation), through every command that prints
/// JSON: no crash, no hang, exit 0, 2 or 3, and standard output is valid JSON.
///
/// The mutants of one sample go to one run of each command (a run reads every file it
/// is given), so the whole suite takes seconds. A failing run is repeated with each
/// mutant alone to name the one that fails; it is kept in the scratch folder.
@Suite("Mutated captures")
struct MutationTests {
  /// Every format bleanalyze reads, from Samples/.
  static let samples = [
    "hr-sensor.btsnoop", "hr-sensor-h1.btsnoop", "hr-sensor-monitor.btsnoop", "scanner.btsnoop",
    "secure-sensor.btsnoop", "filtered.btsnoop", "hr-sensor.pcap", "hr-sensor-monitor.pcap", "hr-sensor-ns-be.pcap",
    "hr-sensor.pcapng", "hr-sensor.pklg", "hr-sensor-v1.pklg", "bugreport-hr-sensor.txt",
    "bugreport-hr-sensor.zip",
  ]
  static let commands = ["show", "timeline", "gatt", "devices", "stats", "throughput"]
  static let mutantsPerSample = 24
  /// A run that takes longer is killed and fails the test.
  static let timeLimit: TimeInterval = 10

  @Test(arguments: samples)
  func mutants(_ sample: String) throws {
    let original = [UInt8](try Data(contentsOf: Paths.samples.appending(path: sample)))
    var random = SplitMix64(seed: UInt64(truncatingIfNeeded: sample.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
    let directory = Paths.scratch.appending(path: "mutants-\(sample)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var files: [(path: String, mutation: String)] = []
    for index in 0..<Self.mutantsPerSample {
      var bytes = original
      var applied: [String] = []
      for _ in 0..<(1 + Int(random.next() % 3)) {
        applied.append(Mutator.mutate(&bytes, sample: sample, &random))
      }
      let url = directory.appending(path: "\(index)-\(sample)")
      try Data(bytes).write(to: url)
      files.append((url.path, applied.joined(separator: ", ")))
    }
    for command in Self.commands {
      let failure = Self.check([command, "--format", "json"] + files.map(\.path))
      guard let failure else { continue }
      // Name the mutant that fails.
      var culprits: [String] = []
      for file in files where Self.check([command, "--format", "json", file.path]) != nil {
        culprits.append("\(file.path) (\(file.mutation))")
      }
      Issue.record("\(command) on mutants of \(sample): \(failure); failing alone: \(culprits)")
    }
  }

  /// Runs bleanalyze; nil when it behaved, else what went wrong.
  static func check(_ arguments: [String]) -> String? {
    let run = execute(Paths.binary, arguments, timeLimit: timeLimit)
    if run.timedOut { return "still running after \(Int(timeLimit)) s" }
    if let signal = run.signal { return "killed by signal \(signal); stderr: \(run.stderr.suffix(600))" }
    guard [0, 2, 3].contains(run.status) else {
      return "exit status \(run.status); stderr: \(run.stderr.suffix(600))"
    }
    do {
      _ = try JSONSerialization.jsonObject(with: run.stdout)
    } catch {
      return "stdout is not JSON (\(error)): \(String(decoding: run.stdout.prefix(300), as: UTF8.self))"
    }
    return nil
  }

  /// The mutator's own check: the same seed gives the same mutants.
  @Test func mutationsAreDeterministic() throws {
    let original = [UInt8](try Data(contentsOf: Paths.samples.appending(path: "hr-sensor.btsnoop")))
    func mutants() -> [[UInt8]] {
      var random = SplitMix64(seed: 42)
      return (0..<20).map { _ in
        var bytes = original
        _ = Mutator.mutate(&bytes, sample: "hr-sensor.btsnoop", &random)
        return bytes
      }
    }
    let first = mutants()
    #expect(first == mutants())
    #expect(first.filter { $0 != original }.count >= 15)
  }
}

/// A deterministic pseudo-random generator (SplitMix64).
struct SplitMix64 {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}

/// The mutations: each changes `bytes` and says what it did.
enum Mutator {
  static func mutate(_ bytes: inout [UInt8], sample: String, _ random: inout SplitMix64) -> String {
    guard !bytes.isEmpty else { return "none (empty)" }
    switch random.below(6) {
    case 0:
      var flipped: [Int] = []
      for _ in 0..<(1 + random.below(8)) {
        let bit = random.below(bytes.count * 8)
        bytes[bit / 8] ^= 1 << UInt8(bit % 8)
        flipped.append(bit)
      }
      return "bit flips \(flipped)"
    case 1, 2:
      return corruptLength(&bytes, sample: sample, &random)
    case 3:
      let at = random.below(bytes.count + 1)
      let inserted = (0..<(1 + random.below(64))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      bytes.insert(contentsOf: inserted, at: at)
      return "inserted \(inserted.count) bytes at \(at)"
    case 4:
      let at = random.below(bytes.count)
      let count = min(bytes.count - at, 1 + random.below(64))
      bytes.removeSubrange(at..<at + count)
      return "deleted \(count) bytes at \(at)"
    default:
      let keep = random.below(bytes.count)
      bytes.removeSubrange(keep...)
      return "truncated to \(keep) bytes"
    }
  }

  /// Values a length field is worst at.
  static let extremes: [UInt64] = [
    0, 1, 2, 3, 4, 5, 0x7F, 0xFF, 0x100, 0xFFFE, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0xFFFF_FFFF,
  ]

  /// Overwrites a length field with an extreme value: a record header's lengths in
  /// btsnoop and pcap, the HCI, ACL or L2CAP length inside a record, or any 16- or
  /// 32-bit field elsewhere.
  static func corruptLength(_ bytes: inout [UInt8], sample: String, _ random: inout SplitMix64) -> String {
    let value = extremes[random.below(extremes.count)]
    let fields = lengthFields(bytes, sample: sample)
    var field: (offset: Int, size: Int, bigEndian: Bool)
    if fields.isEmpty || random.below(4) == 0 {
      field = (random.below(bytes.count), random.below(2) == 0 ? 2 : 4, random.below(2) == 0)
    } else {
      field = fields[random.below(fields.count)]
    }
    for k in 0..<field.size where field.offset + k < bytes.count {
      let shift = field.bigEndian ? (field.size - 1 - k) * 8 : k * 8
      bytes[field.offset + k] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
    }
    return "length field at \(field.offset) (\(field.size) bytes) set to \(value)"
  }

  /// Where the lengths are in a btsnoop or pcap file: each record's original and included
  /// lengths, and in H4 records the HCI packet's length fields.
  static func lengthFields(_ bytes: [UInt8], sample: String) -> [(offset: Int, size: Int, bigEndian: Bool)] {
    func u32(_ at: Int, big: Bool) -> Int {
      guard at + 4 <= bytes.count else { return 0 }
      let v = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      return big ? v : Int(UInt32(v).byteSwapped)
    }
    var fields: [(Int, Int, Bool)] = []
    var at: Int
    let big: Bool
    let headerSize: Int
    let lengths: (Int, Int)
    let payload: Int
    if sample.hasSuffix(".btsnoop") {
      (at, big, headerSize, lengths, payload) = (16, true, 24, (0, 4), 24)
    } else if sample.hasSuffix(".pcap") {
      big = bytes.starts(with: [0xA1, 0xB2]) || bytes.starts(with: [0xA1, 0xB2, 0x3C, 0x4D])
      (at, headerSize, lengths, payload) = (24, 16, (8, 12), 16)
    } else {
      return []
    }
    while at + headerSize <= bytes.count, fields.count < 400 {
      fields.append((at + lengths.0, 4, big))
      fields.append((at + lengths.1, 4, big))
      let included = u32(at + lengths.1, big: big)
      let start = at + payload
      // H4 type, then the HCI length fields: command 3 (1), ACL 3 (2), event 2 (1).
      if start < bytes.count, sample.contains("hr-sensor.") || sample.contains("secure") || sample.contains("scanner") {
        switch bytes[start] {
        case 0x01: fields.append((start + 3, 1, false))
        case 0x02:
          fields.append((start + 3, 2, false))
          fields.append((start + 5, 2, false))
        case 0x04: fields.append((start + 2, 1, false))
        default: break
        }
      }
      guard included >= 0, included < 1 << 20 else { break }
      at = start + included
    }
    return fields
  }
}
