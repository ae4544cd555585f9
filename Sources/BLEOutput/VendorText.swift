import BLEAnalysis
import BLEDissect

/// The text line's words for each protocol over GATT:
///
///     mcumgr image upload req seq 51 {off 320, data (320 bytes)}
///     mcumgr image upload rsp seq 51 {off 640} ← req #355 in 59.9 ms; image upload 2% (640 of 28,731 bytes) at 1.7 kB/s
///     dfu Create data size 4096
///     nus tx "uptime: 6877.207 s" (2 PDUs: #324, #325)
///     hid keyboard report 1: Left Shift + h, down Left Shift, h
enum VendorText {
  // MARK: - mcumgr

  static func appendMCUmgr(_ record: MCUmgrRecord, into out: inout OutputBuffer) {
    out.append("mcumgr ")
    if let fragment = record.fragment {
      let length = fragment.length.map { " of \($0)" } ?? ""
      out.append(string: "fragment \(fragment.index) (\(fragment.received)\(length) bytes)")
    }
    if let message = record.message {
      let header = message.header
      out.append(string: header.group.name)
      out.append(" ")
      out.append(string: header.commandName)
      out.append(header.op.isRead ? " read " : " ")
      out.append(header.op.isResponse ? "rsp" : "req")
      if header.op.rawValue > 3 {
        out.append(" op ")
        out.appendDecimal(Int(header.op.rawValue))
      }
      out.append(" seq ")
      out.appendDecimal(Int(header.sequence))
      if let body = message.body, body.entries?.isEmpty != true {
        out.append(" ")
        VendorRendering.appendCBORText(body, limit: 160, into: &out)
      } else if message.bodyError != nil {
        out.append(" (data not CBOR)")
      }
      if let rc = message.rc, rc != .ok {
        out.append(" rc ")
        out.append(string: rc.name)
      }
      if let err = message.groupError, err.rc != 0 {
        out.append(" err ")
        out.append(string: err.group.errorName(err.rc) ?? "\(err.group.name) rc \(err.rc)")
      }
      if record.frames.count > 1 { appendPDUs(record.frames, into: &out) }
      if let request = record.request {
        out.append(" ← req #")
        out.appendDecimal(request.frame)
        appendLatency(request.latencyMicroseconds, into: &out)
      }
    }
    if let progress = record.progress {
      out.append(record.message == nil ? "" : "; ")
      appendProgress(progress, into: &out)
    }
  }

  /// `image upload 34% (12,288 of 36,000 bytes) at 12.4 kB/s, stalled 4.2 s at offset 12,288`.
  static func appendProgress(_ progress: TransferProgress, into out: inout OutputBuffer) {
    out.append(string: progress.transfer)
    if progress.ended { out.append(" stopped at") }
    if let percent = progress.percent, let total = progress.total {
      out.append(" ")
      out.appendDecimal(Int(percent.rounded(.down)))
      out.append("% (")
      out.append(string: VendorFormat.bytes(progress.offset))
      out.append(" of ")
      out.append(string: VendorFormat.bytes(total))
      out.append(" bytes)")
    } else {
      out.append(" ")
      out.append(string: VendorFormat.bytes(progress.offset))
      out.append(" bytes")
    }
    if let rate = progress.bytesPerSecond {
      out.append(" at ")
      out.appendMeasure((rate / 100).rounded() / 10)
      out.append(" kB/s")
    }
    if let stall = progress.stall {
      out.append(", stalled ")
      out.append(string: VendorFormat.seconds(stall.microseconds))
      out.append(" at offset ")
      out.append(string: VendorFormat.bytes(stall.offset))
    }
  }

  // MARK: - DFU

  static func appendDFU(_ record: DFURecord, into out: inout OutputBuffer) {
    out.append("dfu ")
    if let packet = record.packet {
      out.append("packet ")
      if let object = packet.object {
        out.append(string: object)
        out.append(" ")
      }
      out.append("offset ")
      out.appendDecimal(packet.offset)
      out.append(" length ")
      out.appendDecimal(packet.length)
    }
    if let message = record.message {
      if let request = message.requestName {
        out.append(record.receipt ? "packet receipt (" : "response (")
        out.append(string: request)
        out.append(") ")
        out.append(string: message.resultName ?? "")
        if let extended = message.parameters.extendedErrorName {
          out.append(": ")
          out.append(string: extended)
        }
      } else {
        out.append(string: message.name)
      }
      appendDFUParameters(message.parameters, into: &out)
      if let crc = record.crc {
        out.append(crc.matches ? " (matches the bytes written)" : " (the bytes written give ")
        if !crc.matches {
          out.append(string: DFURecord.hex32(crc.computed))
          out.append(")")
        }
      }
      if let request = record.request {
        out.append(" ← req #")
        out.appendDecimal(request.frame)
        appendLatency(request.latencyMicroseconds, into: &out)
      }
    }
    if let sizes = record.imageSizes {
      out.append(", image sizes ")
      out.append(string: sizes.map { VendorFormat.bytes(Int($0)) }.joined(separator: " + "))
    }
    if let initPacket = record.initPacket {
      out.append("; init packet: ")
      out.append(string: initPacket.typeName ?? "firmware")
      out.append(" ")
      out.append(string: VendorFormat.bytes(Int(initPacket.firmwareSize)))
      out.append(" bytes")
      if let version = initPacket.firmwareVersion {
        out.append(", fw_version ")
        out.appendDecimal(Int(version))
      }
    }
    if let progress = record.progress {
      out.append(record.message == nil && record.packet == nil ? "" : "; ")
      appendProgress(progress, into: &out)
    }
  }

  private static func appendDFUParameters(_ p: DFUParameters, into out: inout OutputBuffer) {
    func number(_ name: StaticString, _ value: (some BinaryInteger)?) {
      guard let value else { return }
      out.append(" ")
      out.append(name)
      out.append(" ")
      out.appendDecimal(Int(value))
    }
    if let type = p.objectTypeName {
      out.append(" ")
      out.append(string: type)
    }
    number("size", p.size)
    number("prn", p.prn)
    number("max size", p.maxSize)
    number("offset", p.offset)
    if let crc = p.crc32 {
      out.append(" CRC-32 ")
      out.append(string: DFURecord.hex32(crc))
    }
    number("mtu", p.mtu)
    number("ping", p.pingID)
    number("version", p.protocolVersion)
    number("image", p.image)
    if let hardware = p.hardware, hardware.count == 5 {
      out.append(" part 0x")
      out.appendHexDigits(UInt64(hardware[0]), width: 4)
      out.append(string: ", ROM \(hardware[2]), RAM \(hardware[3])")
    }
    if let firmware = p.firmware {
      out.append(string: " type \(firmware.type) version \(firmware.version) length \(firmware.length)")
    }
    if let name = p.advertisementName {
      out.append(" ")
      appendQuoted(name, limit: 32, into: &out)
    }
    if let types = p.imageTypeNames {
      out.append(" ")
      out.append(string: types.joined(separator: "+"))
    }
    if let step = p.initPacket {
      out.append(string: step == 0 ? " (receive init packet)" : step == 1 ? " (init packet complete)" : " (\(step))")
    }
    number("bytes received", p.bytesReceived)
  }

  // MARK: - NUS

  static func appendNUS(_ record: NUSRecord, into out: inout OutputBuffer) {
    out.append("nus ")
    out.append(string: record.channel)
    if let data = record.data {
      out.append(" data ")
      out.appendHexBytes(data.prefix(24))
      if data.count > 24 { out.append("…") }
      return
    }
    for line in record.lines {
      out.append(" ")
      appendQuoted(line, limit: 120, into: &out)
    }
    if record.pdus > 1 { appendPDUs(record.frames, into: &out) }
    if let partial = record.partial {
      out.append(record.lines.isEmpty ? " " : ", then ")
      appendQuoted(partial, limit: 120, into: &out)
      out.append(" (no line end yet)")
    }
  }

  // MARK: - HID

  static func appendHID(_ record: HIDRecord, into out: inout OutputBuffer) {
    out.append("hid ")
    switch record.kind {
    case "report_map":
      out.append("Report Map")
      if let length = record.mapLength {
        out.append(" ")
        out.appendDecimal(length)
        out.append(" bytes")
      }
      if let map = record.map {
        out.append(", ")
        out.appendDecimal(map.items.count)
        out.append(" items: ")
        out.append(string: HIDRecord.reportSummary(map).joined(separator: "; "))
      }
      if record.frames.count > 1 { appendPDUs(record.frames, into: &out) }
      return
    case "report_reference":
      out.append("Report Reference: report ")
      out.appendDecimal(Int(record.reportID ?? 0))
      out.append(" ")
      out.append(string: record.reportType?.name ?? "")
      return
    case "information":
      if case .information(let bcd, let country, let flags) = record.service {
        out.append(string: "HID Information bcdHID \(bcd >> 8).\(String(bcd & 0xFF, radix: 16)), country \(country)")
        if flags & 1 != 0 { out.append(", RemoteWake") }
        if flags & 2 != 0 { out.append(", NormallyConnectable") }
      }
      return
    case "protocol_mode":
      if case .protocolMode(let mode) = record.service {
        out.append("Protocol Mode: ")
        out.append(string: HIDServiceValue.protocolModeName(mode))
      }
      return
    case "control_point":
      if case .controlPoint(let command) = record.service {
        out.append("Control Point: ")
        out.append(string: HIDServiceValue.controlPointName(command))
      }
      return
    default: break
    }
    // A report.
    let values = record.values
    out.append(string: values?.kind.rawValue ?? "report")
    if record.kind.hasPrefix("boot") {
      out.append(" (boot)")
    } else {
      if values != nil { out.append(" report") }
      if let id = record.reportID {
        out.append(" ")
        out.appendDecimal(Int(id))
      }
      if let type = record.reportType, type != .input {
        out.append(" ")
        out.append(string: type.name)
      }
    }
    guard let values else { return out.append(" (no Report Map in the capture)") }
    out.append(":")
    var parts: [String] = []
    if !values.leds.isEmpty
      || (values.kind == .keyboard && (record.reportType == .output || record.kind == "boot_keyboard_output"))
    {
      parts.append("LEDs " + (values.ledNames.isEmpty ? "off" : values.ledNames.joined(separator: ", ")))
    }
    if values.kind == .keyboard && record.reportType != .output && record.kind != "boot_keyboard_output" {
      let held = values.modifierNames + values.keyNames
      parts.append(held.isEmpty ? "no keys" : held.joined(separator: " + "))
      if !values.text.isEmpty { parts.append("typing \"\(values.text)\"") }
    } else if !values.keys.isEmpty {
      parts.append("keys " + values.keyNames.joined(separator: " + "))
    }
    if !values.buttons.isEmpty { parts.append("buttons " + values.buttonNames.joined(separator: ", ")) }
    if let x = values.x { parts.append("x \(x)") }
    if let y = values.y { parts.append("y \(y)") }
    if let wheel = values.wheel, wheel != 0 { parts.append("wheel \(wheel)") }
    if let pan = values.pan, pan != 0 { parts.append("pan \(pan)") }
    if !values.consumer.isEmpty { parts.append(values.consumerNames.joined(separator: " + ")) }
    for other in values.other.prefix(8) { parts.append("\(other.usage?.name ?? "usage") \(other.value)") }
    if parts.isEmpty { parts.append(values.kind == .consumer ? "released" : "nothing") }
    if !record.pressed.isEmpty { parts.append("down " + record.pressed.joined(separator: ", ")) }
    if !record.released.isEmpty { parts.append("up " + record.released.joined(separator: ", ")) }
    out.append(" ")
    out.append(string: parts.joined(separator: ", "))
  }

  // MARK: - ANCS and AMS

  static func appendANCS(_ record: ANCSRecord, into out: inout OutputBuffer) {
    if appendError("ancs", record.error, into: &out) { return }
    if let partial = record.partial {
      out.append(string: "Data Source part (\(partial) bytes so far)")
      return
    }
    switch record.message {
    case .notification(let n):
      out.append(string: "\(n.eventName) \(n.categoryName) uid \(n.uid) count \(n.categoryCount)")
      if !n.flagNames.isEmpty { out.append(string: " (\(n.flagNames.joined(separator: ", ")))") }
    case .command(let c):
      out.append(string: c.commandName)
      if let uid = c.uid { out.append(string: " uid \(uid)") }
      if let app = c.appIdentifier {
        out.append(" ")
        appendQuoted(app, limit: 64, into: &out)
      }
      if let action = c.actionName { out.append(string: " \(action)") }
      if !c.attributes.isEmpty {
        out.append(": ")
        out.append(
          string: zip(c.attributes, c.attributeNames).map { attribute, name in
            attribute.maximumLength.map { "\(name) (\($0))" } ?? name
          }.joined(separator: ", "))
      }
    case .response(let r):
      out.append(string: "response \(r.commandName)")
      if let uid = r.uid { out.append(string: " uid \(uid)") }
      if let app = r.appIdentifier {
        out.append(" ")
        appendQuoted(app, limit: 64, into: &out)
      }
      for (index, attribute) in r.attributes.enumerated() {
        out.append(index == 0 ? ": " : ", ")
        out.append(string: ANCSResponse.attributeName(attribute.id, app: r.command == 1))
        out.append(" ")
        appendQuoted(attribute.value ?? "", limit: 64, into: &out)
      }
      if record.frames.count > 1 { appendPDUs(record.frames, into: &out) }
    case nil: break
    }
  }

  static func appendAMS(_ record: AMSRecord, into out: inout OutputBuffer) {
    if appendError("ams", record.error, into: &out) { return }
    switch record.message {
    case .remoteCommand(let id): out.append(string: "remote command \(AMSMessage.commandName(id))")
    case .supportedCommands(let ids):
      out.append(string: "supported commands " + ids.map(AMSMessage.commandName).joined(separator: ", "))
    case .subscribe(let entity, let attributes):
      out.append(
        string: "entity update request \(AMSMessage.entityName(entity)): "
          + attributes.map { AMSMessage.attributeName($0, entity: entity) }.joined(separator: ", "))
    case .update(let entity, let attribute, let flags, let value):
      out.append(
        string: "entity update \(AMSMessage.entityName(entity)) \(AMSMessage.attributeName(attribute, entity: entity)) "
      )
      appendQuoted(value, limit: 96, into: &out)
      if flags & 1 != 0 { out.append(" (truncated)") }
    case .select(let entity, let attribute):
      out.append(
        string:
          "entity attribute request \(AMSMessage.entityName(entity)) \(AMSMessage.attributeName(attribute, entity: entity))"
      )
    case .value(let value):
      out.append("entity attribute ")
      appendQuoted(value, limit: 96, into: &out)
    case nil: break
    }
  }

  // MARK: - Shared

  /// `ancs ` and, for an ATT error by the protocol's name, `error Unknown command`;
  /// true when it was an error.
  private static func appendError(_ name: StaticString, _ error: String?, into out: inout OutputBuffer) -> Bool {
    out.append(name)
    out.append(" ")
    guard let error else { return false }
    out.append(string: "error \(error)")
    return true
  }

  /// Text in double quotes, `\r` `\n` `\t` `"` `\` escaped, cut at `limit` characters with `…`.
  static func appendQuoted(_ text: String, limit: Int, into out: inout OutputBuffer) {
    out.append("\"")
    for (index, character) in text.unicodeScalars.enumerated() {
      if index == limit {
        out.append("…")
        break
      }
      switch character {
      case "\r": out.append("\\r")
      case "\n": out.append("\\n")
      case "\t": out.append("\\t")
      case "\"": out.append("\\\"")
      case "\\": out.append("\\\\")
      default: out.append(string: String(character))
      }
    }
    out.append("\"")
  }

  /// ` (2 PDUs: #324, #325)`: the frames of the PDUs a message took.
  static func appendPDUs(_ frames: [Int], into out: inout OutputBuffer) {
    out.append(" (")
    out.appendDecimal(frames.count)
    out.append(" PDUs: #")
    out.append(string: frames.map(String.init).joined(separator: ", #"))
    out.append(")")
  }

  static func appendLatency(_ microseconds: Int64, into out: inout OutputBuffer) {
    out.append(microseconds < 0 ? " in -" : " in ")
    out.appendDecimal(microseconds.magnitude / 1000)
    out.append(".")
    out.appendDecimal(microseconds.magnitude % 1000, minimumDigits: 3)
    out.append(" ms")
  }
}
