import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket shared by the thread that accepts on it and the one that stops it:
/// owns its descriptor (closed when the last reference goes).
public final class ListeningSocket: Sendable {
    public let descriptor: FileDescriptor
    private let shutDown = Atomic<Bool>(false)

    public init(adopting descriptor: consuming FileDescriptor) { self.descriptor = descriptor }

    /// Whether `shutdown` was called.
    public var isShutDown: Bool { shutDown.load(ordering: .sequentiallyConsistent) }

    /// Stops accepting (from any thread): the accepting loop hears of it as a failing accept.
    public func shutdown() {
        shutDown.store(true, ordering: .sequentiallyConsistent)
        _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
    }
}
