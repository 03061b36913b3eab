import LayoutProtocol

/// `initialize`: chooses the connection's offset encoding, subscribes it to notifications,
/// and says what the server is and answers. Immediate: the encoding applies from the next
/// message on.
enum InitializeMethod: Method {
    static let name = "initialize"
    static let order = MethodOrder.immediate
    static let notifications = ["fontsChanged"]

    static func decode(_ params: JSONValue?) throws(RPCError) -> InitializeParams { try InitializeParams(json: params) }

    static func run(_ p: InitializeParams, in context: MethodContext) throws(RPCError) -> InitializeResult {
        var chosen = OffsetEncoding.utf16
        if !p.offsetEncodings.isEmpty {
            guard let first = p.offsetEncodings.lazy.compactMap(OffsetEncoding.init(rawValue:)).first else {
                throw .invalidParams(field: "offsetEncodings", "names no encoding this server knows (utf-8, utf-16, utf-32)")
            }
            chosen = first
        }
        let service = context.service, session = context.session
        session.offsetEncoding = chosen
        if p.subscribe.contains("fontsChanged") { service.subscribe(session) }
        return InitializeResult(protocolVersion: LayoutService.protocolVersion, offsetEncoding: chosen.rawValue,
                                serverName: LayoutService.serverName, serverVersion: LayoutService.serverVersion,
                                methods: MethodRegistry.names, plugins: service.plugins.summaryJSON,
                                notifications: notifications, fontFingerprint: service.engine.fonts.fingerprint,
                                fontFingerprintParts: service.engine.fonts.fingerprintWithParts.parts.map { ($0.name, $0.value) },
                                serverNode: service.store.node)
    }
}
