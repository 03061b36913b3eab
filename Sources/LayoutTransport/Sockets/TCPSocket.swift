#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// TCP stream sockets over IPv4 or IPv6: listening on a numeric address (with the port the
/// kernel chose for port 0), connecting to an address or a host name, and the options a
/// request–answer protocol wants.
/// Reading and writing go through `UnixSocket`'s calls, which work on any stream socket.
public enum TCPSocket {
    /// The socket address of `host` and `port`, as getaddrinfo(3) makes it: for a listener
    /// (`passive`) a numeric host alone (`127.0.0.1`, `::1`, `0.0.0.0`, `::`), so that where
    /// a daemon listens never depends on name resolution; for a client, a name too (the
    /// first address it resolves to).
    private static func withAddress<T: ~Copyable>(host: String, port: UInt16, passive: Bool,
                                       _ body: (UnsafePointer<addrinfo>) throws(Errno) -> T) throws(Errno) -> T {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE | AI_NUMERICHOST : 0)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let found else {
            let wanted = passive ? "a numeric IPv4 or IPv6 address" : "an address or a host name that resolves"
            throw Errno(EINVAL, "\(host) is not \(wanted) (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(found) }
        return try body(found)
    }

    /// A new TCP socket for `info`'s family, close-on-exec.
    private static func socket(for info: UnsafePointer<addrinfo>) throws(Errno) -> FileDescriptor {
        let family = info.pointee.ai_family
        return FileDescriptor(adopting: try syscall("socket") {
            Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        })
    }

    /// Binds `host`:`port` (0: a port the kernel picks) and listens. SO_REUSEADDR, so that a
    /// daemon restarted at once can take its port back without waiting out TIME_WAIT; an IPv6
    /// address listens on IPv6 alone (IPV6_V6ONLY), so `::` and `0.0.0.0` can be named apart.
    public static func listen(host: String, port: UInt16, backlog: Int32 = 128) throws(Errno) -> FileDescriptor {
        try withAddress(host: host, port: port, passive: true) { (info) throws(Errno) -> FileDescriptor in
            let fd = try socket(for: info)
            let raw = fd.rawValue
            try setOption(raw, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR")
            if info.pointee.ai_family == AF_INET6 { try setOption(raw, Int32(IPPROTO_IPV6), IPV6_V6ONLY, "IPV6_V6ONLY") }
            try syscall("bind \(host):\(port)") { bind(raw, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            try syscall("listen \(host):\(port)") { Glibc.listen(raw, backlog) }
            return fd
        }
    }

    /// Connects to `host`:`port` (blocking), trying each address a name resolves to in turn
    /// (`localhost` may be `::1` before `127.0.0.1`), with Nagle's algorithm off.
    public static func connect(host: String, port: UInt16) throws(Errno) -> FileDescriptor {
        try withAddress(host: host, port: port, passive: false) { (first) throws(Errno) -> FileDescriptor in
            var info: UnsafePointer<addrinfo>? = first
            var failure = Errno(EADDRNOTAVAIL, "connect \(host):\(port)")
            while let current = info {
                do throws(Errno) {
                    let fd = try socket(for: current)
                    let raw = fd.rawValue
                    try syscall("connect \(host):\(port)") { Glibc.connect(raw, current.pointee.ai_addr, current.pointee.ai_addrlen) }
                    try setNoDelay(raw)
                    return fd
                } catch {
                    failure = error
                }
                info = UnsafePointer(current.pointee.ai_next)
            }
            throw failure
        }
    }

    /// Turns Nagle's algorithm off: an answer is sent when it is written, not held back until
    /// the peer acknowledges the one before (RFC 896), which would add a round trip's delay
    /// to every request of a client that waits for each answer.
    public static func setNoDelay(_ fd: Int32) throws(Errno) {
        try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, "TCP_NODELAY")
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ shown: String) throws(Errno) {
        var on: Int32 = 1
        try syscall("setsockopt \(shown)") { setsockopt(fd, level, name, &on, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// The address a socket is bound to, as `host:port` (`[host]:port` for IPv6), and its
    /// port; nil for a socket that is not an IPv4 or IPv6 one.
    public static func boundAddress(_ fd: Int32) -> (shown: String, port: UInt16)? {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        guard status == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, size, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        let family = Int32(storage.ss_family)
        guard named == 0, family == AF_INET || family == AF_INET6, let port = UInt16(String(cString: service)) else { return nil }
        let shownHost = String(cString: host)
        return (family == AF_INET6 ? "[\(shownHost)]:\(port)" : "\(shownHost):\(port)", port)
    }
}
