#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a Unix socket, as the kernel says: the peer's uid and gid
/// (`SO_PEERCRED`, taken when it connected) and its supplementary groups (`SO_PEERGROUPS`,
/// Linux 4.13 on), for the daemon's `allowedUids` and `allowedGroups`.
struct PeerCredentials: Sendable {
    var uid: UInt32
    var gid: UInt32
    var groups: [UInt32]

    /// The peer of `fd`, or nil when the kernel does not say.
    init?(_ fd: Int32) {
        /// `struct ucred` (pid, uid, gid), which Glibc's module shows only with _GNU_SOURCE.
        struct UCred { var pid: Int32 = 0; var uid: UInt32 = 0; var gid: UInt32 = 0 }
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        uid = credentials.uid
        gid = credentials.gid
        groups = Self.supplementaryGroups(fd)
    }

    /// `SO_PEERGROUPS` (not in Glibc's module: 59 on every Linux architecture); empty when
    /// the kernel does not know it. A first call with room for 64 groups, a second with the
    /// room the kernel asked for when that was short (ERANGE).
    private static func supplementaryGroups(_ fd: Int32) -> [UInt32] {
        let peerGroups: Int32 = 59
        var groups = [UInt32](repeating: 0, count: 64)
        for _ in 0..<2 {
            var length = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            let status = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, peerGroups, $0.baseAddress, &length) }
            if status == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size)) }
            guard errno == ERANGE else { return [] }
            groups = [UInt32](repeating: 0, count: Int(length) / MemoryLayout<UInt32>.size + 1)
        }
        return []
    }

    /// Whether the configuration lets this peer in: its uid is allowed, or its group or one
    /// of its supplementary groups is.
    func isAllowed(uids: Set<UInt32>, gids: Set<UInt32>) -> Bool {
        uids.contains(uid) || gids.contains(gid) || groups.contains { gids.contains($0) }
    }
}
