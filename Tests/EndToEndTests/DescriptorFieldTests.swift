import Foundation
import Testing

/// `att.descriptor` in show's JSON: a PDU about a descriptor names it besides its characteristic.
@Suite("att.descriptor")
struct DescriptorFieldTests {
  @Test("the CCCD write of hr-sensor names its descriptor and its characteristic")
  func cccdWrite() throws {
    let output = runRaw(["show", "--format", "ndjson", "--filter", "frame == 30", "Samples/hr-sensor.btsnoop"])
    #expect(output.status == 0, "\(output.stderr)")
    let record = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
    let att = try #require(record["att"] as? [String: Any])
    #expect(att["uuid"] as? String == "2902")
    #expect(att["descriptor_name"] as? String == "Client Characteristic Configuration")
    #expect(att["descriptor_uuid"] as? String == "2902")
    #expect(att["characteristic_name"] as? String == "Heart Rate Measurement")
  }

  @Test("a characteristic value has no descriptor")
  func valueHasNone() throws {
    let output = runRaw(["show", "--format", "ndjson", "--filter", "att.opcode == 0x1b", "Samples/hr-sensor.btsnoop"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.text.contains("\"characteristic_name\":\"Heart Rate Measurement\""))
    #expect(!output.text.contains("\"descriptor\""))
  }
}
