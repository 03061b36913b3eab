import LayoutEngine
import LayoutProtocol

/// `word`: the word segment (UAX #29 word boundaries) holding the character at `index`.
enum WordMethod: Method {
    static let name = "word"
    static let order = MethodOrder.concurrent(quick: true)
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> WordParams { try WordParams(json: params) }

    static func run(_ p: WordParams, in context: MethodContext) throws(RPCError) -> RangeResult {
        let doc = try context.layout(p.target)
        // Words end at paragraph separators (UAX #29 WB3a, WB3b): the piece holds the word.
        let (at, index) = try context.locate(p.index, in: doc)
        let word: (start: Int, end: Int)
        do {
            word = try context.service.engine.wordRange(at: index, of: at.piece.text, language: doc.params.language ?? "")
        } catch {
            throw LayoutService.rpcError(error)
        }
        let mapping = at.piece.mapping(context.session.offsetEncoding)
        return RangeResult(start: at.convert(word.start, mapping), end: at.convert(word.end, mapping))
    }
}
