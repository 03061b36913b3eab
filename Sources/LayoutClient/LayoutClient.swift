import LayoutProtocol
import LayoutTransport

/// A client of layoutd for Swift programs: async/await, the protocol's parameter and result
/// types (`LayoutParams` in, `LayoutResult`, `MeasureResult`, `HitTestResult`, … out), errors
/// as `LayoutClientError`. Requests from many tasks share one connection and travel
/// together (answers are matched by id); cancelling a task cancels its request in the daemon.
///
/// The daemon is found as every client finds it (docs/protocol.md, Transport): `socket`
/// when given (a path, or `tcp:HOST:PORT` for a TCP listener, with its `token`), else `$LAYOUTD_SOCKET`, else the first of `$XDG_RUNTIME_DIR/layoutd/layoutd.sock`,
/// `/run/layoutd/layoutd.sock` and `/tmp/layoutd-$UID/layoutd.sock` that accepts. It connects
/// on the first call; a call whose connection was lost is sent again on a new one. Handles
/// of retained layouts are the client's: it lays a document out again on a daemon that does
/// not have it (after a restart, or an eviction).
///
/// The methods are in `LayoutClient+Methods.swift`; `request(_:_:)` sends any other.
public actor LayoutClient {
    /// One edit of a retained layout's text: `[start, end)` replaced by `text`.
    public struct Edit: Sendable {
        public var start: Int, end: Int, text: String
        public init(start: Int, end: Int, text: String) { self.start = start; self.end = end; self.text = text }
    }

    public let socket: String?
    /// The token a TCP listener asks for (its `auth.tokenFile`), sent with `initialize`.
    let token: String?
    public let offsetEncoding: OffsetEncoding
    /// The name `initialize` gives the daemon (its log and `stats` show it).
    public let clientName: String
    private var channel: RPCChannel?
    /// The socket the last connection reached (set before `initialize`, so that a refusal
    /// can name it), and what `initialize` answered.
    public private(set) var connectedPath: String?
    public private(set) var server: InitializeResult?
    private let fontListeners = FontListeners()
    /// The retained layouts made through this client, for laying them out again.
    var documents = RetainedDocuments()

    /// `offsetEncoding`: how offsets count, both ways (UTF-16 code units by default, as the
    /// protocol's; `.utf8` for `String.utf8` offsets, `.utf32` for Unicode scalars).
    public init(socket: String? = nil, token: String? = nil, offsetEncoding: OffsetEncoding = .utf16,
                clientName: String = "LayoutClient") {
        self.socket = socket
        self.token = token
        self.offsetEncoding = offsetEncoding
        self.clientName = clientName
    }

    /// Connects now (otherwise the first call does) → what the daemon said of itself.
    @discardableResult
    public func connect() async throws(LayoutClientError) -> InitializeResult {
        _ = try await liveChannel()
        guard let server else { throw .connectionLost("no initialize answer") }
        return server
    }

    private func liveChannel() async throws(LayoutClientError) -> RPCChannel {
        if let channel, !channel.isLost { return channel }
        channel?.close()
        channel = nil
        let (connection, path) = try Self.open(socket)
        connectedPath = path
        let listeners = fontListeners
        let fresh = try RPCChannel(connection: connection) { method, params in
            if method == "fontsChanged" { listeners.notify(params?["fontFingerprint"]?.stringValue ?? "") }
        }
        var params: [(String, JSONValue)] = [("offsetEncodings", [.string(offsetEncoding.rawValue)]),
                                             ("client", ["name": .string(clientName)])]
        if fontListeners.count > 0 { params.append(("subscribe", ["fontsChanged"])) }
        if let token { params.append(("auth", ["token": .string(token)])) }
        let answer = try await fresh.call("initialize", .object(params))
        guard let initialized = InitializeResult(answer: answer) else {
            fresh.close()
            throw .malformedAnswer(method: "initialize", JSONWriter.string(answer))
        }
        (channel, server) = (fresh, initialized)
        documents.newConnection()
        return fresh
    }

    /// A connection to `explicit`, or to the first of the search order that accepts one.
    static func open(_ explicit: String?) throws(LayoutClientError) -> (LineConnection, String) {
        var tried: [String] = []
        for path in explicit.map({ [$0] }) ?? UnixSocket.clientSearchPaths() {
            do { return (try LineConnection(address: path), path) } catch {
                tried.append("\(path): \(LayoutClientError.reason(error))")
            }
        }
        throw .noDaemon(tried: tried)
    }

    /// One call's result, decoded by `decode`. A call whose connection was lost (the daemon
    /// restarted, or went away) is sent once more on a new one.
    func call<T>(_ method: String, _ params: JSONValue, _ decode: (JSONValue) -> T?) async throws(LayoutClientError) -> T {
        let answer: JSONValue
        do { answer = try await liveChannel().call(method, params) } catch .connectionLost {
            answer = try await liveChannel().call(method, params)
        }
        guard let value = decode(answer) else { throw .malformedAnswer(method: method, JSONWriter.string(answer)) }
        return value
    }

    /// A call on the retained layout `handle` (`params` without it): sent with the daemon's
    /// handle for it, after laying the document out again when the daemon of this
    /// connection does not have it (a restart, or an eviction: `-32001`).
    func call<T>(_ method: String, handle: String, _ params: [(String, JSONValue)],
                 _ decode: (JSONValue) -> T?) async throws(LayoutClientError) -> T {
        let daemonHandle = try await currentHandle(for: handle)
        do {
            return try await call(method, .object([("handle", .string(daemonHandle))] + params), decode)
        } catch .server(let code, _, _) where code == LayoutClientError.unknownHandle && documents.knows(handle) {
            documents.lostDaemonHandle(handle)
            let again = try await currentHandle(for: handle)
            return try await call(method, .object([("handle", .string(again))] + params), decode)
        }
    }

    /// The daemon's handle for `handle` on the current connection, laying the document out
    /// again for it when needed.
    private func currentHandle(for handle: String) async throws(LayoutClientError) -> String {
        _ = try await liveChannel()
        if let current = documents.daemonHandle(for: handle) { return current }
        guard let params = documents.params(of: handle) else { return handle }
        let layout = try await call("layout", params.requestJSON, LayoutResult.init(json:))
        guard let fresh = layout.handle else { throw .malformedAnswer(method: "layout", "no handle for a retained layout") }
        documents.relaid(handle, daemonHandle: fresh)
        return fresh
    }

    /// Any method, its params and its `result` as JSON: for what this library has no type
    /// for (a plugin's options, a member newer than it), and for tools that print the wire.
    /// Sent again on a new connection when its own was lost, like every call; handles in
    /// `params` go as they are (the daemon's, not the client's own).
    public func request(_ method: String, _ params: JSONValue) async throws(LayoutClientError) -> JSONValue {
        try await call(method, params) { $0 }
    }

    /// Calls `listener` with the new font fingerprint whenever the daemon's fonts change
    /// (`fontsChanged`); subscribes on this connection and every later one.
    public func onFontsChanged(_ listener: @escaping @Sendable (String) -> Void) async throws(LayoutClientError) {
        fontListeners.add(listener)
        channel?.close()
        channel = nil
        _ = try await liveChannel()
    }

    /// Closes the connection; a later call connects again.
    public func close() {
        channel?.close()
        channel = nil
    }
}
