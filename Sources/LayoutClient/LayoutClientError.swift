import LayoutProtocol

/// What a `LayoutClient` call can fail with.
public enum LayoutClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket of the search order (or the one given) accepted a connection: each path
    /// tried, with why.
    case noDaemon(tried: [String])
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
        case .connectionLost(let why): "connection to layoutd lost: \(why)"
        case .server(let code, let message, _): "layoutd: \(message) (code \(code))"
        case .cancelled: "request cancelled"
        case .malformedAnswer(let method, let why): "malformed answer to \(method): \(why)"
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
