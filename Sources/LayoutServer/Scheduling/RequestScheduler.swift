import Dispatch
import LayoutTransport
import Synchronization

/// Where each request runs: on its event loop's thread, or on the worker pool. Answering on
/// the loop saves handing the request to a worker and back (two thread wake-ups that cost as
/// much as laying out a short paragraph), but holds up the loop's other connections; so only
/// a short message of a quick method (`MethodOrder.concurrent(quick: true)`: its work bounded
/// by its length) is answered there, and only when no parallelism is lost by it (see
/// `answersOnLoop`). Counts the requests in flight, which SIGTERM's drain waits for.
final class RequestScheduler: Sendable {
    /// The worker pool requests run on (libdispatch sizes it to the cores).
    static let workers = DispatchQueue(label: "layoutd.workers", qos: .userInitiated, attributes: .concurrent)

    /// Longest message answered on the loop thread: a paragraph or two, a few milliseconds of
    /// work at most.
    static let inlineMessageBytes = 16 << 10
    /// How long one batch of a connection's messages may be answered on the loop (a client
    /// pipelining many short requests gets the workers for the rest).
    static let inlineBatchSeconds = 0.005
    /// A connection asks alone on its loop when no other connection of the loop asked for
    /// this long.
    static let aloneSeconds = 0.05
    /// How long a loop polls for a lone client's next request before it sleeps: such a
    /// client sends its next request within tens of microseconds of its answer.
    static let pollSeconds = 0.000_2
    /// How long a loop polls for a new connection's first request before it sleeps: a client
    /// connects to ask, and its first request (written right after `connect`) then finds the
    /// loop awake instead of paying a wake-up of an idle thread. A client that connects and
    /// waits costs the loop this much of one core, once.
    static let firstRequestPollSeconds = 0.001
    /// How long after answering a request a loop still counts as busy answering.
    static let busyLingerSeconds = 0.000_2

    let loops: [LoopActivity]
    /// The threads requests can run on at once (the cores).
    let cores: Int
    /// The loop that took the last request, and since when no other loop has (the time's bit
    /// pattern): a loop polls for its client's next request only when it has been the only
    /// one asked for a while (see `pollSeconds(loop:watchedNew:)`).
    let lastAskedLoop = Atomic<Int>(-1)
    let lastAskedLoopSince = Atomic<UInt64>(0)
    /// Requests being answered now, from their message's arrival until their answer is queued.
    private let inFlight = Atomic<Int>(0)
    private let idle: IdleSignal
    let statistics: Statistics

    init(loopCount: Int, cores: Int = ServerConfiguration.onlineCores, statistics: Statistics, idle: IdleSignal) {
        loops = (0..<max(1, loopCount)).map { _ in LoopActivity() }
        self.cores = max(1, cores)
        self.statistics = statistics
        self.idle = idle
    }

    /// Requests being answered now.
    var requestsInFlight: Int { inFlight.load(ordering: .sequentiallyConsistent) }

    /// A message came in: in flight from here until `requestFinished`.
    func requestArrived() { inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent) }

    /// A request's answer is queued (or it has none).
    func requestFinished() {
        if inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0 { idle.reachedZero() }
    }

    /// Notes a message of connection `token` taken by loop `context.loop` at `context.now`
    /// (on that loop's thread), and this loop as the last asked; returns whether the
    /// connection asks alone: no other connection of its loop asked for `aloneSeconds` (a
    /// new connection on a quiet loop does from its first request).
    func noteRequest(from token: UInt64, context: FrameContext) -> Bool {
        let loop = loops[context.loop], now = context.now
        if lastAskedLoop.load(ordering: .relaxed) != context.loop {
            lastAskedLoop.store(context.loop, ordering: .relaxed)
            lastAskedLoopSince.store(now.bitPattern, ordering: .relaxed)
        }
        if token != loop.lastAsker {
            loop.othersLastAskedAt = loop.lastAskedAt
            loop.lastAsker = token
        }
        loop.lastAskedAt = now
        return now - loop.othersLastAskedAt >= Self.aloneSeconds
    }
}
