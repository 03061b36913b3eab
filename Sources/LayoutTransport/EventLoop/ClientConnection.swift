import Synchronization

/// One client connection as its event loop keeps it. Reading and framing belong to the loop
/// thread; the output buffer, the count of requests running and the closed flag
/// (`ConnectionOutput`) are shared with the threads that answer, behind one lock. Owns its
/// descriptor: `close()` closes it once, under the lock, so no thread writes to a reused
/// number.
public final class ClientConnection: @unchecked Sendable {
    /// Written only by `close()`, under the lock, on the loop thread; read by the loop thread
    /// and, under the lock, by the answering threads.
    private(set) var descriptor: FileDescriptor
    /// The peer it was admitted for (`Admission.admitted`).
    public let peerUID: UInt32
    /// The kind of listener it came in on.
    public let via: ListenerKind
    /// The `peerUID` of a TCP peer, whose uid nobody can tell.
    public static let networkPeerUID = UInt32.max
    /// Unique across the group's loops (a connection keeps it when it moves to another).
    public let token: UInt64
    /// The index of the event loop serving it now (it may move: `EventLoop.moveIfCrowded`).
    let servedBy: Atomic<Int>
    /// What the handler keeps for the connection (set in `ConnectionHandler.opened`; read on
    /// the loop threads).
    public var attachment: AnyObject?

    /// Loop thread only.
    var framer: MessageFramer
    var partialSince: Double?
    /// When it last sent a message (for `EventLoop.activeConnections`).
    var lastAskedAt = -Double.infinity
    var readClosed = false
    var interest: EpollEvents = []
    /// When the connection is answered `refusal` and closed unless its first message was
    /// accepted by then (`requireGreeting`); nil: no such deadline.
    var greeting: (deadline: Double, refusal: [UInt8])?

    let output = Mutex(ConnectionOutput())
    private let mailboxes: LoopMailboxes
    private let unsent: UnsentBytes

    init(descriptor: consuming FileDescriptor, peerUID: UInt32, via kind: ListenerKind, token: UInt64, loop: Int, maxLineLength: Int,
         mailboxes: LoopMailboxes, unsent: UnsentBytes) {
        self.descriptor = descriptor
        self.peerUID = peerUID
        self.via = kind
        self.token = token
        self.servedBy = Atomic(loop)
        self.framer = MessageFramer(maxMessageLength: maxLineLength)
        self.mailboxes = mailboxes
        self.unsent = unsent
    }

    /// Bytes of answers not yet written.
    public var buffered: Int { output.withLock { $0.buffered } }

    /// Stops reading for good (loop thread; see `ConnectionOutput.readClosed`).
    func closeReading() {
        readClosed = true
        output.withLock { $0.readClosed = true }
    }

    /// The framing the client chose with its first bytes (loop thread, before any of its
    /// messages is handed on, so every answer is framed as its requests were).
    func choose(_ framing: MessageFraming) { output.withLock { $0.framing = framing } }

    /// Queues `message` framed as the connection's messages are (a newline after it, or an
    /// LSP header before it) and writes what the socket takes now (never blocks). Output past
    /// `limit` bytes marks the connection for dropping: its client does not read. From any
    /// thread.
    public func enqueue(_ message: [UInt8], limit: Int) {
        output.withLock { s in
            guard !s.closed, s.dropReason == nil else { return }
            if s.sent == s.bytes.count { s.discardSent() }
            let before = s.bytes.count
            s.bytes += s.framing.prefix(forBodyOf: message.count)
            s.bytes += message
            s.bytes += s.framing.suffix
            unsent.add(s.bytes.count - before)
            if s.buffered > limit {
                s.dropReason = "its client does not read: \(s.buffered) bytes of answers wait, over the limit of \(limit)"
                return
            }
            s.flush(to: descriptor, unsent: unsent)
        }
    }

    /// `enqueue`, then wakes the loop to look at the connection: for a message the client did
    /// not ask for (a notification), which no request's end reports to the loop.
    public func send(_ message: [UInt8], limit: Int) {
        enqueue(message, limit: limit)
        wakeLoop()
    }

    /// Answers with `message` and takes nothing more from the connection: messages already
    /// read are dropped unanswered, and it closes once `message` is sent. On its loop's
    /// thread only (from `ConnectionHandler.received`).
    public func refuseFurther(with message: [UInt8], limit: Int) {
        enqueue(message, limit: limit)
        closeReading()
        framer = MessageFramer(maxMessageLength: 0, framing: .lines)
    }

    /// The connection is answered `refusal` (a message) and closed unless `greeted` is
    /// called within `seconds`: for a peer that must prove itself first, so that one who
    /// never does cannot hold a connection open. On its loop's thread only (from
    /// `ConnectionHandler.opened`).
    public func requireGreeting(within seconds: Double, refusal: [UInt8]) {
        greeting = (MonotonicClock.now() + seconds, refusal)
    }

    /// Its first message was accepted: no greeting deadline any more. On its loop's thread.
    public func greeted() { greeting = nil }

    /// A request of this connection is handed to another thread; `ordered`: the connection's
    /// later messages wait until it finishes. Call before handing it over.
    public func beginRequest(ordered: Bool) {
        output.withLock { s in
            s.pending += 1
            if ordered { s.ordered = true }
        }
    }

    /// A request begun with `beginRequest` has queued its answer. Wakes the loop only when it
    /// must look at the connection — not when the answer went out whole and the request
    /// changed nothing the loop decides on (reading was not paused for it, it was not an
    /// ordered request, the connection is neither closing nor to be dropped), which saves a
    /// wake-up of the loop thread per request. (Output still buffered has EPOLLOUT armed, so
    /// the loop hears of it from epoll in any case.)
    public func finishRequest(ordered: Bool, maxPending: Int) {
        let wake = output.withLock { s in
            let wasFull = s.pending >= maxPending
            s.pending -= 1
            if ordered { s.ordered = false }
            return ordered || wasFull || s.sent < s.bytes.count || s.dropReason != nil || s.closed || s.readClosed
        }
        if wake { wakeLoop() }
    }

    /// Marks the connection for the attention of the loop serving it now, and wakes that loop.
    func wakeLoop() {
        mailboxes[servedBy.load(ordering: .acquiring)].markDirty(token)
    }

    /// Writes buffered output until the socket would block.
    func flush() { output.withLock { s in if !s.closed { s.flush(to: descriptor, unsent: unsent) } } }

    /// Closes the descriptor (once); later writes are dropped.
    func close() {
        output.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            unsent.subtract(s.buffered)
            s.bytes = []
            s.sent = 0
            descriptor.close()
        }
    }
}
