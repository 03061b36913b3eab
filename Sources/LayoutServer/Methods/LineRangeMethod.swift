import LayoutEngine
import LayoutProtocol

/// `lineRange`: the line holding `index` (the affinity says which at a line boundary), its
/// index, and the paragraph around it.
enum LineRangeMethod: Method {
    static let name = "lineRange"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> CaretParams { try CaretParams(json: params) }

    static func run(_ p: CaretParams, in context: MethodContext) throws(RPCError) -> LineRangeResult {
        let retained = try context.layout(p.target)
        let index = try context.utf16Offset(p.index, in: retained)
        guard let l = retained.layout.lineIndex(of: index, affinity: MethodContext.affinity(p.affinity)) else {
            throw RPCError(.internalError, "internal error: no lines")
        }
        let line = retained.layout.lines[l]
        let paragraph = paragraphAround(line.start, line.end, in: retained.text)
        let mapping = retained.mapping(context.session.offsetEncoding)
        return LineRangeResult(line: RangeResult(start: mapping.convert(line.start), end: mapping.convert(line.end)), index: l,
                               paragraph: RangeResult(start: mapping.convert(paragraph.lowerBound),
                                                      end: mapping.convert(paragraph.upperBound)))
    }

    /// From after the separator before `start` to past the one ending the paragraph at or
    /// after `end` (a CR LF pair counts as one).
    static func paragraphAround(_ start: Int, _ end: Int, in text: [UInt16]) -> Range<Int> {
        func isSeparator(_ u: UInt16) -> Bool { u == 0x0A || u == 0x0D || u == 0x85 || u == 0x2029 }
        var ps = start
        while ps > 0, !isSeparator(text[ps - 1]) { ps -= 1 }
        var pe = end
        while pe < text.count, pe > 0, !isSeparator(text[pe - 1]) { pe += 1 }
        if pe < text.count, pe > 0, text[pe - 1] == 0x0D, text[pe] == 0x0A { pe += 1 }
        return ps..<pe
    }
}
