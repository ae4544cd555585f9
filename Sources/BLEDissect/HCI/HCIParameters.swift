/// Decodes the parameters of HCI commands and events into field trees, from the
/// layouts in the command and event tables (Core 6.0, Vol 4, Part E, 7).
///
/// Decoding goes as far as the bytes go and never throws: a block cut inside a
/// parameter keeps the fields read before it and returns the `DecodeError`
/// (`hci.parameters.truncated`); octets left after the layout become a trailing
/// `Unparsed` field (`hci.parameters.extra`).
public enum HCIParameters {
  /// Every diagnostic id this decoder's results map to, with what it means.
  public static let diagnosticIDs: [(id: String, meaning: String)] = [
    ("hci.parameters.truncated", "an HCI command's or event's parameters end inside a parameter"),
    ("hci.parameters.extra", "an HCI command or event carries octets after the parameters the spec defines"),
  ]

  /// The name of the trailing field that holds octets the layout does not cover.
  public static let unparsedFieldName = "Unparsed"

  /// Every command row (name, layouts, summaries), in table order.
  public static var commands: [HCICommandRow] { HCICommandTable.rows }
  /// Every event row, LE Meta and Vendor Specific included.
  public static var events: [HCIEventRow] { HCIEventTable.events }
  /// Every LE Meta subevent row.
  public static var leSubevents: [HCIEventRow] { HCIEventTable.leSubevents }

  /// The row of a command, nil for vendor and unknown opcodes.
  public static func commandRow(_ opcode: UInt16) -> HCICommandRow? { HCICommandTable.byOpcode[opcode] }
  /// The row of an event, nil for unknown codes.
  public static func eventRow(_ code: UInt8) -> HCIEventRow? { HCIEventTable.eventsByCode[code] }
  /// The row of an LE Meta subevent, nil for unknown codes.
  public static func subeventRow(_ code: UInt8) -> HCIEventRow? { HCIEventTable.subeventsByCode[code] }

  /// Decodes a command's parameters; the cursor is at the first parameter (after
  /// opcode and length). Unknown, vendor and name-only commands give one
  /// `Parameters` field with the raw octets.
  public static func command(opcode: UInt16, _ c: inout ByteCursor, into fields: inout [Field]) -> DecodeError? {
    command(opcode: opcode, &c, into: &fields, sink: nil)
  }

  static func command(
    opcode: UInt16, _ c: inout ByteCursor, into fields: inout [Field], sink: HCIParameterSink?
  ) -> DecodeError? {
    run(HCICommandTable.byOpcode[opcode]?.parameters ?? raw, &c, &fields, sink: sink)
  }

  /// Decodes an event's parameters; the cursor is at the first parameter (after
  /// event code and length).
  ///
  /// - Command Complete: Num_HCI_Command_Packets, Command_Opcode (with the
  ///   command's name), then the return parameters of that command.
  /// - Command Status: Status, Num_HCI_Command_Packets, Command_Opcode.
  /// - LE Meta: Subevent_Code (with its name), then the subevent's parameters.
  /// - Vendor Specific and unknown events: one `Parameters` field, raw.
  public static func event(code: UInt8, _ c: inout ByteCursor, into fields: inout [Field]) -> DecodeError? {
    event(code: code, &c, into: &fields, sink: nil)
  }

  static func event(
    code: UInt8, _ c: inout ByteCursor, into fields: inout [Field], sink: HCIParameterSink?
  ) -> DecodeError? {
    var values = ParameterValues()
    switch code {
    case HCIEventCode.commandComplete.rawValue:
      do {
        try HCIParameter.decode(
          [.uint8("Num_HCI_Command_Packets"), .opcode("Command_Opcode")], &c, into: &fields, values: &values,
          sink: sink)
      } catch {
        return error
      }
      let opcode = UInt16(truncatingIfNeeded: values["Command_Opcode"] ?? 0)
      return runReturn(returnLayout(opcode, empty: c.isAtEnd), &c, &fields, sink: sink)
    case HCIEventCode.leMeta.rawValue:
      let subevent: UInt8
      do {
        subevent = try c.readUInt8()
      } catch {
        return error
      }
      let name = LESubeventCode(rawValue: subevent).name
      fields.append(Field("Subevent_Code", .code(UInt64(subevent), hexDigits: 2, name: name)))
      return run(HCIEventTable.subeventsByCode[subevent]?.parameters ?? raw, &c, &fields, sink: sink)
    default:
      return run(HCIEventTable.eventsByCode[code]?.parameters ?? raw, &c, &fields, sink: sink)
    }
  }

  /// Decodes the return parameters a Command Complete carries for `opcode`; the
  /// cursor is at the first return parameter.
  public static func returnParameters(
    opcode: UInt16, _ c: inout ByteCursor, into fields: inout [Field]
  ) -> DecodeError? {
    runReturn(returnLayout(opcode, empty: c.isAtEnd), &c, &fields)
  }

  /// The command parameters a one-line listing shows (`Connection_Handle`, `Reason`).
  public static func summary(commandOpcode: UInt16) -> [String] {
    HCICommandTable.byOpcode[commandOpcode]?.summary ?? []
  }

  /// The event parameters a one-line listing shows. For LE Meta with a subevent,
  /// the subevent's; for Command Complete, `Command_Opcode` (add
  /// `summary(returnParametersOf:)` for the answered command's).
  public static func summary(event: UInt8, subevent: UInt8?) -> [String] {
    if event == HCIEventCode.leMeta.rawValue, let subevent {
      return HCIEventTable.subeventsByCode[subevent]?.summary ?? ["Subevent_Code"]
    }
    return HCIEventTable.eventsByCode[event]?.summary ?? []
  }

  /// The return parameters of `opcode` a Command Complete line shows (`Status`,
  /// `BD_ADDR`…).
  public static func summary(returnParametersOf opcode: UInt16) -> [String] {
    HCICommandTable.byOpcode[opcode]?.returnSummary ?? ["Status"]
  }

  /// Whether the event's parameters (a subevent's, after Subevent_Code) start with
  /// a `Status`, as the tables say; for Command Complete, whether the answered
  /// command's return parameters do. Built once from the tables.
  public static func hasLeadingStatus(event: UInt8, subevent: UInt8?) -> Bool {
    if event == HCIEventCode.leMeta.rawValue {
      return subevent.map { subeventsWithStatus.contains($0) } ?? false
    }
    return eventsWithStatus.contains(event)
  }

  private static let eventsWithStatus: Set<UInt8> = Set(
    HCIEventTable.events.filter { $0.parameters?.first?.name == "Status" }.map(\.code))
  private static let subeventsWithStatus: Set<UInt8> = Set(
    HCIEventTable.leSubevents.filter { $0.parameters?.first?.name == "Status" }.map(\.code))

  /// The diagnostics a decode result calls for: the error, and an `Unparsed` field
  /// at the top level of `fields`.
  public static func diagnostics(error: DecodeError?, fields: [Field]) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    if let error {
      let message: String
      switch error.kind {
      case .truncated(let needed, let available):
        message = "parameters end at offset \(error.offset) with \(available) of \(needed) octets of a parameter"
      case .invalid(let why):
        message = "parameters: \(why) at offset \(error.offset)"
      }
      diagnostics.append(Diagnostic(id: "hci.parameters.truncated", severity: .warning, message))
    }
    if let unparsed = fields.last, unparsed.name == unparsedFieldName, case .bytes(let octets) = unparsed.value {
      diagnostics.append(
        Diagnostic(
          id: "hci.parameters.extra", severity: .warning, "\(octets.count) octets after the defined parameters"))
    }
    return diagnostics
  }

  // MARK: - Layouts

  /// A command's parameters, as its table row declares them.
  public static func layout(command opcode: UInt16) -> [HCIParameter]? { HCICommandTable.byOpcode[opcode]?.parameters }

  /// The return parameters of a command's Command Complete, as its table row declares them.
  public static func returnLayout(command opcode: UInt16) -> [HCIParameter]? {
    HCICommandTable.byOpcode[opcode]?.returnParameters
  }

  /// An event's parameters (`subevent` for LE Meta: after Subevent_Code), as its table
  /// row declares them.
  public static func layout(event: UInt8, subevent: UInt8?) -> [HCIParameter]? {
    if event == HCIEventCode.leMeta.rawValue {
      return subevent.flatMap { HCIEventTable.subeventsByCode[$0]?.parameters }
    }
    return HCIEventTable.eventsByCode[event]?.parameters
  }

  // MARK: - Layout indexes

  /// The layout index of the parameters of an event (`subevent` for LE Meta: the
  /// subevent's parameters, after Subevent_Code), or a command. Nil where only decoding
  /// tells: Command Complete (its return parameters depend on the command), vendor and
  /// unknown codes.
  public static func layoutIndex(event: UInt8, subevent: UInt8?) -> HCILayoutIndex? {
    if event == HCIEventCode.leMeta.rawValue {
      guard let subevent else { return nil }
      return subeventIndexes[Int(subevent)]
    }
    return eventIndexes[Int(event)]
  }

  public static func layoutIndex(command opcode: UInt16) -> HCILayoutIndex? { commandIndexes[opcode] }

  private static let eventIndexes: [HCILayoutIndex?] = indexes(HCIEventTable.events) {
    $0.code == HCIEventCode.commandComplete.rawValue || $0.code == HCIEventCode.leMeta.rawValue
  }
  private static let subeventIndexes: [HCILayoutIndex?] = indexes(HCIEventTable.leSubevents) { _ in false }
  private static let commandIndexes: [UInt16: HCILayoutIndex] = HCICommandTable.byOpcode.compactMapValues { row in
    row.parameters.map { HCILayoutIndex($0, summary: row.summary) }
  }

  private static func indexes(_ rows: [HCIEventRow], skip: (HCIEventRow) -> Bool) -> [HCILayoutIndex?] {
    var result = [HCILayoutIndex?](repeating: nil, count: 256)
    for row in rows where !skip(row) && result[Int(row.code)] == nil {
      if let parameters = row.parameters { result[Int(row.code)] = HCILayoutIndex(parameters, summary: row.summary) }
    }
    return result
  }

  // MARK: - Internals

  private static let raw: [HCIParameter] = [.rest("Parameters")]

  /// The return layout of `opcode`'s Command Complete. Commands without a tabled
  /// return block (name-only, vendor, unknown, and the NOP opcode 0x0000 some
  /// controllers send with a status) show a Status and the rest raw, as nearly
  /// every return block starts with one.
  private static func returnLayout(_ opcode: UInt16, empty: Bool) -> [HCIParameter] {
    if let returns = HCICommandTable.byOpcode[opcode]?.returnParameters { return returns }
    return empty ? [] : [.status, .rest("Return_Parameters")]
  }

  /// Runs a return layout. A failed command may answer with its Status alone
  /// (controllers do, for unknown or disallowed commands): that is complete, not
  /// truncated.
  private static func runReturn(
    _ layout: [HCIParameter], _ c: inout ByteCursor, _ fields: inout [Field], sink: HCIParameterSink? = nil
  ) -> DecodeError? {
    let before = fields.count
    let error = run(layout, &c, &fields, sink: sink)
    if error != nil, c.isAtEnd, fields.count == before + 1, let status = fields.last,
      status.name == "Status", status.value.integer != 0
    {
      return nil
    }
    return error
  }

  private static func run(
    _ layout: [HCIParameter], _ c: inout ByteCursor, _ fields: inout [Field], sink: HCIParameterSink? = nil
  ) -> DecodeError? {
    var values = ParameterValues()
    do {
      try HCIParameter.decode(layout, &c, into: &fields, values: &values, sink: sink)
    } catch {
      return error
    }
    if !c.isAtEnd {
      fields.append(Field(unparsedFieldName, .bytes(c.readRemainingBytes())))
    }
    return nil
  }
}

// MARK: - Locations

extension HCIParameters {
  /// Where each parameter of an HCI command or event is in `bytes` (the record
  /// without its H4 type byte), in layout order, array elements one after the other,
  /// as far as the bytes go. The same interpreter as `command` and `event` reads them,
  /// so the ranges are those of the decoded fields. Empty for other packet types.
  public static func locations(of type: HCIPacketType, in bytes: UnsafeRawBufferPointer) -> [HCIParameterLocation] {
    let headerSize: Int
    switch type {
    case .command: headerSize = 3
    case .event: headerSize = 2
    default: return []
    }
    guard bytes.count >= headerSize else { return [] }
    let sink = HCIParameterSink()
    var fields: [Field] = []
    var c = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[headerSize...]).bytes, base: headerSize, layer: .hci)
    if type == .event {
      _ = event(code: bytes[0], &c, into: &fields, sink: sink)
    } else {
      _ = command(opcode: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, &c, into: &fields, sink: sink)
    }
    return sink.locations
  }

  /// Where each parameter of `layout` is when it starts at `start` of `bytes`.
  public static func locations(
    of layout: [HCIParameter], in bytes: UnsafeRawBufferPointer, from start: Int
  ) -> [HCIParameterLocation] {
    guard start <= bytes.count else { return [] }
    let sink = HCIParameterSink()
    var fields: [Field] = []
    var c = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[start...]).bytes, base: start, layer: .hci)
    _ = run(layout, &c, &fields, sink: sink)
    return sink.locations
  }
}
