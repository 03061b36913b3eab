import CEpoll
import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One client connection as its event loop keeps it. Reading and framing belong to the loop
/// thread; the output buffer, the count of requests running and the closed flag are shared
/// with the worker threads that answer, behind one lock. Owns its descriptor: `close()`
/// closes it once, under the lock, so no worker writes to a reused number.
final class ClientConnection: @unchecked Sendable {
    let fd: Int32
    let uid: UInt32
    /// Unique across the server's loops (a connection keeps it when it moves to another).
    let token: UInt64
    /// The index of the event loop serving it now (it may move: `EventLoop.moveIfCrowded`).
    let servedBy: Atomic<Int>
    /// Loop thread only.
    var framer: LineFramer
    var partialSince: Double?
    /// When it last sent a request (for `EventLoop.activeConnections`).
    var lastAskedAt = -Double.infinity
    var readClosed = false
    var interest: UInt32 = 0
    var session: Session!

    struct Shared {
        var output: [UInt8] = []
        var sent = 0
        /// Requests of this connection queued or running on workers.
        var pending = 0
        /// An ordered request (`update`) runs: the connection's later messages wait for it.
        var ordered = false
        var closed = false
        /// The loop has stopped reading for good (`ClientConnection.closeReading()`):
        /// a worker's answer then always wakes the loop, which closes the connection once
        /// everything is answered.
        var readClosed = false
        /// Since when buffered output has made no progress (nil: nothing buffered).
        var stalledSince: Double?
        /// Set when the connection must be dropped (output over its limit).
        var dropReason: String?
    }
    let shared = Mutex(Shared())

    /// Bytes of answers queued and not yet written, over every connection (SIGTERM's drain
    /// waits for them too).
    let unsent: UnsentBytes

    init(fd: Int32, uid: UInt32, token: UInt64, loop: Int, maxLineLength: Int, unsent: UnsentBytes) {
        self.unsent = unsent
        self.fd = fd
        self.uid = uid
        self.token = token
        self.servedBy = Atomic(loop)
        self.framer = LineFramer(maxLineLength: maxLineLength)
    }

    var buffered: Int { shared.withLock { $0.output.count - $0.sent } }

    /// Stops reading for good (loop thread; see `Shared.readClosed`).
    func closeReading() {
        readClosed = true
        shared.withLock { $0.readClosed = true }
    }

    /// After a worker has queued its answer: one request fewer pending. Returns whether the
    /// loop must look at the connection — not when the answer went out whole and the
    /// request changed nothing the loop decides on (reading was not paused for it, it was
    /// not an ordered request, the connection is neither closing nor to be dropped), which
    /// saves a wake-up of the loop thread per request. (Output still buffered has EPOLLOUT
    /// armed, so the loop hears of it from epoll in any case.)
    func finishRequest(ordered: Bool, maxPending: Int) -> Bool {
        shared.withLock { s in
            let wasFull = s.pending >= maxPending
            s.pending -= 1
            if ordered { s.ordered = false }
            return ordered || wasFull || s.sent < s.output.count || s.dropReason != nil || s.closed || s.readClosed
        }
    }
    var orderedRunning: Bool { shared.withLock { $0.ordered } }

    /// Queues `line` plus a newline and writes what the socket takes now (never blocks).
    /// Output past `limit` bytes marks the connection for dropping: its client does not read.
    func enqueue(_ line: [UInt8], limit: Int) {
        shared.withLock { s in
            guard !s.closed, s.dropReason == nil else { return }
            if s.sent == s.output.count { s.output.removeAll(keepingCapacity: s.output.capacity <= 1 << 20); s.sent = 0 }
            s.output += line
            s.output.append(0x0A)
            unsent.count.wrappingAdd(line.count + 1, ordering: .relaxed)
            if s.output.count - s.sent > limit {
                s.dropReason = "its client does not read: \(s.output.count - s.sent) bytes of answers wait, over the limit of \(limit)"
                return
            }
            Self.flush(fd, &s, unsent)
        }
    }

    /// Writes buffered output until the socket would block (under the lock).
    func flush() { shared.withLock { s in if !s.closed { Self.flush(fd, &s, unsent) } } }

    private static func flush(_ fd: Int32, _ s: inout Shared, _ unsent: UnsentBytes) {
        while s.sent < s.output.count {
            let n = s.output.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + s.sent, raw.count - s.sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n > 0 {
                s.sent += n
                unsent.count.wrappingSubtract(n, ordering: .relaxed)
                s.stalledSince = nil
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                if s.stalledSince == nil { s.stalledSince = Statistics.now() }
                return
            }
            s.dropReason = "write failed: \(String(cString: strerror(code)))"
            return
        }
        s.output.removeAll(keepingCapacity: s.output.capacity <= 1 << 20)
        s.sent = 0
        s.stalledSince = nil
    }

    /// Closes the descriptor (once); later writes are dropped.
    func close() {
        shared.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            unsent.count.wrappingSubtract(s.output.count - s.sent, ordering: .relaxed)
            s.output = []
            s.sent = 0
            _ = Glibc.close(fd)
        }
    }
}

/// A count shared by every connection of a server.
final class UnsentBytes: Sendable {
    let count = Atomic<Int>(0)
}

/// The event loops of a server, made before any runs and fixed afterwards.
final class EventLoopGroup: @unchecked Sendable {
    var loops: [EventLoop] = []
    /// The loop that routed the last request, and since when no other loop has (the time's
    /// bit pattern): a loop polls for its client's next request only when it has been the
    /// only one asked for a while (see `EventLoop.run`).
    let lastAskedLoop = Atomic<Int>(-1)
    let lastAskedLoopSince = Atomic<UInt64>(0)
    /// Connection tokens, unique across the loops (0 and 1 are the loops' own).
    let nextToken = Atomic<UInt64>(2)

    /// Marks `connection` for the attention of the loop serving it now, and wakes that loop.
    func markDirty(_ connection: ClientConnection) {
        loops[connection.servedBy.load(ordering: .acquiring)].markDirty(connection.token)
    }

    /// The loop with the fewest connections (the first of those tied), its count raised for
    /// the connection about to be handed to it.
    func claimLeastLoaded() -> EventLoop {
        var best = loops[0], fewest = Int.max
        for loop in loops where loop.takesConnections {
            let count = loop.connectionCount.load(ordering: .relaxed)
            if count < fewest { best = loop; fewest = count }
        }
        best.connectionCount.wrappingAdd(1, ordering: .relaxed)
        return best
    }
}

/// One of the server's event loops: a thread that waits with epoll on its connections (the
/// first loop also on the listening socket, handing each accepted connection to the loop with
/// the fewest), reads and frames requests, answers the quick ones inline and hands the
/// rest to the worker pool, whose answers are written by the workers when the socket takes
/// them (else buffered, and written by the loop when it becomes writable); a worker wakes
/// the loop only when its answer leaves something for the loop to do (see
/// `ClientConnection.finishRequest`). Enforces the
/// per-connection limits: pending requests (reading pauses), buffered output (a client that
/// never reads is dropped), half-sent lines and stalled output (dropped after their
/// deadlines). Made and started by `Server.startLoops` and `Server.serve`.
final class EventLoop: @unchecked Sendable {
    let server: Server
    let group: EventLoopGroup
    /// This loop's place in the group.
    let index: Int
    let epoll: Epoll
    let wakeup: Wakeup
    /// Connections this loop serves or has been handed (read by the accepting loop).
    let connectionCount = Atomic<Int>(0)
    /// Requests of this loop's connections queued or running on the workers.
    private let onWorkers = Atomic<Int>(0)
    /// False for a loop whose thread could not start: it is handed no connections.
    private let taking = Atomic<Bool>(true)
    var takesConnections: Bool { taking.load(ordering: .relaxed) }
    func stopTakingConnections() { taking.store(false, ordering: .relaxed) }
    /// Accepted connections handed over by the accepting loop, not yet watched.
    private let incoming = Mutex<[(fd: Int32, uid: UInt32)]>([])
    private var connections: [UInt64: ClientConnection] = [:]
    /// Connections moved here from a crowded loop (`moveIfCrowded`), not yet watched.
    private let arriving = Mutex<[ClientConnection]>([])
    /// When this loop last moved a connection away (loop thread only).
    private var lastMovedAt = -Double.infinity
    /// This loop's connections that sent a request in the last `activeSeconds`, as its last
    /// sweep counted them (and moves since; read by the other loops deciding where to move).
    private let activeConnections = Atomic<Int>(0)
    private let dirty = Mutex<[UInt64]>([])
    private var listener: Int32 = -1
    private static let listenerToken: UInt64 = 0
    private static let wakeupToken: UInt64 = 1
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    init(server: Server, group: EventLoopGroup, index: Int) throws(Errno) {
        self.server = server
        self.group = group
        self.index = index
        epoll = try Epoll()
        wakeup = try Wakeup()
        try epoll.add(wakeup.descriptor, events: UInt32(EPOLLIN.rawValue), token: Self.wakeupToken)
    }

    var configuration: ServerConfiguration { server.service.configuration }

    /// Longest message answered on the loop thread when the server is otherwise idle (see
    /// `processFrames`): a paragraph or two, a few milliseconds of work at most.
    static let inlineMessageBytes = 16 << 10

    /// The connection whose requests the loop saw last and when it sent its last one, and
    /// when another connection of this loop last sent one (loop thread only).
    private var lastAsker: UInt64 = 0
    private var lastAskedAt = -Double.infinity
    private var othersLastAskedAt = -Double.infinity
    /// Whether the loop answered a request itself since it last waited (loop thread only).
    private var answeredInline = false
    /// Whether the loop started watching a new connection since it last waited (loop thread
    /// only): its first request is likely a moment away.
    private var watchedNew = false
    /// How long the loop polls for a lone client's next request before it sleeps.
    /// (200 µs: side by side, one Python client's corpus pass took 2.7–4.1 % less than with
    /// 50 µs; 500 µs took nothing more.)
    static let pollSeconds = 0.000_2
    /// How long the loop polls for a new connection's first request before it sleeps: a
    /// client connects to ask, and its first request (written right after `connect`) then
    /// finds the loop awake instead of paying a wake-up of an idle thread, which on a virtual
    /// machine costs more than a warm request's whole work. (1 ms: a Python client's first
    /// request follows its connect by 50-300 µs here; a client that connects and waits costs
    /// the loop 1 ms of one core, once.)
    static let firstRequestPollSeconds = 0.001

    /// Whether `connection` is the only one of this loop that sent requests in the last 50 ms
    /// (a new connection on a quiet loop is, from its first request), and the time now.
    /// Notes this request (also on the connection, for `activeConnections`), and this loop as
    /// the group's last asked (for polling, see `run`).
    private func askingAlone(_ connection: ClientConnection) -> (Bool, Double) {
        let token = connection.token
        let now = Statistics.now()
        if group.lastAskedLoop.load(ordering: .relaxed) != index {
            group.lastAskedLoop.store(index, ordering: .relaxed)
            group.lastAskedLoopSince.store(now.bitPattern, ordering: .relaxed)
        }
        if token != lastAsker {
            othersLastAskedAt = lastAskedAt
            lastAsker = token
        }
        lastAskedAt = now
        connection.lastAskedAt = now
        return (now - othersLastAskedAt >= 0.05, now)
    }

    /// Until when (a `Statistics.now()` time's bit pattern; +∞ while it answers one) this
    /// loop counts as busy answering requests itself: a loop that just answered one is
    /// likely to get its client's next within a moment (`busyLingerSeconds`).
    private let busyUntil = Atomic<UInt64>(0)
    static let busyLingerSeconds = 0.000_2

    /// Whether the loop is answering a request itself at `now`, or answered one within
    /// `busyLingerSeconds` before (read by the other loops).
    private func isAnswering(at now: Double) -> Bool {
        Double(bitPattern: busyUntil.load(ordering: .relaxed)) > now
    }

    /// Whether every other core has work: requests on the workers (queued or running) and
    /// the other loops busy answering (`busyUntil`) are at least as many as the other cores
    /// (and at least one).
    private func othersKeepTheCoresBusy(now: Double) -> Bool {
        var busy = 0
        for loop in group.loops where loop !== self {
            busy += loop.onWorkers.load(ordering: .relaxed)
            if loop.isAnswering(at: now) { busy += 1 }
        }
        return busy >= max(1, ServerConfiguration.onlineCores - 1)
    }

    /// Whether the requests on the workers, from every loop, are at least as many as the
    /// cores (the workers' threads): a job handed over now would wait for one to finish.
    private func workersSaturated() -> Bool {
        var running = 0
        for loop in group.loops { running += loop.onWorkers.load(ordering: .relaxed) }
        return running >= ServerConfiguration.onlineCores
    }

    /// Marks a connection for the loop's attention (from any thread) and wakes it.
    func markDirty(_ token: UInt64) {
        dirty.withLock { $0.append(token) }
        wakeup.signal()
    }

    /// Runs forever (returns only when epoll itself fails), accepting on `listener` if given.
    func run(listener fd: Int32?) {
        if let fd {
            listener = fd
            do {
                try UnixSocket.setNonBlocking(fd)
                try epoll.add(fd, events: UInt32(EPOLLIN.rawValue), token: Self.listenerToken)
            } catch {
                Log.error("cannot watch the listening socket: \(error)")
                return
            }
        }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var lastSweep = Statistics.now()
        while true {
            var count = 0
            do {
                // After answering a lone client itself, the loop polls a moment before it
                // sleeps: such a client sends its next request within tens of microseconds,
                // and catching it awake saves a sleep and a wake-up per request. Only when
                // no other loop has been asked for 50 ms either: with other clients busy,
                // the cores are theirs (a polling loop takes the time they need to send).
                // Likewise after starting to watch a new connection, unless other loops or
                // the workers keep the other cores busy.
                if answeredInline {
                    answeredInline = false
                    watchedNew = false
                    let since = Double(bitPattern: group.lastAskedLoopSince.load(ordering: .relaxed))
                    let now = Statistics.now()
                    if group.lastAskedLoop.load(ordering: .relaxed) == index, now - since >= 0.05 {
                        count = try poll(&events, for: Self.pollSeconds, from: now)
                    }
                } else if watchedNew {
                    watchedNew = false
                    let now = Statistics.now()
                    if onWorkers.load(ordering: .relaxed) == 0, !othersKeepTheCoresBusy(now: now) {
                        count = try poll(&events, for: Self.firstRequestPollSeconds, from: now)
                    }
                }
                if count == 0 { count = try epoll.wait(&events, milliseconds: 200) }
            } catch {
                Log.error("\(error); the event loop stops")
                return
            }
            for i in 0..<count {
                let token = events[i].data.u64
                let flags = events[i].events
                switch token {
                case Self.listenerToken: acceptAll()
                case Self.wakeupToken: wakeup.drain()
                default:
                    guard let connection = connections[token] else { continue }
                    // Gone for good (both directions closed, or an error): nothing it asked
                    // can reach it any more, so its requests are cancelled and it is closed.
                    // (A client that only shut down its sending side gets EPOLLRDHUP alone
                    // and is still answered.)
                    if flags & (UInt32(EPOLLERR.rawValue) | UInt32(EPOLLHUP.rawValue)) != 0 {
                        drop(connection, reason: nil)
                        continue
                    }
                    if flags & UInt32(EPOLLIN.rawValue) != 0 {
                        if moveIfCrowded(connection) { continue }
                        read(connection)
                    }
                    if flags & UInt32(EPOLLOUT.rawValue) != 0 { connection.flush() }
                    settle(connection)
                }
            }
            for (fd, uid) in incoming.withLock({ list -> [(fd: Int32, uid: UInt32)] in defer { list.removeAll() }; return list }) {
                watch(fd, uid: uid)
            }
            for connection in arriving.withLock({ list -> [ClientConnection] in defer { list.removeAll() }; return list }) {
                adopt(connection)
            }
            for token in dirty.withLock({ d -> [UInt64] in defer { d.removeAll() }; return d }) {
                guard let connection = connections[token] else { continue }
                processFrames(connection)
                connection.flush()
                settle(connection)
            }
            let now = Statistics.now()
            if now - lastSweep >= 0.1 {
                lastSweep = now
                sweep(now: now)
            }
        }
    }

    /// Asks epoll without sleeping until it reports events or `seconds` from `now` have
    /// passed; returns how many events it reported (0: none in that time). Throws what
    /// `Epoll.wait` throws.
    private func poll(_ events: inout [epoll_event], for seconds: Double, from now: Double) throws(Errno) -> Int {
        var now = now
        let until = now + seconds
        while now < until {
            let count = try epoll.wait(&events, milliseconds: 0)
            if count > 0 { return count }
            now = Statistics.now()
        }
        return 0
    }

    // MARK: Accepting

    private func acceptAll() {
        while listener >= 0 {
            let accepted: FileDescriptor?
            do { accepted = try UnixSocket.acceptNonBlocking(listener) } catch {
                if server.stopped.load(ordering: .sequentiallyConsistent) || error.code == EINVAL || error.code == EBADF {
                    epoll.remove(listener)
                    listener = -1
                    return
                }
                if error.code == EMFILE || error.code == ENFILE || error.code == ENOBUFS || error.code == ENOMEM {
                    Log.warning("\(error); connections wait until descriptors free up")
                    return
                }
                if error.code == ECONNABORTED { continue }
                Log.error("\(error); no longer accepting connections")
                epoll.remove(listener)
                listener = -1
                return
            }
            guard let accepted else { return }
            let raw = accepted.release()
            guard let uid = server.admit(raw) else { continue }
            let target = group.claimLeastLoaded()
            if target === self {
                watch(raw, uid: uid)
            } else {
                target.incoming.withLock { $0.append((raw, uid)) }
                target.wakeup.signal()
            }
        }
    }

    /// Starts serving an admitted connection (its count already claimed on this loop).
    private func watch(_ raw: Int32, uid: UInt32) {
        let token = group.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        let connection = ClientConnection(fd: raw, uid: uid, token: token, loop: index, maxLineLength: configuration.maxMessageBytes,
                                          unsent: server.unsent)
        let limit = configuration.maxOutputBytes
        let group = group
        connection.session = Session(notify: { [weak connection] note in
            guard let connection else { return }
            connection.enqueue(JSONWriter.serialize(note), limit: limit)
            group.markDirty(connection)
        })
        connections[token] = connection
        do {
            try epoll.add(raw, events: UInt32(EPOLLIN.rawValue) | UInt32(EPOLLRDHUP.rawValue), token: token)
            connection.interest = UInt32(EPOLLIN.rawValue) | UInt32(EPOLLRDHUP.rawValue)
            watchedNew = true
        } catch {
            Log.warning("cannot watch a connection: \(error)")
            drop(connection, reason: nil)
        }
    }

    // MARK: Moving connections between loops

    /// How recently a connection must have sent a request to count as active, and how long a
    /// loop waits after moving a connection before it moves another.
    static let activeSeconds = 0.1
    static let movePauseSeconds = 0.1

    /// Before reading a request of `connection`: when this loop has at least two active
    /// connections more than another loop (as the loops' last sweeps counted them: clients
    /// sharing a loop are answered one after the other there, or handed to the workers, while
    /// the other loop's core has less to do), moves `connection` to the loop with the fewest
    /// (of those not answering a request now, on their thread or the workers),
    /// which then reads the request (epoll is level-triggered) and answers it there. So busy
    /// clients end up spread evenly over the loops whichever loop they were accepted on.
    /// Only a connection with nothing in progress moves: no request queued or running, no
    /// partial message, no output waiting, not closing. At most one move per
    /// `movePauseSeconds` per loop. Returns whether it moved (the loop must not touch it).
    private func moveIfCrowded(_ connection: ClientConnection) -> Bool {
        let mine = activeConnections.load(ordering: .relaxed)
        guard mine >= 2, group.loops.count > 1, !connection.readClosed, connection.partialSince == nil,
              connection.framer.pendingCount == 0 else { return false }
        let now = Statistics.now()
        guard now - lastMovedAt >= Self.movePauseSeconds else { return false }
        var target: EventLoop?, fewest = Int.max
        for loop in group.loops where loop !== self && loop.takesConnections && loop.onWorkers.load(ordering: .relaxed) == 0
                                      && !loop.isAnswering(at: now) {
            let active = loop.activeConnections.load(ordering: .relaxed)
            if active < fewest { target = loop; fewest = active }
        }
        guard let target, mine >= fewest + 2 else { return false }
        let idle = connection.shared.withLock { s in
            s.pending == 0 && !s.ordered && !s.closed && !s.readClosed && s.dropReason == nil && s.sent == s.output.count
        }
        guard idle else { return false }
        lastMovedAt = now
        // Counted where it goes from now (not only at the loops' next sweeps), so that no loop
        // moves another on the old counts.
        activeConnections.wrappingSubtract(1, ordering: .relaxed)
        target.activeConnections.wrappingAdd(1, ordering: .relaxed)
        epoll.remove(connection.fd)
        connections[connection.token] = nil
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
        target.connectionCount.wrappingAdd(1, ordering: .relaxed)
        connection.servedBy.store(target.index, ordering: .releasing)
        target.arriving.withLock { $0.append(connection) }
        target.wakeup.signal()
        server.service.statistics.movedConnections.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// Starts serving a connection moved here by another loop (its count already claimed on
    /// this loop): watched for what it was watched for there; its output flushed and its
    /// state settled, in case a notification came while it moved.
    private func adopt(_ connection: ClientConnection) {
        connections[connection.token] = connection
        do {
            try epoll.add(connection.fd, events: connection.interest, token: connection.token)
        } catch {
            Log.warning("cannot watch a connection moved from another loop: \(error)")
            drop(connection, reason: nil)
            return
        }
        connection.flush()
        settle(connection)
    }

    // MARK: Reading

    private func read(_ connection: ClientConnection) {
        guard !connection.readClosed else { return }
        var total = 0
        // At most 1 MiB per wake-up, so one busy client cannot starve the others.
        while total < 1 << 20, !connection.readClosed {
            let n = readBuffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                total += n
                readBuffer.withUnsafeBytes { connection.framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                processFrames(connection)
                if connection.shared.withLock({ $0.pending >= configuration.maxPendingPerConnection || $0.ordered }) { break }
                // A short read emptied the socket: no second call only to hear EAGAIN (epoll is
                // level-triggered, so bytes that arrive meanwhile wake the loop again).
                if n < readBuffer.count { break }
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { break }
            // End of stream (or an error): answer what was asked, then close.
            connection.closeReading()
            break
        }
        connection.partialSince = connection.framer.pendingCount > 0 ? (connection.partialSince ?? Statistics.now()) : nil
    }

    /// Takes complete messages from the framer while the connection may have more running.
    private func processFrames(_ connection: ClientConnection) {
        let service = server.service
        let maxPending = configuration.maxPendingPerConnection
        let limit = configuration.maxOutputBytes
        // Answering on the loop stops after a few milliseconds per call (a client pipelining
        // many short requests gets the workers for the rest).
        let inlineUntil = Statistics.now() + 0.005
        while true {
            let pending = connection.shared.withLock { $0.pending }
            guard pending < maxPending, !connection.orderedRunning, let frame = connection.framer.nextFrame() else { break }
            switch frame {
            case .oversized:
                let error = RPCError(.invalidRequest, "invalid request: message exceeds \(configuration.maxMessageBytes) bytes; the connection is closed")
                connection.enqueue(JSONWriter.serialize(RPCResponse.failure(id: .null, error: error)), limit: limit)
                connection.closeReading()
                connection.framer = LineFramer(maxLineLength: 0)
                return
            case .line(let bytes):
                // In flight from here until its answer is queued (SIGTERM's drain waits for it).
                service.inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent)
                let (alone, now) = askingAlone(connection)
                switch service.route(line: bytes, session: connection.session) {
                case .reply(let reply):
                    if let reply { connection.enqueue(reply, limit: limit) }
                    service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                case .job(let job, let quick):
                    // A short message of a quick method (its work bounded by its length) from
                    // the one connection of this loop asking (none other did for 50 ms),
                    // with none of the loop's requests on the workers: answered here, without
                    // handing it to a worker and back (two thread wake-ups that cost as much
                    // as laying out a short paragraph). Clients on loops of their own are so
                    // served in parallel. Anything else goes to the workers, so the loop stays
                    // responsive and clients sharing it are served in parallel too.
                    //
                    // Also answered here, the connection having none of its requests on the
                    // workers (so its answers keep their order), while every other core has
                    // work (`othersKeepTheCoresBusy`): a worker would find no core free, so
                    // handing it over buys no parallelism and costs the two wake-ups. So
                    // clients sharing a loop while the other loops are busy are answered by
                    // their loop in turn.
                    //
                    // And whenever the workers are all taken (long requests hold every one),
                    // a short quick message of a connection with nothing on the workers is
                    // answered here too: the loops are the lane kept for short requests, so a
                    // `ping` or a one-line layout never waits behind long ones.
                    let short = quick && now < inlineUntil && bytes.count <= Self.inlineMessageBytes
                    if short, ((alone || othersKeepTheCoresBusy(now: now)) && (alone ? onWorkers.load(ordering: .relaxed) == 0 : pending == 0))
                        || (pending == 0 && workersSaturated()) {
                        service.statistics.onLoop.wrappingAdd(1, ordering: .relaxed)
                        answeredInline = true
                        busyUntil.store(Double.infinity.bitPattern, ordering: .relaxed)
                        // The job (with its request's working data) is let go only after the
                        // answer is written: freeing then does not delay it (see `Route`).
                        withExtendedLifetime(job) {
                            let reply = job()
                            // (Before the answer goes out: its client's next request must not
                            // find this loop still marked as answering.)
                            busyUntil.store((Statistics.now() + Self.busyLingerSeconds).bitPattern, ordering: .relaxed)
                            if let reply { connection.enqueue(reply, limit: limit) }
                            service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                        }
                        continue
                    }
                    connection.shared.withLock { $0.pending += 1 }
                    onWorkers.wrappingAdd(1, ordering: .relaxed)
                    Server.workers.async { [self] in
                        if let reply = job() { connection.enqueue(reply, limit: limit) }
                        onWorkers.wrappingSubtract(1, ordering: .relaxed)
                        service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                        if connection.finishRequest(ordered: false, maxPending: maxPending) { group.markDirty(connection) }
                    }
                case .ordered(let job):
                    connection.shared.withLock { $0.pending += 1; $0.ordered = true }
                    onWorkers.wrappingAdd(1, ordering: .relaxed)
                    Server.workers.async { [self] in
                        if let reply = job() { connection.enqueue(reply, limit: limit) }
                        onWorkers.wrappingSubtract(1, ordering: .relaxed)
                        service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                        if connection.finishRequest(ordered: true, maxPending: maxPending) { group.markDirty(connection) }
                    }
                }
            }
        }
    }

    // MARK: State

    /// After events: drop, close or re-arm the connection as its state asks.
    private func settle(_ connection: ClientConnection) {
        var pending = 0, buffered = 0, ordered = false
        while true {
            // After the end of input, messages already framed are still taken up as the
            // requests before them finish; the connection closes once all are answered. (A
            // request finishing between the two steps below leaves room for more: round again.)
            if connection.readClosed { processFrames(connection) }
            let (p, b, dropReason, closed, o) = connection.shared.withLock { s in
                (s.pending, s.output.count - s.sent, s.dropReason, s.closed, s.ordered)
            }
            (pending, buffered, ordered) = (p, b, o)
            if closed { return }
            if let dropReason {
                drop(connection, reason: dropReason)
                return
            }
            if connection.readClosed && pending == 0 && buffered == 0 {
                if connection.framer.hasLine { continue }
                drop(connection, reason: nil)
                return
            }
            break
        }
        var wanted = UInt32(EPOLLRDHUP.rawValue)
        // Reading pauses while the connection has its fill of requests running or of answers
        // waiting for the client to read them, or an ordered request (`update`) runs.
        if !connection.readClosed && pending < configuration.maxPendingPerConnection && buffered < 4 << 20 && !ordered {
            wanted |= UInt32(EPOLLIN.rawValue)
        }
        if buffered > 0 { wanted |= UInt32(EPOLLOUT.rawValue) }
        if connection.readClosed { wanted &= ~UInt32(EPOLLRDHUP.rawValue) }
        if wanted != connection.interest {
            do {
                try epoll.modify(connection.fd, events: wanted, token: connection.token)
                connection.interest = wanted
            } catch {
                drop(connection, reason: "\(error)")
            }
        }
    }

    /// Deadlines: half-sent messages and output the client does not take. Also counts the
    /// active connections (`activeConnections`).
    private func sweep(now: Double) {
        let partialLimit = configuration.partialMessageSeconds
        let sendLimit = configuration.sendTimeoutSeconds
        activeConnections.store(connections.values.reduce(0) { $0 + (now - $1.lastAskedAt < Self.activeSeconds ? 1 : 0) },
                                ordering: .relaxed)
        for connection in Array(connections.values) {
            if let since = connection.partialSince, !connection.readClosed, now - since > partialLimit {
                Log.info("dropping a connection: a message stayed incomplete for \(partialLimit) s")
                let error = RPCError(.invalidRequest, "invalid request: a message stayed incomplete for \(partialLimit) s; the connection is closed")
                connection.enqueue(JSONWriter.serialize(RPCResponse.failure(id: .null, error: error)), limit: configuration.maxOutputBytes)
                connection.closeReading()
                connection.partialSince = nil
                settle(connection)
                continue
            }
            if let stalled = connection.shared.withLock({ $0.stalledSince }), now - stalled > sendLimit {
                drop(connection, reason: "its client has not read an answer for \(sendLimit) s")
            }
        }
    }

    private func drop(_ connection: ClientConnection, reason: String?) {
        if let reason { Log.info("dropping a connection (uid \(connection.uid)): \(reason)") }
        connection.session.cancelAll()
        epoll.remove(connection.fd)
        connection.close()
        connections[connection.token] = nil
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
        server.service.unsubscribe(connection.session)
        server.released(uid: connection.uid)
    }
}
