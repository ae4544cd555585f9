import BLECapture
import BLEDissect
import Foundation
import Testing

@testable import BLEAnalysis
@testable import BLEOutput

/// `TimelineSpill`: `timeline` renders each connection as it retires and keeps only where
/// its output is, and what it copies out at the end is what the whole timeline renders.
@Suite struct TimelineSpillTests {
  /// Two connections up at once whose transactions interleave, each with a write→notify
  /// pair; the first reconnects as the second, which is known only at the end.
  static func timeline() -> Timeline {
    var timeline = Timeline()
    timeline.start = 1_000_000
    func at(_ frame: Int) -> FrameTime { FrameTime(frame: frame, timestamp: 1_000_000 + Int64(frame) * 1250) }
    for (id, frames) in [(1, [3, 7, 11]), (2, [5, 9])] {
      let ref = ConnectionRef(
        id: id, adapter: nil, handle: UInt16(0x40 + id), generation: 0, peer: nil, peerType: nil, role: 0, isLE: true)
      var c = ConnectionTimeline(ref: ref, first: at(frames[0] - 1), last: at(frames[frames.count - 1] + 2))
      c.complete = at(frames[0] - 1)
      c.transactions = frames.map {
        Transaction(
          conn: id, opcode: 0x0A, handle: 0x0003, request: at($0), response: at($0 + 1), responseOpcode: 0x0B,
          outcome: .ok, byLocal: true)
      }
      c.pairs = frames.reversed().map {
        WriteNotifyPair(
          conn: id, write: at($0), writeOpcode: 0x52, writeHandle: 0x31, notify: at($0 + 1), notifyOpcode: 0x1B,
          notifyHandle: 0x2D, byRule: false)
      }
      timeline.connections.append(c)
    }
    timeline.connections[0].reconnectGapMicroseconds = 2500
    timeline.connections[0].reconnectedAs = 2
    return timeline
  }

  /// What `render` writes of `timeline`, with its connections spilled or not.
  static func rendered(_ format: RenderFormat, verbose: Bool = false, spilled: Bool) throws -> String {
    var timeline = timeline()
    var spill: TimelineSpill?
    if spilled {
      spill = try #require(TimelineSpill(format: format, verbose: verbose, file: nil))
      spill?.start = timeline.start
      // Retired as they ended: the reconnect of the first is learnt later.
      var first = timeline.connections[0]
      first.reconnectGapMicroseconds = nil
      first.reconnectedAs = nil
      spill?.add(first)
      spill?.add(timeline.connections[1])
      timeline.retiredReconnects[1] = (2500, 2)
      timeline.connections = []
    }
    var renderer = TimelineRenderer(format: format, verbose: verbose, multipleFiles: false)
    var out = OutputBuffer(fd: -1, flushThreshold: 1 << 20)
    let path = ShowFieldRegistryTests.root.appending(path: "Samples/android-phone.btsnoop").path
    let capture = CaptureInfo(file: path, source: try CaptureFile.open(path), summary: CaptureSummary())
    renderer.render(path: path, timeline, capture: capture, spill: spill, into: &out)
    renderer.finish(into: &out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  @Test(arguments: [(RenderFormat.text, false), (.text, true), (.json, false), (.ndjson, false)])
  func spilledIsTheWholeTimeline(_ format: RenderFormat, _ verbose: Bool) throws {
    let whole = try Self.rendered(format, verbose: verbose, spilled: false)
    #expect(try Self.rendered(format, verbose: verbose, spilled: true) == whole)
    #expect(whole.contains("reconnect"))
  }

  @Test func transactionsAreMergedInRequestOrder() throws {
    let lines = try Self.rendered(.ndjson, spilled: true).split(separator: "\n")
    let frames = lines.filter { $0.contains("\"type\":\"transaction\"") }.compactMap { line in
      line.firstRange(of: "\"request_frame\":").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
    }
    #expect(frames == [3, 5, 7, 9, 11])
  }

  /// What the spill keeps of a retired connection is where its output is: no connection,
  /// transaction or pair stays in memory until the end.
  @Test(arguments: [RenderFormat.text, .json, .ndjson])
  func keepsNoTransactionOfARetiredConnection(_ format: RenderFormat) throws {
    let spill = try #require(TimelineSpill(format: format, verbose: true, file: nil))
    for connection in Self.timeline().connections { spill.add(connection) }
    var kept: [String] = []
    func walk(_ value: Any, depth: Int) {
      let type = String(describing: Swift.type(of: value))
      if type.contains("Transaction") || type.contains("WriteNotifyPair") || type.contains("ConnectionTimeline") {
        kept.append(type)
      }
      guard depth < 12 else { return }
      for child in Mirror(reflecting: value).children { walk(child.value, depth: depth + 1) }
    }
    walk(spill, depth: 0)
    #expect(kept.isEmpty)
    #expect(spill.piecesWritten == (format == .text ? 0 : 10))
  }
}
