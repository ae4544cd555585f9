import BLEAnalysis
import BLECapture
import BLEDissect

/// The detail column of an air packet:
///
///     ADV_IND 14:AC:CA:5B:84:AD (Random, RPA) -24 dBm Flags 06, … ch 37
///     CONNECT_IND 63:5B:46:E8:B3:81 → 74:DA:EA:91:47:E3 aa 0x92dda6f5 interval 45 ms, latency 0, timeout 5000 ms ch 37
///     0x92dda6f5 C→P ch 12 -44 dBm LL_FEATURE_REQ FeatureSet 0x…
///     0x92dda6f5 P→C ch 7 -45 dBm ATT Read By Group Type Response 0x0001-0x0007 Generic Access (1800); … ← req #13 in 45.200 ms
enum LLText {
  static func appendDetail(
    _ record: Record, _ analyzed: AnalyzedRecord, _ ll: LLPacket, names: DissectorLibrary = .builtin,
    color: Bool = false, into out: inout OutputBuffer
  ) {
    if let advertising = ll.advertising {
      if let report = analyzed.decoded.advertising?.first {
        AdvertisingText.appendReport(report, record, into: &out)
      } else {
        out.append(string: advertising.name)
        appendAddresses(advertising, into: &out)
        if let rssi = ll.radio.rssi {
          out.append(" ")
          out.appendDecimal(Int(rssi))
          out.append(" dBm")
        }
      }
      if let connect = advertising.connect {
        out.append(" aa ")
        out.appendHex(UInt64(connect.accessAddress), width: 8)
        out.append(" interval ")
        out.appendMeasure(connect.intervalMilliseconds)
        out.append(" ms, latency ")
        out.appendDecimal(Int(connect.latency))
        out.append(", timeout ")
        out.appendDecimal(Int(connect.timeout) * 10)
        out.append(" ms")
      }
      appendChannel(ll, into: &out)
    } else if let data = ll.data {
      out.appendHex(UInt64(ll.accessAddress), width: 8)
      switch ll.direction {
      case .centralToPeripheral: out.append(" C→P")
      case .peripheralToCentral: out.append(" P→C")
      case nil: break
      }
      appendChannel(ll, into: &out)
      if let rssi = ll.radio.rssi {
        out.append(" ")
        out.appendDecimal(Int(rssi))
        out.append(" dBm")
      }
      out.append(" ")
      if ll.isEncrypted {
        out.append("encrypted, ")
        out.appendDecimal(Int(data.length))
        out.append(" bytes")
      } else if let control = data.control {
        out.append(string: control.opcode.name)
        var first = true
        for field in control.parameters.prefix(4) {
          out.append(first ? " " : ", ")
          first = false
          out.append(string: field.name)
          out.append(" ")
          RecordLine.appendShort(field.value, into: &out)
        }
      } else if data.llid == .continuation && data.length == 0 {
        out.append("empty")
      } else {
        let acl = ACLLayer.linkLayer(connection: ll.connection ?? 0, llid: data.llid, length: UInt16(data.length))
        RecordLine.appendData(record, analyzed, acl, names: names, color: color, into: &out)
      }
    } else {
      out.append("link type ")
      out.appendDecimal(Int(ll.linkType.rawValue))
      out.append(", ")
      out.appendDecimal(record.bytes.count)
      out.append(" bytes")
    }
    if ll.isRetransmission { out.append(" [retransmission]") }
    if ll.radio.crc == .bad { out.append(" [CRC bad]") }
  }

  private static func appendAddresses(_ pdu: LLAdvertisingPDU, into out: inout OutputBuffer) {
    let from = pdu.scanA ?? pdu.initA ?? pdu.advA
    let to = pdu.scanA != nil || pdu.initA != nil ? pdu.advA : pdu.targetA
    if let from {
      out.append(" ")
      out.appendAddress(from)
    }
    if let to {
      out.append(" → ")
      out.appendAddress(to)
    }
  }

  private static func appendChannel(_ ll: LLPacket, into out: inout OutputBuffer) {
    guard let channel = ll.radio.channel else { return }
    out.append(" ch ")
    out.appendDecimal(Int(channel))
  }
}

/// The `ll` object of a record (README, data contract): `link_type`, `pdu_type`,
/// `adv_address`, `access_address`, `channel`, `rssi`, `crc_ok`, `control_opcode`,
/// `llid`, always present (null when they do not apply), then extras.
enum LLJSON {
  static func append(_ ll: LLPacket, into out: inout OutputBuffer) {
    out.append(",\"ll\":{\"link_type\":")
    out.appendDecimal(Int(ll.linkType.rawValue))
    out.append(",\"pdu_type\":")
    out.appendJSONString(ll.pduTypeName)
    out.append(",\"adv_address\":")
    address(ll.advertising?.advA, into: &out)
    out.append(",\"access_address\":")
    out.appendDecimal(Int(ll.accessAddress))
    out.append(",\"channel\":")
    number(ll.radio.channel.map(Int.init), into: &out)
    out.append(",\"rssi\":")
    number(ll.radio.rssi.map(Int.init), into: &out)
    out.append(",\"crc_ok\":")
    switch ll.crcOK {
    case true?: out.append("true")
    case false?: out.append("false")
    case nil: out.append("null")
    }
    out.append(",\"control_opcode\":")
    number((ll.data?.control?.opcode.rawValue).map(Int.init), into: &out)
    out.append(",\"llid\":")
    number((ll.data?.llid.rawValue).map(Int.init), into: &out)
    if let advertising = ll.advertising {
      out.append(",\"pdu_type_code\":")
      out.appendDecimal(Int(advertising.type.rawValue))
      optionalAddress(",\"target_address\":", advertising.targetA, into: &out)
      optionalAddress(",\"scan_address\":", advertising.scanA, into: &out)
      optionalAddress(",\"init_address\":", advertising.initA, into: &out)
      if let connect = advertising.connect {
        out.append(",\"connect\":{\"access_address\":")
        out.appendDecimal(Int(connect.accessAddress))
        out.append(",\"crc_init\":")
        out.appendDecimal(Int(connect.crcInit))
        out.append(",\"interval_ms\":")
        out.appendMeasure(connect.intervalMilliseconds)
        out.append(",\"latency\":")
        out.appendDecimal(Int(connect.latency))
        out.append(",\"timeout_ms\":")
        out.appendDecimal(Int(connect.timeout) * 10)
        out.append(",\"channel_map\":")
        out.appendDecimal(Int(connect.channelMap))
        out.append(",\"hop\":")
        out.appendDecimal(Int(connect.hop))
        out.append("}")
      }
    }
    if let data = ll.data {
      out.append(",\"nesn\":")
      out.appendDecimal(Int(data.nesn))
      out.append(",\"sn\":")
      out.appendDecimal(Int(data.sn))
      out.append(data.md ? ",\"md\":true" : ",\"md\":false")
      out.append(",\"length\":")
      out.appendDecimal(Int(data.length))
      if let control = data.control {
        out.append(",\"control_name\":")
        out.appendJSONString(control.opcode.name)
      }
    }
    if let direction = ll.direction {
      out.append(",\"direction\":\"")
      out.append(string: direction.rawValue)
      out.append("\"")
    }
    if let counter = ll.radio.eventCounter, ll.data != nil {
      out.append(",\"event_counter\":")
      out.appendDecimal(Int(counter))
    }
    if let phy = ll.radio.phy {
      out.append(",\"phy\":")
      out.appendDecimal(Int(phy))
    }
    if ll.isRetransmission { out.append(",\"retransmission\":true") }
    if ll.isEncrypted { out.append(",\"encrypted\":true") }
    out.append("}")
  }

  private static func number(_ value: Int?, into out: inout OutputBuffer) {
    if let value { out.appendDecimal(value) } else { out.append("null") }
  }

  private static func address(_ value: DeviceAddress?, into out: inout OutputBuffer) {
    guard let value else { return out.append("null") }
    out.append(UInt8(ascii: "\""))
    out.appendAddress(value)
    out.append(UInt8(ascii: "\""))
  }

  private static func optionalAddress(_ key: StaticString, _ value: DeviceAddress?, into out: inout OutputBuffer) {
    guard let value else { return }
    out.append(key)
    address(value, into: &out)
  }
}
