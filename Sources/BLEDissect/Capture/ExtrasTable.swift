#if canImport(Glibc)
  import Glibc
#endif

/// What a few records carry beyond their fixed-size facts (diagnostics, advertising
/// reports, a reassembled PDU…), kept out of line in one table per kind of record, so
/// that a record holds no reference-counted value and copying one is a plain copy of
/// bytes.
///
/// A record names its entry by an id (0: none). The table is process-wide and locked,
/// so a record is valid on any thread for as long as its entry lives: until the
/// pipeline `release`s it, once the record has been shown and counted. Entries come
/// and go roughly first in, first out, so the table is a queue of slots whose front is
/// dropped as it empties.
public final class ExtrasTable<Entry>: @unchecked Sendable {
  /// Slot `i` holds the entry with id `firstID + i`, nil once released.
  private var slots: [Entry?] = []
  /// Released slots at the front, not yet dropped.
  private var head = 0
  private var firstID: UInt32 = 1
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  public init() {
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  private func locked<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Entries still held (for tests and memory bounds).
  public var liveCount: Int { locked { slots[head...].count { $0 != nil } } }

  /// A new entry; its id is never 0.
  public func add(_ entry: Entry) -> UInt32 {
    locked {
      slots.append(entry)
      return firstID &+ UInt32(truncatingIfNeeded: slots.count - 1)
    }
  }

  private func index(_ id: UInt32) -> Int { Int(id &- firstID) }

  /// A copy of the entry `id` names; it must not be released.
  public subscript(id: UInt32) -> Entry {
    get { locked { slots[index(id)]! } }
    set { locked { slots[index(id)] = newValue } }
  }

  /// Frees the entry `id` names (0 and released ids are ignored).
  public func release(_ id: UInt32) {
    guard id != 0 else { return }
    locked {
      let i = index(id)
      guard i >= head, i < slots.count else { return }
      slots[i] = nil
      while head < slots.count, slots[head] == nil { head += 1 }
      // Drop the released front once it is all or most of the storage.
      if head == slots.count {
        firstID = firstID &+ UInt32(truncatingIfNeeded: head)
        slots.removeAll(keepingCapacity: slots.count <= 4096)
        head = 0
      } else if head >= 1024, head * 2 >= slots.count {
        firstID = firstID &+ UInt32(truncatingIfNeeded: head)
        slots.removeFirst(head)
        head = 0
      }
    }
  }
}
