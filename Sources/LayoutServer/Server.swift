import Dispatch
import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on a listening socket and serves them from a few event loops
/// (`EventLoop`, epoll; each connection on one, moved to another only to even out busy
/// clients): line-framed JSON-RPC messages, routed
/// by `LayoutService.route` either answered at once (in the order sent) or run on the loop or
/// the worker pool (answers may come out of order). The shared `LayoutService` does the
/// work; the server owns only sockets and counts.
public final class Server: Sendable {
    /// The worker pool requests run on (libdispatch sizes it to the cores).
    public static let workers = DispatchQueue(label: "layoutd.workers", qos: .userInitiated, attributes: .concurrent)

    public let service: LayoutService
    /// Open connections per peer uid.
    private let perUID = Mutex<[UInt32: Int]>([:])

    /// Answers queued but not yet written to their clients, in bytes.
    let unsent = UnsentBytes()

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

    /// Waits until no request is being answered and every answer is written (or its
    /// connection gone), at most `seconds`; true when all are.
    public func drain(seconds: Double) -> Bool {
        var waited = 0.0
        func busy() -> Bool {
            service.inFlight.load(ordering: .sequentiallyConsistent) > 0 || unsent.count.load(ordering: .sequentiallyConsistent) > 0
        }
        while busy(), waited < seconds {
            usleep(10_000)
            waited += 0.01
        }
        return !busy()
    }

    /// The event loops, once `startLoops` made them.
    private let loopGroup = Mutex<EventLoopGroup?>(nil)

    /// Makes the `configuration.eventLoopCount` event loops (epoll) and starts all but the
    /// first on threads of their own, each running `warmUp` there first (so that a loop's
    /// first request does not pay for its thread's first allocations); returns once every
    /// started thread has warmed up, with the loops. Does it once: later calls return the
    /// same loops. False when not even one loop can be made (epoll failed).
    @discardableResult
    public func startLoops(warmUp: (@Sendable () -> Void)? = nil) -> Bool {
        makeLoops(warmUp: warmUp) != nil
    }

    /// `startLoops`, returning the loops (nil when none could be made).
    private func makeLoops(warmUp: (@Sendable () -> Void)?) -> [EventLoop]? {
        loopGroup.withLock { made -> [EventLoop]? in
            if let made { return made.loops }
            let group = EventLoopGroup()
            do {
                for index in 0..<max(1, service.configuration.eventLoopCount) {
                    group.loops.append(try EventLoop(server: self, group: group, index: index))
                }
            } catch {
                if group.loops.isEmpty {
                    Log.error("cannot start the event loop: \(error)")
                    return nil
                }
                Log.warning("cannot start more than \(group.loops.count) event loops: \(error)")
            }
            let loops = group.loops
            service.loopConnections.withLock { $0 = { loops.map { $0.connectionCount.load(ordering: .relaxed) } } }
            // A loop answers short requests itself, as a worker would: a worker's stack.
            let warmed = DispatchSemaphore(value: 0)
            var started = 0
            for loop in loops.dropFirst() {
                do {
                    try spawnDetachedThread(stackBytes: 8 << 20) {
                        warmUp?()
                        warmed.signal()
                        loop.run(listener: nil)
                    }
                    started += 1
                } catch {
                    Log.warning("cannot start an event loop thread: \(error)")
                    loop.stopTakingConnections()
                }
            }
            for _ in 0..<started { warmed.wait() }
            made = group
            return loops
        }
    }

    /// Serves `listener` and every connection from the event loops (`startLoops`, called here
    /// if it was not before): the first runs on this thread and accepts, handing each
    /// connection to the loop with the fewest; the others run on threads of their own.
    /// Requests that are not answered on a loop run on the worker pool. Returns only if the
    /// first loop cannot run (the others then go on serving the connections they have).
    public func serve(listener: borrowing FileDescriptor) {
        listening.store(listener.rawValue, ordering: .sequentiallyConsistent)
        defer { listening.store(-1, ordering: .sequentiallyConsistent) }
        guard let loops = makeLoops(warmUp: nil) else { return }
        loops[0].run(listener: listener.rawValue)
    }

    /// Admits an accepted connection: its peer's uid when it is allowed and under the limits
    /// (total and per uid, counted until `released`); otherwise answers it with one error
    /// line, closes it and returns nil.
    func admit(_ raw: Int32) -> UInt32? {
        let peer = PeerCredentials(raw)
        let uid = peer?.uid ?? UInt32.max
        let configuration = service.configuration
        guard let peer, peer.isAllowed(uids: configuration.allowedUIDs, gids: Set(configuration.allowedGroups.map(\.gid))) else {
            let groups = peer.map { ([$0.gid] + $0.groups).map(String.init).joined(separator: ", ") } ?? "unknown"
            Log.warning("refused a connection from uid \(uid) (groups \(groups)): neither it nor a group of it is allowed")
            reject(raw, RPCError(.serverError, "uid \(uid) (groups \(groups)) may not use this layoutd (allowed: \(configuration.allowedPeersSummary)); ask its administrator to add you to one of its groups"))
            return nil
        }
        let perUIDLimit = configuration.maxConnectionsPerUID
        let admitted = perUID.withLock { counts in
            guard counts[uid, default: 0] < perUIDLimit else { return false }
            counts[uid, default: 0] += 1
            return true
        }
        guard admitted else {
            reject(raw, RPCError(.serverError, "too many connections from uid \(uid): at most \(perUIDLimit) at once; retry later"))
            return nil
        }
        let limit = configuration.maxConnections
        if service.connections.wrappingAdd(1, ordering: .relaxed).newValue > limit {
            service.connections.wrappingSubtract(1, ordering: .relaxed)
            release(uid)
            reject(raw, RPCError(.serverError, "too many connections: this server serves at most \(limit) at once; retry later"))
            return nil
        }
        return uid
    }

    /// A connection admitted by `admit` closed.
    func released(uid: UInt32) {
        service.connections.wrappingSubtract(1, ordering: .relaxed)
        release(uid)
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
}
