/// The calls an `AppBuilder` holds, by id (the order they were made): what it is still
/// building, and, until they are handed over, what it finished. Streaming (`app`), a
/// connection's calls leave when the connection ends, so that what is held stays what
/// is open at once.
struct AppCallStore {
  private var byID: [Int: AppCall] = [:]
  /// Ids handed out so far: the next call's.
  private(set) var count = 0
  /// Each connection's calls, by id.
  private var ofConnection: [Int: [Int]] = [:]
  /// Calls done that wait for the end of the capture (scans that stopped), out of the table.
  private(set) var parked: [AppCall] = []

  subscript(i: Int) -> AppCall {
    get { byID[i]! }
    _modify { yield &byID[i]! }
  }

  /// Adds `call` with the next id; it sorts among calls that start with it by that id,
  /// or by `sequence` when given (calls made at the end: `AppBuilder.Finish`).
  mutating func append(_ call: AppCall, sequence: Int? = nil) {
    var call = call
    call.sequence = sequence ?? count
    if let conn = call.conn?.id { ofConnection[conn, default: []].append(count) }
    byID[count] = call
    count += 1
  }

  func contains(_ i: Int) -> Bool { byID[i] != nil }

  /// The ids held, in the order they were made.
  var indices: [Int] { byID.keys.sorted() }

  /// How many calls are held (the rest were handed over).
  var held: Int { byID.count }

  /// The ids of connection `conn`'s calls, which leave the connection's list.
  mutating func takeIDs(of conn: Int) -> [Int] { ofConnection.removeValue(forKey: conn) ?? [] }

  mutating func remove(_ i: Int) -> AppCall? { byID.removeValue(forKey: i) }

  /// Call `i` changes no more until the end of the capture.
  mutating func park(_ i: Int) {
    if let call = byID.removeValue(forKey: i) { parked.append(call) }
  }

  mutating func forEachParked(_ body: (inout AppCall) -> Void) {
    for i in parked.indices { body(&parked[i]) }
  }

  /// Every call, in the order they began (time, then frame, then as made), which the
  /// store no longer holds: moved out rather than copied.
  mutating func takeAllInStartOrder() -> [AppCall] {
    // `sequence` grows with the id for calls made record by record, and in the order they
    // were added for those made at the end.
    var all = parked
    parked = []
    all.reserveCapacity(all.count + byID.count)
    for i in byID.keys.sorted() { all.append(byID.removeValue(forKey: i)!) }
    self = AppCallStore()
    all.sort { $0.startKey < $1.startKey }
    return all
  }
}
