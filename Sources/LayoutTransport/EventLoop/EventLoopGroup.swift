import Dispatch
import Synchronization

/// The event loops of a server, made together and fixed afterwards: each connection is
/// served by one of them (the one with the fewest when it is accepted; moved to another only
/// to even out busy clients, see `EventLoop.moveIfCrowded`). The first loop runs on the
/// caller's thread and accepts (`run(listeners:)`); the others run on threads of their own
/// (`startThreads`).
public final class EventLoopGroup<Handler: ConnectionHandler>: @unchecked Sendable {
    public let handler: Handler
    /// Made in `init`, fixed afterwards.
    private(set) var loops: [EventLoop<Handler>] = []
    private(set) var mailboxes: LoopMailboxes!
    let unsent: UnsentBytes
    /// Connection tokens, unique across the loops (0 and 1 are the loops' own).
    let nextToken = Atomic<UInt64>(2)
    /// Connections moved from one loop to another.
    let moves = Atomic<Int>(0)
    /// Set by `stop`: the loops return from `run`.
    let stopping = Atomic<Bool>(false)

    /// Makes `count` loops (at least one; fewer when epoll fails after the first, which the
    /// handler's log hears of). Throws when not even one can be made.
    public init(handler: Handler, count: Int, unsent: UnsentBytes) throws(Errno) {
        self.handler = handler
        self.unsent = unsent
        do {
            for index in 0..<max(1, count) { loops.append(try EventLoop(group: self, index: index)) }
        } catch {
            if loops.isEmpty { throw error }
            handler.log(.warning, "cannot start more than \(loops.count) event loops: \(error)")
        }
        mailboxes = LoopMailboxes(loops.map(\.mailbox))
    }

    public var loopCount: Int { loops.count }

    /// The connections each loop serves (or has been handed) now.
    public var connectionsPerLoop: [Int] { loops.map { $0.connectionCount.load(ordering: .relaxed) } }

    /// How many connections were moved to a less busy loop.
    public var movedConnections: Int { moves.load(ordering: .relaxed) }

    /// Starts every loop but the first on a thread of its own, each running `warmUp` there
    /// first (so that a loop's first request does not pay for its thread's first
    /// allocations); returns once every started thread has warmed up. A loop whose thread
    /// cannot start is handed no connections.
    public func startThreads(warmUp: (@Sendable () -> Void)?) {
        let warmed = DispatchSemaphore(value: 0)
        var started = 0
        for loop in loops.dropFirst() {
            do {
                // A loop answers short requests itself, as a worker would: a worker's stack.
                try spawnDetachedThread(stackBytes: 8 << 20) {
                    warmUp?()
                    warmed.signal()
                    loop.run(listeners: [])
                }
                started += 1
            } catch {
                handler.log(.warning, "cannot start an event loop thread: \(error)")
                loop.stopTakingConnections()
            }
        }
        for _ in 0..<started { warmed.wait() }
    }

    /// Runs the first loop on this thread, accepting on `listeners`; returns only if it cannot
    /// run or `stop` was called (the others go on serving the connections they have).
    public func run(listeners: [ListeningSocket]) {
        loops[0].run(listeners: listeners)
    }

    /// Makes every loop return from `run` (at its next wake-up; connections stay open).
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for loop in loops { loop.mailbox.wakeup.signal() }
    }

    /// Serves a connected socket as if it had been accepted on a listener of kind `via`:
    /// admitted by the handler, then handed to the loop with the fewest connections. From any
    /// thread.
    public func serve(_ descriptor: consuming FileDescriptor, via kind: ListenerKind = .unix) {
        serve(descriptor, via: kind, acceptedBy: nil)
    }

    /// `serve`; `acceptedBy`: the loop calling, which needs no wake-up to find a connection
    /// handed to itself.
    func serve(_ descriptor: consuming FileDescriptor, via kind: ListenerKind, acceptedBy accepting: EventLoop<Handler>?) {
        let peer: UInt32
        switch handler.admit(descriptor, via: kind) {
        case .admitted(let uid):
            peer = uid
        case .refused(var reply):
            reply.append(0x0A)
            _ = reply.withUnsafeBytes { bytes in try? UnixSocket.writeAll(descriptor, bytes) }
            return
        }
        let target = claimLeastLoaded()
        let token = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        let connection = ClientConnection(descriptor: descriptor, peerUID: peer, via: kind, token: token, loop: target.index,
                                          maxLineLength: handler.limits.maxMessageBytes, mailboxes: mailboxes, unsent: unsent)
        target.mailbox.hand(connection, isNew: true, wake: target !== accepting)
    }

    /// The loop with the fewest connections (the first of those tied), its count raised for
    /// the connection about to be handed to it.
    func claimLeastLoaded() -> EventLoop<Handler> {
        var best = loops[0], fewest = Int.max
        for loop in loops where loop.takesConnections {
            let count = loop.connectionCount.load(ordering: .relaxed)
            if count < fewest { best = loop; fewest = count }
        }
        best.connectionCount.wrappingAdd(1, ordering: .relaxed)
        return best
    }
}
