import LayoutEngine
import LayoutProtocol

/// `lineRange`: the line holding `index` (the affinity says which at a line boundary), its
/// index, and the paragraph around it.
enum LineRangeMethod: Method {
    static let name = "lineRange"
    static let order = MethodOrder.concurrent(quick: true)
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> CaretParams { try CaretParams(json: params) }

    static func run(_ p: CaretParams, in context: MethodContext) throws(RPCError) -> LineRangeResult {
        let (at, index) = try context.locate(p.index, in: try context.layout(p.target))
        guard let l = at.piece.layout.lineIndex(of: index, affinity: MethodContext.affinity(p.affinity)) else {
            throw RPCError(.internalError, "internal error: no lines")
        }
        let line = at.piece.layout.lines[l]
        // A piece holds whole paragraphs: the line's paragraph is in it.
        let paragraph = paragraphBounds(around: line.start, line.end, in: at.piece.text)
        let mapping = at.piece.mapping(context.session.offsetEncoding)
        return LineRangeResult(line: RangeResult(start: at.convert(line.start, mapping), end: at.convert(line.end, mapping)),
                               index: at.line(l),
                               paragraph: RangeResult(start: at.convert(paragraph.start, mapping),
                                                      end: at.convert(paragraph.end, mapping)))
    }
}
