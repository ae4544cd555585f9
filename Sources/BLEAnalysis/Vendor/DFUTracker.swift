import BLEDissect

/// Follows Nordic DFU across records, per connection: which object type the packet
/// writes go to, the CRC-32 of what was written (to check each checksum the device
/// reports), the init packet, responses paired with their requests, and the
/// firmware's progress from packet receipt notifications, checksums and executes.
struct DFUTracker {
  /// What was written to one Secure DFU object type.
  struct Written {
    var length = 0
    var crc = CRC32()
    /// The capture shows every byte from offset 0 (not a DFU that began before it).
    var known = true
    /// Where the last executed object ended, and the CRC there: a Create without an
    /// Execute before it starts that object over.
    var executedLength = 0
    var executedCRC = CRC32()
    /// The length and CRC after each packet of the current object.
    var checkpoints: [(length: Int, crc: UInt32)] = []
    /// A command object's bytes (the init packet), up to `maximumCommand`.
    var bytes: [UInt8] = []
  }

  enum LegacyPhase: String {
    case idle = "", imageSizes = "image sizes", initPacket = "init packet", firmware
  }

  struct Link {
    var objectType: UInt8?
    var written: [UInt8: Written] = [:]
    var pending: (opcode: UInt8, frame: Int, time: Int64)?
    var initPacket: DFUInitPacket?
    var clock: ProgressClock?
    var legacyPhase = LegacyPhase.idle
    var legacyWritten = 0
    var legacyTotal: Int?
  }

  static let maximumCommand = 65_536
  static let maximumCheckpoints = 4_096

  private var links: [Int: Link] = [:]

  var connectionCount: Int { links.count }

  mutating func analyze(_ pdu: VendorPDU) -> VendorOutcome {
    var link = links[pdu.connection.id, default: Link()]
    defer { links[pdu.connection.id] = link }
    switch pdu.role {
    case .secureDFUPacket: return Self.securePacket(pdu, &link)
    case .legacyDFUPacket: return Self.legacyPacket(pdu, &link)
    default: break
    }
    let service: DFUMessage.Service =
      pdu.role == .buttonlessDFU ? .buttonless : pdu.role == .legacyDFUControlPoint ? .legacy : .secure
    let message: DFUMessage
    do {
      message = try DFUMessage(parsing: pdu.value, service: service, fromClient: pdu.fromClient)
    } catch {
      return VendorOutcome(diagnostics: [.vendor("dfu.invalid", error)])
    }
    var record = DFURecord(message: message)
    var diagnostics: [Diagnostic] = []
    if pdu.fromClient {
      link.pending = (message.opcode, pdu.frame, pdu.time)
      switch service {
      case .secure: Self.secureRequest(message, pdu, &link)
      case .legacy: Self.legacyRequest(message, pdu, &link)
      case .buttonless: break
      }
      return VendorOutcome(.dfu(record))
    }
    if let request = message.requestOpcode, let pending = link.pending, pending.opcode == request {
      record.request = VendorExchange(frame: pending.frame, latencyMicroseconds: pdu.time - pending.time)
      link.pending = nil
    } else if service == .secure, message.requestOpcode == 0x03 {
      // A checksum nobody asked for: the packet receipt notification of Set PRN.
      record.receipt = true
    }
    if message.isResponse, !message.succeeded {
      let extended = message.parameters.extendedErrorName.map { ", \($0)" } ?? ""
      diagnostics.append(
        Diagnostic(
          id: "dfu.error", severity: .warning,
          "\(message.requestName ?? "request") answered \(message.resultName ?? "")\(extended)"))
    }
    switch service {
    case .secure: Self.secureResponse(message, pdu, &link, &record, &diagnostics)
    case .legacy: Self.legacyResponse(message, pdu, &link, &record)
    case .buttonless: break
    }
    if let stall = record.progress?.stall {
      diagnostics.append(
        Diagnostic(
          id: "dfu.stalled", severity: .warning,
          "the firmware made no progress for \(VendorFormat.seconds(stall.microseconds)) at offset \(stall.offset)"))
    }
    return VendorOutcome(.dfu(record), diagnostics: diagnostics)
  }

  // MARK: - Secure DFU

  private static func secureRequest(_ message: DFUMessage, _ pdu: VendorPDU, _ link: inout Link) {
    switch message.opcode {
    case 0x01:  // Create: the object starts over from the last executed one.
      guard let type = message.parameters.objectType else { return }
      link.objectType = type
      var written = link.written[type, default: Written()]
      written.length = written.executedLength
      written.crc = written.executedCRC
      written.checkpoints.removeAll()
      if type == 0x01 { written.bytes.removeAll() }
      link.written[type] = written
      if type == 0x02, link.clock == nil {
        link.clock = ProgressClock(
          transfer: "firmware", total: link.initPacket.map { Int($0.firmwareSize) }, start: pdu.time,
          offset: written.executedLength)
      }
    case 0x06: link.objectType = message.parameters.objectType
    case 0x0C: link = Link()  // Abort
    default: break
    }
  }

  private static func securePacket(_ pdu: VendorPDU, _ link: inout Link) -> VendorOutcome {
    guard let type = link.objectType else {
      return VendorOutcome(.dfu(DFURecord(packet: .init(object: nil, offset: 0, length: pdu.value.count))))
    }
    var written = link.written[type, default: Written()]
    let packet = DFURecord.Packet(
      object: DFUParameters.objectName(type), offset: written.length, length: pdu.value.count)
    written.length += pdu.value.count
    written.crc.update(pdu.value)
    if written.checkpoints.count < maximumCheckpoints {
      written.checkpoints.append((written.length, written.crc.value))
    }
    if type == 0x01, written.bytes.count + pdu.value.count <= maximumCommand { written.bytes += pdu.value }
    link.written[type] = written
    return VendorOutcome(.dfu(DFURecord(packet: packet)))
  }

  private static func secureResponse(
    _ message: DFUMessage, _ pdu: VendorPDU, _ link: inout Link, _ record: inout DFURecord,
    _ diagnostics: inout [Diagnostic]
  ) {
    guard message.succeeded, let request = message.requestOpcode else { return }
    switch request {
    case 0x03, 0x06:
      if request == 0x06, let type = message.parameters.objectType ?? link.objectType {
        link.objectType = type
        // The device already holds bytes the capture never showed: they cannot be checked.
        if let offset = message.parameters.offset, offset > 0, link.written[type] == nil {
          link.written[type] = Written(length: Int(offset), known: false, executedLength: Int(offset))
        }
      }
      guard let type = link.objectType, let offset = message.parameters.offset.map(Int.init),
        let crc = message.parameters.crc32, let written = link.written[type], written.known, offset > 0
      else { break }
      let computed =
        offset == written.length
        ? written.crc.value : written.checkpoints.first(where: { $0.length == offset })?.crc
      if let computed {
        record.crc = .init(computed: computed, matches: computed == crc)
        if computed != crc {
          diagnostics.append(
            Diagnostic(
              id: "dfu.crc.mismatch", severity: .warning,
              "the device reports CRC-32 \(DFURecord.hex32(crc)) at offset \(offset), the bytes written give \(DFURecord.hex32(computed))"
            ))
        }
      }
      if type == 0x02, request == 0x03, var clock = link.clock {
        record.progress = clock.advance(to: offset, at: pdu.time, source: record.receipt ? "prn" : "checksum")
        link.clock = clock
      }
    case 0x04:
      guard let type = link.objectType, var written = link.written[type] else { break }
      written.executedLength = written.length
      written.executedCRC = written.crc
      written.checkpoints.removeAll()
      link.written[type] = written
      if type == 0x01 {
        do {
          let initPacket = try DFUInitPacket(parsing: written.bytes)
          record.initPacket = initPacket
          link.initPacket = initPacket
          link.clock?.total = Int(initPacket.firmwareSize)
        } catch {
          diagnostics.append(.vendor("dfu.init.invalid", error, severity: .info))
        }
      } else if var clock = link.clock {
        record.progress = clock.advance(to: written.length, at: pdu.time, source: "execute")
        link.clock = clock.complete ? nil : clock
      }
    default: break
    }
  }

  // MARK: - Legacy DFU

  private static func legacyRequest(_ message: DFUMessage, _ pdu: VendorPDU, _ link: inout Link) {
    switch message.opcode {
    case 0x01:
      link.legacyPhase = .imageSizes
      link.legacyWritten = 0
    case 0x02 where message.parameters.initPacket != 0x01:
      link.legacyPhase = .initPacket
      link.legacyWritten = 0
    case 0x03:
      link.legacyPhase = .firmware
      link.legacyWritten = 0
      link.clock = ProgressClock(transfer: "firmware", total: link.legacyTotal, start: pdu.time)
    default: break
    }
  }

  private static func legacyPacket(_ pdu: VendorPDU, _ link: inout Link) -> VendorOutcome {
    let phase = link.legacyPhase
    var record = DFURecord(
      packet: .init(object: phase == .idle ? nil : phase.rawValue, offset: link.legacyWritten, length: pdu.value.count))
    link.legacyWritten += pdu.value.count
    if phase == .imageSizes {
      // SoftDevice, bootloader and application sizes (SDK ≥ 7), or the application's alone.
      let sizes = stride(from: 0, to: pdu.value.count - 3, by: 4).map { index in
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(pdu.value[index + $1]) << (8 * UInt32($1)) }
      }
      if sizes.count == 3 || sizes.count == 1 {
        record.imageSizes = sizes
        // Three sizes of up to 4 GiB each add up past UInt32.
        link.legacyTotal = sizes.reduce(0) { $0 + Int($1) }
      }
      link.legacyPhase = .idle
    }
    return VendorOutcome(.dfu(record))
  }

  private static func legacyResponse(
    _ message: DFUMessage, _ pdu: VendorPDU, _ link: inout Link, _ record: inout DFURecord
  ) {
    let bytes: Int? =
      if message.opcode == DFUMessage.legacyReceiptOpcode {
        message.parameters.bytesReceived.map(Int.init)
      } else if message.requestOpcode == 0x07 {
        message.parameters.bytesReceived.map(Int.init)
      } else if message.requestOpcode == 0x03, message.succeeded {
        link.legacyWritten
      } else {
        nil
      }
    record.receipt = message.opcode == DFUMessage.legacyReceiptOpcode
    guard let bytes, var clock = link.clock else { return }
    record.progress = clock.advance(to: bytes, at: pdu.time, source: record.receipt ? "prn" : "response")
    link.clock = clock.complete ? nil : clock
  }

  /// The connection ended: where an unfinished firmware transfer stopped.
  mutating func ended(_ connection: Int, at time: Int64) -> VendorOutcome {
    guard let clock = links.removeValue(forKey: connection)?.clock, !clock.complete else { return .none }
    var record = DFURecord()
    record.progress = clock.ended(at: time)
    return VendorOutcome(.dfu(record))
  }
}

extension DFUParameters {
  /// `command` or `data`, for an object type.
  static func objectName(_ type: UInt8) -> String {
    var parameters = DFUParameters()
    parameters.objectType = type
    return parameters.objectTypeName ?? ""
  }
}
