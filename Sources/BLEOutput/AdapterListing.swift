import BLECapture

/// `live --list`: the adapters, a line (text or NDJSON) each, or one document
/// (`{"$schema":"urn:bleanalyze:schema:live-list:2","schema_version":2,"adapters":[…]}`).
public enum AdapterListing {
  public static func append(_ adapters: [BluetoothAdapter], _ format: RenderFormat, into out: inout OutputBuffer) {
    if format == .json { out.appendDocumentStart(.liveList, listing: "adapters") }
    for (position, adapter) in adapters.enumerated() {
      switch format {
      case .text:
        out.append(string: "\(adapter.name)  \(adapter.address)  \(adapter.bus)  \(adapter.isUp ? "up" : "down")\n")
      case .json, .ndjson:
        if format == .json && position > 0 { out.append(",") }
        out.append("{\"index\":")
        out.appendDecimal(Int(adapter.index))
        out.append(",\"name\":")
        out.appendJSONString(adapter.name)
        out.append(",\"address\":")
        out.appendJSONString(adapter.address)
        out.append(",\"bus\":")
        out.appendJSONString(adapter.bus)
        out.append(adapter.isUp ? ",\"up\":true}" : ",\"up\":false}")
        if format == .ndjson { out.append("\n") }
      }
    }
    if format == .json { out.append("]}\n") }
    if format == .text && adapters.isEmpty { out.append("no Bluetooth adapters\n") }
  }
}
