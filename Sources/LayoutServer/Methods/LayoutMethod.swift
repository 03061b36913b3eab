import LayoutProtocol

/// `layout`: the layout params → lines, runs, regions; with `retain`, kept for queries and
/// answered with its handle.
enum LayoutMethod: Method {
    static let name = "layout"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> LayoutParams { try LayoutParams(json: params) }

    static func run(_ p: LayoutParams, in context: MethodContext) throws(RPCError) -> LayoutResult {
        let service = context.service, session = context.session
        let retained = try service.perform(p, session: session, geometry: p.retain)
        try service.checkResultEstimate(retained.layout, detail: retained.detail)
        let handle = p.retain ? service.store.insert(retained) : nil
        session.releaseAfterAnswer(retained)
        return service.result(retained, session: session, handle: handle)
    }
}
