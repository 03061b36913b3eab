import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance: the sole owner of its descriptor (closed on deinit). Registers
/// descriptors with a 64-bit token and waits for their events; every call reads errno at once
/// and retries EINTR.
public struct Epoll: ~Copyable {
    private let fd: FileDescriptor

    public init() throws(Errno) {
        fd = FileDescriptor(adopting: try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    }

    /// Starts watching `descriptor` for `events` (EPOLLIN, EPOLLOUT, …), reported with `token`.
    public func add(_ descriptor: Int32, events: UInt32, token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        try syscall("epoll_ctl ADD") { epoll_ctl(fd.rawValue, EPOLL_CTL_ADD, descriptor, &event) }
    }

    /// Changes the events watched for `descriptor`.
    public func modify(_ descriptor: Int32, events: UInt32, token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        try syscall("epoll_ctl MOD") { epoll_ctl(fd.rawValue, EPOLL_CTL_MOD, descriptor, &event) }
    }

    /// Stops watching `descriptor` (closing it does too).
    public func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd.rawValue, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Waits up to `milliseconds` (-1: forever) for events; fills `events` and returns how
    /// many came. EINTR returns 0 (the caller loops anyway).
    public func wait(_ events: inout [epoll_event], milliseconds: Int32) throws(Errno) -> Int {
        let n = events.withUnsafeMutableBufferPointer { epoll_wait(fd.rawValue, $0.baseAddress, Int32($0.count), milliseconds) }
        if n < 0 {
            let code = errno
            if code == EINTR { return 0 }
            throw Errno(code, "epoll_wait")
        }
        return Int(n)
    }
}

/// An eventfd used to wake a thread blocked in `Epoll.wait` from other threads.
public final class Wakeup: @unchecked Sendable {
    public let descriptor: Int32

    public init() throws(Errno) {
        descriptor = try syscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { _ = close(descriptor) }

    /// Makes the descriptor readable (from any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Clears it (on the waiting thread).
    public func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, 8)
    }
}

extension UnixSocket {
    /// Makes a descriptor non-blocking.
    public static func setNonBlocking(_ fd: Int32) throws(Errno) {
        let flags = try syscall("fcntl F_GETFL") { fcntl(fd, F_GETFL) }
        try syscall("fcntl F_SETFL") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Accepts one connection if one is waiting: nil when none is (EAGAIN), the new descriptor
    /// non-blocking and close-on-exec otherwise.
    public static func acceptNonBlocking(_ listener: Int32) throws(Errno) -> FileDescriptor? {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                return FileDescriptor(adopting: fd)
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw Errno(code, "accept")
        }
    }
}
