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
        let fd = FileDescriptor(adopting: try syscall("socket") {
            Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        })
        let raw = fd.rawValue
        // A catalog stopped and started again can take its port back at once, without waiting
        // out TIME_WAIT of the connections it closed.
        var on: Int32 = 1
        try syscall("setsockopt SO_REUSEADDR") {
            setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)   // INADDR_LOOPBACK
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        try syscall("bind 127.0.0.1:\(port)") {
            withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(raw, $0, size) } }
        }
        try syscall("listen 127.0.0.1:\(port)") { Glibc.listen(raw, backlog) }
        var bound = sockaddr_in()
        var boundSize = size
        try syscall("getsockname") {
            withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(raw, $0, &boundSize) }
            }
        }
        self.port = Int(UInt16(bigEndian: bound.sin_port))
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
