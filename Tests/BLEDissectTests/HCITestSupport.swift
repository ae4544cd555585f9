@testable import BLEDissect

/// Decoding helpers for the HCI parameter tests: packets are written the way btmon
/// prints them (event code or opcode, length, parameters), and offsets in errors are
/// offsets in that packet.
enum HCITestDecode {
  struct Result {
    var fields: [Field]
    var error: DecodeError?

    func value(_ name: String) -> FieldValue? { fields.lookup(name)?.value }
    func integer(_ name: String) -> Int64? { fields.lookup(name)?.value.integer }
    var unparsed: Field? { fields.last.flatMap { $0.name == "Unparsed" ? $0 : nil } }
    var groups: [String] { fields.filter { $0.value == .none && !$0.children.isEmpty }.map(\.name) }
  }

  /// An event packet: code, parameter length, parameters.
  static func event(_ packet: [UInt8]) -> Result {
    packet.withUnsafeBytes { raw in
      var c = ByteCursor(raw.bytes, layer: .hci)
      var fields: [Field] = []
      guard let code = try? c.readUInt8(), (try? c.readUInt8()) != nil else { return Result(fields: []) }
      let error = HCIParameters.event(code: code, &c, into: &fields)
      return Result(fields: fields, error: error)
    }
  }

  /// A command packet: opcode (little-endian), parameter length, parameters.
  static func command(_ packet: [UInt8]) -> Result {
    packet.withUnsafeBytes { raw in
      var c = ByteCursor(raw.bytes, layer: .hci)
      var fields: [Field] = []
      guard let opcode = try? c.readUInt16(), (try? c.readUInt8()) != nil else { return Result(fields: []) }
      let error = HCIParameters.command(opcode: opcode, &c, into: &fields)
      return Result(fields: fields, error: error)
    }
  }

  /// A bare layout over `bytes`, as the entry points run it.
  static func layout(_ layout: [HCIParameter], _ bytes: [UInt8]) -> Result {
    bytes.withUnsafeBytes { raw in
      var c = ByteCursor(raw.bytes, layer: .hci)
      var fields: [Field] = []
      var values = ParameterValues()
      do throws(DecodeError) {
        try HCIParameter.decode(layout, &c, into: &fields, values: &values)
      } catch {
        return Result(fields: fields, error: error)
      }
      if !c.isAtEnd { fields.append(Field("Unparsed", .bytes(c.readRemainingBytes()))) }
      return Result(fields: fields)
    }
  }
}

extension HCIParameter {
  /// Every parameter name in the layout, nested ones included.
  static func allNames(_ layout: [HCIParameter]) -> Set<String> {
    var names: Set<String> = []
    for parameter in layout {
      names.insert(parameter.name)
      switch parameter {
      case .repeated(_, _, _, let inner): names.formUnion(allNames(inner))
      case .lengthPrefixed(_, let lengthName, _): names.insert(lengthName)
      default: break
      }
    }
    return names
  }

  /// Names that occur twice at the same level of the layout.
  static func duplicateNames(_ layout: [HCIParameter]) -> [String] {
    var seen: Set<String> = []
    var duplicates: [String] = []
    for parameter in layout {
      var names = [parameter.name]
      if case .lengthPrefixed(_, let lengthName, _) = parameter { names.append(lengthName) }
      for name in names where !seen.insert(name).inserted { duplicates.append(name) }
      if case .repeated(_, _, _, let inner) = parameter { duplicates += duplicateNames(inner) }
    }
    return duplicates
  }
}
