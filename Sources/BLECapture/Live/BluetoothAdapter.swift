import CBluetooth

#if canImport(Glibc)
  import Glibc
#endif

/// A Bluetooth controller the kernel knows, from libbluetooth (`live --list`).
public struct BluetoothAdapter: Sendable, Hashable {
  /// The controller index: N of hciN, the monitor records' adapter.
  public var index: UInt16
  public var name: String
  /// `AA:BB:CC:DD:EE:FF`, most significant byte first.
  public var address: String
  /// "USB", "UART", "VIRTUAL"… (libbluetooth's `hci_bustostr`).
  public var bus: String
  public var isUp: Bool

  public init(index: UInt16, name: String, address: String, bus: String, isUp: Bool) {
    (self.index, self.name, self.address, self.bus, self.isUp) = (index, name, address, bus, isUp)
  }

  /// The adapters in index order, through the HCIGETDEVLIST ioctl and `hci_devinfo`.
  public static func list() throws(LiveError) -> [BluetoothAdapter] {
    let descriptor = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
    guard descriptor >= 0 else { throw MonitorSocketReader.socketError("list Bluetooth adapters") }
    defer { close(descriptor) }
    // struct hci_dev_list_req: dev_num u16, then HCI_MAX_DEV struct hci_dev_req {u16 dev_id;
    // u32 dev_opt} from offset 4. HCIGETDEVLIST is _IOR('H', 210, int), a macro Swift cannot
    // import.
    let capacity = Int(HCI_MAX_DEV)
    let request = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 + 8 * capacity, alignment: 4)
    defer { request.deallocate() }
    request.initializeMemory(as: UInt8.self, repeating: 0)
    request.storeBytes(of: UInt16(capacity), as: UInt16.self)
    let getDeviceList: UInt = 0x8004_48D2
    guard ioctl(descriptor, getDeviceList, request.baseAddress!) == 0 else {
      throw LiveError("list Bluetooth adapters: \(MappedFile.errnoText())")
    }
    let count = min(Int(request.load(as: UInt16.self)), capacity)
    var adapters: [BluetoothAdapter] = []
    for entry in 0..<count {
      let index = request.load(fromByteOffset: 4 + 8 * entry, as: UInt16.self)
      var info = hci_dev_info()
      guard hci_devinfo(Int32(index), &info) == 0 else { continue }
      let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      let address = withUnsafeBytes(of: info.bdaddr) { bytes in
        bytes.reversed().map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: ":")
      }
      adapters.append(
        BluetoothAdapter(
          index: index, name: name, address: address,
          bus: hci_bustostr(Int32(info.type & 0x0F)).map { String(cString: $0) } ?? "UNKNOWN",
          isUp: info.flags & (1 << HCI_UP) != 0))
    }
    // The kernel lists the newest adapter first.
    return adapters.sorted { $0.index < $1.index }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
