/// What the event loops ask of the server they serve: whom to admit, what to do with each
/// message, and when to keep a loop's thread awake. The loops own the sockets, framing,
/// buffers and deadlines; the handler owns the meaning of the messages and where they run.
/// Called on the loop threads (each call on the thread of the loop it names or serves).
public protocol ConnectionHandler: AnyObject, Sendable {
    /// The per-connection limits in force (read at each batch of reading, settling and
    /// sweeping: a reload may change them).
    var limits: ConnectionLimits { get }

    /// A connection was accepted on a listener of kind `via`: admit it (the peer it is
    /// counted for until `closed`), or refuse it with one line the loop writes before closing
    /// it.
    func admit(_ descriptor: borrowing FileDescriptor, via kind: ListenerKind) -> Admission

    /// An admitted connection is about to be watched: set up what its messages need
    /// (`ClientConnection.attachment`).
    func opened(_ connection: ClientConnection)

    /// One message (a line without its newline) of `connection`. The handler answers it with
    /// `ClientConnection.enqueue`, at once or later: work it hands to another thread is
    /// bracketed by `ClientConnection.beginRequest` and `ClientConnection.finishRequest`.
    func received(_ line: [UInt8], from connection: ClientConnection, context: FrameContext)

    /// `connection` is closed (`reason`, when there is one, says why it was dropped); its
    /// descriptor is gone.
    func closed(_ connection: ClientConnection, reason: String?)

    /// How long loop `loop` polls for events before it sleeps in epoll_wait (0: it does not).
    /// `watchedNew`: the loop started watching a connection since it last waited.
    func pollSeconds(loop: Int, watchedNew: Bool) -> Double

    /// Whether loop `loop` is busy with requests now (a crowded loop moves connections only to
    /// a loop that is not).
    func isBusy(loop: Int, at now: Double) -> Bool

    /// A line for the server's log.
    func log(_ level: TransportLogLevel, _ message: String)
}

/// How the handler takes an accepted connection.
public enum Admission {
    /// Served; `peerUID` is the peer it is counted for (`ClientConnection.networkPeerUID`
    /// for a TCP peer).
    case admitted(peerUID: UInt32)
    /// Answered with `reply` (a line without its newline) and closed.
    case refused(reply: [UInt8])
}

/// Where a message came in: the loop and when, the batch it is part of, and its connection's
/// state then.
public struct FrameContext: Sendable {
    /// The loop's index in its group.
    public var loop: Int
    /// When the loop took the message (`MonotonicClock.now()`).
    public var now: Double
    /// When the loop began taking this batch of messages (one read of the socket).
    public var batchStart: Double
    /// Requests of the connection handed to other threads and not finished.
    public var pending: Int
    public var limits: ConnectionLimits

    public init(loop: Int, now: Double, batchStart: Double, pending: Int, limits: ConnectionLimits) {
        self.loop = loop
        self.now = now
        self.batchStart = batchStart
        self.pending = pending
        self.limits = limits
    }
}

/// The limits of one connection.
public struct ConnectionLimits: Sendable {
    /// Longest message, in bytes; a longer one closes the connection.
    public var maxMessageBytes: Int
    /// Most answers buffered for a client that does not read, in bytes; past it the
    /// connection is dropped.
    public var maxOutputBytes: Int
    /// Requests of one connection running at once; reading pauses at this many.
    public var maxPending: Int
    /// How long a message may stay half-sent.
    public var partialMessageSeconds: Double
    /// How long buffered output may make no progress.
    public var sendTimeoutSeconds: Double

    public init(maxMessageBytes: Int, maxOutputBytes: Int, maxPending: Int, partialMessageSeconds: Double, sendTimeoutSeconds: Double) {
        self.maxMessageBytes = maxMessageBytes
        self.maxOutputBytes = maxOutputBytes
        self.maxPending = maxPending
        self.partialMessageSeconds = partialMessageSeconds
        self.sendTimeoutSeconds = sendTimeoutSeconds
    }
}

public enum TransportLogLevel: Sendable {
    case info, warning, error
}
