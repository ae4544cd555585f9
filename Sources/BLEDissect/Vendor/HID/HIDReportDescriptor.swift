/// A HID report descriptor, as HID over GATT carries it in the Report Map characteristic
/// (0x2A4B): its items, and the layout of each report they declare.
///
/// Device Class Definition for HID 1.11 (USB-IF), section 6.2.2 "Report Descriptor"
/// (short and long items, Main, Global and Local items, collections, Push/Pop) and
/// 8.4 "Report Constraints" (the bit order of fields in a report); HID over GATT
/// Profile 1.0 and HID Service 1.0 (a Report characteristic's value is the report
/// without its Report ID, which its Report Reference descriptor gives).
///
/// A short item:
///
///     7    4 3  2 1  0
///     +------+----+----+------------------------+
///     | bTag |Type|Size| 0, 1, 2 or 4 data bytes |
///     +------+----+----+------------------------+
///
/// and a long item is 0xFE, bDataSize, bLongItemTag and bDataSize data bytes.
///
/// Hostile descriptors are bounded: collections nest at most `maximumDepth` deep,
/// Push at most `maximumDepth` times, a descriptor declares at most `maximumFields`
/// fields and a report at most `maximumReportBits` bits; past a bound the parse stops
/// with an error that names the item's offset.
public struct HIDReportDescriptor: Hashable, Sendable {
  public static let maximumDepth = 32
  public static let maximumFields = 1_024
  public static let maximumReportBits = 8 * 4_096

  /// One item as it is written.
  public struct Item: Hashable, Sendable {
    /// Where it starts in the descriptor.
    public var offset: Int
    /// bType: 0 Main, 1 Global, 2 Local, 3 Reserved (a long item's is 3 too).
    public var type: UInt8
    public var tag: UInt8
    /// bSize as written: 0, 1, 2 or 3 (3 means 4 bytes); a long item's bDataSize.
    public var sizeCode: UInt8
    /// The data, little-endian, zero-extended (long items: 0).
    public var data: UInt32
    /// The data's byte count.
    public var dataSize: Int
    public var isLong: Bool

    /// The data read as a signed number of its size (Logical Minimum and the like).
    public var signedData: Int32 {
      switch dataSize {
      case 1: Int32(Int8(truncatingIfNeeded: data))
      case 2: Int32(Int16(truncatingIfNeeded: data))
      default: Int32(bitPattern: data)
      }
    }

    /// `Input`, `Usage Page`, `Logical Maximum`…: the item's name in HID 1.11, 6.2.2.
    public var name: String {
      if isLong { return "Long Item" }
      let names: [UInt8: StaticString]
      switch type {
      case 0:
        names = [0x8: "Input", 0x9: "Output", 0xB: "Feature", 0xA: "Collection", 0xC: "End Collection"]
      case 1:
        names = [
          0x0: "Usage Page", 0x1: "Logical Minimum", 0x2: "Logical Maximum", 0x3: "Physical Minimum",
          0x4: "Physical Maximum", 0x5: "Unit Exponent", 0x6: "Unit", 0x7: "Report Size", 0x8: "Report ID",
          0x9: "Report Count", 0xA: "Push", 0xB: "Pop",
        ]
      case 2:
        names = [
          0x0: "Usage", 0x1: "Usage Minimum", 0x2: "Usage Maximum", 0x3: "Designator Index",
          0x4: "Designator Minimum", 0x5: "Designator Maximum", 0x7: "String Index", 0x8: "String Minimum",
          0x9: "String Maximum", 0xA: "Delimiter",
        ]
      default: names = [:]
      }
      return names[tag]?.description ?? "Reserved (type \(type), tag 0x\(hex(tag)))"
    }
  }

  /// Input, Output or Feature.
  public struct ReportType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The values of the Report Reference descriptor's Report Type (HID Service 1.0, Report Reference descriptor).
    public static let input = Self(rawValue: 1)
    public static let output = Self(rawValue: 2)
    public static let feature = Self(rawValue: 3)

    public var name: String {
      switch rawValue {
      case 1: "input"
      case 2: "output"
      case 3: "feature"
      default: "type \(rawValue)"
      }
    }
  }

  /// One Input, Output or Feature item: where its values are in its report and what
  /// they mean.
  public struct Field: Hashable, Sendable {
    /// The first bit in the report (its Report ID excluded).
    public var bitOffset: Int
    public var reportSize: Int
    public var reportCount: Int
    /// The Main item's data: bit 0 Constant, 1 Variable, 2 Relative…
    public var flags: UInt32
    public var logicalMinimum: Int32
    public var logicalMaximum: Int32
    /// The usages the Local items gave, in order, or a Usage Minimum…Maximum range.
    public var usages: [HIDUsage]
    public var usageRange: ClosedRange<UInt32>?
    /// The page of a range, and of usages written without one.
    public var usagePage: UInt16
    /// The usage of the innermost Application collection around it.
    public var application: HIDUsage?

    public var isConstant: Bool { flags & 0x01 != 0 }
    public var isVariable: Bool { flags & 0x02 != 0 }
    public var isRelative: Bool { flags & 0x04 != 0 }
    public var isSigned: Bool { logicalMinimum < 0 }

    /// The usage of a variable field's `index`th value, or of an array's selector
    /// `index` (its value less the Logical Minimum).
    public func usage(at index: Int) -> HIDUsage? {
      if let usageRange {
        let id = UInt64(usageRange.lowerBound) + UInt64(index)
        guard id <= UInt64(usageRange.upperBound) else { return nil }
        return HIDUsage(page: usagePage, id: UInt16(truncatingIfNeeded: id))
      }
      guard !usages.isEmpty else { return nil }
      // Variable fields with fewer usages than values repeat the last one (6.2.2.8).
      return index < usages.count ? usages[index] : (isVariable ? usages.last : nil)
    }
  }

  /// One report: a Report ID (0 when the descriptor declares none) and type, its
  /// fields, and its size.
  public struct Report: Hashable, Sendable {
    public var id: UInt8
    public var type: ReportType
    public var fields: [Field] = []
    public var bits = 0

    /// The usage of the Application collection its first field is in: what device
    /// the report is (Keyboard, Mouse, Consumer Control…).
    public var application: HIDUsage? { fields.first { $0.application != nil }?.application }
  }

  public var items: [Item] = []
  public var reports: [Report] = []
  /// The descriptor uses Report ID items.
  public var usesReportIDs = false

  /// The report with `id` and `type`, or the only one of `type` when the descriptor
  /// declares no Report IDs.
  public func report(id: UInt8, type: ReportType) -> Report? {
    reports.first { $0.id == id && $0.type == type }
  }

  private struct Globals {
    var usagePage: UInt16 = 0
    var logicalMinimum: Int32 = 0
    var logicalMaximum: Int32 = 0
    var reportSize = 0
    var reportCount = 0
    var reportID: UInt8 = 0
  }

  public init(parsing bytes: [UInt8]) throws(DecodeError) {
    var globals = Globals()
    var stack: [Globals] = []
    var usages: [HIDUsage] = []
    var usageMinimum: UInt32?
    var usageMaximum: UInt32?
    var usageRangePage: UInt16?
    var collections: [HIDUsage?] = []
    var applications: [HIDUsage?] = []
    var fieldCount = 0
    var position = 0
    func fail(_ why: String, _ offset: Int) -> DecodeError { DecodeError(.invalid(why), at: offset, layer: .hid) }

    while position < bytes.count {
      let start = position
      let prefix = bytes[position]
      position += 1
      if prefix == 0xFE {
        guard bytes.count - position >= 2 else {
          throw DecodeError(.truncated(needed: 2, available: bytes.count - position), at: position, layer: .hid)
        }
        let size = Int(bytes[position])
        let tag = bytes[position + 1]
        position += 2
        guard bytes.count - position >= size else {
          throw DecodeError(.truncated(needed: size, available: bytes.count - position), at: position, layer: .hid)
        }
        position += size
        items.append(
          Item(offset: start, type: 3, tag: tag, sizeCode: UInt8(size), data: 0, dataSize: size, isLong: true))
        continue
      }
      let sizeCode = prefix & 0x03
      let size = sizeCode == 3 ? 4 : Int(sizeCode)
      guard bytes.count - position >= size else {
        throw DecodeError(.truncated(needed: size, available: bytes.count - position), at: position, layer: .hid)
      }
      var data: UInt32 = 0
      for index in 0..<size { data |= UInt32(bytes[position + index]) << (8 * UInt32(index)) }
      position += size
      let item = Item(
        offset: start, type: prefix >> 2 & 0x03, tag: prefix >> 4, sizeCode: sizeCode, data: data, dataSize: size,
        isLong: false)
      items.append(item)

      switch (item.type, item.tag) {
      // Main items.
      case (0, 0x8), (0, 0x9), (0, 0xB):
        let type: ReportType = item.tag == 0x8 ? .input : item.tag == 0x9 ? .output : .feature
        fieldCount += 1
        guard fieldCount <= Self.maximumFields else { throw fail("more than \(Self.maximumFields) fields", start) }
        var index = reports.firstIndex { $0.id == globals.reportID && $0.type == type }
        if index == nil {
          reports.append(Report(id: globals.reportID, type: type))
          index = reports.count - 1
        }
        let bits = globals.reportSize * globals.reportCount
        guard reports[index!].bits + bits <= Self.maximumReportBits else {
          throw fail("a report longer than \(Self.maximumReportBits) bits", start)
        }
        var range: ClosedRange<UInt32>?
        if let low = usageMinimum, let high = usageMaximum, low <= high { range = low...high }
        reports[index!].fields.append(
          Field(
            bitOffset: reports[index!].bits, reportSize: globals.reportSize, reportCount: globals.reportCount,
            flags: item.data, logicalMinimum: globals.logicalMinimum, logicalMaximum: globals.logicalMaximum,
            usages: usages, usageRange: range, usagePage: usageRangePage ?? globals.usagePage,
            application: applications.last ?? nil))
        reports[index!].bits += bits
      case (0, 0xA):
        guard collections.count < Self.maximumDepth else {
          throw fail("collections nested deeper than \(Self.maximumDepth)", start)
        }
        let usage = usages.first
        collections.append(usage)
        // Collection type 0x01: Application.
        applications.append(item.data == 0x01 ? usage : applications.last ?? nil)
      case (0, 0xC):
        guard !collections.isEmpty else { throw fail("an End Collection without a Collection", start) }
        collections.removeLast()
        applications.removeLast()
      // Global items.
      case (1, 0x0): globals.usagePage = UInt16(truncatingIfNeeded: data)
      case (1, 0x1): globals.logicalMinimum = item.signedData
      case (1, 0x2):
        // A maximum written unsigned above a non-negative minimum stays unsigned (255 in one byte).
        globals.logicalMaximum =
          globals.logicalMinimum >= 0 && item.signedData < 0 ? Int32(bitPattern: data) : item.signedData
      case (1, 0x7):
        guard data <= 32 else { throw fail("a Report Size of \(data) bits (at most 32)", start) }
        globals.reportSize = Int(data)
      case (1, 0x8):
        guard data > 0 && data <= 0xFF else { throw fail("Report ID \(data) (1–255)", start) }
        globals.reportID = UInt8(data)
        usesReportIDs = true
      case (1, 0x9):
        guard data <= UInt32(Self.maximumReportBits) else { throw fail("a Report Count of \(data)", start) }
        globals.reportCount = Int(data)
      case (1, 0xA):
        guard stack.count < Self.maximumDepth else { throw fail("Push nested deeper than \(Self.maximumDepth)", start) }
        stack.append(globals)
      case (1, 0xB):
        guard let top = stack.popLast() else { throw fail("a Pop without a Push", start) }
        globals = top
      // Local items: a 4-byte usage carries its page in the high half (6.2.2.8).
      case (2, 0x0):
        guard usages.count < Self.maximumFields else { throw fail("more than \(Self.maximumFields) usages", start) }
        usages.append(
          HIDUsage(
            page: size == 4 ? UInt16(data >> 16) : globals.usagePage, id: UInt16(truncatingIfNeeded: data)))
      case (2, 0x1):
        usageMinimum = size == 4 ? data & 0xFFFF : data
        if size == 4 { usageRangePage = UInt16(data >> 16) }
      case (2, 0x2): usageMaximum = size == 4 ? data & 0xFFFF : data
      default: break
      }
      if item.type == 0 {
        // Main items clear the Local state.
        usages.removeAll(keepingCapacity: true)
        usageMinimum = nil
        usageMaximum = nil
        usageRangePage = nil
      }
    }
    guard collections.isEmpty else {
      throw DecodeError(.invalid("\(collections.count) collections left open"), at: bytes.count, layer: .hid)
    }
  }
}
