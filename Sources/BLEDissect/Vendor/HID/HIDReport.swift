/// One report's values, read with its layout from the Report Map, or with the fixed
/// boot protocol layouts.
///
/// Device Class Definition for HID 1.11, 8.4 (fields are packed from the least
/// significant bit of the first byte), 6.2.2.5 (array fields select usages) and Appendix B
/// (boot keyboard and mouse reports); HID Service 1.0 and HID over GATT Profile 1.0 (the Boot
/// Keyboard Input 0x2A22, Boot Keyboard Output 0x2A32 and Boot Mouse Input 0x2A33 characteristics).
public struct HIDReportValues: Hashable, Sendable {
  /// What kind of device the report is from, by its Application collection.
  public enum Kind: String, Hashable, Sendable {
    case keyboard, mouse, consumer, generic
  }

  public var kind: Kind
  /// Keyboard: the modifier keys held (0xE0–0xE7), and the keys held, as Keyboard
  /// page usages in report order.
  public var modifiers: [UInt16] = []
  public var keys: [UInt16] = []
  /// Output reports: the LEDs on (LED page usages).
  public var leds: [UInt16] = []
  /// Mouse: the buttons pressed (Button page usages: 1 is the primary button).
  public var buttons: [UInt16] = []
  public var x: Int64?
  public var y: Int64?
  public var wheel: Int64?
  /// AC Pan (the horizontal wheel).
  public var pan: Int64?
  /// Consumer controls pressed (Consumer page usages).
  public var consumer: [UInt16] = []
  /// Every other value the report holds that is not zero: usage and value.
  public var other: [HIDFieldValue] = []

  public init(kind: Kind) { self.kind = kind }

  /// The modifiers' names (`Left Shift`).
  public var modifierNames: [String] { modifiers.map { HIDUsage(page: HIDUsage.keyboard, id: $0).name } }
  /// The keys' names (`h`).
  public var keyNames: [String] { keys.map { HIDUsage(page: HIDUsage.keyboard, id: $0).name } }
  public var ledNames: [String] { leds.map { HIDUsage(page: HIDUsage.led, id: $0).name } }
  /// `left`, `right`, `middle`, then `button 4`…
  public var buttonNames: [String] {
    buttons.map {
      switch $0 {
      case 1: "left"
      case 2: "right"
      case 3: "middle"
      default: "button \($0)"
      }
    }
  }
  public var consumerNames: [String] { consumer.map { HIDUsage(page: HIDUsage.consumer, id: $0).name } }

  /// What the keys type on a US layout with the shift state of the modifiers.
  public var text: String {
    let shift = modifiers.contains(0xE1) || modifiers.contains(0xE5)
    return keys.compactMap { HIDUsage.character($0, shift: shift) }.joined()
  }
}

/// A usage with the value a report gave it.
public struct HIDFieldValue: Hashable, Sendable {
  public var usage: HIDUsage?
  public var value: Int64
}

extension HIDReportDescriptor.Report {
  /// Reads `bytes` (the report without its Report ID) with this layout. Fields past the
  /// end of a short report are left out; `truncated` says so.
  public func values(_ bytes: [UInt8]) -> (values: HIDReportValues, truncated: Bool) {
    var values = HIDReportValues(kind: HIDReportValues.deviceKind(of: application))
    var truncated = false
    for field in fields where !field.isConstant && field.reportSize > 0 {
      for index in 0..<field.reportCount {
        let bit = field.bitOffset + index * field.reportSize
        guard bit + field.reportSize <= bytes.count * 8 else {
          truncated = true
          break
        }
        let raw = HIDReportValues.bits(bytes, at: bit, count: field.reportSize)
        let value =
          field.isSigned && field.reportSize < 64 && raw >> UInt64(field.reportSize - 1) & 1 == 1
          ? Int64(bitPattern: raw | ~0 << UInt64(field.reportSize)) : Int64(bitPattern: raw)
        if field.isVariable {
          values.add(field.usage(at: index), value)
        } else if value >= Int64(field.logicalMinimum) && value <= Int64(field.logicalMaximum),
          let usage = field.usage(at: Int(value - Int64(field.logicalMinimum)))
        {
          // An array selects a usage; the usage at index 0 of a keyboard array is "None".
          values.select(usage)
        }
      }
    }
    return (values, truncated)
  }
}

extension HIDReportValues {
  public static func deviceKind(of application: HIDUsage?) -> Kind {
    switch (application?.page, application?.id) {
    case (HIDUsage.genericDesktop, 0x06), (HIDUsage.genericDesktop, 0x07): .keyboard
    case (HIDUsage.genericDesktop, 0x02), (HIDUsage.genericDesktop, 0x01): .mouse
    case (HIDUsage.consumer, _): .consumer
    default: .generic
    }
  }

  /// `count` bits from bit `offset`, least significant first (HID 1.11, 8.4).
  static func bits(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<count {
      let bit = offset + index
      if bytes[bit >> 3] >> UInt8(bit & 7) & 1 == 1 { value |= 1 << UInt64(index) }
    }
    return value
  }

  /// A variable field's value.
  mutating func add(_ usage: HIDUsage?, _ value: Int64) {
    switch (usage?.page, usage?.id) {
    case (HIDUsage.keyboard, let id?) where (0xE0...0xE7).contains(id):
      if value != 0 { modifiers.append(id) }
    case (HIDUsage.keyboard, let id?):
      if value != 0 { keys.append(id) }
    case (HIDUsage.led, let id?):
      if value != 0 { leds.append(id) }
    case (HIDUsage.button, let id?):
      if value != 0 { buttons.append(id) }
    case (HIDUsage.genericDesktop, 0x30): x = value
    case (HIDUsage.genericDesktop, 0x31): y = value
    case (HIDUsage.genericDesktop, 0x38): wheel = value
    case (HIDUsage.consumer, 0x238): pan = value
    case (HIDUsage.consumer, let id?):
      if value != 0 { consumer.append(id) }
    default:
      if value != 0 { other.append(HIDFieldValue(usage: usage, value: value)) }
    }
  }

  /// The usage an array field selects.
  mutating func select(_ usage: HIDUsage) {
    switch usage.page {
    // Keyboard usages 0x00–0x03 are None and error codes, not keys.
    case HIDUsage.keyboard: if usage.id > 0x03 { keys.append(usage.id) }
    case HIDUsage.consumer: if usage.id != 0 { consumer.append(usage.id) }
    case HIDUsage.button: if usage.id != 0 { buttons.append(usage.id) }
    case HIDUsage.led: leds.append(usage.id)
    default: other.append(HIDFieldValue(usage: usage, value: 1))
    }
  }

  /// Boot Keyboard Input Report: modifiers, a reserved byte, six key codes.
  public static func bootKeyboard(_ bytes: [UInt8]) throws(DecodeError) -> HIDReportValues {
    guard bytes.count >= 3 else {
      throw DecodeError(.truncated(needed: 3 - bytes.count, available: 0), at: bytes.count, layer: .hid)
    }
    var values = HIDReportValues(kind: .keyboard)
    for bit in 0..<8 where bytes[0] >> UInt8(bit) & 1 == 1 { values.modifiers.append(0xE0 + UInt16(bit)) }
    values.keys = bytes.dropFirst(2).prefix(6).filter { $0 > 0x03 }.map(UInt16.init)
    return values
  }

  /// Boot Keyboard Output Report: the LED bits Num Lock, Caps Lock, Scroll Lock,
  /// Compose, Kana.
  public static func bootLEDs(_ bytes: [UInt8]) throws(DecodeError) -> HIDReportValues {
    guard let byte = bytes.first else {
      throw DecodeError(.truncated(needed: 1, available: 0), at: 0, layer: .hid)
    }
    var values = HIDReportValues(kind: .keyboard)
    for bit in 0..<5 where byte >> UInt8(bit) & 1 == 1 { values.leds.append(UInt16(bit) + 1) }
    return values
  }

  /// Boot Mouse Input Report: buttons, X and Y (signed bytes), and a wheel byte when
  /// the device sends one.
  public static func bootMouse(_ bytes: [UInt8]) throws(DecodeError) -> HIDReportValues {
    guard bytes.count >= 3 else {
      throw DecodeError(.truncated(needed: 3 - bytes.count, available: 0), at: bytes.count, layer: .hid)
    }
    var values = HIDReportValues(kind: .mouse)
    for bit in 0..<3 where bytes[0] >> UInt8(bit) & 1 == 1 { values.buttons.append(UInt16(bit) + 1) }
    values.x = Int64(Int8(bitPattern: bytes[1]))
    values.y = Int64(Int8(bitPattern: bytes[2]))
    if bytes.count > 3 { values.wheel = Int64(Int8(bitPattern: bytes[3])) }
    return values
  }
}

/// The HID Service characteristics and descriptor besides reports (HID Service 1.0:
/// HID Information, Protocol Mode, HID Control Point, Report Reference).
public enum HIDServiceValue: Hashable, Sendable {
  /// HID Information (0x2A4A): bcdHID, bCountryCode, Flags (bit 0 RemoteWake, bit 1
  /// NormallyConnectable).
  case information(bcdHID: UInt16, countryCode: UInt8, flags: UInt8)
  /// Protocol Mode (0x2A4E): 0 Boot Protocol Mode, 1 Report Protocol Mode.
  case protocolMode(UInt8)
  /// HID Control Point (0x2A4C): 0 Suspend, 1 Exit Suspend.
  case controlPoint(UInt8)
  /// Report Reference (0x2908): Report ID and Report Type (1 input, 2 output, 3 feature).
  case reportReference(id: UInt8, type: HIDReportDescriptor.ReportType)

  public static func information(_ bytes: [UInt8]) throws(DecodeError) -> Self {
    try need(4, bytes)
    return .information(bcdHID: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, countryCode: bytes[2], flags: bytes[3])
  }

  public static func protocolMode(_ bytes: [UInt8]) throws(DecodeError) -> Self {
    try need(1, bytes)
    return .protocolMode(bytes[0])
  }

  public static func controlPoint(_ bytes: [UInt8]) throws(DecodeError) -> Self {
    try need(1, bytes)
    return .controlPoint(bytes[0])
  }

  public static func reportReference(_ bytes: [UInt8]) throws(DecodeError) -> Self {
    try need(2, bytes)
    return .reportReference(id: bytes[0], type: .init(rawValue: bytes[1]))
  }

  private static func need(_ count: Int, _ bytes: [UInt8]) throws(DecodeError) {
    guard bytes.count == count else {
      if bytes.count < count {
        throw DecodeError(.truncated(needed: count - bytes.count, available: 0), at: bytes.count, layer: .hid)
      }
      throw DecodeError(.invalid("\(bytes.count) bytes, needs \(count)"), at: count, layer: .hid)
    }
  }

  /// `Boot Protocol Mode`, `Report Protocol Mode`.
  public static func protocolModeName(_ mode: UInt8) -> String {
    switch mode {
    case 0: "Boot Protocol Mode"
    case 1: "Report Protocol Mode"
    default: "Unknown (0x\(hex(mode)))"
    }
  }

  /// `Suspend`, `Exit Suspend`.
  public static func controlPointName(_ command: UInt8) -> String {
    switch command {
    case 0: "Suspend"
    case 1: "Exit Suspend"
    default: "Unknown (0x\(hex(command)))"
    }
  }
}
