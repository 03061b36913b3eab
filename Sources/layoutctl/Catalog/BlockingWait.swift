import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs async work from one of the catalog's connection threads and blocks that thread (a
/// POSIX thread of its own, never one of Swift's cooperative threads) until it is done.
/// LayoutClient is async; the HTTP side reads and writes with blocking calls.
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let slot = ResultSlot<T>()
    Task.detached { slot.fill(await work()) }
    return slot.take()
}

/// One value handed from a task to a waiting thread: a mutex for the value, a semaphore for
/// the wake-up. Unchecked: the semaphore is made for sharing between threads (sem_overview(7)),
/// and the value is behind the mutex.
private final class ResultSlot<T: Sendable>: @unchecked Sendable {
    private let value = Mutex<T?>(nil)
    private let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func fill(_ result: T) {
        value.withLock { $0 = result }
        sem_post(semaphore)
    }

    /// Waits for `fill` (a signal's interruption is retried by `syscall`).
    func take() -> T {
        let semaphore = self.semaphore
        while true {
            if let result = value.withLock({ $0 }) { return result }
            _ = try? syscall("sem_wait") { sem_wait(semaphore) }
        }
    }
}
