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
        let retained = try context.layout(p.target)
        let index = try context.utf16Offset(p.index, in: retained)
        guard let l = retained.layout.lineIndex(of: index, affinity: MethodContext.affinity(p.affinity)) else {
            throw RPCError(.internalError, "internal error: no lines")
        }
        let line = retained.layout.lines[l]
        let paragraph = paragraphBounds(around: line.start, line.end, in: retained.text)
        let mapping = retained.mapping(context.session.offsetEncoding)
        return LineRangeResult(line: RangeResult(start: mapping.convert(line.start), end: mapping.convert(line.end)), index: l,
                               paragraph: RangeResult(start: mapping.convert(paragraph.start),
                                                      end: mapping.convert(paragraph.end)))
    }
}
