import Synchronization

/// The `fontsChanged` listeners of one client, called from its reader thread.
final class FontListeners: Sendable {
    private let listeners = Mutex<[@Sendable (String) -> Void]>([])

    var count: Int { listeners.withLock { $0.count } }

    func add(_ listener: @escaping @Sendable (String) -> Void) { listeners.withLock { $0.append(listener) } }

    func notify(_ fingerprint: String) {
        for listener in listeners.withLock({ $0 }) { listener(fingerprint) }
    }
}
