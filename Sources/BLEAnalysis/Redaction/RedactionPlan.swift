import BLEDissect

/// What `redact` replaces in a capture, made by `RedactionSurvey` from a first pass:
/// the edits of each record, the pseudonyms, and the values to sweep for. `apply`
/// patches one record's bytes in the second pass.
///
/// - Addresses get pseudonyms in the order they first appear. The two most
///   significant bits stay (static 0b11, resolvable 0b01, non-resolvable 0b00), and a
///   resolvable private address that an IRK of the capture resolves becomes one that
///   the IRK's stand-in resolves, so address resolution works on the result as on
///   the original. No pseudonym is an address of the original capture.
/// - IRKs get made-up keys, `bleanalyze-irk` and a number.
/// - Names become `device-1`, `device-2`… (shorter forms when the name is shorter),
///   padded with NULs to the name's length.
/// - Secrets become filler octets of the same length.
/// - Then every record is swept for the original addresses (in both byte orders and as
///   text), IRKs, secrets and names anywhere else: a vendor event, a MGMT message, a
///   manufacturer-specific AD field. Values with fewer than three distinct octets are
///   not swept for, since they would match padding.
/// - An air packet whose PDU changed gets its CRC moved by the change, so a good CRC
///   stays good and a bad one stays bad.
public struct RedactionPlan {
  private var edits: EditList
  /// Original → pseudonym, in the order the originals first appear.
  public let addresses: [(original: DeviceAddress, redacted: DeviceAddress)]
  /// IRKs, most significant octet first.
  public let identityKeys: [(original: [UInt8], redacted: [UInt8])]
  /// Names as found (UTF-8 octets) → `device-N`.
  public let names: [(original: [UInt8], redacted: String)]
  /// Serial numbers (and revision strings with `--strict`) as found → `serial-N`…
  public let identifiers: [(kind: IdentifierKind, original: [UInt8], redacted: String)]
  /// Attribute values that stayed or were blanked, by characteristic.
  public let values: [String: ValueTally]
  /// Air packets with a bad CRC.
  public let damaged: DamagedTally
  /// What was asked.
  public let options: RedactionSurvey.Options
  /// Fields replaced, by kind (the sweep's finds are added as records are patched).
  public private(set) var counts: [RedactionKind: Int]
  /// The frames where the sweep found copies, by category, as records are patched.
  public private(set) var swept: [RedactionKind.Category: [Int]] = [:]
  /// Frames with octets no decoder could read, by reason (a diagnostic id, or
  /// `hci.vendor`, `monitor.mgmt`, `redact.unmapped`): only the sweep went over them.
  public let unparsed: [(reason: String, frames: [Int])]
  private var llRegions: FrameRanges
  private let addressTable: [DeviceAddress: DeviceAddress]
  private let keyTable: [[UInt8]: [UInt8]]
  private let nameTable: [[UInt8]: [UInt8]]
  private let identifierTable: [IdentifierKind: [[UInt8]: [UInt8]]]
  private let sweeper: ByteSweeper
  private let valueSweeper: ValueSweeper

  init(
    edits: EditList, addresses: [DeviceAddress], identityKeys: [[UInt8]], names: [[UInt8]],
    identifiers: [(IdentifierKind, [UInt8])] = [], secrets: Set<[UInt8]>, counts: [RedactionKind: Int],
    unparsed: [String: [Int]], llRegions: FrameRanges, values: [ValueKey: ValueTally] = [:],
    spannedValues: SpannedValues = .init(),
    damaged: DamagedTally = .init(), options: RedactionSurvey.Options = .init()
  ) {
    var edits = edits
    self.counts = counts
    self.llRegions = llRegions
    // By label: two attributes named alike (one characteristic on two servers) are one line.
    self.values = values.values.reduce(into: [:]) { labels, tally in
      labels[tally.label, default: ValueTally(label: tally.label, safe: tally.safe)].merge(tally)
    }
    self.damaged = damaged
    self.options = options
    self.unparsed = unparsed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    let keys = Pseudonyms.identityKeys(identityKeys)
    self.identityKeys = Array(zip(identityKeys, keys))
    keyTable = Dictionary(zip(identityKeys, keys), uniquingKeysWith: { first, _ in first })
    let pseudonyms = Pseudonyms.addresses(addresses, keys: identityKeys, standIns: keys)
    self.addresses = Array(zip(addresses, pseudonyms))
    addressTable = Dictionary(zip(addresses, pseudonyms), uniquingKeysWith: { first, _ in first })
    let replacements = names.indices.map { Pseudonyms.name($0 + 1) }
    self.names = zip(names, replacements).map { ($0, $1) }
    nameTable = Dictionary(
      zip(names, zip(names, replacements).map { Pseudonyms.padded($1, to: $0.count) }), uniquingKeysWith: { a, _ in a })
    var numbers: [IdentifierKind: Int] = [:]
    var identifierTable: [IdentifierKind: [[UInt8]: [UInt8]]] = [:]
    self.identifiers = identifiers.map { kind, original in
      numbers[kind, default: 0] += 1
      let redacted = Pseudonyms.identifier(kind, numbers[kind]!)
      identifierTable[kind, default: [:]][original] = Pseudonyms.padded(redacted, to: original.count, kind)
      return (kind, original, redacted)
    }
    self.identifierTable = identifierTable
    var sweeper = ByteSweeper()
    var valueSweeper = ValueSweeper()
    for (original, redacted) in self.addresses {
      sweeper.addAddress(original, redacted)
      valueSweeper.addAddress(original, redacted)
    }
    for name in names {
      valueSweeper.addText(name, nameTable[name]!, RedactionKind(.name, "found in values"))
    }
    for (kind, original, _) in self.identifiers where kind == .serialNumber {
      let replacement = identifierTable[kind]![original]!
      valueSweeper.addText(original, replacement, RedactionKind(.identifier, "found in values"))
      if original.count >= 6 {
        sweeper.add(original, replacement, RedactionKind(.identifier, "found elsewhere"), bothOrders: false)
      }
    }
    for (original, redacted) in self.identityKeys {
      sweeper.add(original, redacted, RedactionKind(.identityKey, "found elsewhere"), bothOrders: true)
    }
    for secret in secrets where secret.count >= 8 {
      sweeper.add(
        secret, [UInt8](repeating: RedactionFields.filler, count: secret.count),
        RedactionKind(.secret, "found elsewhere"), bothOrders: true)
    }
    for name in names where name.count >= 6 {
      for variant in Pseudonyms.caseVariants(name) {
        sweeper.add(variant, nameTable[name]!, RedactionKind(.name, "found elsewhere"), bothOrders: false)
      }
    }
    self.sweeper = sweeper
    self.valueSweeper = valueSweeper
    // Kept values that span records: swept whole, and patched where they changed.
    var spannedCounts: [RedactionKind: Int] = [:]
    spannedValues.forEach { pieces, original in
      var swept = original
      let found = valueSweeper.sweep(&swept, in: 0..<swept.count)
      guard !found.isEmpty else { return }
      spannedCounts.merge(found, uniquingKeysWith: +)
      for (segment, valueOffset) in pieces {
        let part = valueOffset..<valueOffset + segment.count
        guard swept[part] != original[part] else { continue }
        _ = edits.append(
          RedactionEdit(
            frame: segment.frame, offset: segment.offset, count: segment.count, value: .literal(Array(swept[part])),
            valueOffset: 0))
      }
    }
    self.counts.merge(spannedCounts, uniquingKeysWith: +)
    edits.sort()
    self.edits = edits
  }

  /// The pseudonym of an address of the original capture, if it had one.
  public func pseudonym(of address: DeviceAddress) -> DeviceAddress? { addressTable[address] }

  /// Patches the bytes of record `frame`: its edits, the sweep, and its CRC.
  public mutating func apply(frame: Int, to bytes: inout [UInt8]) {
    let region = llRegions.range(of: frame)
    let before = region != nil ? bytes : []
    let own = edits.run(of: frame)
    for edit in own where edit.value != .keptValue {
      let replacement = self.replacement(edit.value, length: edit.valueOffset + edit.count)
      for k in 0..<edit.count where edit.offset + k < bytes.count && edit.valueOffset + k < replacement.count {
        bytes[edit.offset + k] = replacement[edit.valueOffset + k]
      }
    }
    var found = sweeper.sweep(&bytes)
    for edit in own where edit.value == .keptValue {
      let range = edit.offset..<min(bytes.count, edit.offset + edit.count)
      guard !range.isEmpty else { continue }
      found.merge(valueSweeper.sweep(&bytes, in: range), uniquingKeysWith: +)
    }
    for (kind, found) in found {
      counts[kind, default: 0] += found
      if swept[kind.category]?.last != frame { swept[kind.category, default: []].append(frame) }
    }
    if let region, region.upperBound + 3 <= bytes.count, bytes[region] != before[region] {
      let at = region.upperBound
      let crc = UInt32(before[at]) | UInt32(before[at + 1]) << 8 | UInt32(before[at + 2]) << 16
      let updated = LLCRC.updated(crc, from: Array(before[region]), to: Array(bytes[region]))
      bytes[at] = UInt8(truncatingIfNeeded: updated)
      bytes[at + 1] = UInt8(truncatingIfNeeded: updated >> 8)
      bytes[at + 2] = UInt8(truncatingIfNeeded: updated >> 16)
    }
  }

  /// The octets that replace a value, at least `length` of them.
  private func replacement(_ value: RedactionValue, length: Int) -> [UInt8] {
    switch value {
    case .address(let address, let form):
      return Pseudonyms.octets(addressTable[address] ?? address, form)
    case .filler:
      return [UInt8](repeating: RedactionFields.filler, count: length)
    case .identityKey(let key):
      return (keyTable[key] ?? key).reversed()
    case .name(let name):
      return nameTable[name] ?? Pseudonyms.padded(Pseudonyms.name(0), to: name.count)
    case .identifier(let kind, let text):
      return identifierTable[kind]?[text] ?? Pseudonyms.padded(Pseudonyms.identifier(kind, 0), to: text.count, kind)
    case .literal(let octets):
      return octets
    case .keptValue:
      return []
    }
  }
}

/// How pseudonyms are made.
enum Pseudonyms {
  static let randomKindMask: UInt64 = 0xC000_0000_0000
  static let resolvableBits: UInt64 = 0x4000_0000_0000

  /// Made-up IRKs: `bleanalyze-irk` and a 16-bit number, most significant first.
  static func identityKeys(_ originals: [[UInt8]]) -> [[UInt8]] {
    var keys: [[UInt8]] = []
    var number: UInt16 = 0
    for _ in originals {
      var key: [UInt8]
      repeat {
        number &+= 1
        key = Array("bleanalyze-irk".utf8) + [UInt8(number >> 8), UInt8(number & 0xFF)]
      } while originals.contains(key)
      keys.append(key)
    }
    return keys
  }

  /// One pseudonym per address, in order: the original's two top bits and a number,
  /// or for a resolvable private address that `keys[i]` resolves, a prand with a
  /// number and the hash `standIns[i]` gives it. None is an original, none repeats,
  /// and a pseudonym resolves with a stand-in exactly when its original resolved.
  static func addresses(_ originals: [DeviceAddress], keys: [[UInt8]], standIns: [[UInt8]]) -> [DeviceAddress] {
    var used = Set(originals)
    var number: UInt64 = 0
    var prand: UInt32 = 0
    var result: [DeviceAddress] = []
    for original in originals {
      let top = original.rawValue & randomKindMask
      let resolver = top == resolvableBits ? keys.firstIndex { AES128.resolves(original, irk: $0) } : nil
      var candidate: DeviceAddress
      while true {
        if let resolver {
          prand = prand &+ 1
          let random = 0x40_0000 | prand & 0x3F_FFFF
          candidate = DeviceAddress(
            rawValue: UInt64(random) << 24 | UInt64(AES128.ah(irk: standIns[resolver], prand: random)))
          let others = standIns.indices.filter { $0 != resolver }
          if others.contains(where: { AES128.resolves(candidate, irk: standIns[$0]) }) { continue }
        } else {
          number += 1
          candidate = DeviceAddress(rawValue: top | number & ~randomKindMask)
          if top == resolvableBits, standIns.contains(where: { AES128.resolves(candidate, irk: $0) }) { continue }
        }
        if !RedactionFields.isPlaceholder(candidate), used.insert(candidate).inserted { break }
      }
      result.append(candidate)
    }
    return result
  }

  /// `device-N`, or the shorter `dev-N`, `dN`, `N` where the name has fewer octets.
  static func name(_ number: Int) -> String { "device-\(number)" }

  /// `serial-N` (`firmware-N`, `hardware-N`, `software-N`).
  static func identifier(_ kind: IdentifierKind, _ number: Int) -> String { kind.forms.long + "\(number)" }

  /// The replacement `name` in `length` octets: the longest form that fits, the rest
  /// NULs. A name's short forms are `dev-N`, `dN`, `N`; an identifier's its kind's.
  static func padded(_ name: String, to length: Int, _ kind: IdentifierKind? = nil) -> [UInt8] {
    let number = name.drop { !$0.isNumber }
    let short = kind.map { [$0.forms.short, $0.forms.letter] } ?? ["dev-", "d"]
    let forms = [name, short[0] + number, short[1] + number, String(number)]
    let form = forms.first { $0.utf8.count <= length } ?? String(number)
    return Array(form.utf8.prefix(length)) + [UInt8](repeating: 0, count: max(0, length - form.utf8.count))
  }

  /// A text as found, in lower case and in upper case (those of the same length).
  static func caseVariants(_ text: [UInt8]) -> [[UInt8]] {
    let string = String(decoding: text, as: UTF8.self)
    var variants = [text]
    for variant in [Array(string.lowercased().utf8), Array(string.uppercased().utf8)]
    where variant.count == text.count && !variants.contains(variant) {
      variants.append(variant)
    }
    return variants
  }

  /// Every way a value may spell an address, in a fixed order (so that an original's
  /// and its pseudonym's pair up): six octets least and most significant first, then
  /// text in upper and lower case with `:`, `-` or nothing between the octets.
  static func spellings(_ address: DeviceAddress) -> [[UInt8]] {
    let octets = octets(address, .bigEndian)
    return [octets.reversed(), octets] + textSpellings(octets)
  }

  /// The device-specific half of an address (its last three octets, below the OUI),
  /// spelled as `spellings` does.
  static func halfSpellings(_ address: DeviceAddress) -> [[UInt8]] {
    let half = Array(octets(address, .bigEndian)[3..<6])
    return [half.reversed(), half] + textSpellings(half)
  }

  private static func textSpellings(_ octets: [UInt8]) -> [[UInt8]] {
    var spellings: [[UInt8]] = []
    for upper in [true, false] {
      let digits = octets.map { upper ? hex($0).uppercased() : hex($0) }
      for separator in [":", "-", ""] { spellings.append(Array(digits.joined(separator: separator).utf8)) }
    }
    return spellings
  }

  /// An address written in `form`.
  static func octets(_ address: DeviceAddress, _ form: AddressForm) -> [UInt8] {
    let littleEndian = (0..<6).map { UInt8(truncatingIfNeeded: address.rawValue >> (8 * UInt64($0))) }
    switch form {
    case .littleEndian: return littleEndian
    case .bigEndian: return littleEndian.reversed()
    case .upperText: return Array(address.description.utf8)
    case .lowerText: return Array(address.description.lowercased().utf8)
    }
  }
}

/// What a sweep looks for, what replaces it (as long), and what it counts as.
struct SweepPattern {
  var original: [UInt8]
  var replacement: [UInt8]
  var kind: RedactionKind
}

/// Finds copies of the original values anywhere in a record and replaces them: one
/// table lookup per octet, by the first six octets of each pattern.
struct ByteSweeper {
  private typealias Pattern = SweepPattern

  private var table: [UInt64: [Pattern]] = [:]

  var isEmpty: Bool { table.isEmpty }

  /// Values with fewer distinct octets would match padding and counters.
  static func isDistinctive(_ octets: [UInt8]) -> Bool { Set(octets).count >= 3 }

  mutating func add(_ original: [UInt8], _ replacement: [UInt8], _ kind: RedactionKind, bothOrders: Bool) {
    guard original.count >= 6, original.count == replacement.count, Self.isDistinctive(original) else { return }
    insert(Pattern(original: original, replacement: replacement, kind: kind))
    if bothOrders, original.reversed() != original {
      insert(Pattern(original: original.reversed(), replacement: replacement.reversed(), kind: kind))
    }
  }

  /// An address in both byte orders and as text (upper or lower case, with `:`, `-`
  /// or nothing between the octets), and its device-specific half as text.
  mutating func addAddress(_ original: DeviceAddress, _ redacted: DeviceAddress) {
    let kind = RedactionKind(.address, "found elsewhere")
    guard Self.isDistinctive(Pseudonyms.octets(original, .littleEndian)) else { return }
    for (octets, replacement) in zip(Pseudonyms.spellings(original), Pseudonyms.spellings(redacted)) {
      insert(Pattern(original: octets, replacement: replacement, kind: kind))
    }
    // The half as text (six or eight characters); in binary it is too short to be
    // told from other octets outside a value.
    for (octets, replacement) in zip(Pseudonyms.halfSpellings(original), Pseudonyms.halfSpellings(redacted)).dropFirst(
      2)
    where octets.count >= 6 && Self.isDistinctive(octets) {
      insert(Pattern(original: octets, replacement: replacement, kind: kind))
    }
  }

  private mutating func insert(_ pattern: Pattern) {
    let key = Self.key(pattern.original, at: 0)
    if table[key]?.contains(where: { $0.original == pattern.original }) == true { return }
    table[key, default: []].append(pattern)
  }

  private static func key(_ bytes: [UInt8], at index: Int) -> UInt64 {
    var key: UInt64 = 0
    for k in 0..<6 { key = key << 8 | UInt64(bytes[index + k]) }
    return key
  }

  /// Replaces every copy; returns how many of each kind.
  func sweep(_ bytes: inout [UInt8]) -> [RedactionKind: Int] {
    guard !table.isEmpty, bytes.count >= 6 else { return [:] }
    var found: [RedactionKind: Int] = [:]
    var index = 0
    var key: UInt64 = 0
    for k in 0..<5 { key = key << 8 | UInt64(bytes[k]) }
    while index + 6 <= bytes.count {
      key = (key << 8 | UInt64(bytes[index + 5])) & 0xFFFF_FFFF_FFFF
      if let candidates = table[key],
        let match = candidates.first(where: { pattern in
          index + pattern.original.count <= bytes.count
            && bytes[index..<index + pattern.original.count].elementsEqual(pattern.original)
        })
      {
        bytes.replaceSubrange(index..<index + match.original.count, with: match.replacement)
        found[match.kind, default: 0] += 1
        index += match.original.count
        guard index + 6 <= bytes.count else { break }
        key = 0
        for k in 0..<5 { key = key << 8 | UInt64(bytes[index + k]) }
        continue
      }
      index += 1
    }
    return found
  }
}

/// Finds, inside one kept attribute value, what identifies a device or a person, and
/// replaces it with its pseudonym: an address in any spelling (`Pseudonyms.spellings`)
/// or its device-specific half (a serial number such as `MH267A261` holds one), a
/// name, a serial number. Inside a value shorter patterns are safe to look for than
/// in a whole record: three octets of an address's half, names of three octets.
struct ValueSweeper {
  private typealias Pattern = SweepPattern
  /// By first octet, longest first: an address before its half.
  private var table: [UInt8: [Pattern]] = [:]

  var isEmpty: Bool { table.isEmpty }

  private mutating func insert(_ original: [UInt8], _ replacement: [UInt8], _ kind: RedactionKind) {
    guard original.count >= 3, original.count == replacement.count, let first = original.first else { return }
    if table[first]?.contains(where: { $0.original == original }) == true { return }
    table[first, default: []].append(Pattern(original: original, replacement: replacement, kind: kind))
    table[first]!.sort { $0.original.count > $1.original.count }
  }

  mutating func addAddress(_ original: DeviceAddress, _ redacted: DeviceAddress) {
    let kind = RedactionKind(.address, "found in values")
    let octets = Pseudonyms.octets(original, .littleEndian)
    guard Set(octets).count >= 2 else { return }
    for (spelling, replacement) in zip(Pseudonyms.spellings(original), Pseudonyms.spellings(redacted)) {
      insert(spelling, replacement, kind)
    }
    // The half: in binary only when its three octets differ (00 00 01 is a counter).
    let halves = zip(Pseudonyms.halfSpellings(original), Pseudonyms.halfSpellings(redacted))
    for (index, (spelling, replacement)) in halves.enumerated() {
      let distinct = Set(spelling).count
      guard index < 2 ? distinct == 3 : distinct >= 3 else { continue }
      insert(spelling, replacement, kind)
    }
  }

  /// A name or serial number, as found and in lower and upper case.
  mutating func addText(_ original: [UInt8], _ replacement: [UInt8], _ kind: RedactionKind) {
    guard original.count >= 3, Set(original).count >= 2 else { return }
    for variant in Pseudonyms.caseVariants(original) { insert(variant, replacement, kind) }
  }

  /// Replaces every copy inside `range` of `bytes`; returns how many of each kind.
  func sweep(_ bytes: inout [UInt8], in range: Range<Int>) -> [RedactionKind: Int] {
    guard !table.isEmpty else { return [:] }
    var found: [RedactionKind: Int] = [:]
    var index = range.lowerBound
    while index < range.upperBound {
      if let candidates = table[bytes[index]],
        let match = candidates.first(where: { pattern in
          index + pattern.original.count <= range.upperBound
            && bytes[index..<index + pattern.original.count].elementsEqual(pattern.original)
        })
      {
        bytes.replaceSubrange(index..<index + match.original.count, with: match.replacement)
        found[match.kind, default: 0] += 1
        index += match.original.count
      } else {
        index += 1
      }
    }
    return found
  }
}
