import LayoutProtocol
import LayoutTransport

/// A client of layoutd for Swift programs: async/await, the protocol's parameter and result
/// types (`LayoutParams` in, `LayoutResult`, `MeasureResult`, `HitTestResult`, … out), errors
/// as `LayoutClientError`. Requests from many tasks share one connection and travel
/// together (answers are matched by id); cancelling a task cancels its request in the daemon.
///
/// The daemon is found as every client finds it (docs/protocol.md, Transport): `socket`
/// when given, else `$LAYOUTD_SOCKET`, else the first of `$XDG_RUNTIME_DIR/layoutd/layoutd.sock`,
/// `/run/layoutd/layoutd.sock` and `/tmp/layoutd-$UID/layoutd.sock` that accepts. It connects
/// on the first call, and again on the call after a connection was lost.
///
/// The methods are in `LayoutClient+Methods.swift`; `request(_:_:)` sends any other.
public actor LayoutClient {
    /// One edit of a retained layout's text: `[start, end)` replaced by `text`.
    public struct Edit: Sendable {
        public var start: Int, end: Int, text: String
        public init(start: Int, end: Int, text: String) { self.start = start; self.end = end; self.text = text }
    }

    public let socket: String?
    public let offsetEncoding: OffsetEncoding
    /// The name `initialize` gives the daemon (its log and `stats` show it).
    public let clientName: String
    private var channel: RPCChannel?
    /// The socket the last connection reached (set before `initialize`, so that a refusal
    /// can name it), and what `initialize` answered.
    public private(set) var connectedPath: String?
    public private(set) var server: InitializeResult?
    private let fontListeners = FontListeners()

    /// `offsetEncoding`: how offsets count, both ways (UTF-16 code units by default, as the
    /// protocol's; `.utf8` for `String.utf8` offsets, `.utf32` for Unicode scalars).
    public init(socket: String? = nil, offsetEncoding: OffsetEncoding = .utf16, clientName: String = "LayoutClient") {
        self.socket = socket
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
        let answer = try await fresh.call("initialize", .object(params))
        guard let initialized = InitializeResult(answer: answer) else {
            fresh.close()
            throw .malformedAnswer(method: "initialize", JSONWriter.string(answer))
        }
        (channel, server) = (fresh, initialized)
        return fresh
    }

    /// A connection to `explicit`, or to the first of the search order that accepts one.
    static func open(_ explicit: String?) throws(LayoutClientError) -> (LineConnection, String) {
        var tried: [String] = []
        for path in explicit.map({ [$0] }) ?? UnixSocket.clientSearchPaths() {
            do { return (try LineConnection(path: path), path) } catch {
                tried.append("\(path): \(LayoutClientError.reason(error))")
            }
        }
        throw .noDaemon(tried: tried)
    }

    /// One call's result, decoded by `decode`.
    func call<T>(_ method: String, _ params: JSONValue, _ decode: (JSONValue) -> T?) async throws(LayoutClientError) -> T {
        let answer = try await liveChannel().call(method, params)
        guard let value = decode(answer) else { throw .malformedAnswer(method: method, JSONWriter.string(answer)) }
        return value
    }

    /// Any method, its params and its `result` as JSON: for what this library has no type
    /// for (a plugin's options, a member newer than it), and for tools that print the wire.
    public func request(_ method: String, _ params: JSONValue) async throws(LayoutClientError) -> JSONValue {
        try await liveChannel().call(method, params)
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
