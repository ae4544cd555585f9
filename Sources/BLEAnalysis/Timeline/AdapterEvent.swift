import BLECapture
import BLEDissect

/// An adapter coming or going, from a Linux monitor record.
public struct AdapterEvent: Hashable, Sendable {
  public enum Kind: String, Sendable {
    /// New Index: the kernel registered the adapter.
    case added
    /// Open Index: the adapter was brought up.
    case opened
    /// Close Index: the adapter was brought down.
    case closed
    /// Index Removed (Delete Index): the adapter went away; its connections ended.
    case removed
  }

  public var adapter: UInt16?
  public var at: FrameTime
  public var kind: Kind
  /// Connections the removal ended.
  public var endedConnections: [Int] = []

  static func kind(_ opcode: MonitorOpcode) -> Kind? {
    switch opcode {
    case .newIndex: .added
    case .openIndex: .opened
    case .closeIndex: .closed
    case .deleteIndex: .removed
    default: nil
    }
  }
}

extension TimelineBuilder {
  /// A monitor record without an HCI packet: an adapter event, and for Index Removed the
  /// end of the adapter's connections (`adapter_gone`).
  mutating func adapterRecord(_ opcode: MonitorOpcode, _ record: Record, _ analyzed: AnalyzedRecord) {
    guard let kind = AdapterEvent.kind(opcode) else { return }
    let at = FrameTime(record)
    var event = AdapterEvent(adapter: record.adapter, at: at, kind: kind)
    if kind == .removed {
      for request in analyzed.unanswered { settle(request) }
      for i in timeline.connections.indices
      where timeline.connections[i].ref.adapter == record.adapter && timeline.connections[i].disconnect == nil
        && states[timeline.connections[i].ref.id] != nil
      {
        let ref = timeline.connections[i].ref
        timeline.connections[i].disconnect = Disconnect(
          command: nil, commandReason: nil, complete: at,
          reason: HCIStatusCode.connectionTerminatedByLocalHost.rawValue, initiator: .adapterGone)
        timeline.connections[i].last = at
        states[ref.id] = nil
        ended(ref, at: at)
        event.endedConnections.append(ref.id)
      }
    }
    timeline.adapterEvents.append(event)
  }
}
