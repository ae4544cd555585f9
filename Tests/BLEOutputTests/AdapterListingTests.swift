import BLECapture
import Foundation
import Testing

@testable import BLEOutput

/// `live --list` names its schema, and what it writes is what the schema says (live
/// capture cannot run on CI, so the listing is rendered from adapters made here).
@Suite struct AdapterListingTests {
  static let adapters = [
    BluetoothAdapter(index: 0, name: "hci0", address: "00:1A:7D:DA:71:13", bus: "USB", isUp: true),
    BluetoothAdapter(index: 1, name: "hci1", address: "5C:F3:70:8A:21:9E", bus: "UART", isUp: false),
  ]

  static func render(_ format: RenderFormat) -> String {
    var out = OutputBuffer(fd: -1)
    AdapterListing.append(adapters, format, into: &out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  static func schema(_ name: String) throws -> [String: Any] {
    let bytes = try #require(DataSchema.files[name])
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  @Test func documentNamesItsSchema() throws {
    let text = Self.render(.json)
    #expect(text.hasPrefix("{\"$schema\":\"urn:bleanalyze:schema:live-list:2\",\"schema_version\":2,\"adapters\":["))
    let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let schema = try Self.schema("live-list")
    let required = try #require(schema["required"] as? [String])
    #expect(Set(document.keys) == Set(required))
    #expect(DataSchema.liveList.lineSchemaName == "adapter")
  }

  /// Each adapter object, in the document and on an NDJSON line, has exactly the keys
  /// adapter.schema.json lists, with its types.
  @Test(arguments: [RenderFormat.json, .ndjson])
  func adaptersAreTheSchemas(_ format: RenderFormat) throws {
    let text = Self.render(format)
    let objects: [[String: Any]] =
      format == .json
      ? (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["adapters"] as? [[String: Any]]
        ?? []
      : try text.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
    #expect(objects.count == 2)
    let properties = try #require(try Self.schema("adapter")["properties"] as? [String: [String: Any]])
    for object in objects {
      #expect(Set(object.keys) == Set(properties.keys))
      #expect(object["index"] is Int && object["name"] is String && object["up"] is Bool)
      let address = try #require(object["address"] as? String)
      #expect(address.wholeMatch(of: /[0-9A-F]{2}(:[0-9A-F]{2}){5}/) != nil)
    }
  }

  @Test func textIsUnchanged() {
    #expect(Self.render(.text) == "hci0  00:1A:7D:DA:71:13  USB  up\nhci1  5C:F3:70:8A:21:9E  UART  down\n")
    var out = OutputBuffer(fd: -1)
    AdapterListing.append([], .text, into: &out)
    #expect(String(decoding: out.bytes, as: UTF8.self) == "no Bluetooth adapters\n")
  }
}
