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
public actor LayoutClient {
    /// One edit of a retained layout's text: `[start, end)` replaced by `text`.
    public struct Edit: Sendable {
        public var start: Int, end: Int, text: String
        public init(start: Int, end: Int, text: String) { self.start = start; self.end = end; self.text = text }
    }

    public let socket: String?
    public let offsetEncoding: OffsetEncoding
    private var channel: RPCChannel?
    /// The socket the current connection reached, and what `initialize` answered.
    public private(set) var connectedPath: String?
    public private(set) var server: InitializeResult?
    private let fontListeners = FontListeners()

    /// `offsetEncoding`: how offsets count, both ways (UTF-16 code units by default, as the
    /// protocol's; `.utf8` for `String.utf8` offsets, `.utf32` for Unicode scalars).
    public init(socket: String? = nil, offsetEncoding: OffsetEncoding = .utf16) {
        self.socket = socket
        self.offsetEncoding = offsetEncoding
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
        let listeners = fontListeners
        let fresh = try RPCChannel(connection: connection) { method, params in
            if method == "fontsChanged" { listeners.notify(params?["fontFingerprint"]?.stringValue ?? "") }
        }
        var params: [(String, JSONValue)] = [("offsetEncodings", [.string(offsetEncoding.rawValue)]),
                                             ("client", ["name": "LayoutClient"])]
        if fontListeners.count > 0 { params.append(("subscribe", ["fontsChanged"])) }
        let answer = try await fresh.call("initialize", .object(params))
        guard let initialized = InitializeResult(answer: answer) else {
            fresh.close()
            throw .malformedAnswer(method: "initialize", JSONWriter.string(answer))
        }
        (channel, connectedPath, server) = (fresh, path, initialized)
        return fresh
    }

    /// A connection to `explicit`, or to the first of the search order that accepts one.
    static func open(_ explicit: String?) throws(LayoutClientError) -> (LineConnection, String) {
        var tried: [String] = []
        for path in explicit.map({ [$0] }) ?? UnixSocket.clientSearchPaths() {
            do { return (try LineConnection(path: path), path) } catch { tried.append("\(path): \(error)") }
        }
        throw .noDaemon(tried: tried)
    }

    /// One call's result, decoded by `decode`.
    private func call<T>(_ method: String, _ params: JSONValue, _ decode: (JSONValue) -> T?) async throws(LayoutClientError) -> T {
        let answer = try await liveChannel().call(method, params)
        guard let value = decode(answer) else { throw .malformedAnswer(method: method, JSONWriter.string(answer)) }
        return value
    }

    // MARK: Methods (docs/protocol.md)

    /// Lays the text out → its lines and regions; with `retain`, a `handle` for the queries.
    public func layout(_ params: LayoutParams, retain: Bool = false) async throws(LayoutClientError) -> LayoutResult {
        var params = params
        params.retain = params.retain || retain
        return try await call("layout", params.requestJSON, LayoutResult.init(json:))
    }

    /// Size and line count only: the fast path for "how tall is this at this width".
    public func measure(_ params: LayoutParams) async throws(LayoutClientError) -> MeasureResult {
        try await call("measure", params.requestJSON, MeasureResult.init(answer:))
    }

    public func hitTest(handle: String, x: Double, y: Double) async throws(LayoutClientError) -> HitTestResult {
        try await call("hitTest", ["handle": .string(handle), "x": .number(x), "y": .number(y)], HitTestResult.init(answer:))
    }

    public func caret(handle: String, index: Int) async throws(LayoutClientError) -> CaretResult {
        try await call("caret", ["handle": .string(handle), "index": .number(Double(index))], CaretResult.init(answer:))
    }

    /// Selection rectangles of `[start, end)`.
    public func rects(handle: String, start: Int, end: Int) async throws(LayoutClientError) -> [RectParams] {
        try await call("rects", ["handle": .string(handle), "start": .number(Double(start)), "end": .number(Double(end))]) {
            $0["rects"]?.decodedArray(RectParams.init(answer:))
        }
    }

    public func update(handle: String, edits: [Edit]) async throws(LayoutClientError) -> UpdateResult {
        let list = edits.map { e -> JSONValue in ["start": .number(Double(e.start)), "end": .number(Double(e.end)), "text": .string(e.text)] }
        return try await call("update", ["handle": .string(handle), "edits": .array(list)], UpdateResult.init(answer:))
    }

    /// A picture of a retained layout: `format` "png" (`data` base64) or "svg".
    public func render(handle: String, format: String = "png", scale: Double = 1) async throws(LayoutClientError) -> RenderResult {
        try await call("render", ["handle": .string(handle), "format": .string(format), "scale": .number(scale)],
                       RenderResult.init(answer:))
    }

    /// Frees a retained layout → whether the daemon still had it.
    @discardableResult
    public func release(handle: String) async throws(LayoutClientError) -> Bool {
        try await call("release", ["handle": .string(handle)]) { $0["released"].map { $0 == true } }
    }

    public func boundaries(text: String, kind: String) async throws(LayoutClientError) -> [Int] {
        try await call("boundaries", ["text": .string(text), "kind": .string(kind)]) {
            $0["offsets"]?.arrayValue?.compactMap { $0.doubleValue.map { Int($0) } }
        }
    }

    public func ping() async throws(LayoutClientError) -> Bool {
        try await call("ping", [:]) { $0["pong"].map { $0 == true } }
    }

    /// The daemon's counters, as it sent them (docs/protocol.md, `stats`).
    public func stats() async throws(LayoutClientError) -> JSONValue {
        try await call("stats", [:]) { $0 }
    }

    /// Re-reads the daemon's configuration and fonts → the new font fingerprint.
    public func reload() async throws(LayoutClientError) -> String {
        try await call("reload", [:]) { $0["fontFingerprint"]?.stringValue }
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
