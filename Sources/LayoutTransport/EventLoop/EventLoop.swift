import CEpoll
import Synchronization

/// One of a group's event loops: a thread that waits with epoll on its connections (the
/// first loop also on the listening sockets, handing each accepted connection to the loop with
/// the fewest), reads and frames messages and gives each to the handler, which answers it at
/// once or on another thread. Answers are written by whichever thread queues them when the
/// socket takes them, else buffered and written by the loop when the socket becomes
/// writable. Enforces the per-connection limits: requests running (reading pauses), buffered
/// output (a client that never reads is dropped), half-sent messages and stalled output
/// (dropped after their deadlines).
final class EventLoop<Handler: ConnectionHandler>: @unchecked Sendable {
    let group: EventLoopGroup<Handler>
    /// This loop's place in the group.
    let index: Int
    let epoll: Epoll
    let mailbox: LoopMailbox
    /// Connections this loop serves or has been handed (read by the accepting loop).
    let connectionCount = Atomic<Int>(0)
    /// False for a loop whose thread could not start: it is handed no connections.
    private let taking = Atomic<Bool>(true)
    var takesConnections: Bool { taking.load(ordering: .relaxed) }
    func stopTakingConnections() { taking.store(false, ordering: .relaxed) }

    /// Loop thread only, as is everything below.
    var connections: [UInt64: ClientConnection] = [:]
    /// When this loop last moved a connection away.
    var lastMovedAt = -Double.infinity
    /// This loop's connections that sent a message in the last `activeSeconds`, as its last
    /// sweep counted them (and moves since; read by the other loops deciding where to move).
    let activeConnections = Atomic<Int>(0)
    /// The listening sockets this loop accepts on, by their epoll tokens.
    var listeners: [UInt64: ListeningSocket] = [:]
    var readBuffer = [UInt8](repeating: 0, count: 65_536)
    /// Whether the loop started watching a new connection since it last waited: its first
    /// request is likely a moment away (see `ConnectionHandler.pollSeconds`).
    var watchedNew = false
    /// Whether this loop's thread may run on one CPU only (its affinity, read again at each
    /// sweep): then it never polls, as a client sharing that CPU could send nothing while it
    /// did, and sleeping hands the CPU to the client at once.
    var hasOnlyOneCore = false

    static var wakeupToken: UInt64 { 1 }
    /// Listener `i`'s epoll token: counted down from the top, far from the connections'
    /// (counted up from 2).
    static func listenerToken(_ i: Int) -> UInt64 { UInt64.max - UInt64(i) }
    /// How often deadlines are checked.
    static var sweepSeconds: Double { 0.1 }

    var handler: Handler { group.handler }

    init(group: EventLoopGroup<Handler>, index: Int) throws(Errno) {
        self.group = group
        self.index = index
        epoll = try Epoll()
        mailbox = try LoopMailbox()
        try epoll.add(mailbox.wakeup.descriptor, events: .readable, token: Self.wakeupToken)
    }

    /// Runs until the group stops (or epoll itself fails), accepting on `listeners`.
    func run(listeners: [ListeningSocket]) {
        for (i, listener) in listeners.enumerated() {
            do {
                try listener.descriptor.setNonBlocking()
                try epoll.add(listener.descriptor, events: .readable, token: Self.listenerToken(i))
                self.listeners[Self.listenerToken(i)] = listener
            } catch {
                handler.log(.error, "cannot watch the listening socket \(listener.name): \(error)")
                return
            }
        }
        var events = EpollEventBuffer(capacity: 256)
        var lastSweep = MonotonicClock.now()
        hasOnlyOneCore = layoutd_allowed_cpu_count() == 1
        while !group.stopping.load(ordering: .relaxed) {
            let count: Int
            do { count = try waitForEvents(&events) } catch {
                handler.log(.error, "\(error); the event loop stops")
                return
            }
            for i in 0..<count { handle(events.events(at: i), token: events.token(at: i)) }
            takeArrivals()
            for token in mailbox.takeDirty() {
                guard let connection = connections[token] else { continue }
                let limits = handler.limits
                processFrames(connection, limits: limits)
                connection.flush()
                settle(connection, limits: limits)
            }
            let now = MonotonicClock.now()
            if now - lastSweep >= Self.sweepSeconds {
                lastSweep = now
                hasOnlyOneCore = layoutd_allowed_cpu_count() == 1
                sweep(now: now)
            }
        }
    }

    /// Waits for events: polls first for as long as the handler asks (its client's next
    /// request is likely a moment away, and catching it awake saves a sleep and a wake-up),
    /// then sleeps in epoll_wait (at most until the next sweep is due).
    private func waitForEvents(_ events: inout EpollEventBuffer) throws(Errno) -> Int {
        let seconds = handler.pollSeconds(loop: index, watchedNew: watchedNew)
        watchedNew = false
        var count = 0
        if seconds > 0, !hasOnlyOneCore { count = try poll(&events, for: seconds) }
        if count == 0 { count = try epoll.wait(&events, milliseconds: 200) }
        return count
    }

    /// Asks epoll without sleeping until it reports events or `seconds` have passed; returns
    /// how many events it reported (0: none in that time).
    private func poll(_ events: inout EpollEventBuffer, for seconds: Double) throws(Errno) -> Int {
        var now = MonotonicClock.now()
        let until = now + seconds
        while now < until {
            let count = try epoll.wait(&events, milliseconds: 0)
            if count > 0 { return count }
            now = MonotonicClock.now()
        }
        return 0
    }

    private func handle(_ events: EpollEvents, token: UInt64) {
        if let listener = listeners[token] {
            acceptAll(on: listener, token: token)
            return
        }
        switch token {
        case Self.wakeupToken: mailbox.wakeup.drain()
        default:
            guard let connection = connections[token] else { return }
            // Gone for good (both directions closed, or an error): nothing it asked can reach
            // it any more, so it is closed (and the handler cancels its requests). (A client
            // that only shut down its sending side gets EPOLLRDHUP alone and is still
            // answered.)
            if !events.isDisjoint(with: [.error, .hangUp]) {
                drop(connection, reason: nil)
                return
            }
            let limits = handler.limits
            if events.contains(.readable) {
                if moveIfCrowded(connection) { return }
                read(connection, limits: limits)
            }
            if events.contains(.writable) { connection.flush() }
            settle(connection, limits: limits)
        }
    }
}
