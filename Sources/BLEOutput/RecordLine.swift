import BLEAnalysis
import BLECapture
import BLEDissect

/// The detail column of `show`'s text: what a record is, in a person's words.
///
///     LE Connection Complete Status Success, Connection_Handle 0x0040, Role Central, …
///     Command Complete (LE Set Scan Enable) Status Success
///     ATT Write Request attr 0x0027 value 0100 → rsp #212 in 30.100 ms
///
/// The link handle of ACL data is left to the connection column (and to `-v` and
/// JSON); `attr` names an attribute handle. `names` names discovered UUIDs; `color`
/// paints errors red.
enum RecordLine {
  /// Values longer than this many bytes are cut in the one-line form.
  static let valueBytesShown = 24
  /// Values at least this long, all printable ASCII or \r \n \t, are also shown as text.
  static let textMinimumBytes = 4

  static func appendDetail(
    _ record: Record, _ analyzed: AnalyzedRecord, names: DissectorLibrary = .builtin, color: Bool = false,
    into out: inout OutputBuffer
  ) {
    if let hci = analyzed.decoded.hci {
      switch hci.type {
      case .command, .event:
        if let reports = analyzed.decoded.advertising {
          appendAdvertising(hci, reports, record, into: &out)
        } else {
          appendControl(hci, record, analyzed.decoded, into: &out)
        }
        if analyzed.endedConnection != nil { VendorRendering.appendText(analyzed.vendor, into: &out) }
      default:
        if let acl = analyzed.decoded.acl {
          if analyzed.conn == nil {
            out.append("handle ")
            out.appendHex(UInt64(acl.handle), width: 4)
            out.append(" ")
          }
          appendData(record, analyzed, acl, names: names, color: color, into: &out)
        } else if let handle = hci.handle {
          out.append("handle ")
          out.appendHex(UInt64(handle), width: 4)
          out.append(", ")
          out.appendDecimal(record.bytes.count)
          out.append(" bytes")
        } else {
          out.appendDecimal(record.bytes.count)
          out.append(" bytes")
        }
      }
    } else if let linkType = analyzed.decoded.linkLayer {
      if let ll = analyzed.decoded.ll {
        return LLText.appendDetail(record, analyzed, ll, names: names, color: color, into: &out)
      }
      out.append("link type ")
      out.appendDecimal(Int(linkType.rawValue))
      out.append(", ")
      out.appendDecimal(record.bytes.count)
      out.append(" bytes")
    } else {
      out.appendDecimal(record.bytes.count)
      out.append(" bytes")
    }
  }

  private static func appendControl(
    _ hci: HCILayer, _ record: Record, _ decoded: DecodedRecord, into out: inout OutputBuffer
  ) {
    if appendPlacedSummary(hci, record, into: &out) { return }
    let parameters = decoded.hciParameters(record)
    out.append(string: hci.name)
    var summary: [String]
    if let event = hci.event {
      summary = HCIParameters.summary(event: event, subevent: hci.subevent)
      if event == 0x0E || event == 0x0F, let opcode = hci.opcode {
        out.append(" (")
        out.append(string: HCIOpcode(rawValue: opcode).name)
        out.append(")")
        summary = event == 0x0E ? HCIParameters.summary(returnParametersOf: opcode) : ["Status"]
      }
    } else {
      summary = HCIParameters.summary(commandOpcode: hci.opcode ?? 0)
    }
    guard !summary.isEmpty else { return }
    var first = true
    for name in summary {
      guard let field = parameters.lookup(name) else { continue }
      out.append(first ? " " : ", ")
      first = false
      out.append(string: name)
      out.append(" ")
      appendShort(field.value, into: &out)
    }
  }

  /// The line of a command or event whose parameters fill their layout and whose
  /// summary parameters sit at fixed offsets, read from the bytes with no field tree.
  /// False when the line needs the decoded fields. Command Complete always does.
  private static func appendPlacedSummary(_ hci: HCILayer, _ record: Record, into out: inout OutputBuffer) -> Bool {
    guard RecordDecoder.parametersFit(record, hci), let (bytes, index) = RecordDecoder.parameterLayout(record, hci)
    else { return false }
    var placed = index.summary ?? []
    if hci.event == HCIEventCode.commandStatus.rawValue {
      // Command Status shows the command it answers and its Status.
      guard let status = index.placed.first, status.parameter.name == "Status" else { return false }
      placed = [status]
    } else if index.summary == nil {
      return false
    }
    out.append(string: hci.name)
    if hci.event == HCIEventCode.commandStatus.rawValue, let opcode = hci.opcode {
      out.append(" (")
      out.append(string: HCIOpcode(rawValue: opcode).name)
      out.append(")")
    }
    for (position, entry) in placed.enumerated() {
      guard let value = entry.value(in: bytes) else { continue }
      out.append(position == 0 ? " " : ", ")
      out.append(string: entry.parameter.name)
      out.append(" ")
      appendShort(value, into: &out)
    }
    return true
  }

  /// An advertising report event: each report's PDU type, address, RSSI and AD
  /// structures, reports apart with `;`.
  private static func appendAdvertising(
    _ hci: HCILayer, _ reports: [AdvertisingReport], _ record: Record, into out: inout OutputBuffer
  ) {
    out.append(string: hci.name)
    for (index, report) in reports.enumerated() {
      out.append(index == 0 ? " " : "; ")
      AdvertisingText.appendReport(report, record, into: &out)
    }
  }

  /// A value in few characters: codes by name, measures in their unit.
  static func appendShort(_ value: FieldValue, into out: inout OutputBuffer) {
    switch value {
    case .code(_, _, let name): out.append(string: name)
    case .measure(_, _, let v, let unit):
      out.appendMeasure(v)
      out.append(" ")
      out.append(string: unit)
    default: out.appendFieldValue(value)
    }
  }

  static func appendData(
    _ record: Record, _ analyzed: AnalyzedRecord, _ acl: ACLLayer, names: DissectorLibrary = .builtin,
    color: Bool = false, into out: inout OutputBuffer
  ) {
    guard let l2cap = analyzed.decoded.l2cap else {
      switch analyzed.decoded.reassembly {
      case .first, .part:
        out.append(acl.pb == 1 ? "continuing fragment, " : "first fragment, ")
        out.appendDecimal(Int(acl.length))
        out.append(" bytes")
      default:
        out.append(acl.pb == 1 ? "fragment, " : "")
        out.appendDecimal(Int(acl.length))
        out.append(" bytes")
      }
      return
    }
    analyzed.decoded.withPayloadBytes(record) { bytes in
      if let att = analyzed.decoded.att {
        out.append("ATT ")
        out.append(att.opcode.staticName, else: att.opcode.name)
        if let entries = listEntries(att.parameters) {
          if !DiscoveryRendering.appendText(att, analyzed, bytes, names, into: &out) {
            out.append(", ")
            out.appendDecimal(entries)
            out.append(entries == 1 ? " entry" : " entries")
          }
        } else if let handle = analyzed.attHandle {
          out.append(" attr ")
          out.appendHex(UInt64(handle), width: 4)
          if let label = analyzed.withAttribute(\.labelUTF8) ?? nil {
            out.append(" (")
            out.append(contentsOf: label)
            out.append(")")
          }
        }
        appendATTParameters(att.parameters, into: &out)
        if let error = att.error {
          out.append(" ")
          if color { out.append(TextColor.error) }
          out.append(string: error.name)
          if color { out.append(TextColor.reset) }
        }
        if let mtu = att.mtu {
          out.append(" MTU ")
          out.appendDecimal(Int(mtu))
        }
        if let value = att.value { appendValue(bytes, value, into: &out) }
        // What lives in the extras is read only when there are any: an empty list read
        // costs a release.
        let hasExtras = analyzed.extrasID != 0
        if hasExtras, let value = analyzed.value, !value.fields.isEmpty {
          out.append(" = ")
          out.appendDecodedText(value.fields)
        }
        if hasExtras {
          for value in analyzed.assembled {
            out.append(" [")
            out.appendDecimal(value.value.count)
            out.append(" bytes of ")
            out.appendHex(UInt64(value.handle), width: 4)
            out.append(" from #")
            out.append(string: value.frames.map(String.init).joined(separator: ", #"))
            if let decoded = value.decoded, !decoded.fields.isEmpty {
              out.append(" = ")
              out.appendDecodedText(decoded.fields)
            }
            out.append("]")
          }
        }
        appendTransaction(analyzed, into: &out)
        if hasExtras { VendorRendering.appendText(analyzed.vendor, into: &out) }
      } else if let smp = analyzed.decoded.smp {
        out.append("SMP ")
        out.append(string: smp.code.name)
        if let features = smp.pairingFeatures {
          out.append(" ")
          out.append(string: features.ioCapability.name)
          out.append(", AuthReq ")
          out.append(string: features.authReq.names.joined(separator: "|"))
          out.append(", key size ")
          out.appendDecimal(Int(features.maxEncryptionKeySize))
        } else if let reason = smp.failureReason {
          out.append(" ")
          out.append(string: reason.name)
        }
        if let method = analyzed.pairingMethod {
          out.append(" → ")
          out.append(string: method.name)
        }
      } else if let signaling = analyzed.decoded.signaling {
        out.append("L2CAP ")
        out.append(string: signaling.code.name)
        out.append(" id ")
        out.appendDecimal(Int(signaling.identifier))
      } else {
        appendChannel(l2cap, analyzed.decoded.reassembly, into: &out)
      }
    }
    if l2cap.fragments > 1 {
      out.append(" [")
      out.appendDecimal(l2cap.fragments)
      out.append(" fragments]")
    }
  }

  /// Which frame a request and its answer point to, and the latency, the same both ways:
  /// `→ rsp #14 in 6.317 ms` on a request (`→ err #…` for an Error Response, `→ cfm #…`
  /// for an indication's confirmation) and `← req #12 in 6.317 ms` on the answer (`← ind`).
  /// A request that got no answer: `→ no response` (`in 30 s`, `(disconnected)`,
  /// `(superseded)`); an indication: `→ no confirmation`.
  static func appendTransaction(_ analyzed: AnalyzedRecord, into out: inout OutputBuffer) {
    if let exchange = analyzed.exchange {
      out.append(exchange.requestOpcode == ATTOpcode.handleValueIndication.rawValue ? " ← ind #" : " ← req #")
      out.appendDecimal(exchange.requestFrame)
      appendLatency(exchange.latencyMicroseconds, into: &out)
    } else if let answer = analyzed.answer {
      switch answer.opcode {
      case ATTOpcode.errorResponse.rawValue: out.append(" → err #")
      case ATTOpcode.handleValueConfirmation.rawValue: out.append(" → cfm #")
      default: out.append(" → rsp #")
      }
      out.appendDecimal(answer.frame)
      appendLatency(answer.latencyMicroseconds, into: &out)
    } else if let reason = analyzed.unansweredReason {
      let indication = analyzed.decoded.att?.opcode == .handleValueIndication
      out.append(indication ? " → no confirmation" : " → no response")
      if reason == .timeout {
        out.append(" in 30 s")
      } else if reason == .disconnected {
        out.append(" (disconnected)")
      } else if reason == .superseded {
        out.append(" (superseded)")
      }
    }
  }

  /// ` in 6.317 ms`: latencies in ms with three decimals, whatever their size.
  private static func appendLatency(_ microseconds: Int64, into out: inout OutputBuffer) {
    out.append(microseconds < 0 ? " in -" : " in ")
    out.appendDecimal(microseconds.magnitude / 1000)
    out.append(UInt8(ascii: "."))
    out.appendDecimal(microseconds.magnitude % 1000, minimumDigits: 3)
    out.append(" ms")
  }

  /// A PDU on a channel with no decoder (or a K-frame of an SDU still under way).
  private static func appendChannel(_ l2cap: L2CAPLayer, _ reassembly: ReassemblyRole, into out: inout OutputBuffer) {
    out.append("L2CAP cid ")
    out.appendHex(UInt64(l2cap.cid), width: 4)
    if let psm = l2cap.psm {
      out.append(" psm ")
      out.appendHex(UInt64(psm), width: 4)
      if let name = L2CAPPSM.names[psm] {
        out.append(" (")
        out.append(string: name)
        out.append(")")
      }
    } else if !L2CAPChannelID(rawValue: l2cap.cid).isDynamic {
      out.append(" (")
      out.append(string: L2CAPChannelID(rawValue: l2cap.cid).name)
      out.append(")")
    }
    switch reassembly {
    case .first, .part:
      if let sduLength = l2cap.sduLength {
        out.append(", K-frame starting a ")
        out.appendDecimal(Int(sduLength))
        out.append("-byte SDU")
      } else {
        out.append(", K-frame continuing an SDU")
      }
    default:
      out.append(", ")
      out.appendDecimal(l2cap.payload.count)
      out.append(" bytes")
    }
  }

  /// How many entries a list-shaped response holds.
  private static func listEntries(_ parameters: ATTParameters) -> Int? {
    switch parameters {
    case .findInformation(let format, let list):
      ATTParameters.findInformationEntrySize(format: format).map { list.count / $0 }
    case .handlesInformationList(let list): list.count / 4
    case .attributeDataList(let length, let list): length == 0 ? nil : list.count / Int(length)
    default: nil
    }
  }

  /// Ranges, types, offsets and flags: the parameters besides handle and value.
  private static func appendATTParameters(_ parameters: ATTParameters, into out: inout OutputBuffer) {
    func range(_ start: UInt16, _ end: UInt16) {
      out.append(" ")
      out.appendHex(UInt64(start), width: 4)
      out.append("-")
      out.appendHex(UInt64(end), width: 4)
    }
    switch parameters {
    case .handleRange(let start, let end): range(start, end)
    case .readByType(let start, let end, let type):
      range(start, end)
      out.append(" type ")
      out.append(string: type.description)
    case .findByTypeValue(let start, let end, let type, _):
      range(start, end)
      out.append(" type ")
      out.appendHexDigits(UInt64(type), width: 4)
    case .readBlob(_, let offset), .prepareWrite(_, let offset, _):
      out.append(" offset ")
      out.appendDecimal(Int(offset))
    case .executeWrite(let flags):
      out.append(flags == 0 ? " cancel" : " write")
    default: break
    }
  }

  private static func appendValue(_ bytes: UnsafeRawBufferPointer, _ value: ByteRange, into out: inout OutputBuffer) {
    let end = min(bytes.count, value.start + value.count)
    let start = min(value.start, end)
    out.append(" value ")
    if start == end { return out.append("(empty)") }
    let shown = bytes[start..<min(end, start + valueBytesShown)]
    out.appendHexBytes(shown)
    if end - start > valueBytesShown { out.append("…") }
    if end - start >= textMinimumBytes, shown.allSatisfy(isText) {
      out.append(" \"")
      for byte in shown {
        switch byte {
        case 0x0D: out.append("\\r")
        case 0x0A: out.append("\\n")
        case 0x09: out.append("\\t")
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
          out.append(UInt8(ascii: "\\"))
          out.append(byte)
        default: out.append(byte)
        }
      }
      out.append(end - start > valueBytesShown ? "\"…" : "\"")
    }
  }

  /// Printable ASCII, or \r \n \t.
  @inline(__always) private static func isText(_ byte: UInt8) -> Bool {
    (0x20...0x7E).contains(byte) || byte == 0x0D || byte == 0x0A || byte == 0x09
  }
}
