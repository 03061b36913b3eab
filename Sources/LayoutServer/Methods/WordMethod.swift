import LayoutEngine
import LayoutProtocol

/// `word`: the word segment (UAX #29 word boundaries) holding the character at `index`.
enum WordMethod: Method {
    static let name = "word"
    static let order = MethodOrder.concurrent(quick: true)
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> WordParams { try WordParams(json: params) }

    static func run(_ p: WordParams, in context: MethodContext) throws(RPCError) -> RangeResult {
        let retained = try context.layout(p.target)
        let index = try context.utf16Offset(p.index, in: retained)
        let word: (start: Int, end: Int)
        do {
            word = try context.service.engine.wordRange(at: index, of: retained.text, language: retained.params.language ?? "")
        } catch {
            throw LayoutService.rpcError(error)
        }
        let mapping = retained.mapping(context.session.offsetEncoding)
        return RangeResult(start: mapping.convert(word.start), end: mapping.convert(word.end))
    }
}
