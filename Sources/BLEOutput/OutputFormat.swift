/// The renderings every command offers (`--format`).
public enum RenderFormat: String, CaseIterable, Sendable {
  /// Aligned columns for people.
  case text
  /// One JSON document.
  case json
  /// One JSON object per line, streamed.
  case ndjson
}

/// Version of the JSON data contract; raised when a field changes meaning or goes away.
public let schemaVersion = 1

extension OutputBuffer {
  /// The start of a JSON document that lists its items under `key`:
  /// `{"schema_version":1,"devices":[`.
  public mutating func appendDocumentStart(listing key: StaticString) {
    append("{\"schema_version\":")
    appendDecimal(schemaVersion)
    append(",\"")
    append(key)
    append("\":[")
  }
}
