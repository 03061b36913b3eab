import LayoutTransport
import Synchronization

/// What the scheduler knows of one event loop: its requests on the workers, whether it is
/// answering one itself, and (its own thread only) who asked it last.
final class LoopActivity: @unchecked Sendable {
    /// Requests of this loop's connections queued or running on the workers.
    let onWorkers = Atomic<Int>(0)
    /// Until when (a `MonotonicClock.now()` time's bit pattern; +∞ while it answers one) this
    /// loop counts as busy answering requests itself: a loop that just answered one is likely
    /// to get its client's next within a moment (`RequestScheduler.busyLingerSeconds`).
    let busyUntil = Atomic<UInt64>(0)

    /// Loop thread only: the connection whose requests the loop saw last and when it sent its
    /// last one, and when another connection of this loop last sent one.
    var lastAsker: UInt64 = 0
    var lastAskedAt = -Double.infinity
    var othersLastAskedAt = -Double.infinity
    /// Loop thread only: whether the loop answered a request itself since it last waited.
    var answeredInline = false

    /// Whether the loop is answering a request itself at `now`, or answered one within the
    /// linger before (read by the other loops).
    func isAnswering(at now: Double) -> Bool {
        Double(bitPattern: busyUntil.load(ordering: .relaxed)) > now
    }

    /// Whether it is busy with requests at `now`: some on the workers, or answering one.
    func isBusy(at now: Double) -> Bool {
        onWorkers.load(ordering: .relaxed) > 0 || isAnswering(at: now)
    }
}
