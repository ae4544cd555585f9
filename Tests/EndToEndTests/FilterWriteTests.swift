import Foundation
import Testing

/// `show --filter EXPR -w OUT`: the matching records, every fragment of a matching
/// reassembled PDU included, written so that tshark reads them back.
@Suite("show --filter and -w")
struct FilterWriteTests {
  /// Our frames of `file` whose record matches `filter`, and the frames that make up their
  /// PDUs (first fragment to completing frame).
  func notifications(_ path: String) -> (pdus: [Int], fragments: Int) {
    let output = runRaw(["show", "--format", "ndjson", "--filter", "att.opcode == 0x1b", path])
    let lines = recordLines(output.stdout)
    let fragments = lines.map { ($0.object["l2cap"] as? [String: Any])?["fragments"] as? Int ?? 1 }
    return (lines.compactMap { Int($0.frame) }, fragments.reduce(0, +))
  }

  @Test(
    "notifications written as pcap, pcapng and btsnoop read back in tshark",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping"),
    arguments: ["pcap", "pcapng", "btsnoop"])
  func notificationsRoundTrip(_ format: String) throws {
    let input = Paths.samples.appending(path: "hr-sensor.btsnoop").path
    let (pdus, fragments) = notifications(input)
    #expect(pdus == [35, 36, 38, 42, 46])
    #expect(fragments == 6)  // #38 came in two fragments, #37 and #38

    let out = Paths.scratchFile("notifications.\(format)")
    let result = run(["show", "--filter", "att.opcode == 0x1b", "-w", out.path, input])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("wrote 6 records"))
    var frames: [[Substring]] = []
    tsharkFields(out, ["frame.number", "btatt.opcode", "btatt.handle", "bthci_acl.pb_flag"]) { frames.append($0) }
    #expect(frames.count == 6)
    let decoded = frames.filter { $0.count == 4 && !$0[1].isEmpty }
    #expect(decoded.count == 5)
    #expect(decoded.allSatisfy { $0[1] == "0x1b" && $0[2] == "0x000e" })
    // The fragment that starts the reassembled notification is there, before it.
    #expect(frames.count > 3 && frames[2][1].isEmpty && frames[3][1] == "0x1b")
  }

  @Test(
    "every notification of a shared capture, fragments included",
    .enabled(if: tsharkAvailable, "tshark not installed; skipping"),
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func sharedCaptureNotifications() throws {
    let input = Paths.captures.appending(path: "synthetic/ios-central-acl27.btsnoop")
    var expected = 0
    tsharkFields(input, ["btatt.opcode"]) { columns in
      if columns.first?.split(separator: ",").first == "0x1b" { expected += 1 }
    }
    let (pdus, fragments) = notifications(input.path)
    #expect(pdus.count == expected && expected > 0)
    #expect(fragments > pdus.count, "the capture has fragmented notifications")

    let out = Paths.scratchFile("notifications.pcap")
    let result = run(["show", "--format", "ndjson", "--filter", "att.opcode == 0x1b", "-w", out.path, input.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    var written = 0
    var opcodes: [Substring] = []
    tsharkFields(out, ["btatt.opcode"]) { columns in
      written += 1
      if let opcode = columns.first, !opcode.isEmpty { opcodes.append(opcode) }
    }
    #expect(written == fragments)
    #expect(opcodes.count == expected)
    #expect(opcodes.allSatisfy { $0 == "0x1b" })
  }

  @Test func badFilterPointsAtItsColumn() {
    let input = Paths.samples.appending(path: "hr-sensor.btsnoop").path
    let result = run(["show", "--filter", "att.opcode == 0x1g", input])
    #expect(result.status == 1)
    #expect(result.stderr.contains("column 15"))
    #expect(result.stderr.contains("att.opcode == 0x1g\n") && result.stderr.contains("              ^"))
    #expect(result.stdout.isEmpty)
  }

  @Test func filterSelectsByConnectionPeer() {
    let input = Paths.samples.appending(path: "hr-sensor.btsnoop").path
    let all = run(["show", "--format", "ndjson", "--filter", "conn.peer == D4:36:39:67:A2:61", input])
    #expect(all.status == 0)
    // From LE Connection Complete (#15) to Disconnection Complete (#49), every record of
    // the connection: its ACL packets and the events and commands that name its handle.
    let frames = lines(all.stdout).compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["frame"] as? Int
    }
    #expect(frames.first == 15 && frames.last == 49)
    #expect(frames.contains(37) && frames.contains(38))
    let none = run(["show", "--filter", "conn.peer == 00:00:00:00:00:01", input])
    #expect(none.status == 0)
    #expect(!none.stdout.contains(" acl "))
  }
}
