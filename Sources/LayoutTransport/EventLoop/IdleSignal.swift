import Dispatch
import Synchronization

/// Wakes a thread waiting for counters to reach zero (SIGTERM's drain): each counter tells it
/// when it reaches zero, and the waiter checks them all again. Costs the counters one atomic
/// load while nobody waits.
public final class IdleSignal: Sendable {
    private let waiters = Atomic<Int>(0)
    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    /// A counter the waiter watches has just reached zero.
    @inline(__always)
    public func reachedZero() {
        if waiters.load(ordering: .sequentiallyConsistent) > 0 { semaphore.signal() }
    }

    /// Waits until `isIdle()` holds, at most `seconds`; whether it holds. A counter reaching
    /// zero between the check and the wait leaves the semaphore signalled, so no wake-up is
    /// lost; extra signals only cost a check.
    public func wait(seconds: Double, until isIdle: () -> Bool) -> Bool {
        waiters.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { waiters.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        let deadline = DispatchTime.now() + seconds
        while !isIdle() {
            if semaphore.wait(timeout: deadline) == .timedOut { return isIdle() }
        }
        return true
    }
}
