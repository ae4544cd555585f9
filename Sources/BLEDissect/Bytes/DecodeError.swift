/// The only error the decoders throw: what went wrong, at which absolute offset of
/// the record, in which layer.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Kind: Hashable, Sendable {
    case truncated(needed: Int, available: Int)
    case invalid(String)
  }

  public enum Layer: String, Hashable, Sendable {
    case hci, acl, l2cap, att, smp
    /// Advertising data: AD structures inside an advertising report.
    case adv
    /// An air packet: sniffer header or link-layer PDU.
    case ll
    /// Protocols carried in characteristic values (Vendor/): mcumgr and its CBOR
    /// bodies, Nordic DFU, HID reports and report maps, Apple ANCS and AMS.
    case mcumgr, cbor, dfu, hid, ancs, ams
  }

  public var kind: Kind
  public var offset: Int
  public var layer: Layer

  public init(_ kind: Kind, at offset: Int, layer: Layer) {
    self.kind = kind
    self.offset = offset
    self.layer = layer
  }

  /// The stable diagnostic id for this error (`hci.truncated`, `att.invalid`…).
  public var diagnosticID: String {
    switch kind {
    case .truncated: "\(layer.rawValue).truncated"
    case .invalid: "\(layer.rawValue).invalid"
    }
  }

  public var description: String {
    switch kind {
    case .truncated(let needed, let available):
      "\(layer.rawValue) needs \(needed) more bytes at offset \(offset), \(available) left"
    case .invalid(let why): "\(layer.rawValue) \(why) at offset \(offset)"
    }
  }
}
