import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance: the sole owner of its descriptor (closed on deinit). Registers
/// descriptors with a 64-bit token and waits for their events.
public struct Epoll: ~Copyable {
    private let fd: FileDescriptor

    public init() throws(Errno) {
        fd = FileDescriptor(adopting: try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    }

    /// Starts watching `descriptor` for `events`, reported with `token`.
    public func add(_ descriptor: borrowing FileDescriptor, events: EpollEvents, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_ADD, "epoll_ctl ADD", descriptor.rawValue, events, token)
    }

    /// Changes the events watched for `descriptor`.
    public func modify(_ descriptor: borrowing FileDescriptor, events: EpollEvents, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_MOD, "epoll_ctl MOD", descriptor.rawValue, events, token)
    }

    /// Stops watching `descriptor` (closing it does too).
    public func remove(_ descriptor: borrowing FileDescriptor) {
        var event = epoll_event()
        _ = epoll_ctl(fd.rawValue, EPOLL_CTL_DEL, descriptor.rawValue, &event)
    }

    private func control(_ op: Int32, _ name: String, _ descriptor: Int32, _ events: EpollEvents, _ token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        let epoll = fd.rawValue
        try syscall(name) { epoll_ctl(epoll, op, descriptor, &event) }
    }

    /// Waits up to `milliseconds` (-1: forever, 0: not at all) for events; fills `events` and
    /// returns how many came.
    public func wait(_ events: inout EpollEventBuffer, milliseconds: Int32) throws(Errno) -> Int {
        let epoll = fd.rawValue
        return Int(try syscall("epoll_wait") {
            events.storage.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), milliseconds) }
        })
    }
}

/// Room for the events one `Epoll.wait` reports, read back by index.
public struct EpollEventBuffer {
    fileprivate var storage: [epoll_event]

    public init(capacity: Int) { storage = [epoll_event](repeating: epoll_event(), count: capacity) }

    public func token(at index: Int) -> UInt64 { storage[index].data.u64 }
    public func events(at index: Int) -> EpollEvents { EpollEvents(rawValue: storage[index].events) }
}
