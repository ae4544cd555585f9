import BLECapture
import BLEDissect
import Testing

@testable import BLEAnalysis

@Suite("Redaction pieces")
struct RedactionTests {
  static let irk: [UInt8] = [
    0xec, 0x02, 0x34, 0xa3, 0x57, 0xc8, 0xad, 0x05, 0x34, 0x10, 0x10, 0xa6, 0x0a, 0x39, 0x7d, 0x9b,
  ]

  /// An RPA that `irk` resolves: prand 0x708194 (top bits 0b01) and its hash.
  static var resolvable: DeviceAddress {
    DeviceAddress(rawValue: 0x70_8194 << 24 | UInt64(AES128.ah(irk: irk, prand: 0x70_8194)))
  }

  @Test func pseudonymsKeepTheRandomKindAndResolution() {
    let originals = [
      DeviceAddress("D4:36:39:67:A2:61")!, DeviceAddress("C3:11:22:33:44:55")!, Self.resolvable,
      DeviceAddress("4D:C1:64:29:99:6D")!, DeviceAddress("3A:01:02:03:04:05")!,
    ]
    let standIns = Pseudonyms.identityKeys([Self.irk])
    #expect(standIns == [Array("bleanalyze-irk".utf8) + [0, 1]])
    let pseudonyms = Pseudonyms.addresses(originals, keys: [Self.irk], standIns: standIns)
    #expect(Set(pseudonyms).count == originals.count)
    #expect(Set(pseudonyms).isDisjoint(with: originals))
    for (original, pseudonym) in zip(originals, pseudonyms) {
      #expect(original.randomKind == pseudonym.randomKind, "\(original) → \(pseudonym)")
      #expect(
        AES128.resolves(original, irk: Self.irk) == AES128.resolves(pseudonym, irk: standIns[0]),
        "\(original) → \(pseudonym): resolves with the stand-in exactly when the original did")
    }
    // The same list gives the same pseudonyms.
    #expect(Pseudonyms.addresses(originals, keys: [Self.irk], standIns: standIns) == pseudonyms)
  }

  @Test(arguments: [(13, "device-12\0\0\0\0"), (8, "dev-12\0\0"), (3, "d12"), (2, "12"), (1, "1")])
  func namesFitTheirLength(_ length: Int, _ expected: String) {
    #expect(Pseudonyms.padded(Pseudonyms.name(12), to: length) == Array(expected.utf8))
  }

  @Test func segmentMapsSplitAFieldOverItsFragments() {
    // A 16-octet field at offset 20 of a PDU made of 27 octets of #5 (from 4) and 20 of #6.
    let map = SegmentMap([Segment(frame: 5, offset: 4, count: 27), Segment(frame: 6, offset: 4, count: 20)])
    let pieces = map.pieces(of: 20..<36)!
    #expect(pieces.map(\.segment) == [Segment(frame: 5, offset: 24, count: 7), Segment(frame: 6, offset: 4, count: 9)])
    #expect(pieces.map(\.valueOffset) == [0, 7])
    #expect(map.pieces(of: 40..<48) == nil, "past the end")
  }

  @Test func sweepFindsAddressesInEveryForm() {
    var sweeper = ByteSweeper()
    let original = DeviceAddress("D4:36:39:67:A2:61")!
    let pseudonym = DeviceAddress("C0:00:00:00:00:01")!
    sweeper.addAddress(original, pseudonym)
    // Manufacturer data with the address least significant first, then as text.
    var bytes: [UInt8] =
      [0x0b, 0xff, 0x59, 0x00, 0x61, 0xa2, 0x67, 0x39, 0x36, 0xd4] + Array(" d4:36:39:67:a2:61".utf8)
    let found = sweeper.sweep(&bytes)
    #expect(found[RedactionKind(.address, "found elsewhere")] == 2)
    #expect(bytes == [0x0b, 0xff, 0x59, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xc0] + Array(" c0:00:00:00:00:01".utf8))
    // Values with fewer than three distinct octets would match padding: not swept for.
    var plain = ByteSweeper()
    plain.add([0, 0, 0, 0, 0, 1], [9, 9, 9, 9, 9, 9], RedactionKind(.secret, "x"), bothOrders: false)
    #expect(plain.isEmpty)
  }

  /// Every octet string of 8 octets or more in the HCI tables is either a secret, an
  /// IRK, AD data, or known not to be secret; and every name on those lists is in the
  /// tables (no typo leaves a key in the clear).
  /// The show fields redact replaces are registry fields, and every address field of the
  /// registry is one of them.
  @Test func showFieldsAreTheRegistrys() {
    let fields = Dictionary(uniqueKeysWithValues: ShowField.all.map { ($0.id, $0) })
    for id in RedactionFields.showFields.keys { #expect(fields[id] != nil, "\(id) is not a show field") }
    for field in ShowField.all where field.filterKind == .address {
      #expect(RedactionFields.showFields[field.id] == .address, "\(field.id) holds an address: redact it")
    }
  }

  @Test func hciParameterListsCoverTheTables() {
    func walk(_ layout: [HCIParameter], _ body: (HCIParameter) -> Void) {
      for parameter in layout {
        if case .repeated(_, _, _, let inner) = parameter { walk(inner, body) } else { body(parameter) }
      }
    }
    var names: Set<String> = []
    var unclassified: Set<String> = []
    let classified = RedactionFields.hciSecrets.union(RedactionFields.hciIdentityKeys)
      .union(RedactionFields.hciAdvertisingData).union(RedactionFields.hciNotSecret)
    let layouts =
      HCIParameters.commands.flatMap { [$0.parameters ?? [], $0.returnParameters ?? []] }
      + (HCIParameters.events + HCIParameters.leSubevents).map { $0.parameters ?? [] }
    for layout in layouts {
      walk(layout) { parameter in
        names.insert(parameter.name)
        switch parameter {
        case .bytes(let name, let count) where count >= 8: if !classified.contains(name) { unclassified.insert(name) }
        case .hex64(let name), .rest(let name): if !classified.contains(name) { unclassified.insert(name) }
        default: break
        }
      }
    }
    #expect(unclassified.isEmpty, "classify these: \(unclassified.sorted())")
    let lists = RedactionFields.hciSecrets.union(RedactionFields.hciIdentityKeys).union(
      RedactionFields.hciAdvertisingData)
    #expect(lists.subtracting(names).isEmpty, "not in the tables: \(lists.subtracting(names).sorted())")
  }
}

@Suite("Values known to be safe")
struct SafeValueTests {
  /// Text or octets a safe format carries on purpose: product-level strings (Model
  /// Number, Manufacturer Name); feature bit fields of any length (Client and Server
  /// Supported Features); the Database Hash (the same for every device of a firmware);
  /// operands in the characteristic's own format (Valid Range, the trigger settings,
  /// Record Access Control Point).
  static let byDesign: Set<UInt16> = [0x2A24, 0x2A29, 0x2B29, 0x2B3A, 0x2B2A, 0x2906, 0x290A, 0x290D, 0x2A52]

  static func opaque(_ fields: [DissectorField]) -> [String] {
    fields.flatMap { field -> [String] in
      switch field.type {
      case .utf8, .bytes: return [field.id]
      case .unsigned(let bytes, _) where bytes >= 6: return [field.id]
      default: return opaque(field.children)
      }
    }
  }

  /// Every safe characteristic or descriptor that has a built-in format decodes to
  /// numbers, flags and enumerations only: no text, no opaque octets, nothing as wide
  /// as an address.
  @Test(arguments: RedactionFields.safeValues.sorted())
  func safeFormatsHoldNoTextOrOctets(_ uuid: UInt16) {
    guard let format = DissectorLibrary.builtin.format(for: BluetoothUUID(uuid16: uuid)) else { return }
    let found = Self.opaque(format.fields)
    #expect(
      found.isEmpty || Self.byDesign.contains(uuid),
      "\(format.name) (\(hex(uuid))) has text or octets: \(found)")
  }

  /// The characteristics whose values identify are never on the safe list, and what
  /// a user can write (User Description, New Alert, the User Data service) is not either.
  @Test func identifyingValuesAreNotSafe() {
    for uuid: UInt16 in [
      0x2A00, 0x2A03, 0x2A23, 0x2A25, 0x2A26, 0x2A27, 0x2A28, 0x2901, 0x2A46, 0x2A8A, 0x2A87, 0x2A85,
    ] {
      #expect(!RedactionFields.safeValues.contains(uuid), "\(hex(uuid))")
    }
    #expect(RedactionFields.valueRule(BluetoothUUID(uuid16: 0x2A25)) == .identifier(.serialNumber))
    #expect(RedactionFields.valueRule(BluetoothUUID(uuid16: 0x2803)) == .declaration)
    #expect(RedactionFields.valueRule(BluetoothUUID(uuid16: 0xFFF1)) == nil)
  }

  @Test func valueSweepPrefersTheWholeAddressToItsHalf() {
    var sweeper = ValueSweeper()
    sweeper.addAddress(DeviceAddress("D4:36:39:67:A2:61")!, DeviceAddress("C0:00:00:00:00:01")!)
    // Least significant first: the address starts with its half.
    var bytes: [UInt8] = [0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x61, 0xA2, 0x67]
    let found = sweeper.sweep(&bytes, in: 0..<bytes.count)
    #expect(bytes == [0x01, 0x00, 0x00, 0x00, 0x00, 0xC0, 0x01, 0x00, 0x00])
    #expect(found[RedactionKind(.address, "found in values")] == 2)
  }
}
