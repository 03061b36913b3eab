import LayoutProtocol
import LayoutTransport
import Synchronization

/// One connection to layoutd, pipelined: any number of requests may wait for their answers
/// at once, matched by id by a reader thread of the channel's own (the blocking reads stay
/// off Swift's cooperative threads). Line framing (docs/protocol.md, Transport).
final class RPCChannel: Sendable {
    typealias Reply = Result<JSONValue, LayoutClientError>

    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<Reply, Never>] = [:]
        /// Set once the connection is gone: every later call fails with it at once.
        var lost: LayoutClientError?
        /// Why a send failed, for the message of the end of the stream that follows.
        var sendFailure: String?
        /// Each request's way to the daemon, until its answer comes.
        var progress: [Int: Progress] = [:]
    }

    private let connection: LineConnection
    private let state = Mutex(State())
    /// Handed each notification the daemon sends (`fontsChanged`): its method and params.
    private let onNotification: @Sendable (String, JSONValue?) -> Void

    init(connection: LineConnection, onNotification: @escaping @Sendable (String, JSONValue?) -> Void) throws(LayoutClientError) {
        self.connection = connection
        self.onNotification = onNotification
        do {
            try spawnDetachedThread { [self] in self.readAnswers() }
        } catch {
            throw .connectionLost("could not start the reader thread: \(error)")
        }
    }

    var isLost: Bool { state.withLock { $0.lost != nil } }

    /// Where a request is, for its cancellation: a cancel that comes before the request is
    /// sent must follow it, not go ahead of it (the daemon ignores a cancel of an id it has
    /// not seen), and one that comes before the request is registered must stop it.
    private enum Progress { case pending, sending, sent, cancelWhileSending, cancelledBeforeStart }

    /// Sends `method` and waits for its answer's `result`. Cancelling the calling task sends
    /// `$/cancelRequest` for it (LSP's cancellation, which layoutd answers with -32800).
    func call(_ method: String, _ params: JSONValue) async throws(LayoutClientError) -> JSONValue {
        if Task.isCancelled { throw .cancelled }
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.progress[s.nextID] = .pending
            return s.nextID
        }
        let reply: Reply = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                start(id, RPCRequest(id: .number(Double(id)), method: method, params: params).json, continuation)
            }
        } onCancel: {
            cancel(id)
        }
        switch reply {
        case .success(let answer):
            if let error = answer["error"] { throw LayoutClientError(error: error, method: method) }
            guard let result = answer["result"] else { throw .malformedAnswer(method: method, JSONWriter.string(answer)) }
            return result
        case .failure(let error): throw error
        }
    }

    /// Registers the request and sends it, unless the connection is lost or the request was
    /// cancelled before; then sends the cancel that came while it was being sent.
    private func start(_ id: Int, _ request: JSONValue, _ continuation: CheckedContinuation<Reply, Never>) {
        let refusal = state.withLock { s -> LayoutClientError? in
            if s.progress.removeValue(forKey: id) == .cancelledBeforeStart { return .cancelled }
            if let lost = s.lost { return lost }
            s.waiting[id] = continuation
            s.progress[id] = .sending
            return nil
        }
        if let refusal {
            continuation.resume(returning: .failure(refusal))
            return
        }
        send(request)
        let cancelled = state.withLock { s -> Bool in
            // Gone: answered (or the connection lost) while it was being sent; kept no longer.
            guard let progress = s.progress[id] else { return false }
            s.progress[id] = .sent
            return progress == .cancelWhileSending
        }
        if cancelled { sendCancel(id) }
    }

    private func cancel(_ id: Int) {
        let sendNow = state.withLock { s -> Bool in
            switch s.progress[id] {
            case .sent: return true
            case .pending: s.progress[id] = .cancelledBeforeStart
            case .sending: s.progress[id] = .cancelWhileSending
            case .cancelWhileSending, .cancelledBeforeStart, nil: break
            }
            return false
        }
        if sendNow { sendCancel(id) }
    }

    private func sendCancel(_ id: Int) {
        send(RPCRequest(id: nil, method: "$/cancelRequest", params: ["id": .number(Double(id))]).json)
    }

    /// A failed send fails nothing itself: a peer that stopped reading has closed, or is
    /// closing, the connection, and the reader thread reads what it said last (a refusal's
    /// line) before the end of the stream fails every request.
    private func send(_ message: JSONValue) {
        do { try connection.send(message) } catch {
            state.withLock { s in if s.sendFailure == nil { s.sendFailure = "\(error)" } }
            connection.shutdown()
        }
    }

    /// The reader thread: every answer to its waiting request, until the end of the stream.
    private func readAnswers() {
        while true {
            let message: JSONValue?
            do { message = try connection.receive() } catch {
                fail(.connectionLost("\(error)"))
                return
            }
            guard let message else {
                let sendFailure = state.withLock { $0.sendFailure }
                fail(.connectionLost(sendFailure.map { "send failed: \($0)" } ?? "the daemon closed the connection"))
                return
            }
            dispatch(message)
        }
    }

    private func dispatch(_ message: JSONValue) {
        guard let idValue = message["id"] else {
            if let method = message["method"]?.stringValue { onNotification(method, message["params"]) }
            return
        }
        guard let number = idValue.doubleValue, let id = Int(exactly: number) else {
            // Id null: an error the daemon could not tie to a request (it closes after it).
            if let error = message["error"] {
                fail(.refused(code: error["code"]?.doubleValue.map { Int($0) } ?? -32603,
                              message: error["message"]?.stringValue ?? JSONWriter.string(error)))
            }
            return
        }
        let continuation = state.withLock { s in
            s.progress.removeValue(forKey: id)
            return s.waiting.removeValue(forKey: id)
        }
        continuation?.resume(returning: .success(message))
    }

    /// Fails every waiting request, and every later one, with `error`.
    private func fail(_ error: LayoutClientError) {
        let waiting = state.withLock { s -> [CheckedContinuation<Reply, Never>] in
            if s.lost == nil { s.lost = error }
            defer { s.waiting = [:]; s.progress = [:] }
            return Array(s.waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: .failure(error)) }
    }

    /// Ends the connection: the reader thread finishes, waiting requests fail.
    func close() {
        connection.shutdown()
        fail(.connectionLost("the client closed the connection"))
    }

    deinit { connection.close() }
}
