#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unix stream sockets: listening, accepting, connecting; whole reads and writes.
public enum UnixSocket {
    /// Where layoutd listens unless told otherwise: `$XDG_RUNTIME_DIR/layoutd/layoutd.sock`,
    /// or `/tmp/layoutd-$UID/layoutd.sock` when that variable is unset or empty.
    public static func defaultDaemonPath() -> String {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            return "\(runtime)/layoutd/layoutd.sock"
        }
        return "/tmp/layoutd-\(getuid())/layoutd.sock"
    }

    /// Where clients look for layoutd, in order: `$LAYOUTD_SOCKET` (alone, when set), then
    /// `$XDG_RUNTIME_DIR/layoutd/layoutd.sock` (a user's own daemon: the user unit, or one
    /// started by hand), `/run/layoutd/layoutd.sock` (the system service), and
    /// `/tmp/layoutd-$UID/layoutd.sock` (a daemon started where `XDG_RUNTIME_DIR` is unset).
    public static func clientSearchPaths() -> [String] {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
            return value
        }
        if let explicit = variable("LAYOUTD_SOCKET") { return [explicit] }
        var paths: [String] = []
        if let runtime = variable("XDG_RUNTIME_DIR") { paths.append("\(runtime)/layoutd/layoutd.sock") }
        paths.append("/run/layoutd/layoutd.sock")
        paths.append("/tmp/layoutd-\(getuid())/layoutd.sock")
        return paths
    }

    /// Longest socket path the kernel accepts (sun_path less its NUL).
    public static let maxPathLength = 107

    private static func address(_ path: String) throws(Errno) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathLength else { throw Errno(ENAMETOOLONG, "socket path \(path)") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return addr
    }

    /// Binds and listens on `path` (which must not exist), with the socket file made
    /// owner-only (0600). Returns the listening descriptor.
    public static func listen(path: String, backlog: Int32 = 128) throws(Errno) -> FileDescriptor {
        var addr = try address(path)
        let fd = FileDescriptor(adopting: try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        let previous = umask(0o177)
        defer { umask(previous) }
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        try syscall("bind \(path)") {
            withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd.rawValue, $0, size) } }
        }
        try syscall("listen \(path)") { Glibc.listen(fd.rawValue, backlog) }
        return fd
    }

    /// Connects to the socket at `path`.
    public static func connect(path: String) throws(Errno) -> FileDescriptor {
        var addr = try address(path)
        let fd = FileDescriptor(adopting: try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        try syscall("connect \(path)") {
            withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.rawValue, $0, size) } }
        }
        return fd
    }

    /// Accepts one connection (blocking).
    public static func accept(_ listener: borrowing FileDescriptor) throws(Errno) -> FileDescriptor {
        let fd = FileDescriptor(adopting: try syscall("accept") { Glibc.accept(listener.rawValue, nil, nil) })
        _ = fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Accepts one connection if one is waiting: nil when none is, the new descriptor
    /// non-blocking and close-on-exec otherwise.
    public static func acceptNonBlocking(_ listener: borrowing FileDescriptor) throws(Errno) -> FileDescriptor? {
        let raw = listener.rawValue
        guard let accepted = try nonBlockingSyscall("accept", { Glibc.accept(raw, nil, nil) }) else { return nil }
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
        return FileDescriptor(adopting: accepted)
    }

    /// Writes all of `bytes` (retrying short writes and EINTR). MSG_NOSIGNAL: a vanished peer
    /// is an EPIPE error, never a SIGPIPE.
    public static func writeAll(_ fd: borrowing FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        let raw = fd.rawValue
        var offset = 0
        while offset < bytes.count {
            let n = try syscall("send") { send(raw, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            offset += n
        }
    }

    /// Reads up to `buffer.count` bytes; 0 at end of stream.
    public static func read(_ fd: borrowing FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let raw = fd.rawValue
        return try syscall("recv") { recv(raw, buffer.baseAddress, buffer.count, 0) }
    }

    /// Sends what the socket takes now of `bytes` without blocking: the count sent, nil when
    /// the send buffer is full.
    public static func sendNow(_ fd: borrowing FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
        let raw = fd.rawValue
        return try nonBlockingSyscall("write") { send(raw, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Reads what the socket holds now, up to `buffer.count` bytes, without blocking: 0 at end
    /// of stream, nil when nothing is there yet.
    public static func receiveNow(_ fd: borrowing FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        let raw = fd.rawValue
        return try nonBlockingSyscall("read") { recv(raw, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }
}
