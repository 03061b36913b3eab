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

    /// Sends `method` and waits for its answer's `result`. Cancelling the calling task sends
    /// `$/cancelRequest` for it (LSP's cancellation, which layoutd answers with -32800).
    func call(_ method: String, _ params: JSONValue) async throws(LayoutClientError) -> JSONValue {
        if Task.isCancelled { throw .cancelled }
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        let reply: Reply = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                if let lost = state.withLock({ s -> LayoutClientError? in
                    if s.lost == nil { s.waiting[id] = continuation }
                    return s.lost
                }) {
                    continuation.resume(returning: .failure(lost))
                    return
                }
                send(RPCRequest(id: .number(Double(id)), method: method, params: params).json)
            }
        } onCancel: {
            send(RPCRequest(id: nil, method: "$/cancelRequest", params: ["id": .number(Double(id))]).json)
        }
        switch reply {
        case .success(let answer):
            if let error = answer["error"] { throw LayoutClientError(error: error, method: method) }
            guard let result = answer["result"] else { throw .malformedAnswer(method: method, JSONWriter.string(answer)) }
            return result
        case .failure(let error): throw error
        }
    }

    private func send(_ message: JSONValue) {
        do { try connection.send(message) } catch {
            // The reader sees the end of the stream too; failing here answers at once.
            fail(.connectionLost("send failed: \(error)"))
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
                fail(.connectionLost("the daemon closed the connection"))
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
            if let error = message["error"] { fail(LayoutClientError(error: error, method: "(connection)")) }
            return
        }
        let continuation = state.withLock { $0.waiting.removeValue(forKey: id) }
        continuation?.resume(returning: .success(message))
    }

    /// Fails every waiting request, and every later one, with `error`.
    private func fail(_ error: LayoutClientError) {
        let waiting = state.withLock { s -> [CheckedContinuation<Reply, Never>] in
            if s.lost == nil { s.lost = error }
            defer { s.waiting = [:] }
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
