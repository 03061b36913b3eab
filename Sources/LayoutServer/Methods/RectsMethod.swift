import LayoutEngine
import LayoutProtocol

/// `rects`: the selection rectangles of a range in one layout, or of a selection over several
/// (each layout's moved by its origin). Not quick: the answer grows with the range asked for.
enum RectsMethod: Method {
    static let name = "rects"
    static let order = MethodOrder.concurrent(quick: false)
    static let reportsUnknownHandleFirst = true
    /// The fewest bytes a rect takes in a result.
    static let minimumRectBytes = 34

    static func decode(_ params: JSONValue?) throws(RPCError) -> RectsParams { try RectsParams(json: params) }

    static func run(_ p: RectsParams, in context: MethodContext) throws(RPCError) -> RectsResult {
        switch p {
        case .range(let target, let start, let end):
            let doc = try context.layout(target)
            let s = try context.utf16Offset(start, in: doc), e = try context.utf16Offset(end, in: doc)
            guard e >= s else { throw .invalidParams(field: "end", "must not be less than `start`") }
            try context.service.checkOutputEstimate(doc.lineCount(s, e) * minimumRectBytes)
            let rects = try doc.rects(s, e, stop: context.service.stopCheck(context.session)) { (at) throws(RPCError) in
                try context.full(at, of: doc, target: target)
            }
            return .range(rects.map(wireRect))
        case .selection(let selection):
            return .selection(try rects(of: context.parts(of: selection), in: context))
        }
    }

    private static func rects(of selection: [SelectionPart], in context: MethodContext)
        throws(RPCError) -> [(layout: Int, rects: [RectParams])] {
        // Each line a part touches gives at least one rect: refuse what cannot fit first.
        try context.service.checkOutputEstimate(
            selection.reduce(0) { $0 + $1.doc.lineCount($1.start, $1.end) } * minimumRectBytes)
        let stop = context.service.stopCheck(context.session)
        var parts: [(layout: Int, rects: [RectParams])] = []
        for part in selection {
            try context.service.checkStop(stop)
            let rects = try part.doc.rects(part.start, part.end, stop: stop) { (at) throws(RPCError) in
                try context.service.full(at, of: part.doc, handle: part.handle, session: context.session)
            }.map {
                wireRect(Rect(x: $0.x + part.origin.x, y: $0.y + part.origin.y, width: $0.width, height: $0.height))
            }
            parts.append((part.index, rects))
        }
        return parts
    }
}
