import Synchronization

/// Bytes of answers queued and not yet written, over every connection of a loop group
/// (SIGTERM's drain waits for them to be written).
public final class UnsentBytes: Sendable {
    private let count = Atomic<Int>(0)
    private let idle: IdleSignal

    public init(idle: IdleSignal) { self.idle = idle }

    public var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func add(_ bytes: Int) { count.wrappingAdd(bytes, ordering: .sequentiallyConsistent) }

    func subtract(_ bytes: Int) {
        if count.wrappingSubtract(bytes, ordering: .sequentiallyConsistent).newValue == 0 { idle.reachedZero() }
    }
}
