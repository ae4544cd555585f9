/// What a parameter layout tells without decoding a packet: the size it takes, and the
/// parameters that sit at fixed offsets (every one before them has a fixed size). Worked
/// out once per layout, it lets the decoder check most commands' and events' lengths and
/// the text listing show their summary without building a field tree, which is then
/// built only when an output, a filter or the analysis asks for it.
public struct HCILayoutIndex: Sendable {
  public enum Size: Sendable {
    /// Always this many octets.
    case fixed(Int)
    /// `prefix` octets, then a count (one octet at `countOffset`, within the prefix) of
    /// `item`-octet elements: Number Of Completed Packets and the like.
    case counted(prefix: Int, countOffset: Int, item: Int)
    /// It depends on the data in another way; only decoding tells.
    case variable
  }

  public struct Placed: Sendable {
    public var parameter: HCIParameter
    public var offset: Int

    /// The value of a scalar parameter in `parameters`, nil when they end before it.
    public func value(in parameters: UnsafeRawBufferPointer) -> FieldValue? {
      guard offset <= parameters.count else { return nil }
      var c = ByteCursor(UnsafeRawBufferPointer(rebasing: parameters[offset...]).bytes, layer: .hci)
      return try? parameter.scalarValue(&c).0
    }
  }

  public let size: Size
  /// The parameters at fixed offsets, in layout order.
  public let placed: [Placed]
  /// The summary's parameters, when each is placed and has a scalar value (no field
  /// tree to build); nil when the summary needs the decoded fields.
  public let summary: [Placed]?
  /// Where a `Connection_Handle` parameter sits, when one is placed: the connection
  /// the command or event is about.
  public let connectionHandle: Int?

  public init(_ layout: [HCIParameter], summary names: [String]) {
    var offset = 0
    var placed: [Placed] = []
    var size = Size.variable
    for (index, parameter) in layout.enumerated() {
      guard let fixed = parameter.fixedSize else {
        if index == layout.count - 1, case .repeated(let countFrom, _, false, let item) = parameter,
          let itemSize = item.fixedSize, itemSize > 0,
          let count = placed.first(where: { $0.parameter.name == countFrom }),
          count.parameter.fixedSize == 1
        {
          size = .counted(prefix: offset, countOffset: count.offset, item: itemSize)
        }
        break
      }
      placed.append(Placed(parameter: parameter, offset: offset))
      offset += fixed
      if index == layout.count - 1 { size = .fixed(offset) }
    }
    if layout.isEmpty { size = .fixed(0) }
    self.size = size
    self.placed = placed
    connectionHandle = placed.first { $0.parameter.name == "Connection_Handle" && $0.parameter.fixedSize == 2 }?.offset
    let summary = names.map { name in placed.first { $0.parameter.name == name && $0.parameter.isScalar } }
    self.summary = summary.contains { $0 == nil } ? nil : summary.compactMap { $0 }
  }

  /// Whether `parameters` holds exactly what the layout takes: then decoding them would
  /// find nothing wrong.
  public func fits(_ parameters: UnsafeRawBufferPointer) -> Bool {
    switch size {
    case .fixed(let octets): return parameters.count == octets
    case .counted(let prefix, let countOffset, let item):
      guard parameters.count >= prefix else { return false }
      return parameters.count == prefix + Int(parameters[countOffset]) * item
    case .variable: return false
    }
  }
}

extension HCIParameter {
  /// Where the parameter called `name` starts in a block laid out as `layout`, and its
  /// size (0 when that varies): when every parameter before it has a fixed size. A parameter inside a
  /// repeated block is its first element's (the first PHY's `Scan_Interval`).
  public static func placement(of name: String, in layout: [HCIParameter]) -> (offset: Int, size: Int)? {
    var offset = 0
    for parameter in layout {
      if case .repeated(_, _, _, let item) = parameter {
        return placement(of: name, in: item).map { (offset + $0.offset, $0.size) }
      }
      if parameter.name == name { return (offset, parameter.fixedSize ?? 0) }
      guard let size = parameter.fixedSize else { return nil }
      offset += size
    }
    return nil
  }

  /// A parameter whose value is one number, code or address: its field has no children
  /// and owns no bytes.
  var isScalar: Bool {
    switch self {
    case .bytes, .text, .lengthPrefixed, .rest, .repeated, .flags: false
    default: true
    }
  }
}
