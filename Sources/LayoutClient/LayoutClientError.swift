import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// What a `LayoutClient` call can fail with.
public enum LayoutClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket of the search order (or the one given) accepted a connection: each path
    /// tried, with why.
    case noDaemon(tried: [String])
    /// The daemon refused this connection (its one error line before it closes: a peer it
    /// does not admit, or no room for another connection).
    case refused(code: Int, message: String)
    /// The daemon closed the connection, or it broke; the next call connects again.
    case connectionLost(String)
    /// A JSON-RPC error answer: its code (`-32602` invalid params, `-32001` unknown handle,
    /// …, see docs/protocol.md), its message, and for invalid params the field it names.
    case server(code: Int, message: String, field: String?)
    /// The request was cancelled (`$/cancelRequest`, code -32800), or its task was.
    case cancelled
    /// An answer the client could not read as the method's result.
    case malformedAnswer(method: String, String)

    /// JSON-RPC 2.0's and layoutd's error codes the client tells apart.
    public static let unknownHandle = -32001, requestCancelled = -32800

    public var description: String {
        switch self {
        case .noDaemon(let tried): "no layoutd reachable; tried: \(tried.joined(separator: "; "))"
        case .refused(let code, let message): "layoutd refused the connection: \(message) (code \(code))"
        case .connectionLost(let why): "connection to layoutd lost: \(why)"
        case .server(let code, let message, _): "layoutd: \(message) (code \(code))"
        case .cancelled: "request cancelled"
        case .malformedAnswer(let method, let why): "malformed answer to \(method): \(why)"
        }
    }

    /// Why a socket did not accept a connection, in words a person can act on.
    static func reason(_ error: any Error) -> String {
        guard let errno = error as? Errno else { return "\(error)" }
        switch errno.code {
        case ENOENT: return "no such socket"
        case ECONNREFUSED: return "nothing listens there"
        case EACCES: return "permission denied (the socket's folder or file is not open to this user)"
        default: return String(cString: strerror(errno.code))
        }
    }

    /// The error an error answer's `error` member stands for.
    init(error: JSONValue, method: String) {
        let code = error["code"]?.doubleValue.map { Int($0) } ?? -32603
        if code == Self.requestCancelled {
            self = .cancelled
            return
        }
        self = .server(code: code, message: error["message"]?.stringValue ?? JSONWriter.string(error),
                       field: error["data"]?["field"]?.stringValue)
    }
}
