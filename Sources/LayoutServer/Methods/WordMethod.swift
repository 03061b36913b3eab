import LayoutEngine
import LayoutProtocol

/// `word`: the word segment (UAX #29 word boundaries) holding the character at `index`.
enum WordMethod: Method {
    static let name = "word"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> WordParams { try WordParams(json: params) }

    static func run(_ p: WordParams, in context: MethodContext) throws(RPCError) -> RangeResult {
        let retained = try context.layout(p.target)
        let index = try context.utf16Offset(p.index, in: retained)
        let boundaries: [Int]
        do {
            boundaries = try context.service.engine.boundaries(.word, of: retained.text, language: retained.params.language ?? "")
        } catch {
            throw LayoutService.rpcError(error)
        }
        // The segment holding the character at index (the one before it at the very end).
        let k = max(0, min(boundaries.partitionPoint { $0 <= index } - 1, boundaries.count - 2))
        let mapping = retained.mapping(context.session.offsetEncoding)
        let start = boundaries[k], end = boundaries.count > 1 ? boundaries[k + 1] : 0
        return RangeResult(start: mapping.convert(start), end: mapping.convert(end))
    }
}
