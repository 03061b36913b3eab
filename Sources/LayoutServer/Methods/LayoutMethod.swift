import LayoutProtocol

/// `layout`: the layout params → lines, runs, regions; with `retain`, kept for queries and
/// answered with its handle; with `viewport`, only the lines and regions that meet it.
enum LayoutMethod: Method {
    static let name = "layout"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> LayoutParams { try LayoutParams(json: params) }

    static func run(_ p: LayoutParams, in context: MethodContext) throws(RPCError) -> LayoutResult {
        let service = context.service, session = context.session
        let retained = try service.perform(p, session: session, geometry: p.retain)
        let viewport = p.viewport.map { ViewportSelection($0, lines: retained.layout.lines) }
        try service.checkResultEstimate(retained.layout, detail: retained.detail, lines: viewport?.lines)
        let handle = p.retain ? service.store.insert(retained) : nil
        session.releaseAfterAnswer(retained)
        let result = service.result(retained, session: session, handle: handle, lines: viewport?.lines)
        return viewport?.applied(to: result, lineCount: retained.layout.lines.count) ?? result
    }
}
