import LayoutProtocol

extension EventLoop {
    /// Answers waiting past this many bytes pause reading until the client takes them.
    static var pauseReadingBufferedBytes: Int { 4 << 20 }

    /// After events: drop, close or re-arm the connection as its state asks.
    func settle(_ connection: ClientConnection, limits: ConnectionLimits) {
        var pending = 0, buffered = 0, ordered = false
        while true {
            // After the end of input, messages already framed are still taken up as the
            // requests before them finish; the connection closes once all are answered. (A
            // request finishing between the two steps below leaves room for more: round again.)
            if connection.readClosed { processFrames(connection, limits: limits) }
            let (p, b, dropReason, closed, o) = connection.output.withLock { s in
                (s.pending, s.buffered, s.dropReason, s.closed, s.ordered)
            }
            (pending, buffered, ordered) = (p, b, o)
            if closed { return }
            if let dropReason {
                drop(connection, reason: dropReason)
                return
            }
            if connection.readClosed && pending == 0 && buffered == 0 {
                if connection.framer.hasMessage { continue }
                drop(connection, reason: nil)
                return
            }
            break
        }
        var wanted: EpollEvents = .peerClosedWriting
        // Reading pauses while the connection has its fill of requests running or of answers
        // waiting for the client to read them, or an ordered request (`update`) runs.
        if !connection.readClosed && pending < limits.maxPending && buffered < Self.pauseReadingBufferedBytes && !ordered {
            wanted.insert(.readable)
        }
        if buffered > 0 { wanted.insert(.writable) }
        if connection.readClosed { wanted.remove(.peerClosedWriting) }
        if wanted != connection.interest {
            do {
                try epoll.modify(connection.descriptor, events: wanted, token: connection.token)
                connection.interest = wanted
            } catch {
                drop(connection, reason: "\(error)")
            }
        }
    }

    /// Deadlines: half-sent messages, first messages not accepted in time, and output the
    /// client does not take. Also counts the active connections (`activeConnections`).
    func sweep(now: Double) {
        let limits = handler.limits
        let partialLimit = limits.partialMessageSeconds
        let sendLimit = limits.sendTimeoutSeconds
        activeConnections.store(connections.values.reduce(0) { $0 + (now - $1.lastAskedAt < Self.activeSeconds ? 1 : 0) },
                                ordering: .relaxed)
        for connection in Array(connections.values) {
            if let since = connection.partialSince, !connection.readClosed, now - since > partialLimit {
                handler.log(.info, "dropping a connection: a message stayed incomplete for \(partialLimit) s")
                refuse(connection, "a message stayed incomplete for \(partialLimit) s", limits: limits, dropFramed: false)
                connection.partialSince = nil
                settle(connection, limits: limits)
                continue
            }
            if let greeting = connection.greeting, !connection.readClosed, now > greeting.deadline {
                handler.log(.info, "dropping a connection: no accepted first message in time")
                connection.refuseFurther(with: greeting.refusal, limit: limits.maxOutputBytes)
                connection.greeting = nil
                settle(connection, limits: limits)
                continue
            }
            if let stalled = connection.output.withLock({ $0.stalledSince }), now - stalled > sendLimit {
                drop(connection, reason: "its client has not read an answer for \(sendLimit) s")
            }
        }
    }

    /// Closes a connection and forgets it; the handler hears why.
    func drop(_ connection: ClientConnection, reason: String?) {
        epoll.remove(connection.descriptor)
        connection.close()
        connections[connection.token] = nil
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
        handler.closed(connection, reason: reason)
    }
}
