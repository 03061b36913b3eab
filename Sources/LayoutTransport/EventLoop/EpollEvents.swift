import CEpoll

/// The events `Epoll` watches a descriptor for and reports (epoll_ctl(2)), as a set.
public struct EpollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data to read, or a connection waiting on a listening socket (EPOLLIN).
    public static let readable = EpollEvents(rawValue: UInt32(EPOLLIN.rawValue))
    /// Room in the send buffer (EPOLLOUT).
    public static let writable = EpollEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    /// The peer shut down its sending side (EPOLLRDHUP); it may still read.
    public static let peerClosedWriting = EpollEvents(rawValue: UInt32(EPOLLRDHUP.rawValue))
    /// An error on the descriptor (EPOLLERR; always reported).
    public static let error = EpollEvents(rawValue: UInt32(EPOLLERR.rawValue))
    /// Both directions closed (EPOLLHUP; always reported).
    public static let hangUp = EpollEvents(rawValue: UInt32(EPOLLHUP.rawValue))
}
