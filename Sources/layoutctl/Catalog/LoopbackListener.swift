import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 alone: the catalog is never reachable from another
/// host. Owns its descriptor.
struct LoopbackListener: ~Copyable {
    let descriptor: FileDescriptor
    /// The port it listens on (the kernel's choice when asked for port 0).
    let port: Int

    /// Binds 127.0.0.1:`port` (0: any free port) and listens.
    init(port: Int, backlog: Int32 = 64) throws(Errno) {
        guard let requested = UInt16(exactly: port) else { throw Errno(EINVAL, "port \(port)") }
        let fd = try TCPSocket.listen(host: "127.0.0.1", port: requested, backlog: backlog)
        guard let bound = TCPSocket.boundAddress(fd.rawValue) else { throw Errno(EINVAL, "getsockname 127.0.0.1:\(port)") }
        self.port = Int(bound.port)
        self.descriptor = fd
    }

    /// The next connection (blocking), with receive and send timeouts set so that a peer
    /// that stops half-way does not hold its thread for ever.
    func accept(timeoutSeconds: Int) throws(Errno) -> FileDescriptor {
        let connection = try UnixSocket.accept(descriptor)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        let raw = connection.rawValue
        let size = socklen_t(MemoryLayout<timeval>.size)
        try syscall("setsockopt SO_RCVTIMEO") { setsockopt(raw, SOL_SOCKET, SO_RCVTIMEO, &timeout, size) }
        try syscall("setsockopt SO_SNDTIMEO") { setsockopt(raw, SOL_SOCKET, SO_SNDTIMEO, &timeout, size) }
        return connection
    }
}
