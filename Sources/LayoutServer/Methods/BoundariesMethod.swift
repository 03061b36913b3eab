import LayoutEngine
import LayoutProtocol

/// `boundaries`: the grapheme, word, sentence or line-break boundaries of a text (UAX #29,
/// UAX #14, through ICU).
enum BoundariesMethod: Method {
    static let name = "boundaries"
    static let order = MethodOrder.concurrent(quick: true)

    static func decode(_ params: JSONValue?) throws(RPCError) -> BoundariesParams { try BoundariesParams(json: params) }

    static func run(_ p: BoundariesParams, in context: MethodContext) throws(RPCError) -> BoundariesResult {
        let service = context.service
        let text = try service.requestText(units: p.textUnits, text: p.text)
        guard let kind = BoundaryKind(rawValue: p.kind) else { throw .invalidParams(field: "kind", "is not known") }
        let offsets: [Int]
        do { offsets = try service.engine.boundaries(kind, of: text, language: p.language ?? "") } catch {
            throw LayoutService.rpcError(error)
        }
        let mapping = OffsetMapping(text: text, encoding: context.session.offsetEncoding.engineEncoding)
        return BoundariesResult(offsets: offsets.map(mapping.convert))
    }
}
