import LayoutEngine
import LayoutProtocol

/// `caret`: where the caret before the grapheme at `index` is drawn, with the weak caret at a
/// direction boundary (UAX #9 levels decide which side each caret is on).
enum CaretMethod: Method {
    static let name = "caret"
    static let order = MethodOrder.concurrent(quick: true)
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> CaretParams { try CaretParams(json: params) }

    static func run(_ p: CaretParams, in context: MethodContext) throws(RPCError) -> CaretResult {
        let doc = try context.layout(p.target)
        let (found, local) = try context.locate(p.index, in: doc)
        let at = try context.full(found, of: doc, target: p.target)
        let index = at.piece.graphemeStart(atOrBefore: local)
        guard let caret = at.piece.layout.caret(at: index, affinity: MethodContext.affinity(p.affinity)) else {
            throw RPCError(.internalError, "internal error: no geometry kept")
        }
        return CaretResult(x: wire(caret.x), y: wire(caret.y + at.top), height: wire(caret.height), line: at.line(caret.line),
                           weakX: caret.weakX.map(wire))
    }
}
