import Foundation
import Testing

/// The stack's traffic told apart from the app's: connects through the Filter Accept List,
/// GATT caching and Service Changed, on real Android captures and android-autoconnect.
@Suite("app: the stack's traffic is the stack's")
struct AppStackTests {
  static func calls(_ path: String, api: String = "gatt") throws -> [[String: Any]] {
    try AppTruthTests.calls(Paths.captures.appending(path: path), api: api)
  }

  /// light_controll's app gave up one direct connect (to 6F:C3:9D:CC:2C:8D) 10 s after
  /// adding it, before the stack's 30 s timeout: its own cancel, the only one.
  @Test(
    "no list maintenance is a cancelled connect; 0x3E failures stay; every connect names its peer",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: [
      ("real/fossibot-bluetooth__btsnoop_hci.btsnoop", [Int](), 3),
      ("real/bluethooth_light_controll__btsnoop_hci.btsnoop", [34443], 2),
      ("real/AndroidPad__btsnoop_hci.btsnoop", [Int](), 2),
    ])
  func connects(_ path: String, _ cancelledAt: [Int], _ failures: Int) throws {
    let connects = try Self.calls(path).filter { $0["call"] as? String == "connect" }
    let cancelled = connects.filter { $0["outcome"] as? String == "cancelled" }
    #expect(cancelled.compactMap { ($0["frames"] as? [Int])?.first } == cancelledAt)
    let failed = connects.filter { $0["outcome"] as? String == "failed" }
    #expect(failed.count == failures)
    #expect(failed.allSatisfy { ($0["platform_error"] as? [String: Any])?["hci_status"] as? Int == 0x3E })
    #expect(connects.allSatisfy { ($0["peer"] as? [String: Any])?["address"] is String }, "\(path)")
  }

  @Test(
    "Database Hash reads and Service Changed CCCD writes are the stack's",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: ["real/bluethooth_light_controll__btsnoop_hci.btsnoop", "synthetic/android-autoconnect.btsnoop"])
  func gattCaching(_ path: String) throws {
    let calls = try Self.calls(path)
    let hashReads = calls.filter { $0["call"] as? String == "read" && $0["characteristic_uuid"] as? String == "2b2a" }
    #expect(!hashReads.isEmpty)
    #expect(
      hashReads.allSatisfy { $0["origin"] as? String == "system" && $0["system_reason"] as? String == "gatt_caching" })
    let serviceChanged = calls.filter {
      $0["call"] as? String == "set_notify" && $0["characteristic_uuid"] as? String == "2a05"
    }
    #expect(!serviceChanged.isEmpty)
    #expect(serviceChanged.allSatisfy { $0["origin"] as? String == "system" })
  }

  /// android-autoconnect's truth: the stack's operations (`system`) are no app call, and
  /// connectGatt(autoConnect=true) is one pending call that ends when its peer connects.
  @Test(
    "android-autoconnect: no system operation is an app call; one autoConnect call ends connected",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func autoConnect() throws {
    let (url, truth) = try syntheticTruth("android-autoconnect.btsnoop")
    let calls = try AppTruthTests.calls(url, api: "android")
    let system = try #require(truth["system"] as? [[String: Any]])
    var appFrames: [Int: String] = [:]
    for call in calls where call["origin"] as? String == "app" {
      for frame in call["requests"] as? [Int] ?? [] where call["call"] as? String != "connect" {
        appFrames[frame] = call["call"] as? String
      }
    }
    for operation in system {
      let wire = operation["wire"] as? [String: Any]
      guard let frame = (wire?["first_tx"] as? [String: Any])?["frame"] as? Int else { continue }
      #expect(
        appFrames[frame] == nil,
        "system seq \(operation["seq"] ?? "?") #\(frame) is the app's \(appFrames[frame] ?? "")")
    }
    let auto = calls.filter { $0["call"] as? String == "connect" && $0["auto_connect"] as? Bool == true }
    #expect(auto.count == 1)
    #expect(auto.first?["outcome"] as? String == "connected")
    let generator = try #require(truth["generator"] as? [String: Any])
    let base = try #require(generator["capture_start_unix"] as? Double)
    let expected = try #require((truth["api"] as? [[String: Any]])?.first { $0["auto_connect"] as? Bool == true })
    #expect(
      abs((auto.first?["start_ts"] as? Double ?? 0) - base - Double(expected["start_us"] as? Int ?? 0) / 1e6) <= 0.002)
    #expect(
      abs((auto.first?["end_ts"] as? Double ?? 0) - base - Double(expected["end_us"] as? Int ?? 0) / 1e6) <= 0.002)
    #expect(!calls.contains { $0["call"] as? String == "connect" && $0["result"] as? String == "error" })
  }
}

/// "cached handles" only when no discovery follows on the connection.
@Suite("app: cached handles")
struct AppCachedHandlesTests {
  @Test(
    "a reconnection that discovers again, after the stack's CCCD write from its cache, rediscovered",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: [
      ("real/bluethooth_light_controll__btsnoop_hci.btsnoop", false),
      ("synthetic/ios-central.btsnoop", true),
    ])
  func cachedHandles(_ path: String, _ cached: Bool) throws {
    let reconnections = try AppStackTests.calls(path).filter { $0["call"] as? String == "reconnected" }
    #expect(!reconnections.isEmpty)
    // A reconnection that used no handle and discovered nothing says neither (null).
    let said = reconnections.compactMap { $0["cached_handles"] as? Bool }
    #expect(!said.isEmpty && said.allSatisfy { $0 == cached }, "\(path): \(said)")
  }
}

/// The stack's scan restarts belong to the app's one scan session.
@Suite("app: scan sessions")
struct AppScanSessionTests {
  @Test(
    "light_controll's 201 Scan Enables are one session the stack restarted 200 times",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func restarts() throws {
    let scans = try AppStackTests.calls("real/bluethooth_light_controll__btsnoop_hci.btsnoop").filter {
      $0["call"] as? String == "scan"
    }
    #expect(scans.count == 1)
    let scan = scans.first?["scan"] as? [String: Any]
    #expect(scan?["restarts"] as? Int == 200)
    #expect((scan?["parameter_changes"] as? Int ?? 0) > 0)
  }
}

/// A descriptor read is the app's descriptor call, not a read of its characteristic.
@Suite("app: descriptor calls")
struct AppDescriptorTests {
  @Test(
    "vendor.btsnoop's three Report Reference reads are read_descriptor on 0x24, 0x28 and 0x2b",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
  func reportReferences() throws {
    let calls = try AppStackTests.calls("synthetic/vendor.btsnoop", api: "android")
    let reads = calls.filter { $0["call"] as? String == "read_descriptor" }
    #expect(reads.map { $0["attr_handle"] as? Int } == [0x24, 0x28, 0x2B])
    #expect(reads.allSatisfy { $0["descriptor_name"] as? String == "Report Reference" })
    #expect(reads.allSatisfy { $0["characteristic_uuid"] as? String == "2a4d" })
    #expect(reads.allSatisfy { $0["api_call"] as? String == "BluetoothGatt.readDescriptor(d)" })
  }
}

/// A peripheral's own log is told in CBPeripheralManager and BluetoothGattServer words.
@Suite("app: the peripheral side")
struct AppPeripheralTests {
  @Test(
    "ios-central.peripheral: the peer's reads, writes and subscriptions are server callbacks",
    .enabled(if: sharedAvailable, "../shared/captures not found; skipping"),
    arguments: [
      (
        "corebluetooth", "peripheralManager(_:didReceiveRead:)", "peripheralManager(_:didReceiveWrite:)",
        "updateValue(_:for:onSubscribedCentrals:)"
      ),
      (
        "android", "BluetoothGattServerCallback.onCharacteristicReadRequest(device, requestId, offset, c)",
        "BluetoothGattServerCallback.onCharacteristicWriteRequest(device, requestId, c, preparedWrite, responseNeeded, offset, value)",
        "BluetoothGattServer.notifyCharacteristicChanged(device, c, false, value)"
      ),
    ])
  func serverWords(_ api: String, _ read: String, _ write: String, _ notify: String) throws {
    let calls = try AppStackTests.calls("synthetic/ios-central.peripheral.btsnoop", api: api)
    func apiCalls(_ kind: String) -> Set<String> {
      Set(
        calls.filter { $0["call"] as? String == kind && $0["client"] as? String == "remote" }.compactMap {
          $0["api_call"] as? String
        })
    }
    #expect(apiCalls("read") == [read])
    #expect(apiCalls("write") == [write])
    #expect(apiCalls("notification") == [notify])
  }
}
