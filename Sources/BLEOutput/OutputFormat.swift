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
public let schemaVersion = 2

extension OutputBuffer {
  /// The start of a JSON document of `schema`, up to its version:
  /// `{"$schema":"urn:bleanalyze:schema:devices:2","schema_version":2`.
  public mutating func appendDocumentHeader(_ schema: DataSchema) {
    append("{\"$schema\":")
    appendJSONString(schema.id)
    append(",\"schema_version\":")
    appendDecimal(schemaVersion)
  }

  /// The start of a JSON document that lists its items under `key`:
  /// `{"$schema":"urn:bleanalyze:schema:devices:2","schema_version":2,"devices":[`.
  public mutating func appendDocumentStart(_ schema: DataSchema, listing key: StaticString) {
    appendDocumentHeader(schema)
    append(",\"")
    append(key)
    append("\":[")
  }
}
