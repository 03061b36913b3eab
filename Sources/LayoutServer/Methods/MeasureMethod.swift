import LayoutEngine
import LayoutProtocol

/// `measure`: the layout params → `{size, lineCount, truncated}`, nothing else computed (one
/// plain paragraph, as most chat messages are, without building its lines at all); with
/// `widths`, one such measure per width, the text analysed and shaped once for all. Params
/// that differ from the connection's last only in their text and width take its built
/// request (`MeasureTemplate`) rather than being decoded and built again.
enum MeasureMethod: Method {
    static let name = "measure"
    static let order = MethodOrder.concurrent(quick: true)

    /// Read in `run`, where the connection's template is at hand.
    static func decode(_ params: JSONValue?) throws(RPCError) -> JSONValue? { params }

    static func run(_ params: JSONValue?, in context: MethodContext) throws(RPCError) -> MeasureReply {
        let service = context.service, session = context.session
        let engine = service.engine
        let parts = MeasureTemplate.parts(params)
        // (One look at the connection's template: it decides both whether this request takes
        // it and what this request leaves for the next.)
        let stands = parts.map { parts in
            session.connection.measureTemplate.withLock {
                $0.map { $0.standsFor(parts.members, engine: ObjectIdentifier(engine), encoding: session.offsetEncoding) ? $0 : nil }
            } ?? nil
        } ?? nil
        if let stands, var request = stands.request, let parts, let units = parts.text.utf16Units {
            request.fontCarry = stands.fontCarry
            request.text = try service.requestText(units: units, text: "")
            // (Read as the decoder reads it: a bad width is refused alike.)
            request.width = try LayoutParams.width(ParamReader(params))
            request.shouldStop = service.stopCheck(session)
            return try measure(request, widths: nil, settings: stands.settingsDigest, engine: engine, session: session)
        }
        let p = try MeasureParams(json: params)
        var built = try service.build(p.layout, session: session, detail: .lines, detect: false)
        built.request.keepsGeometry = false
        built.request.wantsFontTable = false
        if let parts, p.widths == nil {
            keepTemplate(parts.members, built.request, seenBefore: stands != nil, engine: engine, session: session)
        }
        built.request.shouldStop = service.stopCheck(session)
        return try measure(built.request, widths: p.widths, settings: nil, engine: engine, session: session)
    }

    /// Leaves the connection's next measure `request` under `members` when the last measure
    /// had these members too (`seenBefore`), else the members alone.
    private static func keepTemplate(_ members: [(String, JSONValue)], _ request: LayoutRequest, seenBefore: Bool,
                                     engine: TextLayoutEngine, session: Session) {
        var kept: LayoutRequest?
        if seenBefore {
            kept = request
            kept?.text = []
            kept?.graphemes = nil
        }
        let template = MeasureTemplate(members: members, engine: ObjectIdentifier(engine), encoding: session.offsetEncoding,
                                       request: kept)
        // (What it replaces is released after the lock, not under it.)
        let replaced = session.connection.measureTemplate.withLock { slot -> MeasureTemplate? in
            defer { slot = template }
            return slot
        }
        _ = replaced
    }

    /// `request` measured (at each of `widths`, when given); `settings`: its
    /// `MeasuredParagraphs.settingsDigest`, when known.
    private static func measure(_ request: consuming LayoutRequest, widths: [Double]?, settings: Int?,
                                engine: TextLayoutEngine, session: Session) throws(RPCError) -> MeasureReply {
        let fingerprint = engine.fonts.fingerprint
        do {
            guard let widths else {
                switch try engine.measurePlainParagraph(request, settings: settings, deferredRelease: session.deferredRelease) {
                case .measured(let size):
                    return .one(MeasureResult(width: wire(size.width), height: wire(size.height), lineCount: size.lineCount,
                                              truncated: false, fontFingerprint: fingerprint))
                case .notPlain(let request):
                    let layout = try engine.layout(request, deferredRelease: session.deferredRelease)
                    return .one(measure(layout, fontFingerprint: fingerprint))
                }
            }
            let layouts = try engine.layouts(request, widths: widths.map { Optional($0) },
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
