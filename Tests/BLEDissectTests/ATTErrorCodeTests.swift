import Testing

@testable import BLEDissect

@Suite struct ATTErrorCodeTests {
  @Test(
    arguments: [
      (0x01, "Invalid Handle"), (0x02, "Read Not Permitted"), (0x03, "Write Not Permitted"), (0x04, "Invalid PDU"),
      (0x05, "Insufficient Authentication"), (0x06, "Request Not Supported"), (0x07, "Invalid Offset"),
      (0x08, "Insufficient Authorization"), (0x09, "Prepare Queue Full"), (0x0A, "Attribute Not Found"),
      (0x0B, "Attribute Not Long"), (0x0C, "Encryption Key Size Too Short"), (0x0D, "Invalid Attribute Value Length"),
      (0x0E, "Unlikely Error"), (0x0F, "Insufficient Encryption"), (0x10, "Unsupported Group Type"),
      (0x11, "Insufficient Resources"), (0x12, "Database Out Of Sync"), (0x13, "Value Not Allowed"),
      (0x00, "Unknown (0x00)"), (0x14, "Unknown (0x14)"), (0x7F, "Unknown (0x7f)"),
      (0x80, "Application Error (0x80)"), (0x9F, "Application Error (0x9f)"), (0xA0, "Unknown (0xa0)"),
      (0xE0, "Unknown (0xe0)"), (0xFC, "Write Request Rejected"),
      (0xFD, "Client Characteristic Configuration Descriptor Improperly Configured"),
      (0xFE, "Procedure Already in Progress"), (0xFF, "Out of Range"),
    ] as [(UInt8, String)])
  func names(_ code: UInt8, _ name: String) {
    #expect(ATTErrorCode(rawValue: code).name == name)
  }

  @Test func ranges() {
    #expect(ATTErrorCode(rawValue: 0x85).isApplicationError)
    #expect(!ATTErrorCode.valueNotAllowed.isApplicationError)
    #expect(ATTErrorCode.outOfRange.isCommonProfileError)
    #expect(ATTErrorCode.cccdImproperlyConfigured.rawValue == 0xFD)
    #expect("\(ATTErrorCode.attributeNotFound)" == "Attribute Not Found")
  }
}
