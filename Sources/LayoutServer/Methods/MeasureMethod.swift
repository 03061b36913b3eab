import LayoutEngine
import LayoutProtocol

/// `measure`: the layout params → `{size, lineCount, truncated}`, nothing else computed.
enum MeasureMethod: Method {
    static let name = "measure"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> LayoutParams { try LayoutParams(json: params) }

    static func run(_ p: LayoutParams, in context: MethodContext) throws(RPCError) -> MeasureResult {
        let service = context.service, session = context.session
        var built = try service.build(p, session: session, detail: .lines, detect: false)
        built.request.keepsGeometry = false
        built.request.shouldStop = service.stopCheck(session)
        let engine = service.engine
        let layout: TextLayout
        do { layout = try engine.layout(built.request, deferredRelease: session.deferredRelease) } catch { throw LayoutService.rpcError(error) }
        return MeasureResult(width: wire(layout.width), height: wire(layout.height), lineCount: layout.lines.count,
                             truncated: layout.truncated, fontFingerprint: engine.fonts.fingerprint)
    }
}
