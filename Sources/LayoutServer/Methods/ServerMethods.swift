import LayoutProtocol

/// `stats`: counters a person can read (see `LayoutService.stats`). Not quick: it walks the
/// plugins and caches.
enum StatsMethod: Method {
    static let name = "stats"
    static let order = MethodOrder.concurrent(quick: false)
    static func decode(_ params: JSONValue?) throws(RPCError) {}
    static func run(_ p: Void, in context: MethodContext) throws(RPCError) -> JSONValue { context.service.stats() }
}

/// `reload`: the configuration read again and the fonts rescanned (see `LayoutService.reload`).
enum ReloadMethod: Method {
    static let name = "reload"
    static let order = MethodOrder.concurrent(quick: false)
    static func decode(_ params: JSONValue?) throws(RPCError) {}
    static func run(_ p: Void, in context: MethodContext) throws(RPCError) -> ReloadResult {
        ReloadResult(fontFingerprint: try context.service.reload())
    }
}

/// `ping`: `{pong: true}`, for health checks.
enum PingMethod: Method {
    static let name = "ping"
    static let order = MethodOrder.concurrent(quick: true)
    static func decode(_ params: JSONValue?) throws(RPCError) {}
    static func run(_ p: Void, in context: MethodContext) throws(RPCError) -> PingResult { PingResult() }
}

/// `$/cancelRequest {id}`: cancels a request of this connection that is queued or running
/// (it answers -32800). Unknown or finished ids are ignored, as LSP does.
enum CancelRequestMethod: Method {
    static let name = "$/cancelRequest"
    static let order = MethodOrder.immediate

    static func decode(_ params: JSONValue?) throws(RPCError) -> RPCId? {
        try ParamReader(params).member("id").flatMap(RPCId.init)
    }

    static func run(_ id: RPCId?, in context: MethodContext) throws(RPCError) -> JSONValue {
        if let id { context.session.connection.cancel(id) }
        return .null
    }
}

/// Other `$/…` protocol notifications: accepted and ignored (LSP's rule for `$/` methods).
enum IgnoredNotification: Method {
    static let name = "$/"
    static let order = MethodOrder.immediate
    static func decode(_ params: JSONValue?) throws(RPCError) {}
    static func run(_ p: Void, in context: MethodContext) throws(RPCError) -> JSONValue { .null }
}
