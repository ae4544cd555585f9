import BLEAnalysis
import BLEDissect

/// `gatt`: each server's rebuilt database as a tree (text) or per DESIGN.md's
/// contract (JSON: `{"peers": […]}`; NDJSON: one peer per line). `--export-db`
/// writes the JSON form, which `--import-db` reads back.
public enum GATTRenderer {
  /// One server of one capture; `file` is set when several captures are shown.
  public struct Peer {
    public var server: GATTServer
    public var file: String?

    public init(server: GATTServer, file: String?) {
      self.server = server
      self.file = file
    }
  }

  public static func render(
    _ peers: [Peer], format: RenderFormat, names: DissectorLibrary = .builtin, captures: [CaptureInfo] = [],
    into out: inout OutputBuffer
  ) {
    switch format {
    case .text:
      if peers.isEmpty { out.append("no GATT discovery or attribute traffic in the capture\n") }
      var file: String?
      for peer in peers {
        if let name = peer.file, name != file {
          out.append("# ")
          out.append(string: name)
          out.append("\n")
          file = name
        }
        appendText(peer.server, names, into: &out)
      }
    case .json:
      out.appendDocumentStart(.gatt, listing: "peers")
      for (index, peer) in peers.enumerated() {
        if index > 0 { out.append(",") }
        appendJSON(peer, names, into: &out)
      }
      out.append("]")
      out.appendCapturesJSON(captures)
      out.append("}\n")
    case .ndjson:
      for peer in peers {
        appendJSON(peer, names, into: &out)
        out.append("\n")
      }
    }
  }

  // MARK: - Text

  static func appendText(_ server: GATTServer, _ names: DissectorLibrary, into out: inout OutputBuffer) {
    appendServerTitle(server, into: &out)
    out.append("\n")
    for node in server.database.tree {
      if let service = node.service {
        out.append("  ")
        appendRange(service.start, service.end, into: &out)
        out.append("  ")
        appendNamed(service.uuid, names, into: &out)
        out.append(service.primary ? "" : "  (secondary)")
      } else {
        out.append("  (outside any discovered service)")
      }
      out.append("\n")
      for include in node.includes {
        out.append("    ")
        out.appendHex(UInt64(include.handle), width: 4)
        out.append("  includes ")
        appendRange(include.start, include.end, into: &out)
        if let uuid = include.uuid {
          out.append(" ")
          appendNamed(uuid, names, into: &out)
        }
        out.append("\n")
      }
      for child in node.characteristics {
        let characteristic = child.characteristic
        out.append("    ")
        out.appendHex(UInt64(characteristic.declaration), width: 4)
        out.append(" → ")
        out.appendHex(UInt64(characteristic.value), width: 4)
        out.append("  ")
        appendNamed(characteristic.uuid, names, into: &out)
        let properties = characteristic.propertyNames
        if !properties.isEmpty {
          out.append("  [")
          out.append(string: properties.joined(separator: ", "))
          out.append("]")
        }
        out.append("\n")
        for descriptor in child.descriptors {
          out.append("      ")
          out.appendHex(UInt64(descriptor.handle), width: 4)
          out.append("  ")
          appendNamed(descriptor.uuid, names, into: &out)
          out.append("\n")
        }
      }
    }
  }

  static func appendServerTitle(_ server: GATTServer, into out: inout OutputBuffer) {
    if let address = server.key.address {
      out.appendAddress(address)
    } else {
      out.append("address unknown")
    }
    out.append(server.key.isLocal ? " (this host's GATT server)" : " (peer's GATT server)")
  }

  static func appendRange(_ start: UInt16, _ end: UInt16, into out: inout OutputBuffer) {
    out.appendHex(UInt64(start), width: 4)
    out.append("–")
    out.appendHex(UInt64(end), width: 4)
  }

  /// `Heart Rate Measurement (2a37)`, or the UUID alone when it has no name.
  static func appendNamed(_ uuid: BluetoothUUID, _ names: DissectorLibrary, into out: inout OutputBuffer) {
    let text = uuid.normalized.description
    let name = names.displayName(of: uuid)
    out.append(string: name)
    if name != text {
      out.append(" (")
      out.append(string: text)
      out.append(")")
    }
  }

  // MARK: - JSON

  static func appendJSON(_ peer: Peer, _ names: DissectorLibrary, into out: inout OutputBuffer) {
    out.append("{\"address\":")
    if let address = peer.server.key.address {
      out.append("\"")
      out.appendAddress(address)
      out.append("\"")
    } else {
      out.append("null")
    }
    out.append(",\"local\":")
    out.append(peer.server.key.isLocal ? "true" : "false")
    if let file = peer.file {
      out.append(",\"file\":")
      out.appendJSONString(file)
    }
    out.append(",\"services\":[")
    for (s, node) in peer.server.database.tree.enumerated() {
      out.append(s == 0 ? "{" : ",{")
      if let service = node.service {
        out.append("\"start\":")
        out.appendDecimal(Int(service.start))
        out.append(",\"end\":")
        out.appendDecimal(Int(service.end))
        appendUUID(service.uuid, names, into: &out)
        out.append(",\"primary\":")
        out.append(service.primary ? "true," : "false,")
      }
      out.append("\"includes\":[")
      for (i, include) in node.includes.enumerated() {
        out.append(i == 0 ? "{\"handle\":" : ",{\"handle\":")
        out.appendDecimal(Int(include.handle))
        out.append(",\"start\":")
        out.appendDecimal(Int(include.start))
        out.append(",\"end\":")
        out.appendDecimal(Int(include.end))
        if let uuid = include.uuid { appendUUID(uuid, names, into: &out) }
        out.append("}")
      }
      out.append("],\"characteristics\":[")
      for (c, child) in node.characteristics.enumerated() {
        let characteristic = child.characteristic
        out.append(c == 0 ? "{\"declaration\":" : ",{\"declaration\":")
        out.appendDecimal(Int(characteristic.declaration))
        out.append(",\"value\":")
        out.appendDecimal(Int(characteristic.value))
        appendUUID(characteristic.uuid, names, into: &out)
        out.append(",\"properties\":")
        out.appendDecimal(Int(characteristic.properties))
        out.append(",\"properties_names\":[")
        for (p, name) in characteristic.propertyNames.enumerated() {
          if p > 0 { out.append(",") }
          out.appendJSONString(name)
        }
        out.append("],\"descriptors\":[")
        for (d, descriptor) in child.descriptors.enumerated() {
          out.append(d == 0 ? "{\"handle\":" : ",{\"handle\":")
          out.appendDecimal(Int(descriptor.handle))
          appendUUID(descriptor.uuid, names, into: &out)
          out.append("}")
        }
        out.append("]}")
      }
      out.append("]}")
    }
    out.append("]}")
  }

  /// `"uuid":"2a37","name":"Heart Rate Measurement"` (name null when unknown).
  static func appendUUID(_ uuid: BluetoothUUID, _ names: DissectorLibrary, into out: inout OutputBuffer) {
    out.append(",\"uuid\":")
    out.appendJSONString(uuid.normalized.description)
    out.append(",\"name\":")
    if let name = names.name(of: uuid) {
      out.appendJSONString(name)
    } else {
      out.append("null")
    }
  }
}
