import LayoutProtocol

/// `layout`: the layout params → lines, runs, regions; with `retain`, kept for queries and
/// answered with its handle; with `viewport`, only the lines and regions that meet it.
enum LayoutMethod: Method {
    static let name = "layout"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> LayoutParams { try LayoutParams(json: params) }

    static func run(_ p: LayoutParams, in context: MethodContext) throws(RPCError) -> LayoutResult {
        let service = context.service, session = context.session
        let doc = p.retain ? try service.retainDocument(p, session: session)
            : RetainedDocument(whole: try service.perform(p, session: session, keeping: .nothing))
        let viewport = p.viewport.map { ViewportSelection($0, in: doc) }
        try service.checkResultEstimate(doc, lines: viewport?.lines)
        let handle = p.retain ? service.store.insert(doc) : nil
        session.releaseAfterAnswer(doc)
        var result = service.result(doc, session: session, handle: handle, lines: viewport?.lines, viewport: p.viewport)
        if viewport != nil { result.lineCount = doc.lineCount }
        return result
    }
}
