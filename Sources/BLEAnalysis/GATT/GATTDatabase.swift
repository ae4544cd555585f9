import BLEDissect

/// A service as discovery reported it: its declaration handle (`start`), the last
/// handle of its group, its UUID, and whether it is primary.
public struct GATTService: Hashable, Sendable {
  public var start: UInt16
  public var end: UInt16
  public var uuid: BluetoothUUID
  public var primary: Bool

  public init(start: UInt16, end: UInt16, uuid: BluetoothUUID, primary: Bool) {
    self.start = start
    self.end = end
    self.uuid = uuid
    self.primary = primary
  }
}

/// An Include declaration: the included service's handle range and, when it is a
/// 16-bit one, its UUID (Core 6.0, Vol 3, Part G, 3.2).
public struct GATTInclude: Hashable, Sendable {
  public var handle: UInt16
  public var start: UInt16
  public var end: UInt16
  public var uuid: BluetoothUUID?

  public init(handle: UInt16, start: UInt16, end: UInt16, uuid: BluetoothUUID?) {
    self.handle = handle
    self.start = start
    self.end = end
    self.uuid = uuid
  }
}

/// A Characteristic declaration: Characteristic Properties, Value Handle and UUID
/// (Core 6.0, Vol 3, Part G, 3.3.1).
public struct GATTCharacteristic: Hashable, Sendable {
  public var declaration: UInt16
  public var properties: UInt8
  public var value: UInt16
  public var uuid: BluetoothUUID

  public init(declaration: UInt16, properties: UInt8, value: UInt16, uuid: BluetoothUUID) {
    self.declaration = declaration
    self.properties = properties
    self.value = value
    self.uuid = uuid
  }

  /// Characteristic Properties bit names (Core 6.0, Vol 3, Part G, 3.3.1.1, Table 3.5),
  /// bit 0 first.
  public static let propertyNames = [
    "Broadcast", "Read", "Write Without Response", "Write", "Notify", "Indicate",
    "Authenticated Signed Writes", "Extended Properties",
  ]

  public var propertyNames: [String] {
    Self.propertyNames.indices.filter { properties & (1 << $0) != 0 }.map { Self.propertyNames[$0] }
  }
}

/// What one attribute handle is, as far as discovery tells.
/// Immutable and shared: every record about a handle holds the same instance, unowned,
/// and its texts are kept as UTF-8 for output. Sendable: nothing changes after init
/// (the UTF-8 buffers are its own, freed in deinit).
public final class GATTAttribute: Hashable, @unchecked Sendable {
  public enum Kind: String, Hashable, Sendable {
    case service, include, characteristic, value, descriptor
  }

  public let kind: Kind
  /// The attribute type: the declaration UUID (0x2800–0x2803), the characteristic's
  /// UUID for its value, or the descriptor's UUID. Nil for a handle inside a
  /// characteristic whose descriptors were not discovered.
  public let uuid: BluetoothUUID?
  public let service: BluetoothUUID?
  public let characteristic: BluetoothUUID?
  /// The handle of the service's declaration, and the characteristic's value handle:
  /// which service and characteristic these are when a server has two of one UUID.
  public let serviceHandle: UInt16?
  public let valueHandle: UInt16?
  /// The texts output and filters use, made once per handle: the UUID (`2a37`), the
  /// service's, characteristic's and descriptor's UUIDs and names (a name only where the
  /// assigned numbers or a dissector give one), and a label for the handle for people
  /// (`Client Characteristic Configuration of Heart Rate Measurement`, UUIDs where no
  /// name is known).
  public let uuidText: String?
  public let serviceUUIDText: String?
  public let serviceName: String?
  public let characteristicUUIDText: String?
  public let characteristicName: String?
  /// A descriptor's UUID and name (`Client Characteristic Configuration`).
  public let descriptorUUIDText: String?
  public let descriptorName: String?
  public let label: String?
  /// The Dissectors/ format of a value or descriptor that has one with fields.
  public let format: DissectorFormat?
  /// The texts above as UTF-8 in memory the attribute owns, for output that copies them
  /// on every record without a String.
  public let labelUTF8: UnsafeRawBufferPointer?
  public let uuidUTF8: UnsafeRawBufferPointer?
  public let serviceUUIDUTF8: UnsafeRawBufferPointer?
  public let serviceNameUTF8: UnsafeRawBufferPointer?
  public let characteristicUUIDUTF8: UnsafeRawBufferPointer?
  public let characteristicNameUTF8: UnsafeRawBufferPointer?
  public let descriptorUUIDUTF8: UnsafeRawBufferPointer?
  public let descriptorNameUTF8: UnsafeRawBufferPointer?

  /// A copy of `text`'s UTF-8 that `deinit` frees.
  private static func utf8(_ text: String?) -> UnsafeRawBufferPointer? {
    guard let text else { return nil }
    let bytes = Array(text.utf8)
    let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
    memory.copyBytes(from: bytes)
    return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(memory)[0..<bytes.count])
  }

  deinit {
    for text in [
      labelUTF8, uuidUTF8, serviceUUIDUTF8, serviceNameUTF8, characteristicUUIDUTF8, characteristicNameUTF8,
      descriptorUUIDUTF8, descriptorNameUTF8,
    ] {
      if let base = text?.baseAddress { UnsafeMutableRawPointer(mutating: base).deallocate() }
    }
  }

  init(
    kind: Kind, uuid: BluetoothUUID?, service: GATTService?, characteristic: GATTCharacteristic? = nil,
    names: DissectorLibrary
  ) {
    self.kind = kind
    self.uuid = uuid
    self.service = service?.uuid
    self.characteristic = characteristic?.uuid
    serviceHandle = service?.start
    valueHandle = characteristic?.value
    uuidText = uuid?.normalized.description
    serviceUUIDText = self.service?.normalized.description
    serviceName = self.service.flatMap(names.name(of:))
    characteristicUUIDText = self.characteristic?.normalized.description
    characteristicName = self.characteristic.flatMap(names.name(of:))
    descriptorUUIDText = kind == .descriptor ? uuidText : nil
    descriptorName = kind == .descriptor ? uuid.flatMap(names.name(of:)) : nil
    let characteristicLabel = self.characteristic.map(names.displayName(of:))
    if let uuid {
      let name = names.displayName(of: uuid)
      let ofCharacteristic = kind == .descriptor || kind == .characteristic
      label = ofCharacteristic ? characteristicLabel.map { name + " of " + $0 } ?? name : name
    } else {
      label = characteristicLabel
    }
    let format = uuid.flatMap { kind == .value || kind == .descriptor ? names.format(for: $0) : nil }
    self.format = format?.fields.isEmpty == false ? format : nil
    labelUTF8 = Self.utf8(label)
    uuidUTF8 = Self.utf8(uuidText)
    serviceUUIDUTF8 = Self.utf8(serviceUUIDText)
    serviceNameUTF8 = Self.utf8(serviceName)
    characteristicUUIDUTF8 = Self.utf8(characteristicUUIDText)
    characteristicNameUTF8 = Self.utf8(characteristicName)
    descriptorUUIDUTF8 = Self.utf8(descriptorUUIDText)
    descriptorNameUTF8 = Self.utf8(descriptorName)
  }

  public static func == (a: GATTAttribute, b: GATTAttribute) -> Bool {
    a === b
      || (a.kind == b.kind && a.uuid == b.uuid && a.service == b.service && a.characteristic == b.characteristic
        && a.serviceHandle == b.serviceHandle && a.valueHandle == b.valueHandle && a.format == b.format)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(uuid)
    hasher.combine(serviceHandle)
    hasher.combine(valueHandle)
  }
}

/// The attributes of one GATT server that discovery revealed, by handle. Discovery
/// may arrive in any order and in part; lookups place each handle in its service and
/// characteristic by handle order (Core 6.0, Vol 3, Part G, 3.1–3.3).
public struct GATTDatabase: Sendable {
  public private(set) var services: [UInt16: GATTService] = [:]
  public private(set) var includes: [UInt16: GATTInclude] = [:]
  public private(set) var characteristics: [UInt16: GATTCharacteristic] = [:]
  /// Descriptor handles and their UUIDs (Find Information).
  public private(set) var descriptors: [UInt16: BluetoothUUID] = [:]

  /// Declaration handles in order, rebuilt after every change.
  private var serviceStarts: [UInt16] = []
  private var characteristicHandles: [UInt16] = []
  /// `attribute(at:)` answers by handle, kept until the database changes: nil where
  /// not looked up yet. Handles from `cacheSize` on (rare: servers number their
  /// attributes from 1) are kept by hashing, so that no server holds a table of 65,536.
  private var cache: [GATTAttribute??] = []
  private var highCache: [UInt16: GATTAttribute?] = [:]
  static let cacheSize = 1024
  /// Every attribute `lookup` handed out before the database changed, by handle:
  /// records hold them unowned, so they live as long as the database. A lookup that
  /// finds the same attribute again hands out the same instance, so rediscovering a
  /// database (every reconnection, in some apps) keeps no more of them.
  private var retired: [UInt16: [GATTAttribute]] = [:]

  /// Forgets the answers, keeping the attributes they handed out.
  private mutating func retireCache() {
    for (handle, entry) in cache.enumerated() {
      if case let attribute?? = entry { keep(attribute, UInt16(handle)) }
    }
    for case let (handle, attribute?) in highCache { keep(attribute, handle) }
    cache.removeAll(keepingCapacity: true)
    highCache = [:]
  }

  private mutating func keep(_ attribute: GATTAttribute, _ handle: UInt16) {
    if !(retired[handle]?.contains { $0 === attribute } ?? false) { retired[handle, default: []].append(attribute) }
  }

  /// `attribute(at:)`, as an instance handed out before when it is the same.
  private func fresh(_ handle: UInt16, names: DissectorLibrary) -> GATTAttribute? {
    guard let attribute = attribute(at: handle, names: names) else { return nil }
    return retired[handle]?.first { $0 == attribute } ?? attribute
  }

  public init() {}

  public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty }

  public mutating func add(_ service: GATTService) {
    // A service rediscovered with another range replaces the ones it overlaps.
    for start in serviceStarts where start != service.start {
      if let other = services[start], other.start <= service.end, service.start <= other.end {
        services[start] = nil
      }
    }
    services[service.start] = service
    serviceStarts = services.keys.sorted()
    retireCache()
  }

  public mutating func add(_ include: GATTInclude) {
    includes[include.handle] = include
    retireCache()
  }

  public mutating func add(_ characteristic: GATTCharacteristic) {
    characteristics[characteristic.declaration] = characteristic
    descriptors[characteristic.declaration] = nil
    descriptors[characteristic.value] = nil
    characteristicHandles = characteristics.keys.sorted()
    retireCache()
  }

  /// A handle from Find Information. Declarations and values found that way are
  /// already known from the other discovery procedures; the rest are descriptors.
  public mutating func addInformation(handle: UInt16, uuid: BluetoothUUID) {
    let type = uuid.shortValue
    guard type.map({ !(0x2800...0x2803).contains($0) }) ?? true else { return }
    if characteristics.values.contains(where: { $0.value == handle }) { return }
    descriptors[handle] = uuid
    retireCache()
  }

  /// Forgets every attribute in `range`, as a Service Changed indication asks.
  public mutating func invalidate(_ range: ClosedRange<UInt16>) {
    services = services.filter { !range.contains($0.key) }
    includes = includes.filter { !range.contains($0.key) }
    characteristics = characteristics.filter { !range.contains($0.key) }
    descriptors = descriptors.filter { !range.contains($0.key) }
    serviceStarts = services.keys.sorted()
    characteristicHandles = characteristics.keys.sorted()
    retireCache()
  }

  /// `attribute(at:)`, remembered per handle until the database changes.
  /// The same, unretained: the database keeps the attribute for as long as it lives.
  mutating func lookupReference(_ handle: UInt16, names: DissectorLibrary) -> Unmanaged<GATTAttribute>? {
    let index = Int(handle)
    if index < cache.count, let known = cache[index] { return known.map { Unmanaged.passUnretained($0) } }
    return lookup(handle, names: names).map { Unmanaged.passUnretained($0) }
  }

  public mutating func lookup(_ handle: UInt16, names: DissectorLibrary) -> GATTAttribute? {
    let index = Int(handle)
    guard index < Self.cacheSize else {
      if let known = highCache[handle] { return known }
      let attribute = fresh(handle, names: names)
      highCache[handle] = .some(attribute)
      return attribute
    }
    if index < cache.count, let known = cache[index] { return known }
    let attribute = fresh(handle, names: names)
    if index >= cache.count { cache += repeatElement(nil, count: index + 1 - cache.count) }
    cache[index] = .some(attribute)
    return attribute
  }

  /// The service whose group holds `handle`.
  public func service(containing handle: UInt16) -> GATTService? {
    guard let start = Self.last(in: serviceStarts, atMost: handle), let service = services[start],
      handle <= service.end
    else { return nil }
    return service
  }

  /// The characteristic whose declaration, value or descriptors `handle` is: the last
  /// declaration at or before it, within the same service when that is known.
  public func characteristic(containing handle: UInt16) -> GATTCharacteristic? {
    guard let declaration = Self.last(in: characteristicHandles, atMost: handle),
      let characteristic = characteristics[declaration]
    else { return nil }
    // Not past the end of the characteristic's service, nor across a service start.
    if let own = service(containing: declaration), handle > own.end { return nil }
    if let service = service(containing: handle), declaration < service.start { return nil }
    return characteristic
  }

  /// What `handle` is, or nil when discovery said nothing about it.
  public func attribute(at handle: UInt16, names: DissectorLibrary = .builtin) -> GATTAttribute? {
    let service = service(containing: handle)
    if let service, service.start == handle {
      return GATTAttribute(
        kind: .service, uuid: BluetoothUUID(uuid16: service.primary ? 0x2800 : 0x2801), service: service,
        names: names)
    }
    if includes[handle] != nil {
      return GATTAttribute(kind: .include, uuid: BluetoothUUID(uuid16: 0x2802), service: service, names: names)
    }
    guard let characteristic = characteristic(containing: handle) else {
      if let uuid = descriptors[handle] {
        return GATTAttribute(kind: .descriptor, uuid: uuid, service: service, names: names)
      }
      return service.map { GATTAttribute(kind: .descriptor, uuid: nil, service: $0, names: names) }
    }
    let (kind, uuid): (GATTAttribute.Kind, BluetoothUUID?) =
      switch handle {
      case characteristic.declaration: (.characteristic, BluetoothUUID(uuid16: 0x2803))
      case characteristic.value: (.value, characteristic.uuid)
      default: (.descriptor, descriptors[handle])
      }
    return GATTAttribute(
      kind: kind, uuid: uuid, service: service, characteristic: characteristic, names: names)
  }

  /// The largest element of the sorted `handles` that is at most `handle`.
  private static func last(in handles: [UInt16], atMost handle: UInt16) -> UInt16? {
    var low = 0
    var high = handles.count
    while low < high {
      let middle = (low + high) / 2
      if handles[middle] <= handle { low = middle + 1 } else { high = middle }
    }
    return low == 0 ? nil : handles[low - 1]
  }
}

extension GATTDatabase {
  /// The database as a tree in handle order, for `gatt` and `--export-db`.
  public struct ServiceNode: Sendable {
    public var service: GATTService?
    public var includes: [GATTInclude]
    public var characteristics: [CharacteristicNode]
  }

  public struct CharacteristicNode: Sendable {
    public var characteristic: GATTCharacteristic
    public var descriptors: [(handle: UInt16, uuid: BluetoothUUID)]
  }

  /// Services in handle order with their includes, characteristics and descriptors.
  /// Characteristics or descriptors found outside any known service come in a node
  /// whose `service` is nil.
  public var tree: [ServiceNode] {
    var nodes = serviceStarts.compactMap { services[$0] }.map {
      ServiceNode(service: $0, includes: [], characteristics: [])
    }
    var orphans = ServiceNode(service: nil, includes: [], characteristics: [])
    func index(of handle: UInt16) -> Int? {
      // Not a range: a damaged response can give a service an end before its start.
      nodes.firstIndex { $0.service.map { $0.start <= handle && handle <= $0.end } ?? false }
    }
    for handle in includes.keys.sorted() {
      if let i = index(of: handle) { nodes[i].includes.append(includes[handle]!) }
    }
    for declaration in characteristicHandles {
      let node = CharacteristicNode(characteristic: characteristics[declaration]!, descriptors: [])
      if let i = index(of: declaration) {
        nodes[i].characteristics.append(node)
      } else {
        orphans.characteristics.append(node)
      }
    }
    for handle in descriptors.keys.sorted() {
      let entry = (handle: handle, uuid: descriptors[handle]!)
      if let i = index(of: handle),
        let c = nodes[i].characteristics.lastIndex(where: {
          $0.characteristic.declaration < handle
        })
      {
        nodes[i].characteristics[c].descriptors.append(entry)
      } else if let c = orphans.characteristics.lastIndex(where: { $0.characteristic.declaration < handle }),
        index(of: handle) == nil
      {
        orphans.characteristics[c].descriptors.append(entry)
      }
    }
    if !orphans.characteristics.isEmpty { nodes.append(orphans) }
    return nodes
  }
}
