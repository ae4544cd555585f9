import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// `redact` remembers between its passes what the second needs, compactly: a few octets
/// per edit, nothing per record beyond that.
@Suite("Redaction memory")
struct RedactionMemoryTests {
  /// A number below `bound` that looks random but is the same every run: `k` and
  /// `salt` through a multiplicative hash.
  static func pick(_ k: Int, _ salt: Int, below bound: Int) -> Int {
    Int((UInt64(truncatingIfNeeded: k &* 31 &+ salt) &* 0x9E37_79B9_7F4A_7C15) >> 33) % bound
  }

  static func same(_ a: RedactionEdit, _ b: RedactionEdit) -> Bool {
    a.frame == b.frame && a.offset == b.offset && a.count == b.count && a.value == b.value
      && a.valueOffset == b.valueOffset
  }

  /// The edits read back, frame by frame and all at once, as a stable sort by frame
  /// of what was added (with the replacements made), over many chunks and with edits
  /// out of frame order, as fragments and `finish` add them.
  @Test func editsReadBackAsAStableSortByFrame() {
    var list = EditList()
    var added: [RedactionEdit] = []
    var indexes: [EditList.Index] = []
    let values: [RedactionValue] = [
      .filler, .keptValue, .name(Array("Polar H10".utf8)),
      .address(DeviceAddress(rawValue: 0xD436_3967_A261), .littleEndian),
      .literal([1, 2, 3]),
    ]
    var frame = 1
    for k in 0..<60_000 {
      frame += Self.pick(k, 1, below: 3)
      // One in twenty lands in an earlier frame (a fragment of a PDU put together).
      let target =
        Self.pick(k, 2, below: 20) == 0 ? max(1, frame - 1 - Self.pick(k, 3, below: 30)) : frame
      let edit = RedactionEdit(
        frame: target, offset: Self.pick(k, 4, below: 300), count: 1 + Self.pick(k, 5, below: 40),
        value: values[Self.pick(k, 6, below: values.count)], valueOffset: Self.pick(k, 7, below: 3) * 7)
      indexes.append(list.append(edit))
      added.append(edit)
    }
    // Long reads put together: some edits get a new value, further into it.
    for j in 0..<500 {
      let k = Self.pick(j, 8, below: added.count)
      list.replace(indexes[k], with: .name(Array("Polar H10 7C".utf8)), from: 5)
      added[k].value = .name(Array("Polar H10 7C".utf8))
      added[k].valueOffset += 5
    }
    list.sort()
    // What `finish` adds after the sort.
    for k in 0..<200 {
      let edit = RedactionEdit(frame: 1 + k * 97, offset: k, count: 2, value: .filler, valueOffset: 0)
      _ = list.append(edit)
      added.append(edit)
    }
    list.sort()
    let expected = added.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(
      \.element)
    var all: [RedactionEdit] = []
    list.forEach { all.append($0) }
    #expect(all.count == expected.count)
    #expect(zip(all, expected).allSatisfy(Self.same), "all at once")
    var byFrame: [Int: [RedactionEdit]] = [:]
    for edit in expected { byFrame[edit.frame, default: []].append(edit) }
    var mismatches = 0
    for f in 0...frame + 1 {
      let run = list.run(of: f)
      let want = byFrame[f] ?? []
      if run.count != want.count || !zip(run, want).allSatisfy(Self.same) { mismatches += 1 }
    }
    #expect(mismatches == 0, "frame by frame, in order")
    // Going back (a retransmission takes the edits of the packet it repeats).
    for f in [frame / 2, 3, frame, frame / 3, frame / 3] {
      let run = list.run(of: f)
      let want = byFrame[f] ?? []
      #expect(run.count == want.count && zip(run, want).allSatisfy(Self.same), "frame \(f) again")
    }
  }

  /// A capture's edits take a few octets each, and the list never holds two copies
  /// of itself while it grows. (Kept as 20-octet entries in one array, it took 20 per
  /// edit and up to three times that while growing and sorting.)
  @Test func editsTakeAFewOctetsEach() {
    var list = EditList()
    var frame = 1
    for k in 0..<300_000 {
      // Most records: an address, a name or a value, at offsets below 256.
      frame += k % 3 == 0 ? 1 : 0
      _ = list.append(RedactionEdit(frame: frame, offset: 7 + k % 200, count: 6, value: .filler, valueOffset: 0))
    }
    list.sort()
    let perEdit = Double(list.retainedBytes) / Double(list.count)
    #expect(perEdit <= 6, "\(perEdit) octets per edit")
  }

  /// The survey's memory after a capture read many times over grows by a few octets
  /// per record at most: it keeps no record, no decode, and no per-record table of
  /// its own (only what the second pass must know, compactly).
  @Test func surveyStaysFlatPerRecord() throws {
    func survey(times: Int) throws -> (bytes: Int, records: Int) {
      var pipeline = RecordPipeline(analyzer: Analyzer(), stages: .analyze)
      var survey = RedactionSurvey(.init())
      var records = 0
      for _ in 0..<times {
        let source = try CaptureFile.open(Self.sample("hr-sensor.btsnoop"))
        let base = records
        while var record = source.next() {
          record.frame += base
          records += 1
          pipeline.push(record) { survey.add($0, $1) }
        }
      }
      pipeline.finish { survey.add($0, $1) }
      return (survey.retainedBytes, records)
    }
    let small = try survey(times: 200)
    let large = try survey(times: 1000)
    let perRecord = Double(large.bytes - small.bytes) / Double(large.records - small.records)
    #expect(perRecord <= 4, "\(perRecord) octets per record")
  }

  static func sample(_ name: String) -> String {
    // Tests/BLEAnalysisTests/<this file> → the package root.
    let parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
    return (parts + ["Samples", Substring(name)]).joined(separator: "/")
  }
}
