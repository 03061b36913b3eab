import LayoutEngine
import LayoutProtocol

/// `measure`: the layout params → `{size, lineCount, truncated}`, nothing else computed (one
/// plain paragraph, as most chat messages are, without building its lines at all); with
/// `widths`, one such measure per width, the text analysed and shaped once for all.
enum MeasureMethod: Method {
    static let name = "measure"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> MeasureParams { try MeasureParams(json: params) }

    static func run(_ p: MeasureParams, in context: MethodContext) throws(RPCError) -> MeasureReply {
        let service = context.service, session = context.session
        var built = try service.build(p.layout, session: session, detail: .lines, detect: false)
        built.request.keepsGeometry = false
        built.request.wantsFontTable = false
        built.request.shouldStop = service.stopCheck(session)
        let engine = service.engine
        let fingerprint = engine.fonts.fingerprint
        do {
            guard let widths = p.widths else {
                if let size = try engine.measurePlainParagraph(built.request, deferredRelease: session.deferredRelease) {
                    return .one(MeasureResult(width: wire(size.width), height: wire(size.height), lineCount: size.lineCount,
                                              truncated: false, fontFingerprint: fingerprint))
                }
                let layout = try engine.layout(built.request, deferredRelease: session.deferredRelease)
                return .one(measure(layout, fontFingerprint: fingerprint))
            }
            let layouts = try engine.layouts(built.request, widths: widths.map { Optional($0) },
                                             deferredRelease: session.deferredRelease)
            return .many(MeasuresResult(measures: layouts.map { measure($0, fontFingerprint: fingerprint) },
                                        fontFingerprint: fingerprint))
        } catch {
            throw LayoutService.rpcError(error)
        }
    }

    private static func measure(_ layout: TextLayout, fontFingerprint: String) -> MeasureResult {
        MeasureResult(width: wire(layout.width), height: wire(layout.height), lineCount: layout.lines.count,
                      truncated: layout.truncated, fontFingerprint: fontFingerprint)
    }
}
