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
        // The piece whose band holds the point (the gap above it included), in its own y.
        let doc = try context.layout(p.target)
        let at = try context.full(doc.piece(atY: p.y), of: doc, target: p.target)
        let x = p.x, y = p.y - at.top
        guard let hit = at.piece.layout.hitTest(x: x, y: y) else { throw RPCError(.internalError, "internal error: no geometry kept") }
        let mapping = at.piece.mapping(context.session.offsetEncoding)
        let region = at.piece.regions.last { r in r.rects.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY } }
        return LayoutProtocol.HitTestResult(
            index: at.convert(hit.index, mapping), character: hit.character.map { at.convert($0, mapping) },
            line: at.line(hit.line), affinity: hit.affinity.rawValue,
            region: region.map {
                LayoutProtocol.HitTestResult.Region(kind: $0.kind, start: at.convert($0.start, mapping),
                                                    end: at.convert($0.end, mapping), value: $0.value, enabled: $0.enabled)
            })
    }
}
