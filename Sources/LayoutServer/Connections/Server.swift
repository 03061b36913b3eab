import LayoutProtocol
import LayoutTransport
import Synchronization

/// Serves a listening socket from a few event loops (`EventLoopGroup`, epoll; each
/// connection on one, moved to another only to even out busy clients): line-framed JSON-RPC
/// messages, routed by `LayoutService.route` and run where the `RequestScheduler` places them
/// (answered at once in the order sent, on the loop, or on the worker pool, where answers may
/// come out of order). The shared `LayoutService` does the work.
public final class Server: Sendable {
    public let service: LayoutService
    let scheduler: RequestScheduler
    let admission: ConnectionAdmission
    private let handler: ServiceConnectionHandler
    private let idle = IdleSignal()
    /// Answers queued but not yet written to their clients, in bytes.
    private let unsent: UnsentBytes
    /// The event loops, once `startLoops` made them.
    private let loopGroup = Mutex<EventLoopGroup<ServiceConnectionHandler>?>(nil)
    /// The listening sockets while `serve` runs.
    private let listening = Mutex<[ListeningSocket]>([])
    /// Set once `stopAccepting` was called.
    public let stopped = Atomic<Bool>(false)

    /// The event loops, read from the configuration once: the scheduler and the loop group
    /// must agree on it even when a reload changes `eventLoops` before the loops start.
    private let loopCount: Int

    public init(service: LayoutService) {
        self.service = service
        unsent = UnsentBytes(idle: idle)
        loopCount = service.configuration.eventLoopCount
        scheduler = RequestScheduler(loopCount: loopCount, statistics: service.statistics, idle: idle)
        admission = ConnectionAdmission(service: service)
        handler = ServiceConnectionHandler(service: service, scheduler: scheduler, admission: admission)
        service.connectionsReport.withLock { $0 = { [weak self] in self?.connectionsReport ?? ConnectionsReport() } }
    }

    /// Connections open now.
    public var activeConnections: Int { admission.openConnections }

    var connectionsReport: ConnectionsReport {
        let group = loopGroup.withLock { $0 }
        return ConnectionsReport(open: admission.openConnections, perLoop: group?.connectionsPerLoop ?? [],
                                 moved: group?.movedConnections ?? 0)
    }

    /// Stops accepting connections; open connections go on.
    public func stopAccepting() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        for socket in listening.withLock({ $0 }) { socket.shutdown() }
    }

    /// Waits until no request is being answered and every answer is written (or its
    /// connection gone), at most `seconds`; true when all are.
    public func drain(seconds: Double) -> Bool {
        idle.wait(seconds: seconds) { scheduler.requestsInFlight == 0 && unsent.value == 0 }
    }

    /// Makes the `configuration.eventLoopCount` event loops (epoll) and starts all but the
    /// first on threads of their own, each running `warmUp` there first (so that a loop's
    /// first request does not pay for its thread's first allocations); returns once every
    /// started thread has warmed up. Does it once: later calls find the same loops. False
    /// when not even one loop can be made (epoll failed).
    @discardableResult
    public func startLoops(warmUp: (@Sendable () -> Void)? = nil) -> Bool {
        makeLoops(warmUp: warmUp) != nil
    }

    /// `startLoops`, returning the group (nil when no loop could be made).
    private func makeLoops(warmUp: (@Sendable () -> Void)?) -> EventLoopGroup<ServiceConnectionHandler>? {
        loopGroup.withLock { made -> EventLoopGroup<ServiceConnectionHandler>? in
            if let made { return made }
            let group: EventLoopGroup<ServiceConnectionHandler>
            do {
                group = try EventLoopGroup(handler: handler, count: loopCount, unsent: unsent)
            } catch {
                Log.error("cannot start the event loop: \(error)")
                return nil
            }
            group.startThreads(warmUp: warmUp)
            made = group
            return group
        }
    }

    /// Serves `listeners` and every connection from the event loops (`startLoops`, called
    /// here if it was not before): the first runs on this thread and accepts, handing each
    /// connection to the loop with the fewest; the others run on threads of their own.
    /// Returns only if the first loop cannot run (the others then go on serving the
    /// connections they have).
    public func serve(listeners: [ListeningSocket]) {
        listening.withLock { $0 = listeners }
        defer { listening.withLock { $0 = [] } }
        guard let group = makeLoops(warmUp: nil) else { return }
        group.run(listeners: listeners)
    }
}
