extension EventLoop {
    /// How recently a connection must have sent a message to count as active, and how long a
    /// loop waits after moving a connection before it moves another.
    static var activeSeconds: Double { 0.1 }
    static var movePauseSeconds: Double { 0.1 }

    /// Before reading a message of `connection`: when this loop has at least two active
    /// connections more than another loop (as the loops' last sweeps counted them: clients
    /// sharing a loop are answered one after the other there, or handed to other threads,
    /// while the other loop's core has less to do), moves `connection` to the loop with the
    /// fewest (of those the handler does not call busy), which then reads the message (epoll
    /// is level-triggered) and answers it there. So busy clients end up spread evenly over
    /// the loops whichever loop they were accepted on. Only a connection with nothing in
    /// progress moves: no request running, no partial message, no output waiting, not
    /// closing. At most one move per `movePauseSeconds` per loop. Returns whether it moved
    /// (the loop must not touch it).
    func moveIfCrowded(_ connection: ClientConnection) -> Bool {
        let mine = activeConnections.load(ordering: .relaxed)
        guard mine >= 2, group.loops.count > 1, !connection.readClosed, connection.partialSince == nil,
              connection.framer.pendingCount == 0 else { return false }
        let now = MonotonicClock.now()
        guard now - lastMovedAt >= Self.movePauseSeconds, let target = leastActiveIdleLoop(at: now),
              mine >= target.activeConnections.load(ordering: .relaxed) + 2,
              connection.output.withLock({ $0.isIdle }) else { return false }
        lastMovedAt = now
        // Counted where it goes from now (not only at the loops' next sweeps), so that no loop
        // moves another on the old counts.
        activeConnections.wrappingSubtract(1, ordering: .relaxed)
        target.activeConnections.wrappingAdd(1, ordering: .relaxed)
        epoll.remove(connection.descriptor)
        connections[connection.token] = nil
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
        target.connectionCount.wrappingAdd(1, ordering: .relaxed)
        connection.servedBy.store(target.index, ordering: .releasing)
        target.mailbox.hand(connection, isNew: false)
        group.moves.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// The other loop with the fewest active connections, of those taking connections and
    /// not busy (`ConnectionHandler.isBusy`).
    private func leastActiveIdleLoop(at now: Double) -> EventLoop? {
        var target: EventLoop?, fewest = Int.max
        for loop in group.loops where loop !== self && loop.takesConnections && !handler.isBusy(loop: loop.index, at: now) {
            let active = loop.activeConnections.load(ordering: .relaxed)
            if active < fewest { target = loop; fewest = active }
        }
        return target
    }
}
