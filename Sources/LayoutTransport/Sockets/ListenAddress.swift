#if canImport(Glibc)
import Glibc
#endif

/// Where a daemon listens, as its configuration names it, or where a client connects:
/// `unix:/path/to.sock` or `tcp:HOST:PORT` (an IPv6 address in brackets: `tcp:[::1]:7000`;
/// port 0 lets the kernel pick one). A listener's host must be numeric (`hasNumericHost`);
/// a client's may be a name.
public enum ListenAddress: Sendable, Equatable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: UInt16)

    /// Why an address could not be read.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(parsing text: String) throws(Failure) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/") else {
                throw Failure(description: "\"\(text)\": a unix listener needs an absolute path (unix:/run/layoutd/layoutd.sock)")
            }
            self = .unix(path: path)
            return
        }
        guard text.hasPrefix("tcp:") else {
            throw Failure(description: "\"\(text)\" is neither unix:/PATH nor tcp:HOST:PORT")
        }
        let rest = text.dropFirst(4)
        guard let colon = rest.lastIndex(of: ":") else {
            throw Failure(description: "\"\(text)\" has no port: write tcp:HOST:PORT, e.g. tcp:127.0.0.1:7000")
        }
        var host = String(rest[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = UInt16(rest[rest.index(after: colon)...]) else {
            throw Failure(description: "\"\(text)\": the port must be a number from 0 to 65535")
        }
        guard !host.isEmpty, !host.contains("["), !host.contains("]") else {
            throw Failure(description: "\"\(text)\": name the host by its numeric address (127.0.0.1, 0.0.0.0, [::1])")
        }
        self = .tcp(host: host, port: port)
    }

    /// Whether a TCP address's host is a numeric IPv4 or IPv6 address (true for a Unix one).
    public var hasNumericHost: Bool {
        guard case .tcp(let host, _) = self else { return true }
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    public var isTCP: Bool {
        if case .tcp = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }
}
