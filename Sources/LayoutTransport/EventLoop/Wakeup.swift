import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// An eventfd used to wake a thread blocked in `Epoll.wait` from other threads.
public final class Wakeup: Sendable {
    public let descriptor: FileDescriptor

    public init() throws(Errno) {
        descriptor = FileDescriptor(adopting: try syscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
    }

    /// Makes the descriptor readable (from any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor.rawValue, &one, 8)
    }

    /// Clears it (on the waiting thread).
    public func drain() {
        var value: UInt64 = 0
        _ = read(descriptor.rawValue, &value, 8)
    }
}
