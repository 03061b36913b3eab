import LayoutProtocol
import LayoutTransport

/// The server's side of the event loops: admits connections (`ConnectionAdmission`), gives
/// each a `Session`, routes each message through `LayoutService.route` and lets the
/// `RequestScheduler` run what it made.
final class ServiceConnectionHandler: ConnectionHandler {
    let service: LayoutService
    let scheduler: RequestScheduler
    let admission: ConnectionAdmission

    init(service: LayoutService, scheduler: RequestScheduler, admission: ConnectionAdmission) {
        self.service = service
        self.scheduler = scheduler
        self.admission = admission
    }

    var limits: ConnectionLimits {
        let configuration = service.configuration
        return ConnectionLimits(maxMessageBytes: configuration.maxMessageBytes, maxOutputBytes: configuration.maxOutputBytes,
                                maxPending: configuration.maxPendingPerConnection,
                                partialMessageSeconds: configuration.partialMessageSeconds,
                                sendTimeoutSeconds: configuration.sendTimeoutSeconds)
    }

    func admit(_ descriptor: borrowing FileDescriptor, via kind: ListenerKind) -> Admission {
        admission.admit(descriptor.rawValue, via: kind)
    }

    /// The connection's session, whose notifications (`fontsChanged`) go out on it; a TCP
    /// peer's waits for the token.
    func opened(_ connection: ClientConnection) {
        let limit = service.configuration.maxOutputBytes
        connection.attachment = Session(notify: { [weak connection] note in
            connection?.send(JSONWriter.serialize(note), limit: limit)
        }, awaitsToken: connection.via == .tcp)
        if connection.via == .tcp {
            let seconds = admission.tokenSeconds
            let error = RPCError(.serverError, "no initialize with params.auth.token within \(seconds) s; the connection is closed")
            connection.requireGreeting(within: seconds, refusal: JSONWriter.serialize(RPCResponse.failure(id: .null, error: error)))
        }
    }

    func received(_ line: [UInt8], from connection: ClientConnection, context: FrameContext) {
        guard let session = connection.attachment as? Session else {
            // `opened` gives every connection its session before any message is read.
            Log.error("a message on a connection without a session was dropped (\(Self.peer(connection)))")
            return
        }
        if session.awaitsToken, !acceptsToken(line, session, connection) { return }
        // In flight from here until its answer is queued (SIGTERM's drain waits for it).
        scheduler.requestArrived()
        let alone = scheduler.noteRequest(from: connection.token, context: context)
        scheduler.run(service.route(line: line, session: session), messageBytes: line.count, alone: alone,
                      for: connection, context: context)
    }

    /// Whether `line`, the first message of a TCP connection, presents the token (then the
    /// connection is served from it on); if not, answers with why and closes the connection.
    private func acceptsToken(_ line: [UInt8], _ session: Session, _ connection: ClientConnection) -> Bool {
        guard let refusal = TokenGate.refusal(of: line, token: service.configuration.listeners.token) else {
            session.acceptedToken()
            connection.greeted()
            admission.stoppedAwaitingToken()
            return true
        }
        Log.warning("refused a TCP connection: \(refusal.message)")
        connection.refuseFurther(with: JSONWriter.serialize(RPCResponse.failure(id: .null, error: refusal)),
                                 limit: service.configuration.maxOutputBytes)
        return false
    }

    /// Its requests are cancelled (nothing they answer can reach it), its subscriptions end.
    func closed(_ connection: ClientConnection, reason: String?) {
        if let reason { Log.info("dropping a connection (\(Self.peer(connection))): \(reason)") }
        if let session = connection.attachment as? Session {
            session.cancelAll()
            service.unsubscribe(session)
            if session.awaitsToken { admission.stoppedAwaitingToken() }
        }
        admission.released(uid: connection.peerUID)
    }

    /// The peer as the log names it.
    static func peer(_ connection: ClientConnection) -> String {
        connection.via == .tcp ? "a TCP peer" : "uid \(connection.peerUID)"
    }

    func pollSeconds(loop: Int, watchedNew: Bool) -> Double { scheduler.pollSeconds(loop: loop, watchedNew: watchedNew) }

    func isBusy(loop: Int, at now: Double) -> Bool { scheduler.isBusy(loop: loop, at: now) }

    func log(_ level: TransportLogLevel, _ message: String) {
        switch level {
        case .info: Log.info(message)
        case .warning: Log.warning(message)
        case .error: Log.error(message)
        }
    }
}
