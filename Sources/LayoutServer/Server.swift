import Dispatch
import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on a listening socket and reads each on its own thread: line-framed
/// JSON-RPC messages, routed by `LayoutService.route` either answered at once (in the order
/// sent) or run on the worker pool (answers may come out of order). The shared
/// `LayoutService` does the work; the server owns only sockets and counts.
public final class Server: Sendable {
    /// The worker pool requests run on (libdispatch sizes it to the cores).
    static let workers = DispatchQueue(label: "layoutd.workers", qos: .userInitiated, attributes: .concurrent)

    public let service: LayoutService
    /// Open connections per peer uid.
    private let perUID = Mutex<[UInt32: Int]>([:])

    public init(service: LayoutService) { self.service = service }

    /// Connections open now.
    public var activeConnections: Int { service.connections.load(ordering: .relaxed) }
    /// The listening socket while `serve` runs (-1 otherwise).
    private let listening = Atomic<Int32>(-1)
    /// Set once `stopAccepting` was called.
    public let stopped = Atomic<Bool>(false)

    /// Stops accepting connections: `serve` returns; open connections go on.
    public func stopAccepting() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        let fd = listening.load(ordering: .sequentiallyConsistent)
        if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Waits until no request is being answered, at most `seconds`; true when none is.
    public func drain(seconds: Double) -> Bool {
        var waited = 0.0
        while service.inFlight.load(ordering: .sequentiallyConsistent) > 0, waited < seconds {
            usleep(10_000)
            waited += 0.01
        }
        return service.inFlight.load(ordering: .sequentiallyConsistent) == 0
    }

    /// Accepts forever on `listener` (returns only if accepting fails for good).
    public func serve(listener: borrowing FileDescriptor) {
        let limit = service.configuration.maxConnections
        listening.store(listener.rawValue, ordering: .sequentiallyConsistent)
        defer { listening.store(-1, ordering: .sequentiallyConsistent) }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let raw: Int32
            do {
                raw = try UnixSocket.accept(listener).release()
            } catch {
                if error.code == EMFILE || error.code == ENFILE || error.code == ENOBUFS || error.code == ENOMEM {
                    Log.warning("\(error); retrying in 100 ms")
                    usleep(100_000)
                    continue
                }
                if error.code == ECONNABORTED { continue }
                if stopped.load(ordering: .sequentiallyConsistent) { return }
                Log.error("\(error); no longer accepting connections")
                return
            }
            let uid = Self.peerUID(raw) ?? UInt32.max
            if !service.configuration.allowedUIDs.contains(uid) {
                Log.warning("refused a connection from uid \(uid): not in allowedUids")
                reject(raw, RPCError(.serverError, "uid \(uid) may not use this layoutd (allowed: \(service.configuration.allowedUIDs.sorted().map(String.init).joined(separator: ", ")))"))
                continue
            }
            let perUIDLimit = service.configuration.maxConnectionsPerUID
            let admitted = perUID.withLock { counts in
                guard counts[uid, default: 0] < perUIDLimit else { return false }
                counts[uid, default: 0] += 1
                return true
            }
            guard admitted else {
                reject(raw, RPCError(.serverError, "too many connections from uid \(uid): at most \(perUIDLimit) at once; retry later"))
                continue
            }
            if service.connections.wrappingAdd(1, ordering: .relaxed).newValue > limit {
                service.connections.wrappingSubtract(1, ordering: .relaxed)
                release(uid)
                reject(raw, RPCError(.serverError, "too many connections: this server serves at most \(limit) at once; retry later"))
                continue
            }
            do {
                try spawnDetachedThread { [self] in
                    let connection = LineConnection(adopting: FileDescriptor(adopting: raw),
                                                    maxLineLength: self.service.configuration.maxMessageBytes)
                    connection.setDeadlines(partialLine: self.service.configuration.partialMessageSeconds,
                                            send: self.service.configuration.sendTimeoutSeconds)
                    self.serveConnection(connection)
                    self.service.connections.wrappingSubtract(1, ordering: .relaxed)
                    self.release(uid)
                }
            } catch {
                Log.warning("cannot start a thread for a connection: \(error)")
                _ = close(raw)
                service.connections.wrappingSubtract(1, ordering: .relaxed)
                release(uid)
            }
        }
    }

    private func release(_ uid: UInt32) {
        perUID.withLock { counts in
            counts[uid, default: 1] -= 1
            if counts[uid] == 0 { counts[uid] = nil }
        }
    }

    /// Answers a connection with one error line and closes it.
    private func reject(_ raw: Int32, _ error: RPCError) {
        var bytes = JSONWriter.serialize(RPCResponse.failure(id: .null, error: error))
        bytes.append(0x0A)
        _ = bytes.withUnsafeBytes { try? UnixSocket.writeAll(raw, $0) }
        _ = close(raw)
    }

    /// The peer's uid (SO_PEERCRED), or nil when the kernel does not say.
    static func peerUID(_ fd: Int32) -> UInt32? {
        /// `struct ucred` (pid, uid, gid), which Glibc's module shows only with _GNU_SOURCE.
        struct PeerCredentials { var pid: Int32 = 0; var uid: UInt32 = 0; var gid: UInt32 = 0 }
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.uid
    }

    private func serveConnection(_ connection: LineConnection) {
        let session = Session(notify: { note in try? connection.send(note) })
        // Requests run on the worker pool; at most maxPendingPerConnection at once per
        // connection (reading waits), and the connection closes after the last answer.
        let pending = DispatchSemaphore(value: service.configuration.maxPendingPerConnection)
        let outstanding = DispatchGroup()
        defer {
            outstanding.wait()
            service.unsubscribe(session)
            connection.close()
        }
        do {
            while let frame = try connection.receiveFrame() {
                switch frame {
                case .oversized:
                    let limit = service.configuration.maxMessageBytes
                    let error = RPCError(.invalidRequest, "invalid request: message exceeds \(limit) bytes; the connection is closed")
                    try connection.send(RPCResponse.failure(id: .null, error: error))
                    return
                case .line(let bytes):
                    // In flight from here until its answer is sent (SIGTERM's drain waits for it).
                    service.inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent)
                    switch service.route(line: bytes, session: session) {
                    case .reply(let reply):
                        defer { service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
                        if let reply { try connection.send(line: reply) }
                    case .job(let job):
                        pending.wait()
                        outstanding.enter()
                        Self.workers.async { [service] in
                            if let reply = job() { try? connection.send(line: reply) }
                            service.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                            pending.signal()
                            outstanding.leave()
                        }
                    }
                }
            }
        } catch let timeout as LineConnection.PartialLineTimeout {
            Log.info("dropping a connection: \(timeout)")
            try? connection.send(RPCResponse.failure(id: .null, error: RPCError(.invalidRequest, "invalid request: \(timeout); the connection is closed")))
        } catch {
            Log.debug("connection closed: \(error)")
        }
    }
}
