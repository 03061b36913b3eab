import Dispatch
import LayoutTransport
import Synchronization

/// A handler for the loop tests: answers each message with itself (or with `answerBytes`
/// bytes), or holds it on "another thread" until `release`; records closes and log lines.
final class ToyHandler: ConnectionHandler {
    enum Answer: Sendable {
        case echo
        case bytes(Int)
        case hold
    }

    let limits: ConnectionLimits
    private let answer: Answer
    private let refusing: Bool
    private let state = Mutex(State())
    private struct State {
        var closes: [String?] = []
        var logs: [String] = []
        var held: [(ClientConnection, [UInt8])] = []
        var holding = true
        var received = 0
    }
    /// Signalled on each close.
    let closedSignal = DispatchSemaphore(value: 0)
    /// Signalled on each message.
    let receivedSignal = DispatchSemaphore(value: 0)

    init(answer: Answer = .echo, refusing: Bool = false, maxMessageBytes: Int = 1 << 20, maxOutputBytes: Int = 64 << 20,
         maxPending: Int = 8, partialMessageSeconds: Double = 30, sendTimeoutSeconds: Double = 30) {
        self.answer = answer
        self.refusing = refusing
        limits = ConnectionLimits(maxMessageBytes: maxMessageBytes, maxOutputBytes: maxOutputBytes, maxPending: maxPending,
                                  partialMessageSeconds: partialMessageSeconds, sendTimeoutSeconds: sendTimeoutSeconds)
    }

    var closes: [String?] { state.withLock { $0.closes } }
    var logs: [String] { state.withLock { $0.logs } }
    var receivedCount: Int { state.withLock { $0.received } }

    func admit(_ descriptor: borrowing FileDescriptor, via kind: ListenerKind) -> Admission {
        refusing ? .refused(reply: Array(#"{"refused":true}"#.utf8)) : .admitted(peerUID: 42)
    }

    func opened(_ connection: ClientConnection) {}

    func received(_ line: [UInt8], from connection: ClientConnection, context: FrameContext) {
        let holdIt = state.withLock { s in
            s.received += 1
            guard case .hold = answer, s.holding else { return false }
            connection.beginRequest(ordered: false)
            s.held.append((connection, line))
            return true
        }
        receivedSignal.signal()
        if holdIt { return }
        switch answer {
        case .echo, .hold: connection.enqueue(line, limit: context.limits.maxOutputBytes)
        case .bytes(let count): connection.enqueue([UInt8](repeating: 0x61, count: count), limit: context.limits.maxOutputBytes)
        }
    }

    /// Answers the held messages (each with itself, as a worker would) and holds no more.
    func release() {
        let held = state.withLock { s in
            s.holding = false
            defer { s.held = [] }
            return s.held
        }
        // Every held answer is queued before any request is finished: finishing one lets the
        // loop read on and answer later messages, which must not come before these.
        for (connection, line) in held { connection.enqueue(line, limit: limits.maxOutputBytes) }
        for (connection, _) in held { connection.finishRequest(ordered: false, maxPending: limits.maxPending) }
    }

    func closed(_ connection: ClientConnection, reason: String?) {
        state.withLock { $0.closes.append(reason) }
        closedSignal.signal()
    }

    func pollSeconds(loop: Int, watchedNew: Bool) -> Double { 0 }

    func isBusy(loop: Int, at now: Double) -> Bool { false }

    func log(_ level: TransportLogLevel, _ message: String) { state.withLock { $0.logs.append(message) } }
}

/// One event loop serving `handler` on a thread of its own, until `stop`.
struct LoopUnderTest {
    let group: EventLoopGroup<ToyHandler>

    init(_ handler: ToyHandler) throws {
        let group = try EventLoopGroup(handler: handler, count: 1, unsent: UnsentBytes(idle: IdleSignal()))
        try spawnDetachedThread { group.run(listeners: []) }
        self.group = group
    }

    /// A client connected to the loop through a socketpair.
    func connect(framing: MessageFraming = .lines) throws -> TestClient {
        let (ours, theirs) = try socketPair()
        group.serve(FileDescriptor(adopting: theirs))
        return TestClient(adopting: ours, framing: framing)
    }

    func stop() { group.stop() }
}
