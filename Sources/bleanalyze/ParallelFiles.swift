#if canImport(Glibc)
  import Glibc
#endif

/// Runs one piece of work per file on both cores and hands the results over in file
/// order. The main thread and one helper thread each claim the first file nobody has
/// claimed; the main thread also delivers results in order, as soon as the next one is
/// there. Work on the file that is due next runs `inOrder` (a command can stream its
/// output straight to stdout); work ahead of it keeps its result until it is due. At
/// most `ahead` files are claimed past the next one due, which bounds what is held.
final class ParallelFiles<Result>: @unchecked Sendable {
  typealias Work = @Sendable (_ index: Int, _ inOrder: Bool) -> Result

  private let count: Int
  private let ahead: Int
  private let work: Work
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  /// Guarded by `mutex`.
  private var claimed = 0
  private var due = 0
  private var results: [Int: Result] = [:]
  private var stopped = false

  private init(count: Int, ahead: Int, work: @escaping Work) {
    self.count = count
    self.ahead = ahead
    self.work = work
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
    changed.deallocate()
  }

  /// Calls `work` for files 0..<count, two at a time when the machine has two cores
  /// (up to `threads` at a time when it has that many), and `deliver` with each result
  /// in file order on the calling thread. An error thrown by `deliver` stops the run at once.
  static func run(
    count: Int, ahead: Int = 2, threads: Int = 2, work: @escaping Work,
    deliver: (_ index: Int, Result) throws -> Void
  ) rethrows {
    let runner = ParallelFiles(count: count, ahead: ahead, work: work)
    let helpers = min(threads, Self.cores, count) - 1
    let started = helpers > 0 ? (0..<helpers).compactMap { _ in startThread { runner.helperLoop() } } : []
    var delivered = false
    defer {
      runner.locked { runner.stopped = true }
      pthread_cond_broadcast(runner.changed)
      // Stopped early (stdout closed): the helpers' files are not waited for; the process
      // ends with them.
      for helper in started { delivered ? pthread_join(helper, nil) : pthread_detach(helper) }
    }
    try runner.mainLoop(deliver)
    delivered = true
  }

  /// The cores online.
  static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  private func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// The next file to claim, if there is one within reach. Called with `mutex` held.
  private func claim() -> Int? {
    guard !stopped, claimed < count, claimed <= due + ahead else { return nil }
    defer { claimed += 1 }
    return claimed
  }

  private func helperLoop() {
    pthread_mutex_lock(mutex)
    while !stopped && claimed < count {
      guard let index = claim() else {
        pthread_cond_wait(changed, mutex)
        continue
      }
      pthread_mutex_unlock(mutex)
      let result = work(index, false)
      pthread_mutex_lock(mutex)
      results[index] = result
      pthread_cond_broadcast(changed)
    }
    pthread_mutex_unlock(mutex)
  }

  private func mainLoop(_ deliver: (Int, Result) throws -> Void) rethrows {
    while true {
      pthread_mutex_lock(mutex)
      if due == count {
        pthread_mutex_unlock(mutex)
        return
      }
      if let ready = results.removeValue(forKey: due) {
        let index = due
        due += 1
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        try deliver(index, ready)
        continue
      }
      if let index = claim() {
        let inOrder = index == due
        pthread_mutex_unlock(mutex)
        let result = work(index, inOrder)
        if inOrder {
          locked {
            due += 1
            pthread_cond_broadcast(changed)
          }
          try deliver(index, result)
        } else {
          locked { results[index] = result }
        }
        continue
      }
      // The next file due is the helper's: wait for it.
      pthread_cond_wait(changed, mutex)
      pthread_mutex_unlock(mutex)
    }
  }
}

private final class ThreadBody {
  let run: @Sendable () -> Void

  init(_ run: @escaping @Sendable () -> Void) {
    self.run = run
  }
}

/// A POSIX thread running `body`, or nil when none could start (the caller then does
/// the work alone).
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
  let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
  var thread = pthread_t()
  let started = pthread_create(
    &thread, nil,
    { context in
      Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
      return nil
    }, context)
  guard started == 0 else {
    Unmanaged<ThreadBody>.fromOpaque(context).release()
    return nil
  }
  return thread
}
