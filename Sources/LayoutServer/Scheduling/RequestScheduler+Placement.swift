import LayoutTransport

extension RequestScheduler {
    /// Runs what `LayoutService.route` made of a message of `connection`: a reply queued at
    /// once, a job answered on the loop (`answersOnLoop`) or handed to a worker, an ordered
    /// job handed to a worker with the connection's later messages held back until it ends.
    func run(_ route: LayoutService.Route, messageBytes: Int, alone: Bool, for connection: ClientConnection, context: FrameContext) {
        switch route {
        case .reply(let reply):
            if let reply { connection.enqueue(reply, limit: context.limits.maxOutputBytes) }
            requestFinished()
        case .job(let job, let quick):
            if answersOnLoop(quick: quick, messageBytes: messageBytes, alone: alone, context: context) {
                answerOnLoop(job, for: connection, context: context)
            } else {
                handToWorker(job, ordered: false, for: connection, context: context)
            }
        case .ordered(let job):
            handToWorker(job, ordered: true, for: connection, context: context)
        }
    }

    /// Whether a job is answered on its loop's thread. Only a short message of a quick method
    /// (within the batch's time on the loop), and then:
    ///
    /// - from the one connection of its loop asking (`alone`), with none of the loop's
    ///   requests on the workers: clients on loops of their own are so served in parallel,
    ///   without the hand-over to a worker and back;
    /// - or, its connection having none of its requests on the workers (so its answers keep
    ///   their order), while every other core has work (`othersKeepTheCoresBusy`): a worker
    ///   would find no core free, so handing it over buys no parallelism and costs the two
    ///   wake-ups; clients sharing a loop while the other loops are busy are so answered by
    ///   their loop in turn;
    /// - or whenever the workers are all taken (long requests hold every one), its
    ///   connection having nothing on the workers: the loops are the lane kept for short
    ///   requests, so a `ping` or a one-line layout never waits behind long ones.
    ///
    /// Anything else goes to the workers, so the loop stays responsive and clients sharing it
    /// are served in parallel too.
    func answersOnLoop(quick: Bool, messageBytes: Int, alone: Bool, context: FrameContext) -> Bool {
        guard quick, context.now < context.batchStart + Self.inlineBatchSeconds, messageBytes <= Self.inlineMessageBytes else {
            return false
        }
        let loop = loops[context.loop]
        if alone || othersKeepTheCoresBusy(besides: context.loop, now: context.now),
           alone ? loop.onWorkers.load(ordering: .relaxed) == 0 : context.pending == 0 {
            return true
        }
        return context.pending == 0 && workersSaturated()
    }

    /// Whether every other core has work: requests on the workers (queued or running) and
    /// the other loops busy answering are at least as many as the other cores (and at least
    /// one).
    func othersKeepTheCoresBusy(besides index: Int, now: Double) -> Bool {
        var busy = 0
        for (other, loop) in loops.enumerated() where other != index {
            busy += loop.onWorkers.load(ordering: .relaxed)
            if loop.isAnswering(at: now) { busy += 1 }
        }
        return busy >= max(1, cores - 1)
    }

    /// Whether the requests on the workers, from every loop, are at least as many as the
    /// cores (the workers' threads): a job handed over now would wait for one to finish.
    func workersSaturated() -> Bool {
        var running = 0
        for loop in loops { running += loop.onWorkers.load(ordering: .relaxed) }
        return running >= cores
    }

    /// Answers a job on the loop's thread.
    private func answerOnLoop(_ job: @escaping @Sendable () -> [UInt8]?, for connection: ClientConnection, context: FrameContext) {
        let loop = loops[context.loop]
        statistics.onLoop.wrappingAdd(1, ordering: .relaxed)
        loop.answeredInline = true
        loop.busyUntil.store(Double.infinity.bitPattern, ordering: .relaxed)
        // The job (with its request's working data) is let go only after the answer is
        // written: freeing then does not delay it (see `LayoutService.Route`).
        withExtendedLifetime(job) {
            let reply = job()
            // Before the answer goes out: its client's next request must not find this loop
            // still marked as answering.
            loop.busyUntil.store((MonotonicClock.now() + Self.busyLingerSeconds).bitPattern, ordering: .relaxed)
            if let reply { connection.enqueue(reply, limit: context.limits.maxOutputBytes) }
            requestFinished()
        }
    }

    /// Runs a job on a worker; its answer is queued there.
    private func handToWorker(_ job: @escaping @Sendable () -> [UInt8]?, ordered: Bool, for connection: ClientConnection,
                              context: FrameContext) {
        let loop = loops[context.loop]
        let limit = context.limits.maxOutputBytes, maxPending = context.limits.maxPending
        connection.beginRequest(ordered: ordered)
        loop.onWorkers.wrappingAdd(1, ordering: .relaxed)
        Self.workers.async { [self] in
            if let reply = job() { connection.enqueue(reply, limit: limit) }
            loop.onWorkers.wrappingSubtract(1, ordering: .relaxed)
            requestFinished()
            connection.finishRequest(ordered: ordered, maxPending: maxPending)
        }
    }

    // MARK: Loop hints

    /// How long loop `index` polls before it sleeps. After answering a lone client itself: a
    /// moment (`pollSeconds`), only when no other loop has been asked for `aloneSeconds`
    /// either (with other clients busy, the cores are theirs: a polling loop takes the time
    /// they need to send). After starting to watch a new connection: `firstRequestPollSeconds`,
    /// unless the loop has requests on the workers or the other loops and the workers keep
    /// the other cores busy.
    func pollSeconds(loop index: Int, watchedNew: Bool) -> Double {
        let loop = loops[index]
        if loop.answeredInline {
            loop.answeredInline = false
            let since = Double(bitPattern: lastAskedLoopSince.load(ordering: .relaxed))
            let quiet = lastAskedLoop.load(ordering: .relaxed) == index && MonotonicClock.now() - since >= Self.aloneSeconds
            return quiet ? Self.pollSeconds : 0
        }
        guard watchedNew else { return 0 }
        let now = MonotonicClock.now()
        return loop.onWorkers.load(ordering: .relaxed) == 0 && !othersKeepTheCoresBusy(besides: index, now: now)
            ? Self.firstRequestPollSeconds : 0
    }

    /// Whether loop `index` has requests on the workers or is answering one itself.
    func isBusy(loop index: Int, at now: Double) -> Bool {
        index < loops.count && loops[index].isBusy(at: now)
    }
}
