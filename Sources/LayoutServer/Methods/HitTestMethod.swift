import LayoutEngine
import LayoutProtocol

/// `hitTest`: the text position under a point (`x`, `y` in the layout's space), and the
/// region there (the last one drawn over the point) if any.
enum HitTestMethod: Method {
    static let name = "hitTest"
    static let order = MethodOrder.concurrent(quick: true)
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> HitTestParams { try HitTestParams(json: params) }

    static func run(_ p: HitTestParams, in context: MethodContext) throws(RPCError) -> LayoutProtocol.HitTestResult {
        let retained = try context.layout(p.target)
        let x = p.x, y = p.y
        guard let hit = retained.layout.hitTest(x: x, y: y) else { throw RPCError(.internalError, "internal error: no geometry kept") }
        let mapping = retained.mapping(context.session.offsetEncoding)
        let region = retained.regions.last { r in r.rects.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY } }
        return LayoutProtocol.HitTestResult(
            index: mapping.convert(hit.index), character: hit.character.map(mapping.convert), line: hit.line,
            affinity: hit.affinity.rawValue,
            region: region.map {
                LayoutProtocol.HitTestResult.Region(kind: $0.kind, start: mapping.convert($0.start), end: mapping.convert($0.end),
                                     value: $0.value, enabled: $0.enabled)
            })
    }
}
