import BLEDissect

/// The `vendor` fuzz target: value decoders that the pipeline reaches only behind a GATT
/// discovery naming their characteristics. The first byte picks the decoder; the rest is
/// the value.
enum VendorFuzz {
  /// Returns 1 for an input with a value, else 0.
  static func run(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let selector = bytes.first else { return 0 }
    let value = Array(bytes.dropFirst())
    switch selector % 6 {
    case 0: _ = try? CBORDecoder.decode(value)
    case 1:
      if let message = try? MCUmgrMessage(parsing: value) {
        _ = (message.rc?.name, message.groupError.map { $0.group.errorName($0.rc) }, message.header.commandName)
      }
    case 2:
      for service in [DFUMessage.Service.secure, .buttonless, .legacy] {
        for fromClient in [true, false] {
          if let message = try? DFUMessage(parsing: value, service: service, fromClient: fromClient) {
            _ = (message.name, message.requestName, message.resultName, message.parameters.extendedErrorName)
          }
        }
      }
    case 3: _ = (try? DFUInitPacket(parsing: value))?.firmwareSize
    case 4:
      // The value is both the descriptor and every report read with it.
      if let map = try? HIDReportDescriptor(parsing: value) {
        for report in map.reports { _ = report.values(value).values.text }
      }
      _ = try? HIDReportValues.bootKeyboard(value).text
      _ = try? HIDReportValues.bootMouse(value)
      _ = try? HIDReportValues.bootLEDs(value)
    default:
      _ = try? ANCSMessage.notification(value)
      _ = try? ANCSCommand(parsing: value).attributeNames
      _ = try? ANCSResponse.parse(value, expected: nil)
      for fromClient in [true, false] {
        _ = try? AMSMessage.remoteCommand(value, fromClient: fromClient)
        _ = try? AMSMessage.entityUpdate(value, fromClient: fromClient)
        _ = try? AMSMessage.entityAttribute(value, fromClient: fromClient)
      }
    }
    return 1
  }
}
