import BLEDissect

/// Follows mcumgr across records, per connection: puts messages split over several
/// ATT PDUs back together (each direction apart; the header's Data Length says when
/// one is whole), pairs each response with the request of its sequence number, and
/// follows uploads and downloads (image upload, file upload and download) from
/// their acknowledged offsets.
struct MCUmgrTracker {
  struct Buffer {
    var bytes: [UInt8]
    var frames: [Int]
    /// The message's size, once its 8 header bytes are in.
    var size: Int?
  }

  struct Pending {
    var frame: Int
    var time: Int64
    var group: MCUmgrGroup
  }

  /// A transfer: the group, command and operation of its messages.
  struct TransferKey: Hashable {
    var group: UInt16
    var command: UInt8
    var read: Bool
  }

  struct Link {
    /// Messages under way, by direction (true: written by the client).
    var buffers: [Bool: Buffer] = [:]
    /// Requests waiting for their response, by sequence number.
    var pending: [UInt8: Pending] = [:]
    var transfers: [TransferKey: ProgressClock] = [:]
  }

  private var links: [Int: Link] = [:]

  var connectionCount: Int { links.count }

  mutating func analyze(_ pdu: VendorPDU) -> VendorOutcome {
    var link = links[pdu.connection.id, default: Link()]
    defer { links[pdu.connection.id] = link }
    var diagnostics: [Diagnostic] = []
    var bytes = pdu.value
    var frames = pdu.frames.isEmpty ? [pdu.frame] : pdu.frames

    if var buffer = link.buffers[pdu.fromClient] {
      // A PDU that is exactly one well-formed message (reserved bits 0, version 0 or 1,
      // a known OP, its Data Length the rest) starts a new one: a fragment was lost. A
      // continuation that looks so has odds of about 2^-21.
      if let header = try? MCUmgrHeader(parsing: bytes), header.messageSize == bytes.count, header.reserved == 0,
        header.version <= 1, header.op.rawValue <= 3
      {
        diagnostics.append(
          Diagnostic(
            id: "mcumgr.truncated", severity: .warning,
            "a new message began with \(buffer.bytes.count) of the previous one's \(buffer.size ?? 0) bytes received (frames \(buffer.frames.map(String.init).joined(separator: ", ")))"
          ))
        link.buffers[pdu.fromClient] = nil
      } else {
        buffer.bytes += bytes
        buffer.frames += frames
        link.buffers[pdu.fromClient] = nil
        bytes = buffer.bytes
        frames = buffer.frames
      }
    }

    // The header says how long the message is; until it is whole, the PDUs wait.
    let size = (try? MCUmgrHeader(parsing: bytes))?.messageSize
    guard let size, bytes.count >= size else {
      link.buffers[pdu.fromClient] = Buffer(bytes: bytes, frames: frames, size: size)
      var record = MCUmgrRecord()
      record.fragment = .init(index: frames.count, received: bytes.count, length: size)
      return VendorOutcome(.mcumgr(record), diagnostics: diagnostics)
    }
    guard let message = try? MCUmgrMessage(parsing: bytes) else { return VendorOutcome(diagnostics: diagnostics) }
    let header = message.header
    if message.extra > 0 {
      diagnostics.append(
        Diagnostic(
          id: "mcumgr.length.extra", severity: .warning,
          "\(message.extra) bytes after the \(header.messageSize)-byte message its header announces"))
    }
    if let error = message.bodyError { diagnostics.append(.vendor("mcumgr.body.invalid", error)) }

    var record = MCUmgrRecord(message: message)
    if frames.count > 1 { record.frames = frames }
    if header.op.isResponse {
      if let request = link.pending.removeValue(forKey: header.sequence), request.group == header.group {
        record.request = VendorExchange(frame: request.frame, latencyMicroseconds: pdu.time - request.time)
      }
      if let problem = Self.error(message) {
        diagnostics.append(Diagnostic(id: "mcumgr.error", severity: .warning, problem))
      }
    } else {
      link.pending[header.sequence] = Pending(frame: pdu.frame, time: pdu.time, group: header.group)
    }
    if let progress = Self.follow(message, at: pdu.time, &link.transfers) {
      record.progress = progress
      if let stall = progress.stall {
        diagnostics.append(
          Diagnostic(
            id: "mcumgr.upload.stalled", severity: .warning,
            "\(progress.transfer) made no progress for \(VendorFormat.seconds(stall.microseconds)) at offset \(stall.offset)"
          ))
      }
    }
    return VendorOutcome(.mcumgr(record), diagnostics: diagnostics)
  }

  /// The error a response carries, in words: `rc 3 (MGMT_ERR_EINVAL)`,
  /// `image rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT)`.
  static func error(_ message: MCUmgrMessage) -> String? {
    if let err = message.groupError, err.rc != 0 {
      return "\(err.group.name) rc \(err.rc) (\(err.group.errorName(err.rc) ?? "unknown"))"
    }
    if let rc = message.rc, rc != .ok { return "rc \(rc.rawValue) (\(rc.name))" }
    return nil
  }

  /// The transfers mcumgr runs in chunks, and their names.
  static func transfer(_ key: TransferKey) -> String? {
    switch (key.group, key.command, key.read) {
    case (MCUmgrGroup.image.rawValue, 1, false): "image upload"
    case (MCUmgrGroup.fs.rawValue, 0, false): "file upload"
    case (MCUmgrGroup.fs.rawValue, 0, true): "file download"
    default: nil
    }
  }

  /// A transfer starts with a request for offset 0; an upload's responses acknowledge
  /// `off`, a download's deliver `data` from `off` (the first one giving `len`).
  private static func follow(
    _ message: MCUmgrMessage, at time: Int64, _ transfers: inout [TransferKey: ProgressClock]
  ) -> TransferProgress? {
    let header = message.header
    let key = TransferKey(group: header.group.rawValue, command: header.command, read: header.op.isRead)
    guard let name = transfer(key), let body = message.body else { return nil }
    let offset = body["off"]?.integer.map { Int(clamping: $0) }
    let length = body["len"]?.integer.map { Int(clamping: $0) }
    if !header.op.isResponse {
      if offset == 0 { transfers[key] = ProgressClock(transfer: name, total: key.read ? nil : length, start: time) }
      return nil
    }
    guard var clock = transfers[key], let offset else { return nil }
    if key.read, clock.total == nil { clock.total = length }
    let acknowledged = key.read ? offset + (body["data"]?.bytes?.count ?? 0) : offset
    let progress = clock.advance(to: acknowledged, at: time)
    transfers[key] = clock.complete ? nil : clock
    return progress
  }

  /// The connection ended: where its unfinished transfers stopped.
  mutating func ended(_ connection: Int, at time: Int64) -> VendorOutcome {
    guard let link = links.removeValue(forKey: connection),
      let clock = link.transfers.values.min(by: { $0.start < $1.start })
    else { return .none }
    var record = MCUmgrRecord()
    record.progress = clock.ended(at: time)
    return VendorOutcome(.mcumgr(record))
  }
}
