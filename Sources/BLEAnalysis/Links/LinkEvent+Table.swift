import BLECapture
import BLEDissect

/// Where each `LinkEvent` reads its parameters: offsets resolved once, by the spec's
/// parameter names, from the layouts of `HCICommandTable` and `HCIEventTable`. The names
/// below are the only ones analysis reads parameters by; a name the tables do not place
/// (renamed, or after a variable-size parameter), or one of an unexpected size, is listed
/// in `problems`, which a test keeps empty.
struct LinkEventTable: Sendable {
  /// A parameter's offset in its block and the octets read there.
  struct Slot: Sendable {
    var offset: Int
    var size: Int
  }

  /// Resolves names against the layouts, noting what it cannot place.
  final class Resolver {
    var problems: [String] = []

    /// The slot of `name` in `parameters` (`label`'s), which must take `size` octets (0:
    /// a variable size); a slot past any block's end (never read) when the tables do not
    /// place it so.
    func slot(_ label: String, _ parameters: [HCIParameter]?, _ name: String, _ size: Int) -> Slot {
      guard let parameters, let placed = HCIParameter.placement(of: name, in: parameters), placed.size == size else {
        problems.append("\(label): \(name) is not a \(size)-octet parameter at a fixed offset")
        return Slot(offset: Int.max / 2, size: size)
      }
      return Slot(offset: placed.offset, size: size)
    }

    func command(_ opcode: HCIOpcode, _ name: String, _ size: Int) -> Slot {
      slot(opcode.name, HCIParameters.layout(command: opcode.rawValue), name, size)
    }

    func returned(_ opcode: HCIOpcode, _ name: String, _ size: Int) -> Slot {
      slot(opcode.name + " (return parameters)", HCIParameters.returnLayout(command: opcode.rawValue), name, size)
    }

    func event(_ code: HCIEventCode, _ name: String, _ size: Int) -> Slot {
      slot(code.name, HCIParameters.layout(event: code.rawValue, subevent: nil), name, size)
    }

    func le(_ subevent: LESubeventCode, _ name: String, _ size: Int) -> Slot {
      slot(
        subevent.name, HCIParameters.layout(event: HCIEventCode.leMeta.rawValue, subevent: subevent.rawValue), name,
        size)
    }

    /// The index of `name` among the fields of an LL Control PDU (one per parameter, in
    /// order), which must take `size` octets.
    func air(_ opcode: LLControlOpcode, _ name: String, _ size: Int) -> Int {
      guard let index = opcode.row?.parameters.firstIndex(where: { $0.name == name }),
        opcode.row?.parameters[index].size == size
      else {
        problems.append("\(opcode.name): \(name) is not a \(size)-octet parameter")
        return Int.max / 2
      }
      return index
    }

    /// The octets one element of an event's repeated block (at its end) takes.
    func stride(_ code: HCIEventCode) -> Int {
      guard case .repeated(_, _, _, let item)? = HCIParameters.layout(event: code.rawValue, subevent: nil)?.last,
        case let sizes = item.compactMap(\.fixedSize), sizes.count == item.count
      else {
        problems.append("\(code.name): no repeated block of fixed-size elements at its end")
        return 0
      }
      return sizes.reduce(0, +)
    }
  }

  /// The table, resolved once.
  static let shared = LinkEventTable()

  /// Names the tables do not place as expected (a test keeps this empty).
  let problems: [String]

  struct CreateConnection: Sendable {
    let policy, peerType, peer, scanInterval, scanWindow: Slot
    init(_ r: Resolver, _ opcode: HCIOpcode, scan: (interval: String, window: String)) {
      policy = r.command(opcode, "Initiator_Filter_Policy", 1)
      peerType = r.command(opcode, "Peer_Address_Type", 1)
      peer = r.command(opcode, "Peer_Address", 6)
      scanInterval = r.command(opcode, scan.interval, 2)
      scanWindow = r.command(opcode, scan.window, 2)
    }
  }

  struct ConnectionComplete: Sendable {
    let status, handle, role, peerType, peer, interval, latency, timeout: Slot
    init(_ r: Resolver, _ subevent: LESubeventCode) {
      status = r.le(subevent, "Status", 1)
      handle = r.le(subevent, "Connection_Handle", 2)
      role = r.le(subevent, "Role", 1)
      peerType = r.le(subevent, "Peer_Address_Type", 1)
      peer = r.le(subevent, "Peer_Address", 6)
      interval = r.le(subevent, "Connection_Interval", 2)
      latency = r.le(subevent, "Peripheral_Latency", 2)
      timeout = r.le(subevent, "Supervision_Timeout", 2)
    }
  }

  // Commands.
  let createConnection, extendedCreateConnectionV1, extendedCreateConnectionV2: CreateConnection
  let classicCreateConnection, createConnectionCancel: Slot
  let acceptList: (type: Slot, address: Slot, removeType: Slot, removeAddress: Slot)
  let scanParameters, extendedScanParameters: (type: Slot, interval: Slot, window: Slot)
  let scanEnable, extendedScanEnable: (enable: Slot, duplicates: Slot)
  let disconnect: (handle: Slot, reason: Slot)
  let enableEncryption, readRSSI: Slot
  // Command Status and Command Complete.
  let commandStatus: (status: Slot, opcode: Slot)
  let commandComplete: (opcode: Slot, returns: Slot)
  let localAddress: Slot
  let leBufferSize: (length: Slot, packets: Slot, lengthV2: Slot, packetsV2: Slot)
  let bufferSize: (length: Slot, packets: Slot)
  let rssi: (handle: Slot, value: Slot)
  let keySize: (handle: Slot, size: Slot)
  // Events.
  let leConnectionComplete, enhancedConnectionCompleteV1, enhancedConnectionCompleteV2: ConnectionComplete
  let classicConnectionComplete: (status: Slot, handle: Slot, peer: Slot)
  let disconnectionComplete: (status: Slot, handle: Slot, reason: Slot)
  /// [v1] and [v2] place these alike; [v2] adds Encryption_Key_Size after them.
  let encryptionChange: (status: Slot, handle: Slot, enabled: Slot, handleV2: Slot, enabledV2: Slot)
  let keyRefresh: (status: Slot, handle: Slot)
  let longTermKeyRequest: Slot
  let remoteVersion: (status: Slot, handle: Slot, version: Slot, company: Slot)
  let remoteFeatures: (status: Slot, handle: Slot)
  let connectionUpdate: (status: Slot, handle: Slot, interval: Slot, latency: Slot, timeout: Slot)
  let remoteConnectionParameterRequest: Slot
  let dataLengthChange: (handle: Slot, txOctets: Slot, txTime: Slot, rxOctets: Slot, rxTime: Slot)
  let phyUpdate: (status: Slot, handle: Slot, tx: Slot, rx: Slot)
  let completedPackets: (count: Slot, handle: Slot, packets: Slot, stride: Int)
  // LL Control PDUs: the index of each parameter among the PDU's decoded fields.
  let airUpdate: (interval: Int, latency: Int, timeout: Int)
  let airTerminate: Int
  let airVersion: (version: Int, company: Int)
  let airLength: (rxOctets: Int, rxTime: Int, txOctets: Int, txTime: Int)
  let airPHY: (centralToPeripheral: Int, peripheralToCentral: Int)

  init() {
    let r = Resolver()
    createConnection = CreateConnection(r, .leCreateConnection, scan: ("LE_Scan_Interval", "LE_Scan_Window"))
    extendedCreateConnectionV1 = CreateConnection(
      r, .leExtendedCreateConnectionV1, scan: ("Scan_Interval", "Scan_Window"))
    extendedCreateConnectionV2 = CreateConnection(
      r, .leExtendedCreateConnectionV2, scan: ("Scan_Interval", "Scan_Window"))
    classicCreateConnection = r.command(.createConnection, "BD_ADDR", 6)
    createConnectionCancel = r.command(.createConnectionCancel, "BD_ADDR", 6)
    acceptList = (
      r.command(.leAddDeviceToFilterAcceptList, "Address_Type", 1),
      r.command(.leAddDeviceToFilterAcceptList, "Address", 6),
      r.command(.leRemoveDeviceFromFilterAcceptList, "Address_Type", 1),
      r.command(.leRemoveDeviceFromFilterAcceptList, "Address", 6)
    )
    scanParameters = (
      r.command(.leSetScanParameters, "LE_Scan_Type", 1), r.command(.leSetScanParameters, "LE_Scan_Interval", 2),
      r.command(.leSetScanParameters, "LE_Scan_Window", 2)
    )
    extendedScanParameters = (
      r.command(.leSetExtendedScanParameters, "Scan_Type", 1),
      r.command(.leSetExtendedScanParameters, "Scan_Interval", 2),
      r.command(.leSetExtendedScanParameters, "Scan_Window", 2)
    )
    scanEnable = (r.command(.leSetScanEnable, "LE_Scan_Enable", 1), r.command(.leSetScanEnable, "Filter_Duplicates", 1))
    extendedScanEnable = (
      r.command(.leSetExtendedScanEnable, "Enable", 1), r.command(.leSetExtendedScanEnable, "Filter_Duplicates", 1)
    )
    disconnect = (r.command(.disconnect, "Connection_Handle", 2), r.command(.disconnect, "Reason", 1))
    enableEncryption = r.command(.leEnableEncryption, "Connection_Handle", 2)
    readRSSI = r.command(.readRSSI, "Handle", 2)

    commandStatus = (r.event(.commandStatus, "Status", 1), r.event(.commandStatus, "Command_Opcode", 2))
    commandComplete = (
      r.event(.commandComplete, "Command_Opcode", 2), r.event(.commandComplete, "Return_Parameters", 0)
    )
    localAddress = r.returned(.readBDADDR, "BD_ADDR", 6)
    leBufferSize = (
      r.returned(.leReadBufferSizeV1, "LE_ACL_Data_Packet_Length", 2),
      r.returned(.leReadBufferSizeV1, "Total_Num_LE_ACL_Data_Packets", 1),
      r.returned(.leReadBufferSizeV2, "LE_ACL_Data_Packet_Length", 2),
      r.returned(.leReadBufferSizeV2, "Total_Num_LE_ACL_Data_Packets", 1)
    )
    bufferSize = (
      r.returned(.readBufferSize, "ACL_Data_Packet_Length", 2),
      r.returned(.readBufferSize, "Total_Num_ACL_Data_Packets", 2)
    )
    rssi = (r.returned(.readRSSI, "Handle", 2), r.returned(.readRSSI, "RSSI", 1))
    keySize = (
      r.returned(.readEncryptionKeySize, "Connection_Handle", 2), r.returned(.readEncryptionKeySize, "Key_Size", 1)
    )

    leConnectionComplete = ConnectionComplete(r, .connectionComplete)
    enhancedConnectionCompleteV1 = ConnectionComplete(r, .enhancedConnectionCompleteV1)
    enhancedConnectionCompleteV2 = ConnectionComplete(r, .enhancedConnectionCompleteV2)
    classicConnectionComplete = (
      r.event(.connectionComplete, "Status", 1), r.event(.connectionComplete, "Connection_Handle", 2),
      r.event(.connectionComplete, "BD_ADDR", 6)
    )
    disconnectionComplete = (
      r.event(.disconnectionComplete, "Status", 1), r.event(.disconnectionComplete, "Connection_Handle", 2),
      r.event(.disconnectionComplete, "Reason", 1)
    )
    encryptionChange = (
      r.event(.encryptionChangeV1, "Status", 1), r.event(.encryptionChangeV1, "Connection_Handle", 2),
      r.event(.encryptionChangeV1, "Encryption_Enabled", 1), r.event(.encryptionChangeV2, "Connection_Handle", 2),
      r.event(.encryptionChangeV2, "Encryption_Enabled", 1)
    )
    keyRefresh = (
      r.event(.encryptionKeyRefreshComplete, "Status", 1),
      r.event(.encryptionKeyRefreshComplete, "Connection_Handle", 2)
    )
    longTermKeyRequest = r.le(.longTermKeyRequest, "Connection_Handle", 2)
    let version = HCIEventCode.readRemoteVersionInformationComplete
    remoteVersion = (
      r.event(version, "Status", 1), r.event(version, "Connection_Handle", 2), r.event(version, "Version", 1),
      r.event(version, "Company_Identifier", 2)
    )
    remoteFeatures = (
      r.le(.readRemoteFeaturesPage0Complete, "Status", 1),
      r.le(.readRemoteFeaturesPage0Complete, "Connection_Handle", 2)
    )
    connectionUpdate = (
      r.le(.connectionUpdateComplete, "Status", 1),
      r.le(.connectionUpdateComplete, "Connection_Handle", 2),
      r.le(.connectionUpdateComplete, "Connection_Interval", 2),
      r.le(.connectionUpdateComplete, "Peripheral_Latency", 2),
      r.le(.connectionUpdateComplete, "Supervision_Timeout", 2)
    )
    remoteConnectionParameterRequest = r.le(.remoteConnectionParameterRequest, "Connection_Handle", 2)
    dataLengthChange = (
      r.le(.dataLengthChange, "Connection_Handle", 2), r.le(.dataLengthChange, "Max_TX_Octets", 2),
      r.le(.dataLengthChange, "Max_TX_Time", 2), r.le(.dataLengthChange, "Max_RX_Octets", 2),
      r.le(.dataLengthChange, "Max_RX_Time", 2)
    )
    phyUpdate = (
      r.le(.phyUpdateComplete, "Status", 1), r.le(.phyUpdateComplete, "Connection_Handle", 2),
      r.le(.phyUpdateComplete, "TX_PHY", 1), r.le(.phyUpdateComplete, "RX_PHY", 1)
    )
    completedPackets = (
      r.event(.numberOfCompletedPackets, "Num_Handles", 1), r.event(.numberOfCompletedPackets, "Connection_Handle", 2),
      r.event(.numberOfCompletedPackets, "Num_Completed_Packets", 2), r.stride(.numberOfCompletedPackets)
    )
    airUpdate = (
      r.air(.connectionUpdateInd, "Interval", 2), r.air(.connectionUpdateInd, "Latency", 2),
      r.air(.connectionUpdateInd, "Timeout", 2)
    )
    airTerminate = r.air(.terminateInd, "ErrorCode", 1)
    airVersion = (r.air(.versionInd, "VersNr", 1), r.air(.versionInd, "CompId", 2))
    airLength = (
      r.air(.lengthRsp, "MaxRxOctets", 2), r.air(.lengthRsp, "MaxRxTime", 2), r.air(.lengthRsp, "MaxTxOctets", 2),
      r.air(.lengthRsp, "MaxTxTime", 2)
    )
    airPHY = (r.air(.phyUpdateInd, "PHY_C_TO_P", 1), r.air(.phyUpdateInd, "PHY_P_TO_C", 1))
    problems = r.problems
  }
}

/// A parameter block, read at the table's slots; a read past its end is nil.
struct LinkParameters {
  typealias Slot = LinkEventTable.Slot
  let bytes: UnsafeRawBufferPointer

  func u8(_ slot: Slot) -> UInt8? { slot.offset < bytes.count ? bytes[slot.offset] : nil }

  func u16(_ slot: Slot, plus extra: Int = 0) -> UInt16? {
    let at = slot.offset + extra
    guard at >= 0, at + 2 <= bytes.count else { return nil }
    return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
  }

  func handle(_ slot: Slot) -> UInt16? { u16(slot).map { $0 & 0x0FFF } }

  func address(_ slot: Slot) -> DeviceAddress? {
    guard slot.offset + 6 <= bytes.count else { return nil }
    var value: UInt64 = 0
    for i in (0..<6).reversed() { value = value << 8 | UInt64(bytes[slot.offset + i]) }
    return DeviceAddress(rawValue: value)
  }

  /// The parameters from `slot` on (a Command Complete's return parameters).
  func from(_ slot: Slot) -> LinkParameters {
    LinkParameters(
      bytes: slot.offset <= bytes.count
        ? UnsafeRawBufferPointer(rebasing: bytes[slot.offset...]) : .init(start: nil, count: 0))
  }
}

extension LinkEvent {
  private static var T: LinkEventTable { LinkEventTable.shared }

  /// The link event of an HCI command or event, nil for those analysis does not act on
  /// (and for data packets).
  public init?(_ record: Record, _ hci: HCILayer) {
    let raw = UnsafeRawBufferPointer(record.bytes)
    switch hci.type {
    case .command:
      guard raw.count >= 3, let opcode = hci.opcode else { return nil }
      guard let event = Self.command(HCIOpcode(rawValue: opcode), LinkParameters(bytes: .init(rebasing: raw[3...])))
      else { return nil }
      self = event
    case .event:
      guard let code = hci.event else { return nil }
      let start = code == HCIEventCode.leMeta.rawValue ? 3 : 2
      guard raw.count >= start else { return nil }
      let parameters = LinkParameters(bytes: .init(rebasing: raw[start...]))
      guard
        let event = code == HCIEventCode.leMeta.rawValue
          ? Self.leEvent(LESubeventCode(rawValue: hci.subevent ?? 0), parameters)
          : Self.event(HCIEventCode(rawValue: code), parameters)
      else { return nil }
      self = event
    default:
      return nil
    }
  }

  private static func command(_ opcode: HCIOpcode, _ p: LinkParameters) -> LinkEvent? {
    switch opcode {
    case .leCreateConnection: createConnection(T.createConnection, p)
    case .leExtendedCreateConnectionV1: createConnection(T.extendedCreateConnectionV1, p)
    case .leExtendedCreateConnectionV2: createConnection(T.extendedCreateConnectionV2, p)
    case .createConnection:
      .createConnection(
        CreateConnection(
          le: false, peer: p.address(T.classicCreateConnection), peerType: nil, usesAcceptList: false,
          scanInterval: nil, scanWindow: nil))
    case .leCreateConnectionCancel: .createConnectionCancel(le: true, peer: nil)
    case .createConnectionCancel: .createConnectionCancel(le: false, peer: p.address(T.createConnectionCancel))
    case .leAddDeviceToFilterAcceptList:
      .acceptList(
        .init(operation: .add, address: p.address(T.acceptList.address), addressType: p.u8(T.acceptList.type)))
    case .leRemoveDeviceFromFilterAcceptList:
      .acceptList(
        .init(
          operation: .remove, address: p.address(T.acceptList.removeAddress),
          addressType: p.u8(T.acceptList.removeType)))
    case .leClearFilterAcceptList: .acceptList(.init(operation: .clear, address: nil, addressType: nil))
    case .leSetScanParameters:
      .scanParameters(
        ScanParameters(
          extended: false, active: p.u8(T.scanParameters.type).map { $0 == 1 },
          interval: p.u16(T.scanParameters.interval), window: p.u16(T.scanParameters.window)))
    case .leSetExtendedScanParameters:
      .scanParameters(
        ScanParameters(
          extended: true, active: p.u8(T.extendedScanParameters.type).map { $0 == 1 },
          interval: p.u16(T.extendedScanParameters.interval), window: p.u16(T.extendedScanParameters.window)))
    case .leSetScanEnable:
      p.u8(T.scanEnable.enable).map {
        .scanEnable(extended: false, enable: $0 != 0, filterDuplicates: p.u8(T.scanEnable.duplicates).map { $0 != 0 })
      }
    case .leSetExtendedScanEnable:
      p.u8(T.extendedScanEnable.enable).map {
        .scanEnable(
          extended: true, enable: $0 != 0, filterDuplicates: p.u8(T.extendedScanEnable.duplicates).map { $0 != 0 })
      }
    case .disconnect:
      p.handle(T.disconnect.handle).map { .disconnect(handle: $0, reason: p.u8(T.disconnect.reason) ?? 0) }
    case .leEnableEncryption: p.handle(T.enableEncryption).map { .enableEncryption(handle: $0) }
    case .readRSSI: p.handle(T.readRSSI).map { .readRSSI(handle: $0) }
    default: nil
    }
  }

  private static func createConnection(_ slots: LinkEventTable.CreateConnection, _ p: LinkParameters) -> LinkEvent {
    .createConnection(
      CreateConnection(
        le: true, peer: p.address(slots.peer), peerType: p.u8(slots.peerType),
        usesAcceptList: (p.u8(slots.policy) ?? 0) != 0,
        scanInterval: p.u16(slots.scanInterval), scanWindow: p.u16(slots.scanWindow)))
  }

  private static func event(_ code: HCIEventCode, _ p: LinkParameters) -> LinkEvent? {
    switch code {
    case .commandStatus:
      guard let status = p.u8(T.commandStatus.status), let opcode = p.u16(T.commandStatus.opcode) else { return nil }
      return .commandStatus(opcode: opcode, status: status)
    case .commandComplete:
      guard let opcode = p.u16(T.commandComplete.opcode) else { return nil }
      return commandComplete(HCIOpcode(rawValue: opcode), p.from(T.commandComplete.returns))
    case .connectionComplete:
      guard let status = p.u8(T.classicConnectionComplete.status),
        let handle = p.handle(T.classicConnectionComplete.handle)
      else { return nil }
      return .connectionComplete(
        ConnectionComplete(
          le: false, status: status, handle: handle, role: nil, peer: p.address(T.classicConnectionComplete.peer),
          peerType: nil, parameters: nil))
    case .disconnectionComplete:
      guard let status = p.u8(T.disconnectionComplete.status), let handle = p.handle(T.disconnectionComplete.handle)
      else { return nil }
      return .disconnectionComplete(status: status, handle: handle, reason: p.u8(T.disconnectionComplete.reason) ?? 0)
    case .encryptionChangeV1, .encryptionChangeV2:
      let v2 = code == .encryptionChangeV2
      guard let status = p.u8(T.encryptionChange.status),
        let handle = p.handle(v2 ? T.encryptionChange.handleV2 : T.encryptionChange.handle)
      else { return nil }
      let enabled = p.u8(v2 ? T.encryptionChange.enabledV2 : T.encryptionChange.enabled) ?? 0
      return .encryptionChange(status: status, handle: handle, enabled: enabled != 0, keyRefresh: false)
    case .encryptionKeyRefreshComplete:
      guard let status = p.u8(T.keyRefresh.status), let handle = p.handle(T.keyRefresh.handle) else { return nil }
      return .encryptionChange(status: status, handle: handle, enabled: true, keyRefresh: true)
    case .readRemoteVersionInformationComplete:
      guard let status = p.u8(T.remoteVersion.status), let handle = p.handle(T.remoteVersion.handle) else { return nil }
      return .remoteVersion(
        status: status, handle: handle, version: p.u8(T.remoteVersion.version) ?? 0,
        company: p.u16(T.remoteVersion.company) ?? 0)
    case .numberOfCompletedPackets:
      return p.u8(T.completedPackets.count).map { .completedPackets(handles: $0) }
    default:
      return nil
    }
  }

  private static func commandComplete(_ opcode: HCIOpcode, _ r: LinkParameters) -> LinkEvent {
    // Every tabled return block starts with Status; a block cut to nothing has none.
    let status = r.bytes.first ?? 0
    var returned = CommandReturn.none
    if status == 0 {
      switch opcode {
      case .readBDADDR:
        if let address = r.address(T.localAddress) { returned = .localAddress(address) }
      case .leReadBufferSizeV1, .leReadBufferSizeV2:
        let v2 = opcode == .leReadBufferSizeV2
        if let packets = r.u8(v2 ? T.leBufferSize.packetsV2 : T.leBufferSize.packets),
          let length = r.u16(v2 ? T.leBufferSize.lengthV2 : T.leBufferSize.length)
        {
          returned = .bufferSize(le: true, packets: UInt16(packets), length: length)
        }
      case .readBufferSize:
        if let packets = r.u16(T.bufferSize.packets), let length = r.u16(T.bufferSize.length) {
          returned = .bufferSize(le: false, packets: packets, length: length)
        }
      case .readRSSI:
        if let handle = r.handle(T.rssi.handle), let value = r.u8(T.rssi.value) {
          returned = .rssi(handle: handle, value: Int8(bitPattern: value))
        }
      case .readEncryptionKeySize:
        if let handle = r.handle(T.keySize.handle), let size = r.u8(T.keySize.size) {
          returned = .keySize(handle: handle, size: size)
        }
      default: break
      }
    }
    return .commandComplete(opcode: opcode.rawValue, status: status, returned: returned)
  }

  private static func leEvent(_ subevent: LESubeventCode, _ p: LinkParameters) -> LinkEvent? {
    switch subevent {
    case .connectionComplete: connectionComplete(T.leConnectionComplete, p)
    case .enhancedConnectionCompleteV1: connectionComplete(T.enhancedConnectionCompleteV1, p)
    case .enhancedConnectionCompleteV2: connectionComplete(T.enhancedConnectionCompleteV2, p)
    case .connectionUpdateComplete:
      p.u8(T.connectionUpdate.status).flatMap { status in
        p.handle(T.connectionUpdate.handle).map { handle in
          .connectionUpdate(
            status: status, handle: handle,
            parameters: status == 0
              ? parameters(p, T.connectionUpdate.interval, T.connectionUpdate.latency, T.connectionUpdate.timeout)
              : nil)
        }
      }
    case .readRemoteFeaturesPage0Complete:
      p.u8(T.remoteFeatures.status).flatMap { status in
        p.handle(T.remoteFeatures.handle).map { .remoteFeatures(status: status, handle: $0) }
      }
    case .longTermKeyRequest: p.handle(T.longTermKeyRequest).map { .longTermKeyRequest(handle: $0) }
    case .remoteConnectionParameterRequest:
      p.handle(T.remoteConnectionParameterRequest).map { .remoteConnectionParameterRequest(handle: $0) }
    case .dataLengthChange:
      p.handle(T.dataLengthChange.handle).map {
        .dataLengthChange(
          handle: $0,
          DataLength(
            maxTXOctets: p.u16(T.dataLengthChange.txOctets) ?? 0, maxTXTime: p.u16(T.dataLengthChange.txTime) ?? 0,
            maxRXOctets: p.u16(T.dataLengthChange.rxOctets) ?? 0, maxRXTime: p.u16(T.dataLengthChange.rxTime) ?? 0))
      }
    case .phyUpdateComplete:
      p.u8(T.phyUpdate.status).flatMap { status in
        p.handle(T.phyUpdate.handle).map {
          .phyUpdate(status: status, handle: $0, tx: p.u8(T.phyUpdate.tx) ?? 0, rx: p.u8(T.phyUpdate.rx) ?? 0)
        }
      }
    default: nil
    }
  }

  private static func connectionComplete(_ slots: LinkEventTable.ConnectionComplete, _ p: LinkParameters) -> LinkEvent?
  {
    guard let status = p.u8(slots.status), let handle = p.handle(slots.handle) else { return nil }
    return .connectionComplete(
      ConnectionComplete(
        le: true, status: status, handle: handle, role: p.u8(slots.role), peer: p.address(slots.peer),
        peerType: p.u8(slots.peerType), parameters: parameters(p, slots.interval, slots.latency, slots.timeout)))
  }

  private static func parameters(
    _ p: LinkParameters, _ interval: LinkEventTable.Slot, _ latency: LinkEventTable.Slot, _ timeout: LinkEventTable.Slot
  ) -> ConnectionParameters? {
    guard let units = p.u16(interval), let timeoutUnits = p.u16(timeout) else { return nil }
    return ConnectionParameters(
      interval: ConnectionInterval(units: units), latency: p.u16(latency) ?? 0,
      supervisionTimeout: SupervisionTimeout(units: timeoutUnits))
  }

  /// The link event of an LL Control PDU, nil for those analysis does not act on.
  public init?(air control: LLControlPDU) {
    let t = LinkEventTable.shared
    func integer(_ index: Int) -> UInt16? {
      index < control.parameters.count
        ? control.parameters[index].value.integer.map { UInt16(truncatingIfNeeded: $0) } : nil
    }
    let event: AirControl
    switch control.opcode {
    case .connectionUpdateInd:
      guard let interval = integer(t.airUpdate.interval), let timeout = integer(t.airUpdate.timeout) else { return nil }
      event = .connectionUpdate(
        ConnectionParameters(
          interval: ConnectionInterval(units: interval), latency: integer(t.airUpdate.latency) ?? 0,
          supervisionTimeout: SupervisionTimeout(units: timeout)))
    case .connectionParamReq: event = .connectionParameterRequest
    case .terminateInd: event = .terminate(reason: UInt8(truncatingIfNeeded: integer(t.airTerminate) ?? 0))
    case .encReq: event = .encryptionRequest
    case .startEncReq: event = .startEncryption
    case .versionInd:
      event = .version(
        version: UInt8(truncatingIfNeeded: integer(t.airVersion.version) ?? 0),
        company: integer(t.airVersion.company) ?? 0)
    case .featureRsp: event = .featureResponse
    case .lengthRsp:
      event = .dataLength(
        DataLength(
          maxTXOctets: integer(t.airLength.txOctets) ?? 0, maxTXTime: integer(t.airLength.txTime) ?? 0,
          maxRXOctets: integer(t.airLength.rxOctets) ?? 0, maxRXTime: integer(t.airLength.rxTime) ?? 0))
    case .phyUpdateInd:
      event = .phyUpdate(
        centralToPeripheral: UInt8(truncatingIfNeeded: integer(t.airPHY.centralToPeripheral) ?? 0),
        peripheralToCentral: UInt8(truncatingIfNeeded: integer(t.airPHY.peripheralToCentral) ?? 0))
    default: return nil
    }
    self = .air(event)
  }

  /// The Connection_Handle and Num_Completed_Packets entries of a Number Of Completed
  /// Packets event (`.completedPackets`) in `record`, as far as its bytes go.
  public static func completedPackets(in record: Record) -> [(handle: UInt16, count: Int)] {
    let slots = T.completedPackets
    let p = LinkParameters(bytes: .init(rebasing: UnsafeRawBufferPointer(record.bytes).dropFirst(2)))
    guard let count = p.u8(slots.count), slots.stride > 0 else { return [] }
    var entries: [(handle: UInt16, count: Int)] = []
    for i in 0..<Int(count) {
      guard let handle = p.u16(slots.handle, plus: i * slots.stride),
        let packets = p.u16(slots.packets, plus: i * slots.stride)
      else { break }
      entries.append((handle & 0x0FFF, Int(packets)))
    }
    return entries
  }
}
