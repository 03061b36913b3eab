import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What kind of peer a listener's connections come from: a local process on a Unix socket
/// (whose uid the kernel tells), or a TCP peer (whose uid nobody can tell).
public enum ListenerKind: Sendable, Equatable {
    case unix
    case tcp

    /// The kind of the stream socket `fd` (by its address family), nil when it is neither.
    public static func of(_ fd: Int32) -> ListenerKind? {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        guard status == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_UNIX: return .unix
        case AF_INET, AF_INET6: return .tcp
        default: return nil
        }
    }
}

/// A listening socket shared by the thread that accepts on it and the one that stops it:
/// owns its descriptor (closed when the last reference goes).
public final class ListeningSocket: Sendable {
    public let descriptor: FileDescriptor
    public let kind: ListenerKind
    /// How the log and the daemon's first lines name it (`/run/layoutd/layoutd.sock`,
    /// `tcp:127.0.0.1:7000`).
    public let name: String
    private let shutDown = Atomic<Bool>(false)

    public init(adopting descriptor: consuming FileDescriptor, kind: ListenerKind, name: String) {
        self.descriptor = descriptor
        self.kind = kind
        self.name = name
    }

    /// Whether `shutdown` was called.
    public var isShutDown: Bool { shutDown.load(ordering: .sequentiallyConsistent) }

    /// Stops accepting (from any thread): the accepting loop hears of it as a failing accept.
    public func shutdown() {
        shutDown.store(true, ordering: .sequentiallyConsistent)
        _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
    }
}
