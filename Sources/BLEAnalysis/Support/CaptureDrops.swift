import BLECapture
import BLEDissect

extension Diagnostic {
  /// `capture.dropped`: the capture source lost `count` records right before this one
  /// (`Record.droppedBefore`).
  public static func dropped(_ count: Int) -> Diagnostic {
    Diagnostic(
      id: "capture.dropped", severity: .warning,
      "\(count) record\(count == 1 ? "" : "s") lost right before this one: the capture source dropped "
        + "\(count == 1 ? "it" : "them") (for the monitor socket, its receive buffer was full)")
  }
}
