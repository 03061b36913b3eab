#if canImport(Glibc)
import Glibc
#endif

extension EventLoop {
    /// Accepts every connection waiting on `listener`, handing each to the group
    /// (`EventLoopGroup.serve`: admitted, then given to the loop with the fewest).
    func acceptAll(on listener: ListeningSocket, token: UInt64) {
        while true {
            let accepted: FileDescriptor
            do {
                guard let descriptor = try UnixSocket.acceptNonBlocking(listener.descriptor) else { return }
                accepted = descriptor
            } catch {
                if listener.isShutDown || error.code == EINVAL || error.code == EBADF {
                    stopListening(token)
                    return
                }
                if error.code == EMFILE || error.code == ENFILE || error.code == ENOBUFS || error.code == ENOMEM {
                    handler.log(.warning, "\(error); connections wait until descriptors free up")
                    return
                }
                if error.code == ECONNABORTED { continue }
                handler.log(.error, "\(error); no longer accepting connections on \(listener.name)")
                stopListening(token)
                return
            }
            if listener.kind == .tcp { try? TCPSocket.setNoDelay(accepted.rawValue) }
            group.serve(accepted, via: listener.kind, acceptedBy: self)
        }
    }

    private func stopListening(_ token: UInt64) {
        if let listener = listeners.removeValue(forKey: token) { epoll.remove(listener.descriptor) }
    }

    /// Starts serving the connections handed to this loop (their counts already claimed on
    /// it): accepted ones are opened with the handler; moved ones keep what they had.
    func takeArrivals() {
        for arrival in mailbox.takeArrivals() {
            if arrival.isNew { watch(arrival.connection) } else { adopt(arrival.connection) }
        }
    }

    /// Starts serving an accepted connection.
    private func watch(_ connection: ClientConnection) {
        handler.opened(connection)
        connections[connection.token] = connection
        do {
            let interest: EpollEvents = [.readable, .peerClosedWriting]
            try epoll.add(connection.descriptor, events: interest, token: connection.token)
            connection.interest = interest
            watchedNew = true
        } catch {
            handler.log(.warning, "cannot watch a connection: \(error)")
            drop(connection, reason: nil)
        }
    }

    /// Starts serving a connection moved here by another loop: watched for what it was
    /// watched for there; its output flushed and its state settled, in case a wake-up came
    /// while it moved.
    private func adopt(_ connection: ClientConnection) {
        connections[connection.token] = connection
        do {
            try epoll.add(connection.descriptor, events: connection.interest, token: connection.token)
        } catch {
            handler.log(.warning, "cannot watch a connection moved from another loop: \(error)")
            drop(connection, reason: nil)
            return
        }
        connection.flush()
        settle(connection, limits: handler.limits)
    }
}
