/// Connection parameters a peripheral asks for (L2CAP Connection Parameter Update
/// Request, Core 6.0, Vol 3, Part A, 4.20), in their units: intervals of 1.25 ms, the
/// timeout in 10 ms.
public struct ParameterRequest: Hashable, Sendable {
  public var intervalMin: ConnectionInterval
  public var intervalMax: ConnectionInterval
  /// Peripheral_Latency, in connection events.
  public var latency: UInt16
  public var timeout: SupervisionTimeout

  public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16) {
    self.intervalMin = ConnectionInterval(units: intervalMin)
    self.intervalMax = ConnectionInterval(units: intervalMax)
    self.latency = latency
    self.timeout = SupervisionTimeout(units: timeout)
  }

  /// Interval Max × (Peripheral Latency + 1), µs.
  var maxEffectiveInterval: Int64 { intervalMax.microseconds * (Int64(latency) + 1) }
}

/// Apple's rules for the connection parameters an accessory asks an Apple device for: a
/// request that breaks one "may be rejected".
///
/// Source: Apple, *Accessory Design Guidelines for Apple Devices*, section "Connection
/// Parameters" of the Bluetooth Low Energy chapter (49.6 in release R21 of 2023-10-12;
/// 25.6 in R11). An accessory with a Bluetooth LE HID service may get intervals down to
/// 11.25 ms, which these rules do not model.
public enum AppleConnectionRule: String, CaseIterable, Sendable {
  case peripheralLatency = "peripheral_latency"
  case supervisionTimeoutRange = "supervision_timeout_range"
  case intervalMinMultiple = "interval_min_multiple_of_15ms"
  case intervalMinFloor = "interval_min_at_least_15ms"
  case intervalSpread = "interval_max_spread"
  case effectiveInterval = "interval_max_times_latency"
  case timeoutMargin = "supervision_timeout_margin"

  /// The rule as the guidelines state it.
  public var statement: String {
    switch self {
    case .peripheralLatency: "Peripheral Latency ≤ 30"
    case .supervisionTimeoutRange: "2 seconds ≤ Supervision Timeout ≤ 6 seconds"
    case .intervalMinMultiple: "Interval Min modulo 15 ms == 0"
    case .intervalMinFloor: "Interval Min ≥ 15 ms"
    case .intervalSpread: "Interval Min + 15 ms ≤ Interval Max, or Interval Min == Interval Max == 15 ms"
    case .effectiveInterval: "Interval Max × (Peripheral Latency + 1) ≤ 2 seconds"
    case .timeoutMargin: "Interval Max × (Peripheral Latency + 1) × 3 < Supervision Timeout"
    }
  }

  /// Whether `request` keeps the rule.
  public func holds(for request: ParameterRequest) -> Bool {
    let fifteen = ConnectionInterval(units: 12)
    switch self {
    case .peripheralLatency: return request.latency <= 30
    case .supervisionTimeoutRange: return (200...600).contains(request.timeout.units)
    case .intervalMinMultiple: return request.intervalMin.units % fifteen.units == 0
    case .intervalMinFloor: return request.intervalMin.units >= fifteen.units
    case .intervalSpread:
      return Int(request.intervalMin.units) + Int(fifteen.units) <= Int(request.intervalMax.units)
        || (request.intervalMin == fifteen && request.intervalMax == fifteen)
    case .effectiveInterval: return request.maxEffectiveInterval <= 2_000_000
    case .timeoutMargin: return request.maxEffectiveInterval * 3 < Int64(request.timeout.milliseconds) * 1000
    }
  }

  public static let citation =
    "Apple, Accessory Design Guidelines for Apple Devices, Bluetooth Low Energy, Connection Parameters (49.6 in R21)"

  /// The rules `request` breaks, in the guidelines' order.
  public static func broken(by request: ParameterRequest) -> [Self] {
    allCases.filter { !$0.holds(for: request) }
  }
}

/// The connection interval Android asks for with `BluetoothGatt.requestConnectionPriority`:
/// the band an interval in force falls in tells which priority an Android central set.
///
/// Source: Android, `BluetoothGatt.requestConnectionPriority` (CONNECTION_PRIORITY_HIGH,
/// _BALANCED, _LOW_POWER), and AOSP's GATT client, which asks for intervals of 9–12 (HIGH),
/// 24–40 (BALANCED) and 80–100 (LOW_POWER) units of 1.25 ms.
public enum AndroidConnectionPriority: String, CaseIterable, Sendable {
  case high = "HIGH"
  case balanced = "BALANCED"
  case lowPower = "LOW_POWER"

  /// The band of intervals, in units of 1.25 ms.
  public var units: ClosedRange<UInt16> {
    switch self {
    case .high: 9...12
    case .balanced: 24...40
    case .lowPower: 80...100
    }
  }

  /// The priority whose band holds `interval`, if any.
  public static func band(of interval: ConnectionInterval) -> Self? {
    allCases.first { $0.units.contains(interval.units) }
  }

  public static let citation =
    "Android BluetoothGatt.requestConnectionPriority; AOSP GATT client connection intervals (HIGH 11.25–15 ms, BALANCED 30–50 ms, LOW_POWER 100–125 ms)"
}
