/// Every signaling command, one row each, in code order (row i has code i + 1).
///
/// Core 6.0, Vol 3, Part A, 4.1–4.27. Value names use ASCII hyphens where the spec
/// has dashes, so that users can type them in filters.
extension L2CAPSignalingCode {
  static let table: [Row] = [
    .init(0x01, "Command Reject", .atLeast(2), [.init("Reason", .named(rejectReasons)), .init("Data", .rejectData)]) {
      c throws(DecodeError) in
      .commandReject(reason: try c.readUInt16(), data: c.readRemainingRange())
    },
    .init(
      0x02, "Connection Request", .exactly(4), response: 0x03,
      [.init("PSM", .psm), .init("Source CID", .cid)]
    ) { c throws(DecodeError) in
      .connectionRequest(psm: try c.readUInt16(), sourceCID: try c.readUInt16())
    },
    .init(0x03, "Connection Response", .exactly(8), connectionResponseLayout(connectionResults)) {
      c throws(DecodeError) in
      .connectionResponse(
        destinationCID: try c.readUInt16(), sourceCID: try c.readUInt16(), result: try c.readUInt16(),
        status: try c.readUInt16())
    },
    .init(
      0x04, "Configuration Request", .atLeast(4), response: 0x05,
      [.init("Destination CID", .cid), .init("Flags", .flags), .init("Configuration Options", .rest)]
    ) { c throws(DecodeError) in
      .configurationRequest(
        destinationCID: try c.readUInt16(), flags: try c.readUInt16(), options: c.readRemainingRange())
    },
    .init(
      0x05, "Configuration Response", .atLeast(6),
      [
        .init("Source CID", .cid), .init("Flags", .flags), .init("Result", .named(configurationResults)),
        .init("Config", .rest),
      ]
    ) { c throws(DecodeError) in
      .configurationResponse(
        sourceCID: try c.readUInt16(), flags: try c.readUInt16(), result: try c.readUInt16(),
        options: c.readRemainingRange())
    },
    .init(0x06, "Disconnection Request", .exactly(4), response: 0x07, disconnectionLayout) { c throws(DecodeError) in
      .disconnection(destinationCID: try c.readUInt16(), sourceCID: try c.readUInt16())
    },
    .init(0x07, "Disconnection Response", .exactly(4), disconnectionLayout) { c throws(DecodeError) in
      .disconnection(destinationCID: try c.readUInt16(), sourceCID: try c.readUInt16())
    },
    .init(0x08, "Echo Request", .atLeast(0), response: 0x09, [.init("Data", .rest)]) { c throws(DecodeError) in
      .echo(data: c.readRemainingRange())
    },
    .init(0x09, "Echo Response", .atLeast(0), [.init("Data", .rest)]) { c throws(DecodeError) in
      .echo(data: c.readRemainingRange())
    },
    .init(0x0A, "Information Request", .exactly(2), response: 0x0B, [.init("InfoType", .named(infoTypes))]) {
      c throws(DecodeError) in
      .informationRequest(infoType: try c.readUInt16())
    },
    .init(
      0x0B, "Information Response", .atLeast(4),
      [
        .init("InfoType", .named(infoTypes)), .init("Result", .named(informationResults)),
        .init("Data", .informationData),
      ]
    ) { c throws(DecodeError) in
      .informationResponse(infoType: try c.readUInt16(), result: try c.readUInt16(), data: c.readRemainingRange())
    },
    .init(
      0x0C, "Create Channel Request", .exactly(5), response: 0x0D,
      [.init("PSM", .psm), .init("Source CID", .cid), .init("Controller ID", .uint8)]
    ) { c throws(DecodeError) in
      .createChannelRequest(psm: try c.readUInt16(), sourceCID: try c.readUInt16(), controllerID: try c.readUInt8())
    },
    .init(0x0D, "Create Channel Response", .exactly(8), connectionResponseLayout(createChannelResults)) {
      c throws(DecodeError) in
      .connectionResponse(
        destinationCID: try c.readUInt16(), sourceCID: try c.readUInt16(), result: try c.readUInt16(),
        status: try c.readUInt16())
    },
    .init(
      0x0E, "Move Channel Request", .exactly(3), response: 0x0F,
      [.init("Initiator CID", .cid), .init("Dest Controller ID", .uint8)]
    ) { c throws(DecodeError) in
      .moveChannelRequest(initiatorCID: try c.readUInt16(), controllerID: try c.readUInt8())
    },
    .init(
      0x0F, "Move Channel Response", .exactly(4), [.init("Initiator CID", .cid), .init("Result", .named(moveResults))]
    ) { c throws(DecodeError) in
      .moveChannelResult(initiatorCID: try c.readUInt16(), result: try c.readUInt16())
    },
    .init(
      0x10, "Move Channel Confirmation Request", .exactly(4), response: 0x11,
      [.init("Initiator CID", .cid), .init("Result", .named(moveConfirmationResults))]
    ) { c throws(DecodeError) in
      .moveChannelResult(initiatorCID: try c.readUInt16(), result: try c.readUInt16())
    },
    .init(0x11, "Move Channel Confirmation Response", .exactly(2), [.init("Initiator CID", .cid)]) {
      c throws(DecodeError) in
      .moveChannelConfirmationResponse(initiatorCID: try c.readUInt16())
    },
    .init(
      0x12, "Connection Parameter Update Request", .exactly(8), response: 0x13,
      [
        .init("Interval Min", .milliseconds(scale: 1.25)), .init("Interval Max", .milliseconds(scale: 1.25)),
        .init("Latency", .count), .init("Timeout", .milliseconds(scale: 10)),
      ]
    ) { c throws(DecodeError) in
      .connectionParameterUpdateRequest(
        intervalMin: try c.readUInt16(), intervalMax: try c.readUInt16(), latency: try c.readUInt16(),
        timeout: try c.readUInt16())
    },
    .init(0x13, "Connection Parameter Update Response", .exactly(2), [.init("Result", .named(parameterUpdateResults))])
    {
      c throws(DecodeError) in
      .result(try c.readUInt16())
    },
    .init(
      0x14, "LE Credit Based Connection Request", .exactly(10), response: 0x15,
      [
        .init("SPSM", .psm), .init("Source CID", .cid), .init("MTU", .count), .init("MPS", .count),
        .init("Initial Credits", .count),
      ]
    ) { c throws(DecodeError) in
      .leCreditBasedConnectionRequest(
        spsm: try c.readUInt16(), sourceCID: try c.readUInt16(), mtu: try c.readUInt16(), mps: try c.readUInt16(),
        initialCredits: try c.readUInt16())
    },
    .init(
      0x15, "LE Credit Based Connection Response", .exactly(10),
      [
        .init("Destination CID", .cid), .init("MTU", .count), .init("MPS", .count), .init("Initial Credits", .count),
        .init("Result", .named(leCreditBasedResults)),
      ]
    ) { c throws(DecodeError) in
      .leCreditBasedConnectionResponse(
        destinationCID: try c.readUInt16(), mtu: try c.readUInt16(), mps: try c.readUInt16(),
        initialCredits: try c.readUInt16(), result: try c.readUInt16())
    },
    .init(0x16, "Flow Control Credit Indication", .exactly(4), [.init("CID", .cid), .init("Credits", .count)]) {
      c throws(DecodeError) in
      .flowControlCreditIndication(cid: try c.readUInt16(), credits: try c.readUInt16())
    },
    .init(
      0x17, "Credit Based Connection Request", .cidList(fixed: 8, minCount: 1), response: 0x18,
      [
        .init("SPSM", .psm), .init("MTU", .count), .init("MPS", .count), .init("Initial Credits", .count),
        .init("Source CID", .cidList),
      ]
    ) { c throws(DecodeError) in
      .creditBasedConnectionRequest(
        spsm: try c.readUInt16(), mtu: try c.readUInt16(), mps: try c.readUInt16(), initialCredits: try c.readUInt16(),
        sourceCIDs: c.readRemainingRange())
    },
    // A refusal may list no CIDs at all (BlueZ answers malformed requests so).
    .init(
      0x18, "Credit Based Connection Response", .cidList(fixed: 8, minCount: 0),
      [
        .init("MTU", .count), .init("MPS", .count), .init("Initial Credits", .count),
        .init("Result", .named(creditBasedResults)), .init("Destination CID", .cidList),
      ]
    ) { c throws(DecodeError) in
      .creditBasedConnectionResponse(
        mtu: try c.readUInt16(), mps: try c.readUInt16(), initialCredits: try c.readUInt16(),
        result: try c.readUInt16(),
        destinationCIDs: c.readRemainingRange())
    },
    .init(
      0x19, "Credit Based Reconfigure Request", .cidList(fixed: 4, minCount: 1), response: 0x1A,
      [.init("MTU", .count), .init("MPS", .count), .init("Destination CID", .cidList)]
    ) { c throws(DecodeError) in
      .creditBasedReconfigureRequest(
        mtu: try c.readUInt16(), mps: try c.readUInt16(), destinationCIDs: c.readRemainingRange())
    },
    .init(0x1A, "Credit Based Reconfigure Response", .exactly(2), [.init("Result", .named(reconfigureResults))]) {
      c throws(DecodeError) in
      .result(try c.readUInt16())
    },
  ]

  static let disconnectionLayout: [Item] = [.init("Destination CID", .cid), .init("Source CID", .cid)]

  static func connectionResponseLayout(_ results: [UInt16: String]) -> [Item] {
    [
      .init("Destination CID", .cid), .init("Source CID", .cid), .init("Result", .named(results)),
      .init("Status", .named(connectionStatuses)),
    ]
  }

  /// Command Reject Reason (Table 4.3).
  static let rejectReasons: [UInt16: String] = [
    0x0000: "Command not understood", 0x0001: "Signaling MTU exceeded", 0x0002: "Invalid CID in request",
  ]

  /// Connection Response Result (4.3).
  static let connectionResults: [UInt16: String] = [
    0x0000: "Connection successful",
    0x0001: "Connection pending",
    0x0002: "Connection refused - PSM not supported",
    0x0003: "Connection refused - security block",
    0x0004: "Connection refused - no resources available",
    0x0006: "Connection refused - invalid Source CID",
    0x0007: "Connection refused - Source CID already allocated",
  ]

  static let createChannelResults: [UInt16: String] = connectionResults.merging([
    0x0005: "Connection refused - Controller ID not supported"
  ]) { old, _ in old }

  /// Connection Response Status (meaningful when the Result is pending).
  static let connectionStatuses: [UInt16: String] = [
    0x0000: "No further information available", 0x0001: "Authentication pending", 0x0002: "Authorization pending",
  ]

  /// Configuration Response Result (4.5).
  static let configurationResults: [UInt16: String] = [
    0x0000: "Success",
    0x0001: "Failure - unacceptable parameters",
    0x0002: "Failure - rejected (no reason provided)",
    0x0003: "Failure - unknown options",
    0x0004: "Pending",
    0x0005: "Failure - flow spec rejected",
  ]

  /// Information Request InfoType (4.10).
  static let infoTypes: [UInt16: String] = [
    0x0001: "Connectionless MTU", 0x0002: "Extended features supported", 0x0003: "Fixed channels supported",
  ]

  /// Information Response Result (4.11).
  static let informationResults: [UInt16: String] = [0x0000: "Success", 0x0001: "Not supported"]

  static let moveResults: [UInt16: String] = [
    0x0000: "Move success",
    0x0001: "Move pending",
    0x0002: "Move refused - Controller ID not supported",
    0x0003: "Move refused - new Controller ID is same as old",
    0x0004: "Move refused - Configuration not supported",
    0x0005: "Move refused - Move Channel collision",
    0x0006: "Move refused - Channel not allowed to be moved",
  ]

  static let moveConfirmationResults: [UInt16: String] = [0x0000: "Move success", 0x0001: "Move failure"]

  /// Connection Parameter Update Response Result (4.21).
  static let parameterUpdateResults: [UInt16: String] = [
    0x0000: "Connection Parameters accepted", 0x0001: "Connection Parameters rejected",
  ]

  /// LE Credit Based Connection Response Result (4.23).
  static let leCreditBasedResults: [UInt16: String] = [
    0x0000: "Connection successful",
    0x0002: "Connection refused - SPSM not supported",
    0x0004: "Connection refused - no resources available",
    0x0005: "Connection refused - insufficient authentication",
    0x0006: "Connection refused - insufficient authorization",
    0x0007: "Connection refused - insufficient encryption key size",
    0x0008: "Connection refused - insufficient encryption",
    0x0009: "Connection refused - invalid Source CID",
    0x000A: "Connection refused - Source CID already allocated",
    0x000B: "Connection refused - unacceptable parameters",
  ]

  /// Credit Based Connection Response Result (4.26).
  static let creditBasedResults: [UInt16: String] = [
    0x0000: "All connections successful",
    0x0002: "All connections refused - SPSM not supported",
    0x0004: "Some connections refused - insufficient resources available",
    0x0005: "All connections refused - insufficient authentication",
    0x0006: "All connections refused - insufficient authorization",
    0x0007: "All connections refused - insufficient encryption key size",
    0x0008: "All connections refused - insufficient encryption",
    0x0009: "Some connections refused - invalid Source CID",
    0x000A: "Some connections refused - Source CID already allocated",
    0x000B: "All connections refused - unacceptable parameters",
    0x000C: "All connections refused - invalid parameters",
    0x000D: "All connections pending - no further information available",
    0x000E: "All connections pending - authentication pending",
    0x000F: "All connections pending - authorization pending",
  ]

  /// Credit Based Reconfigure Response Result (4.28).
  static let reconfigureResults: [UInt16: String] = [
    0x0000: "Reconfiguration successful",
    0x0001: "Reconfiguration failed - reduction in size of MTU not allowed",
    0x0002: "Reconfiguration failed - reduction in size of MPS not allowed for more than one channel at a time",
    0x0003: "Reconfiguration failed - one or more Destination CIDs invalid",
    0x0004: "Reconfiguration failed - other unacceptable parameters",
  ]
}
