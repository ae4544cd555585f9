import CPcap

#if canImport(Glibc)
  import Glibc
#endif

/// Reads pcap and pcapng files through libpcap and frames the Bluetooth link types.
///
/// HCI link types lose their framing here (DLT 201's direction word, DLT 254's
/// adapter/opcode header, the H4 type byte); link-layer types stay raw.
final class PcapReader: RecordSource {
  let path: String
  let linkType: LinkType
  let isNextGeneration: Bool
  let total: Int
  private var handle: OpaquePointer?
  private var frame = 0
  private var position = 0
  private(set) var damage: CaptureDamage?
  private(set) var resolution: TimestampResolution

  convenience init(path: String, size: Int, isNextGeneration: Bool) throws(CaptureError) {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard
      let handle = pcap_open_offline_with_tstamp_precision(
        path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else {
      let message = Self.text(errorBuffer)
      throw CaptureError(
        .damagedHeader("cannot read as \(isNextGeneration ? "pcapng" : "pcap"): \(message)"), path: path)
    }
    try self.init(
      handle: handle, path: path, size: size, isNextGeneration: isNextGeneration,
      resolution: Self.sourceResolution(path: path, isNextGeneration: isNextGeneration))
  }

  /// Reads the pcap or pcapng stream `file` delivers (a live source: a pipe, a socket, a
  /// file still being written); `label` names it in messages. Takes `file` over: it is
  /// closed with the reader, or at once when this fails.
  convenience init(
    file: UnsafeMutablePointer<FILE>, label: String, isNextGeneration: Bool, resolution: TimestampResolution
  ) throws(CaptureError) {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard let handle = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else {
      fclose(file)
      let message = Self.text(errorBuffer)
      throw CaptureError(
        .damagedHeader("cannot read as \(isNextGeneration ? "pcapng" : "pcap"): \(message)"), path: label)
    }
    try self.init(handle: handle, path: label, size: 0, isNextGeneration: isNextGeneration, resolution: resolution)
  }

  private init(
    handle: OpaquePointer, path: String, size: Int, isNextGeneration: Bool, resolution: TimestampResolution
  ) throws(CaptureError) {
    let linkType = LinkType(rawValue: UInt32(pcap_datalink(handle)))
    guard linkType.isSupported else {
      pcap_close(handle)
      throw CaptureError(
        .unsupported("link type \(linkType.rawValue) is not Bluetooth; expected one of \(LinkType.acceptedList)"),
        path: path)
    }
    self.path = path
    self.handle = handle
    self.linkType = linkType
    self.isNextGeneration = isNextGeneration
    self.total = size
    self.resolution = resolution
    position = ftell(pcap_file(handle))
  }

  deinit {
    if let handle { pcap_close(handle) }
  }

  var formatDescription: String {
    "\(isNextGeneration ? "pcapng" : "pcap"), link type \(linkType)"
  }

  var family: LinkFamily {
    switch linkType {
    case .bluetoothHCIH4, .bluetoothHCIH4WithPHDR: .h4
    case .bluetoothLinuxMonitor: .monitor
    default: .linkLayer(linkType)
    }
  }

  var progress: (done: Int, total: Int) { (position, total) }

  func next() -> Record? {
    guard let handle, damage == nil else { return nil }
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    let start = position
    let status = pcap_next_ex(handle, &header, &data)
    position = ftell(pcap_file(handle))
    guard status == 1, let header = header?.pointee else {
      if status == PCAP_ERROR {
        damage = CaptureDamage(offset: start, "record \(frame + 1): " + String(cString: pcap_geterr(handle)))
      }
      return nil
    }
    frame += 1
    let bytes = UnsafeBufferPointer(start: data, count: Int(header.caplen))
    var record = Record(
      frame: frame,
      timestamp: Timestamp(
        seconds: Int64(header.ts.tv_sec), fraction: Int64(header.ts.tv_usec), unitsPerSecond: 1_000_000_000),
      direction: nil, adapter: nil, kind: .linkLayer(linkType), bytes: bytes,
      originalLength: max(Int(header.len), bytes.count), fileOffset: start)
    Self.frame(&record, linkType: linkType)
    return record
  }

  /// A monitor file's distinct controller indices, up to `limit`, read through a second
  /// handle on the file; nil for a stream (nothing to read twice). 0 for other link types.
  func adapterCount(upTo limit: Int) -> Int? {
    guard linkType == .bluetoothLinuxMonitor else { return 0 }
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard total > 0, let walk = pcap_open_offline(path, &errorBuffer) else { return nil }
    defer { pcap_close(walk) }
    var seen: [UInt16] = []
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    while seen.count < limit, pcap_next_ex(walk, &header, &data) == 1, let header, let data {
      guard header.pointee.caplen >= 2 else { continue }
      let index = UInt16(data[0]) << 8 | UInt16(data[1])
      if index != 0xFFFF, !seen.contains(index) { seen.append(index) }
    }
    return seen.count
  }

  /// Removes the pseudo-headers of the HCI link types and sets kind and direction.
  static func frame(_ record: inout Record, linkType: LinkType) {
    switch linkType {
    case .bluetoothHCIH4WithPHDR:
      guard record.bytes.count >= 4 else {
        record.kind = .unframed
        return
      }
      record.direction = record.bytes.bigEndian32(at: 0) & 1 == 0 ? .sent : .received
      dropPrefix(&record, 4)
      BtsnoopReader.stripH4(&record)
      if record.bytes.count == 0, case .linkLayer = record.kind { record.kind = .unframed }
    case .bluetoothHCIH4:
      record.kind = .unframed
      BtsnoopReader.stripH4(&record)
      // No direction in this link type: commands go to the controller and events
      // come from it; data stays unknown.
      if case .hci(let type) = record.kind {
        record.direction = type == H4.command ? .sent : type == H4.event ? .received : nil
      }
    case .bluetoothLinuxMonitor:
      guard record.bytes.count >= 4 else {
        record.kind = .unframed
        return
      }
      let index = record.bytes.bigEndian16(at: 0)
      let opcode = MonitorOpcode(rawValue: record.bytes.bigEndian16(at: 2))
      dropPrefix(&record, 4)
      BtsnoopReader.frameMonitor(&record, opcode: opcode, index: index)
    default:
      break
    }
  }

  /// The NUL-terminated text of libpcap's error buffer.
  private static func text(_ errorBuffer: [CChar]) -> String {
    String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func dropPrefix(_ record: inout Record, _ count: Int) {
    record.bytes = UnsafeBufferPointer(rebasing: record.bytes.dropFirst(count))
    record.originalLength -= count
  }

  /// pcap: the magic tells µs or ns; pcapng: the first interface's if_tsresol.
  /// libpcap hands out nanoseconds either way, so this only decides what to keep.
  private static func sourceResolution(path: String, isNextGeneration: Bool) -> TimestampResolution {
    guard let file = try? MappedFile(path: path) else { return .microseconds }
    return resolution(ofStart: file.bytes, isNextGeneration: isNextGeneration)
  }

  /// The resolution the first bytes of a pcap or pcapng file announce.
  static func resolution(ofStart bytes: UnsafeBufferPointer<UInt8>, isNextGeneration: Bool) -> TimestampResolution {
    guard bytes.count >= 4 else { return .microseconds }
    let magic = bytes.bigEndian32(at: 0)
    if !isNextGeneration { return magic == 0xA1B2_3C4D || magic == 0x4D3C_B2A1 ? .nanoseconds : .microseconds }
    return PcapngOptions.firstInterfaceResolution(bytes) ?? .microseconds
  }
}
