import LayoutProtocol

/// `render`: a picture of a layout drawn by a line-renderer plugin (see `LayoutService.render`).
/// Not quick: its work grows with the picture's size, which is asked for.
enum RenderMethod: Method {
    static let name = "render"
    static let order = MethodOrder.concurrent(quick: false)

    static func decode(_ params: JSONValue?) throws(RPCError) -> RenderParams { try RenderParams(json: params) }

    static func run(_ p: RenderParams, in context: MethodContext) throws(RPCError) -> RenderResult {
        let retained: RetainedLayout
        if let handle = p.handle {
            retained = try context.retained(handle).whole(context.service, session: context.session)
        } else if let layout = p.layout {
            retained = try context.service.perform(layout, session: context.session, keeping: .everything)
        } else {
            throw .invalidParams(field: "handle", "is required (or the layout params, with `text`)")
        }
        return try context.service.render(p, retained, session: context.session)
    }
}
