import Synchronization

/// What other threads hand an event loop, and its wake-up: connections to look at (a request
/// finished, a notification queued) and connections to start serving (accepted by the
/// accepting loop, or moved from a crowded one).
final class LoopMailbox: Sendable {
    let wakeup: Wakeup
    private let dirty = Mutex<[UInt64]>([])
    private let arriving = Mutex<[Arrival]>([])

    /// A connection handed to the loop: `isNew` when just accepted (not yet opened with the
    /// handler), else moved from another loop.
    struct Arrival {
        var connection: ClientConnection
        var isNew: Bool
    }

    init() throws(Errno) { wakeup = try Wakeup() }

    /// Marks a connection for the loop's attention (from any thread) and wakes it.
    func markDirty(_ token: UInt64) {
        dirty.withLock { $0.append(token) }
        wakeup.signal()
    }

    /// Hands the loop a connection to serve (from any thread) and wakes it (unless `wake` is
    /// false: the loop's own thread, which looks at its arrivals before it waits).
    func hand(_ connection: ClientConnection, isNew: Bool, wake: Bool = true) {
        arriving.withLock { $0.append(Arrival(connection: connection, isNew: isNew)) }
        if wake { wakeup.signal() }
    }

    /// The connections marked since the last call (loop thread).
    func takeDirty() -> [UInt64] { dirty.withLock { d in defer { d.removeAll() }; return d } }

    /// The connections handed over since the last call (loop thread).
    func takeArrivals() -> [Arrival] { arriving.withLock { list in defer { list.removeAll() }; return list } }
}

/// The mailboxes of a group's loops, by loop index; fixed once the loops are made.
final class LoopMailboxes: Sendable {
    private let boxes: [LoopMailbox]

    init(_ boxes: [LoopMailbox]) { self.boxes = boxes }

    subscript(loop: Int) -> LoopMailbox { boxes[loop] }
}
