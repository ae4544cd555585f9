import BLEAnalysis
import BLECapture
import BLEDissect

/// A discovery response's entries (services, characteristics, includes, descriptors,
/// handle ranges), in `show`'s line, its `-v` tree and its JSON.
enum DiscoveryRendering {
  /// `0x0001-0x0007 Generic Access (1800); 0x0010-0x0012 Heart Rate (180d)`, or for
  /// characteristics `0x0003 → 0x0004 Device Name (2a00) [Read, Write]`. False when the
  /// response lists nothing readable (its request's type unknown).
  static func appendText(
    _ att: ATTPDU, _ analyzed: AnalyzedRecord, _ bytes: UnsafeRawBufferPointer, _ names: DissectorLibrary,
    into out: inout OutputBuffer
  ) -> Bool {
    guard GATTDiscovered.isDiscoveryResponse(att) else { return false }
    var first = true
    GATTDiscovered.forEach(in: att, bytes, analyzed.exchange) { entry in
      out.append(first ? " " : "; ")
      first = false
      switch entry {
      case .service(let service):
        appendRange(service.start, service.end, into: &out)
        out.append(" ")
        GATTRenderer.appendNamed(service.uuid, names, into: &out)
        if !service.primary { out.append(" (secondary)") }
      case .characteristic(let characteristic):
        out.appendHex(UInt64(characteristic.declaration), width: 4)
        out.append(" → ")
        out.appendHex(UInt64(characteristic.value), width: 4)
        out.append(" ")
        GATTRenderer.appendNamed(characteristic.uuid, names, into: &out)
        out.append(" [")
        out.append(string: characteristic.propertyNames.joined(separator: ", "))
        out.append("]")
      case .include(let include):
        out.appendHex(UInt64(include.handle), width: 4)
        out.append(" includes ")
        appendRange(include.start, include.end, into: &out)
        if let uuid = include.uuid {
          out.append(" ")
          GATTRenderer.appendNamed(uuid, names, into: &out)
        }
      case .descriptor(let handle, let uuid):
        out.appendHex(UInt64(handle), width: 4)
        out.append(" ")
        GATTRenderer.appendNamed(uuid, names, into: &out)
      case .range(let start, let end):
        appendRange(start, end, into: &out)
      }
    }
    return !first
  }

  /// `0x0001-0x0007`, the way `show` writes a request's range.
  static func appendRange(_ start: UInt16, _ end: UInt16, into out: inout OutputBuffer) {
    out.appendHex(UInt64(start), width: 4)
    out.append("-")
    out.appendHex(UInt64(end), width: 4)
  }

  /// The JSON lists: `"services"`, `"characteristics"`, `"includes"`, `"descriptors"` or
  /// `"ranges"`, each entry with the keys `gatt --format json` gives it.
  static func appendJSON(
    _ att: ATTPDU, _ analyzed: AnalyzedRecord, _ bytes: UnsafeRawBufferPointer, _ names: DissectorLibrary,
    into out: inout OutputBuffer
  ) {
    guard GATTDiscovered.isDiscoveryResponse(att) else { return }
    var open = false
    func begin(_ key: StaticString) {
      if open {
        out.append(",")
      } else {
        out.append(key)
        open = true
      }
    }
    GATTDiscovered.forEach(in: att, bytes, analyzed.exchange) { entry in
      switch entry {
      case .service(let service):
        begin(",\"services\":[")
        out.append("{\"start\":")
        out.appendDecimal(Int(service.start))
        out.append(",\"end\":")
        out.appendDecimal(Int(service.end))
        GATTRenderer.appendUUID(service.uuid, names, into: &out)
        out.append(service.primary ? ",\"primary\":true}" : ",\"primary\":false}")
      case .characteristic(let characteristic):
        begin(",\"characteristics\":[")
        out.append("{\"declaration\":")
        out.appendDecimal(Int(characteristic.declaration))
        out.append(",\"value\":")
        out.appendDecimal(Int(characteristic.value))
        GATTRenderer.appendUUID(characteristic.uuid, names, into: &out)
        out.append(",\"properties\":")
        out.appendDecimal(Int(characteristic.properties))
        out.append("}")
      case .include(let include):
        begin(",\"includes\":[")
        out.append("{\"handle\":")
        out.appendDecimal(Int(include.handle))
        out.append(",\"start\":")
        out.appendDecimal(Int(include.start))
        out.append(",\"end\":")
        out.appendDecimal(Int(include.end))
        if let uuid = include.uuid { GATTRenderer.appendUUID(uuid, names, into: &out) }
        out.append("}")
      case .descriptor(let handle, let uuid):
        begin(",\"descriptors\":[")
        out.append("{\"handle\":")
        out.appendDecimal(Int(handle))
        GATTRenderer.appendUUID(uuid, names, into: &out)
        out.append("}")
      case .range(let start, let end):
        begin(",\"ranges\":[")
        out.append("{\"start\":")
        out.appendDecimal(Int(start))
        out.append(",\"end\":")
        out.appendDecimal(Int(end))
        out.append("}")
      }
    }
    if open { out.append("]") }
  }

  /// The `-v` tree: one group per entry under `Discovered`.
  static func fields(
    _ att: ATTPDU, _ analyzed: AnalyzedRecord, _ bytes: UnsafeRawBufferPointer, _ names: DissectorLibrary
  ) -> [Field] {
    guard GATTDiscovered.isDiscoveryResponse(att) else { return [] }
    func handle(_ name: String, _ value: UInt16) -> Field { Field(name, .unsigned(UInt64(value), hexDigits: 4)) }
    func uuid(_ uuid: BluetoothUUID) -> Field {
      // A short UUID shows like a code, `0x2a37 (Heart Rate Measurement)`.
      guard let short = uuid.shortValue, let name = names.name(of: uuid) else {
        return Field("UUID", .uuid(uuid.normalized))
      }
      return Field("UUID", .code(UInt64(short), hexDigits: short <= 0xFFFF ? 4 : 8, name: name))
    }
    var entries: [Field] = []
    GATTDiscovered.forEach(in: att, bytes, analyzed.exchange) { entry in
      switch entry {
      case .service(let service):
        entries.append(
          .group(
            service.primary ? "Primary Service" : "Secondary Service",
            [handle("Start Handle", service.start), handle("End Handle", service.end), uuid(service.uuid)]))
      case .characteristic(let characteristic):
        entries.append(
          .group(
            "Characteristic",
            [
              handle("Declaration Handle", characteristic.declaration),
              Field(
                "Characteristic Properties",
                .flags(UInt64(characteristic.properties), hexDigits: 2, names: characteristic.propertyNames)),
              handle("Value Handle", characteristic.value), uuid(characteristic.uuid),
            ]))
      case .include(let include):
        var children = [
          handle("Include Handle", include.handle), handle("Start Handle", include.start),
          handle("End Handle", include.end),
        ]
        if let included = include.uuid { children.append(uuid(included)) }
        entries.append(.group("Include", children))
      case .descriptor(let at, let type):
        entries.append(.group("Attribute", [handle("Handle", at), uuid(type)]))
      case .range(let start, let end):
        entries.append(.group("Handles Information", [handle("Found Handle", start), handle("Group End Handle", end)]))
      }
    }
    return entries.isEmpty ? [] : [.group("Discovered", entries)]
  }
}
