#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An owned file descriptor, closed in `deinit` (or earlier with `close()`).
/// `~Copyable`: exactly one owner at a time.
public struct FileDescriptor: ~Copyable, Sendable {
    public private(set) var rawValue: Int32

    public init(adopting rawValue: Int32) { self.rawValue = rawValue }

    /// Closes now; later closes do nothing.
    public mutating func close() {
        if rawValue >= 0 { _ = Glibc.close(rawValue) }
        rawValue = -1
    }

    /// Gives up ownership without closing.
    public consuming func release() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    /// Makes the descriptor non-blocking (O_NONBLOCK).
    public func setNonBlocking() throws(Errno) {
        let fd = rawValue
        let flags = try syscall("fcntl F_GETFL") { fcntl(fd, F_GETFL) }
        try syscall("fcntl F_SETFL") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    deinit { if rawValue >= 0 { _ = Glibc.close(rawValue) } }
}
