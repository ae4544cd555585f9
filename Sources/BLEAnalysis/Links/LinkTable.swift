/// The links `LinkTracker` follows, found by adapter and connection handle without
/// hashing: each adapter has a table indexed by handle that gives the link's slot.
/// Records come on a handful of adapters, the last one found is tried first.
struct LinkTable<Link> {
  /// The links, by slot; nil where a link went and its slot waits for reuse.
  private var slots: [Link?] = []
  private var freeSlots: [Int] = []
  /// Per adapter, the slot of each handle (-1: none), grown to the highest handle seen.
  private var adapters: [(adapter: UInt16?, slots: [Int32])] = []
  private var lastAdapter = 0
  private(set) var count = 0

  private mutating func adapterIndex(_ adapter: UInt16?, create: Bool) -> Int? {
    if lastAdapter < adapters.count, adapters[lastAdapter].adapter == adapter { return lastAdapter }
    if let index = adapters.firstIndex(where: { $0.adapter == adapter }) {
      lastAdapter = index
      return index
    }
    guard create else { return nil }
    adapters.append((adapter, []))
    lastAdapter = adapters.count - 1
    return lastAdapter
  }

  private func adapterIndex(_ adapter: UInt16?) -> Int? {
    if lastAdapter < adapters.count, adapters[lastAdapter].adapter == adapter { return lastAdapter }
    return adapters.firstIndex { $0.adapter == adapter }
  }

  /// The slot of the link on `handle` of `adapter`.
  func slot(adapter: UInt16?, handle: UInt16) -> Int? {
    guard let a = adapterIndex(adapter), Int(handle) < adapters[a].slots.count else { return nil }
    let slot = adapters[a].slots[Int(handle)]
    return slot < 0 ? nil : Int(slot)
  }

  /// The link in `slot`, which holds one.
  subscript(slot slot: Int) -> Link {
    get { slots[slot]! }
    _modify { yield &slots[slot]! }
  }

  subscript(adapter adapter: UInt16?, handle handle: UInt16) -> Link? {
    get { slot(adapter: adapter, handle: handle).map { slots[$0]! } }
    set {
      if let slot = slot(adapter: adapter, handle: handle) {
        guard let newValue else { return remove(adapter: adapter, handle: handle, slot: slot) }
        slots[slot] = newValue
        return
      }
      guard let newValue else { return }
      insert(newValue, adapter: adapter, handle: handle)
    }
  }

  @discardableResult
  mutating func insert(_ link: Link, adapter: UInt16?, handle: UInt16) -> Int {
    let a = adapterIndex(adapter, create: true)!
    if Int(handle) >= adapters[a].slots.count {
      adapters[a].slots += repeatElement(-1, count: Int(handle) + 1 - adapters[a].slots.count)
    }
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
      slots[slot] = link
    } else {
      slot = slots.count
      slots.append(link)
    }
    adapters[a].slots[Int(handle)] = Int32(slot)
    count += 1
    return slot
  }

  private mutating func remove(adapter: UInt16?, handle: UInt16, slot: Int) {
    let a = adapterIndex(adapter, create: false)!
    adapters[a].slots[Int(handle)] = -1
    slots[slot] = nil
    freeSlots.append(slot)
    count -= 1
  }

  /// Every link's adapter and handle, in no particular order.
  var keys: [(adapter: UInt16?, handle: UInt16)] {
    var keys: [(adapter: UInt16?, handle: UInt16)] = []
    for entry in adapters {
      for (handle, slot) in entry.slots.enumerated() where slot >= 0 {
        keys.append((entry.adapter, UInt16(handle)))
      }
    }
    return keys
  }
}
