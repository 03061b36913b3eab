import LayoutProtocol
import LayoutTransport

/// From a line of input to its answer: parsed and decoded once, the method found in
/// `MethodRegistry`, run as its order says, its answer bounded and counted. Batches and
/// notifications are handled here too.
extension LayoutService {
    /// What to do with one line of input (see `MethodOrder`): answer it at once (parse
    /// errors, invalid requests, unknown methods and the immediate methods), run it on a
    /// worker before reading on (ordered), or run it as a job on a worker.
    ///
    /// A job's closure holds its request's session snapshot, and with it the request's
    /// working data (`Session.deferredRelease`): whoever runs it should let go of the closure only
    /// after queueing its answer, so that the freeing comes after the answer is written.
    public enum Route {
        case reply([UInt8]?)
        /// `quick`: its work grows with the message alone, so a short one may be answered by
        /// the event loop itself (`RequestScheduler` decides).
        case job(@Sendable () -> [UInt8]?, quick: Bool)
        /// Runs on a worker, but the connection's later messages wait until it is done.
        case ordered(@Sendable () -> [UInt8]?)
    }

    /// Routes one line of input (see `Route`).
    public func route(line: [UInt8], session: Session) -> Route {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .reply(nil) }
        let message: JSONValue
        do {
            message = try JSONParser.parse(line, utf16Text: true)
        } catch {
            return .reply(JSONWriter.serialize(RPCResponse.failure(id: .null, error: RPCError(.parseError, "parse error: \(error)"))))
        }
        if case .array = message {
            let snapshot = session.snapshot(cancellation: nil, deadline: requestDeadline())
            return .job({ [self] in handle(message: message, session: snapshot).map(JSONWriter.serialize) }, quick: false)
        }
        let request: RPCRequest
        switch RPCRequest.decode(message) {
        case .failure(let failure): return .reply(JSONWriter.serialize(RPCResponse.failure(id: failure.id, error: failure.error)))
        case .success(let r): request = r
        }
        let entry = MethodRegistry.entry(request.method)
        switch entry?.order ?? .immediate {
        case .immediate:
            return .reply(respond(to: request, entry, session: session).map(JSONWriter.serialize))
        case .ordered:
            let snapshot = session.snapshot(cancellation: nil, deadline: requestDeadline())
            return .ordered { [self] in respond(to: request, entry, session: snapshot).map(JSONWriter.serialize) }
        case .concurrent(let quick):
            return .job(cancellableJob(request, entry, session: session), quick: quick)
        }
    }

    /// A request run on a worker, which `$/cancelRequest` may cancel while it waits or runs.
    private func cancellableJob(_ request: RPCRequest, _ entry: MethodEntry?, session: Session) -> @Sendable () -> [UInt8]? {
        let flag = request.id.map { session.register($0) }
        let snapshot = session.snapshot(cancellation: flag, deadline: requestDeadline())
        return { [self] in
            defer { if let id = request.id { session.finished(id) } }
            if let flag, flag.isSet, let id = request.id {
                return JSONWriter.serialize(RPCResponse.failure(id: id, error: RPCError(.requestCancelled, "request cancelled")))
            }
            return respond(to: request, entry, session: snapshot).map(JSONWriter.serialize)
        }
    }

    private func requestDeadline() -> Double { MonotonicClock.now() + configuration.requestSeconds }

    /// Handles a parsed message: a request, a notification or a batch (whose responses
    /// together stay under `maxOutputBytes`). Nil when nothing is answered.
    public func handle(message: JSONValue, session: Session) -> JSONValue? {
        var budget = configuration.maxOutputBytes
        guard case .array(let batch) = message else { return handle(single: message, session: session, budget: &budget) }
        guard !batch.isEmpty else {
            return RPCResponse.failure(id: .null, error: RPCError(.invalidRequest, "invalid request: empty batch"))
        }
        let responses = batch.compactMap { handle(single: $0, session: session, budget: &budget) }
        return responses.isEmpty ? nil : .array(responses)
    }

    private func handle(single message: JSONValue, session: Session, budget: inout Int) -> JSONValue? {
        switch RPCRequest.decode(message) {
        case .failure(let failure): return RPCResponse.failure(id: failure.id, error: failure.error)
        case .success(let request): return respond(to: request, MethodRegistry.entry(request.method), session: session, budget: &budget)
        }
    }

    private func respond(to request: RPCRequest, _ entry: MethodEntry?, session: Session) -> JSONValue? {
        var budget = configuration.maxOutputBytes
        return respond(to: request, entry, session: session, budget: &budget)
    }

    /// Runs one request and counts it in `stats`: its response, at most `budget` bytes long
    /// (see `bounded`); nil for a notification. Unknown methods are counted under one name,
    /// so that what clients send cannot grow the counters.
    private func respond(to request: RPCRequest, _ entry: MethodEntry?, session: Session, budget: inout Int) -> JSONValue? {
        let started = MonotonicClock.now()
        var response: JSONValue? = nil
        var failed = true
        do throws(RPCError) {
            guard let entry else { throw MethodRegistry.notFound(request.method) }
            let result = try entry.call(request.params, MethodContext(service: self, session: session))
            if let id = request.id {
                let answer = bounded(RPCResponse.success(id: id, result: result), id: id, method: entry.name, budget: &budget)
                response = answer.response
                failed = !answer.sent
            } else {
                failed = false
            }
        } catch {
            response = request.id.map { RPCResponse.failure(id: $0, error: error) }
        }
        if !session.isWarmUp {
            statistics.record(method: entry?.name ?? MethodRegistry.unknownName, seconds: MonotonicClock.now() - started, failed: failed)
        }
        return response
    }

    /// Requests a client's first ones are like (`layout` at the default and the `glyphs`
    /// detail, `measure`), for `warmUp`.
    static let warmUpLines: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"Hello, world — 你好 مرحبا","width":120}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"layout","params":{"text":"Hello, world — 你好 مرحبا","width":120,"detail":"glyphs"}}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"measure","params":{"text":"Hello, world — 你好 مرحبا","width":120}}"#,
    ]

    /// Runs `warmUpLines` on the calling thread the way a connection's requests run — routed,
    /// registered for cancelling, with a deadline and the stop check, answered and written as
    /// JSON — and drops the answers. A first client request then finds the code, the runtime's
    /// type metadata and the thread's allocations in use already. Not counted in `stats`.
    /// Call it on each thread that will serve requests, before they are served.
    public func warmUp() {
        let session = Session.warmUp()
        for line in Self.warmUpLines {
            switch route(line: Array(line.utf8), session: session) {
            case .reply(let answer): _ = answer
            case .job(let job, _), .ordered(let job): _ = job()
            }
        }
    }
}
