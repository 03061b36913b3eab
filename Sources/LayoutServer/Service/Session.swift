import LayoutEngine
import LayoutProtocol
import Synchronization

/// Per-connection protocol state: the offset encoding chosen with `initialize`, how to send
/// the client a notification, and the requests of the connection that may be cancelled.
/// Thread-safe: requests of one connection run on several worker threads.
public final class Session: Sendable {
    private let encoding = Mutex(OffsetEncoding.utf16)
    /// Sends a notification to this connection's client (safe from any thread).
    public let notify: (@Sendable (JSONValue) -> Void)?
    /// Flags of the requests queued or running, by id, for `$/cancelRequest`.
    private let running = Mutex<[RPCId: CancelFlag]>([:])
    /// The flag and deadline of the request this session snapshot runs (see `LayoutService.Route`).
    let cancellation: CancelFlag?
    let deadline: Double?
    /// For a snapshot, the connection's session it was taken from (nil for that session).
    private let owner: Session?
    /// The daemon's own warm-up session (`LayoutService.warmUp`): its requests are not
    /// counted in `stats`.
    let isWarmUp: Bool
    /// For a snapshot (one request), where its layouts leave their working data, and the
    /// request its retained layouts (`releaseAfterAnswer`), freed with the snapshot — which
    /// the job that runs the request holds until its answer is queued and written (see
    /// `Route`). Nil for a connection's session (it lives as long as the connection).
    let deferredRelease: DeferredRelease?
    /// Set for a TCP connection until its first message, `initialize` with the token, is
    /// accepted (`ServiceConnectionHandler.received`).
    private let tokenPending = Atomic<Bool>(false)
    /// The request the connection's last `measure` was built into (kept on the connection's
    /// session: read it through `connection`).
    let measureTemplate = Mutex<MeasureTemplate?>(nil)

    /// `awaitsToken`: the connection must present the token before anything else (a TCP
    /// peer's).
    public convenience init(notify: (@Sendable (JSONValue) -> Void)? = nil, awaitsToken: Bool = false) {
        self.init(notify: notify, isWarmUp: false)
        tokenPending.store(awaitsToken, ordering: .relaxed)
    }

    private init(notify: (@Sendable (JSONValue) -> Void)?, isWarmUp: Bool) {
        self.notify = notify
        self.cancellation = nil
        self.deadline = nil
        self.owner = nil
        self.isWarmUp = isWarmUp
        self.deferredRelease = nil
    }

    /// A connection-like session for the daemon's warm-up requests (not counted).
    static func warmUp() -> Session { Session(notify: nil, isWarmUp: true) }

    private init(owner: Session, cancellation: CancelFlag?, deadline: Double?) {
        self.notify = owner.notify
        self.encoding.withLock { $0 = owner.offsetEncoding }
        self.cancellation = cancellation
        self.deadline = deadline
        self.owner = owner
        self.isWarmUp = owner.isWarmUp
        self.deferredRelease = DeferredRelease()
    }

    /// Keeps `object` until this request's snapshot is freed, after its answer is written,
    /// so that freeing it (a layout's lines and regions) does not delay the answer. On a
    /// connection's session, does nothing (the object is freed as usual).
    /// At most `DeferredRelease.maxLayouts` are kept (a batch answers many layouts at once).
    func releaseAfterAnswer(_ object: some AnyObject & Sendable) {
        deferredRelease?.keep(object)
    }

    /// The encoding of offsets; setting it on a snapshot (an `initialize` inside a batch)
    /// sets it for the connection too.
    public var offsetEncoding: OffsetEncoding {
        get { encoding.withLock { $0 } }
        set {
            encoding.withLock { $0 = newValue }
            owner?.offsetEncoding = newValue
        }
    }

    /// Whether the connection has yet to present the token (read and cleared on its loop's
    /// thread only).
    var awaitsToken: Bool { tokenPending.load(ordering: .relaxed) }

    func acceptedToken() { tokenPending.store(false, ordering: .relaxed) }

    /// The connection's session: `self`, or the one a snapshot was taken from. Subscriptions
    /// are kept by it, so that closing the connection ends them.
    var connection: Session { owner ?? self }

    /// A copy for one request: the encoding as it is now, the request's cancel flag and deadline.
    func snapshot(cancellation: CancelFlag?, deadline: Double?) -> Session {
        Session(owner: self, cancellation: cancellation, deadline: deadline)
    }

    /// Registers a request that may be cancelled; its flag.
    func register(_ id: RPCId) -> CancelFlag {
        let flag = CancelFlag()
        running.withLock { $0[id] = flag }
        return flag
    }

    func finished(_ id: RPCId) { _ = running.withLock { $0.removeValue(forKey: id) } }

    /// Marks request `id` cancelled (if it is queued or running).
    func cancel(_ id: RPCId) { running.withLock { $0[id] }?.set() }

    /// Marks every request of this connection cancelled (its client is gone).
    func cancelAll() { for flag in running.withLock({ Array($0.values) }) { flag.set() } }
}

/// Whether a request was cancelled; set by `$/cancelRequest`, read by the engine.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
