import LayoutProtocol

extension EventLoop {
    /// Most bytes read from one connection per wake-up, so one busy client cannot starve the
    /// others.
    static var readBudget: Int { 1 << 20 }

    /// Reads what the socket holds and hands its complete messages to the handler, while the
    /// connection may have more requests running.
    func read(_ connection: ClientConnection, limits: ConnectionLimits) {
        guard !connection.readClosed else { return }
        var total = 0
        while total < Self.readBudget, !connection.readClosed {
            let attempt = readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) -> Int? in try UnixSocket.receiveNow(connection.descriptor, into: buffer) }
            }
            guard case .success(let received) = attempt else {
                // An error: answer what was asked, then close.
                connection.closeReading()
                break
            }
            guard let n = received else { break }
            if n == 0 {
                // End of stream: answer what was asked, then close.
                connection.closeReading()
                break
            }
            total += n
            let undecided = connection.framer.framing == nil
            readBuffer.withUnsafeBytes { connection.framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            if undecided, let framing = connection.framer.framing { connection.choose(framing) }
            processFrames(connection, limits: limits)
            if connection.output.withLock({ $0.pending >= limits.maxPending || $0.ordered }) { break }
            // A short read emptied the socket: no second call only to hear EAGAIN (epoll is
            // level-triggered, so bytes that arrive meanwhile wake the loop again).
            if n < readBuffer.count { break }
        }
        connection.partialSince = connection.framer.pendingCount > 0 ? (connection.partialSince ?? MonotonicClock.now()) : nil
    }

    /// Gives the handler the connection's complete messages while it may have more requests
    /// running (and no ordered one runs).
    func processFrames(_ connection: ClientConnection, limits: ConnectionLimits) {
        let batchStart = MonotonicClock.now()
        while true {
            let (pending, ordered) = connection.output.withLock { ($0.pending, $0.ordered) }
            guard pending < limits.maxPending, !ordered, let frame = connection.framer.nextFrame() else { return }
            switch frame {
            case .oversized:
                refuse(connection, "message exceeds \(limits.maxMessageBytes) bytes", limits: limits)
                return
            case .malformed(let why):
                // LSP base protocol: a header that cannot be read leaves no way to find where
                // the next message starts.
                refuse(connection, "bad message header: \(why)", limits: limits)
                return
            case .message(let bytes):
                let now = MonotonicClock.now()
                connection.lastAskedAt = now
                handler.received(bytes, from: connection,
                                 context: FrameContext(loop: index, now: now, batchStart: batchStart, pending: pending, limits: limits))
            }
        }
    }

    /// Answers a message the framing refuses with an invalid-request error (JSON-RPC 2.0,
    /// id null: the message could not be read) and stops reading the connection; it closes
    /// once the answer is sent. `dropFramed`: messages already read are dropped unanswered
    /// (`ClientConnection.refuseFurther`: after a message that cannot be framed, where the
    /// next one starts is unknown); otherwise they are answered first.
    func refuse(_ connection: ClientConnection, _ why: String, limits: ConnectionLimits, dropFramed: Bool = true) {
        let error = RPCError(.invalidRequest, "invalid request: \(why); the connection is closed")
        let message = JSONWriter.serialize(RPCResponse.failure(id: .null, error: error))
        if dropFramed {
            connection.refuseFurther(with: message, limit: limits.maxOutputBytes)
        } else {
            connection.enqueue(message, limit: limits.maxOutputBytes)
            connection.closeReading()
        }
    }
}
