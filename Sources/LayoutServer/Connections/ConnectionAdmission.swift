import LayoutProtocol
import LayoutTransport
import Synchronization

/// Who may connect, and how many at once: a Unix socket's peer must have its uid or a group
/// allowed (`allowedUids`, `allowedGroups`); a TCP peer is let in to present the token
/// (`Session.awaitsToken`), as it has no uid. The connections open, in all and per uid (not
/// for TCP peers, which share no uid), stay under their limits. Counts each admitted
/// connection until it is `released`.
final class ConnectionAdmission: Sendable {
    private let service: LayoutService
    /// Open connections per peer uid.
    private let perUID = Mutex<[UInt32: Int]>([:])
    private let open = Atomic<Int>(0)
    /// TCP connections admitted that have not presented the token yet.
    private let awaitingToken = Atomic<Int>(0)

    /// How long a TCP peer has to present the token: 10 s, or `partialMessageSeconds` when
    /// that is shorter.
    var tokenSeconds: Double { min(10, service.configuration.partialMessageSeconds) }

    /// TCP connections that may wait to present the token at once: an eighth of
    /// `maxConnections` (at least 4), so that peers without it cannot take the places of
    /// those who have it, or of local clients.
    var maxAwaitingToken: Int { max(4, service.configuration.maxConnections / 8) }

    init(service: LayoutService) { self.service = service }

    /// Connections open now.
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Admits a connection from the peer of `fd`, accepted on a listener of kind `via`, when
    /// it is allowed and under the limits; otherwise refuses it with the error line its client
    /// reads.
    func admit(_ fd: Int32, via kind: ListenerKind) -> Admission {
        if kind == .tcp { return admitNetworkPeer() }
        let peer = PeerCredentials(fd)
        let uid = peer?.uid ?? UInt32.max
        let configuration = service.configuration
        guard let peer, peer.isAllowed(uids: configuration.allowedUIDs, gids: Set(configuration.allowedGroups.map(\.gid))) else {
            let groups = peer.map { ([$0.gid] + $0.groups).map(String.init).joined(separator: ", ") } ?? "unknown"
            Log.warning("refused a connection from uid \(uid) (groups \(groups)): neither it nor a group of it is allowed")
            return Self.refusal(RPCError(.serverError, "uid \(uid) (groups \(groups)) may not use this layoutd (allowed: \(configuration.allowedPeersSummary)); ask its administrator to add you to one of its groups"))
        }
        let perUIDLimit = configuration.maxConnectionsPerUID
        let admitted = perUID.withLock { counts in
            guard counts[uid, default: 0] < perUIDLimit else { return false }
            counts[uid, default: 0] += 1
            return true
        }
        guard admitted else {
            return Self.refusal(RPCError(.serverError, "too many connections from uid \(uid): at most \(perUIDLimit) at once; retry later"))
        }
        guard claimOpen() else {
            release(uid)
            return tooMany()
        }
        return .admitted(peerUID: uid)
    }

    /// A TCP peer, counted against `maxConnections` alone; refused when no token is set (a
    /// reload cannot remove it while a TCP listener is open, but nothing is served without).
    private func admitNetworkPeer() -> Admission {
        guard service.configuration.listeners.token != nil else {
            return Self.refusal(RPCError(.serverError, "this layoutd has no auth.tokenFile, so it serves no TCP peer"))
        }
        let limit = maxAwaitingToken
        guard awaitingToken.wrappingAdd(1, ordering: .relaxed).newValue <= limit else {
            awaitingToken.wrappingSubtract(1, ordering: .relaxed)
            return Self.refusal(RPCError(.serverError, "too many TCP connections are waiting to present the token (at most \(limit)); retry later"))
        }
        guard claimOpen() else {
            awaitingToken.wrappingSubtract(1, ordering: .relaxed)
            return tooMany()
        }
        return .admitted(peerUID: ClientConnection.networkPeerUID)
    }

    /// A TCP connection presented the token, or closed before it did.
    func stoppedAwaitingToken() { awaitingToken.wrappingSubtract(1, ordering: .relaxed) }

    /// Counts one more open connection, unless that would pass `maxConnections`.
    private func claimOpen() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue > service.configuration.maxConnections {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    private func tooMany() -> Admission {
        Self.refusal(RPCError(.serverError, "too many connections: this server serves at most \(service.configuration.maxConnections) at once; retry later"))
    }

    /// A connection `admit` admitted closed.
    func released(uid: UInt32) {
        open.wrappingSubtract(1, ordering: .relaxed)
        if uid != ClientConnection.networkPeerUID { release(uid) }
    }

    private func release(_ uid: UInt32) {
        perUID.withLock { counts in
            counts[uid, default: 1] -= 1
            if counts[uid] == 0 { counts[uid] = nil }
        }
    }

    private static func refusal(_ error: RPCError) -> Admission {
        .refused(reply: JSONWriter.serialize(RPCResponse.failure(id: .null, error: error)))
    }
}
