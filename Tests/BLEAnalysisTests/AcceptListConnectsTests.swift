import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

/// The Filter Accept List rule, one test per role.
@Suite struct AcceptListConnectsTests {
  typealias T = TimelineBuilderTests
  // D4:36:39:67:A2:61 (A) and D4:36:39:1C:E5:11 (B), public.
  static let a = "61a2673936d4"
  static let b = "11e51c3936d4"
  static func add(_ address: String, at ms: Int64) -> Packet { .command("1120 07 00 \(address)", at: ms) }
  static func remove(_ address: String, at ms: Int64) -> Packet { .command("1220 07 00 \(address)", at: ms) }
  /// LE Create Connection through the list, scanning every `interval` (0.625 ms units, hex LE).
  static func create(interval: String, at ms: Int64) -> Packet {
    .command("0d20 19 \(interval) 3000 01 00 000000000000 00 1800 1800 0000 4800 0000 0000", at: ms)
  }
  static func cancel(_ ms: Int64) -> Packet { .command("0e20 00", at: ms) }
  static func complete(_ address: String, handle: String = "4000", at ms: Int64, status: String = "00") -> Packet {
    .event("3e 13 01 \(status) \(handle) 00 00 \(address) 1800 0000 4800 00", at: ms)
  }
  static func cancelled(_ ms: Int64) -> Packet {
    .event("3e 13 01 02 0000 00 00 000000000000 0000 0000 0000 00", at: ms)
  }

  func connects(_ packets: [Packet]) -> [AppCall] {
    buildApp(packets).calls.filter { $0.kind == .connect || $0.kind == .backgroundConnect }
  }

  @Test func directConnectLeavesTheListOnceConnected() throws {
    let calls = connects([
      Self.add(Self.a, at: 0), Self.create(interval: "6000", at: 1), Self.complete(Self.a, at: 80),
      Self.remove(Self.a, at: 81),
    ])
    let call = try #require(calls.first)
    #expect(calls.count == 1 && call.kind == .connect && call.autoConnect == false && call.outcome == "connected")
    #expect(call.start.frame == 1 && call.end.frame == 3 && call.peerAddress?.description == "D4:36:39:67:A2:61")
  }

  @Test func autoConnectStaysInTheList() throws {
    let calls = connects([
      Self.add(Self.a, at: 0), Self.create(interval: "0008", at: 1), Self.complete(Self.a, at: 5000),
    ])
    #expect(calls.map(\.autoConnect) == [true])
    #expect(calls.first?.outcome == "connected" && calls.first?.origin == .app)
  }

  /// A cancel, an Add of another device and a new Create Connection continue the wait.
  @Test func listMaintenanceIsNoCancel() throws {
    let calls = connects([
      Self.add(Self.a, at: 0), Self.create(interval: "0008", at: 1), Self.cancel(500), Self.cancelled(501),
      Self.add(Self.b, at: 502), Self.create(interval: "6000", at: 503), Self.complete(Self.b, at: 580),
      Self.remove(Self.b, at: 581), Self.create(interval: "0008", at: 582),
    ])
    #expect(calls.count == 2)
    #expect(!calls.contains { $0.outcome == "cancelled" })
    let a = try #require(calls.first { $0.peerAddress?.description == "D4:36:39:67:A2:61" })
    #expect(a.outcome == "pending" && a.requests == [1, 2, 6, 9])
  }

  @Test(arguments: [
    // Fast, removed after 10 s: the app's own cancel.
    (Int64(10_000), "cancelled", AppOrigin.app),
    // Fast, removed at Android's 30 s direct-connect timeout.
    (Int64(30_000), "timeout", AppOrigin.app),
    // Waited longer than any direct connect: the stack's.
    (Int64(90_000), "removed", AppOrigin.system),
  ])
  func unconnectedWait(_ removedAfter: Int64, _ outcome: String, _ origin: AppOrigin) throws {
    let calls = connects([
      Self.add(Self.a, at: 0), Self.create(interval: "6000", at: 1), Self.remove(Self.a, at: removedAfter),
    ])
    #expect(calls.map(\.outcome) == [outcome] && calls.map(\.origin) == [origin])
  }

  @Test func slowScanIsTheStacksBackgroundConnect() throws {
    let calls = connects([
      Self.add(Self.b, at: 0), Self.create(interval: "6000", at: 1), Self.cancel(10), Self.cancelled(11),
      Self.add(Self.a, at: 12), Self.create(interval: "0008", at: 13), Self.remove(Self.a, at: 5000),
    ])
    let a = try #require(calls.first { $0.peerAddress?.description == "D4:36:39:67:A2:61" })
    #expect(a.kind == .backgroundConnect && a.origin == .system && a.systemReason == "background_connect")
  }

  @Test func rearmedAfterDisconnectionIsTheStacks() throws {
    let calls = connects([
      Self.add(Self.a, at: 0), Self.create(interval: "0008", at: 1), Self.complete(Self.a, at: 100),
      .event("05 04 00 4000 08", at: 2000), Self.create(interval: "0008", at: 2001),
    ])
    #expect(calls.map(\.kind) == [.connect, .backgroundConnect])
    #expect(calls.last?.systemReason == "background_reconnect" && calls.last?.outcome == "pending")
    // It begins at the disconnection, which is no request of it: its one Create Connection is.
    #expect(calls.last?.requests == [5] && calls.last?.start.frame == 4)
  }
}
